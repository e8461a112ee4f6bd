/**
 * Spec 03 directory wire shapes ("Directory objects"). Bodies are closed objects; slugs, keys
 * and subjects have the bounds below (the contract leaves them open: docs/decisions.md
 * "Directory API"). The same checkers validate CLI input in the service.
 */
import { checker, Enum, Nullable, Strict, T } from '../../platform/http/schema';
import { pageOf } from '../../platform/http/pagination';

/** Lower-case letters, digits and inner hyphens, 1 to 63 characters (a DNS label, as Auth0 organization names). */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';
/** Permission and role keys: scope-like tokens (`directory.read`, `billing:write`), 1 to 128 characters. */
export const KEY_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9._:-]{0,126}[A-Za-z0-9])?$';

const Slug = (description: string) => T.String({ pattern: SLUG_PATTERN, description });
const Key = (description: string) => T.String({ pattern: KEY_PATTERN, description });
const DisplayName = () => T.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: 'shown to people, 1 to 200 characters' });
/** A tenant-local subject: the `sub` of the tenant's tokens. */
export const Subject = () => T.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: 'tenant-local subject (the sub of the tenant\'s tokens)' });
const Id = (description: string) => T.String({ format: 'uuid', description });
const Status = () => Enum(['ACTIVE', 'DISABLED'] as const);
export const Scope = () => Enum(['TENANT', 'ORGANIZATION', 'TEAM'] as const, { description: 'TENANT, ORGANIZATION or TEAM' });

export const SlugParam = Slug('a slug');
export const KeyParam = Key('a key');
export const checkSlug = checker(SlugParam);
export const checkKey = checker(KeyParam);
export const checkSubject = checker(Subject());

// Requests.
export const OrganizationCreate = Strict({ slug: Slug('unique in the tenant'), displayName: DisplayName() });
export const TeamCreate = Strict({ slug: Slug('unique in the organization'), displayName: DisplayName() });
export const PermissionCreate = Strict({ key: Key('unique in the tenant'), displayName: DisplayName() });
export const RoleCreate = Strict({ key: Key('unique in the tenant'), displayName: DisplayName(), scope: Scope() });
export const RolePermissionAdd = Strict({ key: Key('an existing permission key') });
export const MemberChange = Strict({ subject: Subject() });
export const RoleAssignmentBody = Strict({
  roleKey: Key('an existing role key'),
  subject: Subject(),
  scope: Scope(),
  organizationId: Nullable(Id('set for ORGANIZATION and TEAM, null for TENANT')),
  teamId: Nullable(Id('set for TEAM, null otherwise')),
});

export const checkOrganizationCreate = checker(OrganizationCreate);
export const checkTeamCreate = checker(TeamCreate);
export const checkPermissionCreate = checker(PermissionCreate);
export const checkRoleCreate = checker(RoleCreate);
export const checkRolePermissionAdd = checker(RolePermissionAdd);
export const checkMemberChange = checker(MemberChange);
export const checkRoleAssignment = checker(RoleAssignmentBody);

// Answers.
export const Created = T.Object({ id: Id('generated') }, { additionalProperties: false });
export const OrganizationView = T.Object({ id: Id('generated'), slug: T.String(), displayName: T.String(), status: Status() });
export const TeamView = T.Object({ id: Id('generated'), organizationId: Id('its organization'), slug: T.String(), displayName: T.String(), status: Status() });
export const MemberView = T.Object({ subject: T.String(), status: Status() });
export const PermissionView = T.Object({ key: T.String(), displayName: T.String(), status: Status() });
export const RoleView = T.Object({ id: Id('generated'), key: T.String(), displayName: T.String(), scope: Scope(), status: Status() });
export const RoleAssignmentView = T.Object({ roleKey: T.String(), subject: T.String(), scope: Scope(), organizationId: Nullable(Id('')), teamId: Nullable(Id('')) });

export const OrganizationPage = pageOf(OrganizationView);
export const TeamPage = pageOf(TeamView);
export const MemberPage = pageOf(MemberView);
export const PermissionPage = pageOf(PermissionView);
export const RolePage = pageOf(RoleView);
export const RoleAssignmentPage = pageOf(RoleAssignmentView);

export const ErrorBody = T.Object({ error: T.String() });
