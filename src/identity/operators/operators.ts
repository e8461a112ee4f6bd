import type { AuditActor } from '../../platform/audit/audit';
import { DomainError } from '../../platform/errors';
import { ADMINISTRATOR_ROLE, OPERATOR_PERMISSIONS } from '../directory/permissions';
import { roleAssignmentInput, type DirectoryService } from '../directory/service';
import type { TenantService } from '../tenants/service';
import type { UserService } from '../users/service';

export interface OperatorResult {
  id: string;
  subject: string;
  email: string;
  /** Whether the user was created now (false: the control tenant had them). */
  created: boolean;
  passwordSet: boolean;
  permissions: string[];
  /** Whether the administrator role was assigned now (false: they held it). */
  assigned: boolean;
}

/**
 * An operator is a user of the control tenant holding every administration permission through
 * the TENANT role `administrator` (issue 11 point 5): made or completed idempotently. A new
 * operator needs a password, since they sign in through the browser sign-in page (`engage
 * login`); for an existing one, a password given replaces theirs (recovery on the database).
 */
export async function ensureOperator(
  deps: { tenants: TenantService; users: UserService; directory: DirectoryService },
  input: { email: string; password?: string },
  actor: AuditActor,
): Promise<OperatorResult> {
  const control = await deps.tenants.control();
  if (!control) throw new DomainError('not_found', 'unknown_tenant', 'the control tenant does not exist');
  let user = await deps.users.findByEmail(control.id, input.email);
  const created = !user;
  if (!user) {
    if (input.password === undefined) throw new DomainError('invalid', 'invalid_request', 'a new operator needs a password to sign in with: give it on standard input with --password-stdin');
    await deps.users.create(control.id, { email: input.email, emailVerified: true, password: input.password }, actor);
    user = (await deps.users.findByEmail(control.id, input.email))!;
  } else if (input.password !== undefined) {
    await deps.users.changePassword(control.id, user.id, input.password);
  }
  const permissions = [...OPERATOR_PERMISSIONS];
  const granted = await deps.directory.grantAdministrator(control.id, user.subject, permissions, actor);
  return { id: user.id, subject: user.subject, email: user.email, created, passwordSet: input.password !== undefined, permissions, assigned: granted.assigned };
}

/** What `grantPermissions` did: per permission, whether it was granted (or revoked) now. */
export interface PermissionGrant {
  email: string;
  subject: string;
  permissions: { key: string; changed: boolean }[];
}

/** The TENANT role that holds exactly one permission, for operators granted it one by one. */
export const grantRoleKey = (permission: string) => `grant.${permission}`;

/**
 * Grants an existing operator some permissions, or revokes them (`engage operators grant|revoke`),
 * e.g. one narrowed to an engagement environment (`engage.admin.manage:staging`): each permission
 * is made in the control tenant's directory when absent, with a TENANT role `grant.<key>`
 * holding it alone, and the role is assigned to (or taken from) the operator. Idempotent: what
 * is there already is left (`changed: false`). Roles and permissions stay when revoked. The
 * operator must exist (a control-tenant user): `engage operators create` makes one with every
 * permission, `engage users create --tenant control` one with none.
 */
export async function grantPermissions(
  deps: { tenants: TenantService; users: UserService; directory: DirectoryService },
  input: { email: string; permissions: string[]; revoke?: boolean },
  actor: AuditActor,
): Promise<PermissionGrant> {
  const control = await deps.tenants.control();
  if (!control) throw new DomainError('not_found', 'unknown_tenant', 'the control tenant does not exist');
  const user = await deps.users.findByEmail(control.id, input.email);
  if (!user) throw new DomainError('not_found', 'unknown_user', `no operator ${input.email}: make them with engage operators create (every permission) or engage users create --tenant control (none)`);
  // The directory answers "exists" or "already" as a rejection: that is the idempotent case here.
  const unlessThere = async (step: () => Promise<unknown>): Promise<boolean> => {
    try {
      await step();
      return true;
    } catch (e) {
      // "no role": a revoke of a permission never granted one by one (its role not made yet).
      if (e instanceof DomainError && e.code === 'directory_operation_rejected' && /exists|already|no such assignment|^no role /.test(e.message)) return false;
      throw e;
    }
  };
  const out: PermissionGrant = { email: user.email, subject: user.subject, permissions: [] };
  const keys = [...new Set(input.permissions)];
  const assignment = (roleKey: string) => roleAssignmentInput({ roleKey, subject: user.subject, scope: 'TENANT', organizationId: null, teamId: null });
  const grantOne = async (key: string): Promise<boolean> => {
    await unlessThere(() => deps.directory.createPermission(control.id, { key, displayName: key }, actor));
    if (await unlessThere(() => deps.directory.createRole(control.id, { key: grantRoleKey(key), displayName: key, scope: 'TENANT' }, actor)))
      await deps.directory.addRolePermission(control.id, grantRoleKey(key), { key }, actor);
    return unlessThere(() => deps.directory.assignRole(control.id, assignment(grantRoleKey(key)), actor));
  };
  // An operator made by `engage operators create` holds every administration permission through
  // the `administrator` role: revoking some of them takes that role and grants the others one by
  // one, so the operator keeps exactly the rest (a narrowed operator can be made from a full one).
  let fromAdministrator = new Set<string>();
  if (input.revoke && keys.some((k) => OPERATOR_PERMISSIONS.includes(k))) {
    // The CLI's door of an assignment, checked first by the schema the role-assignments route declares.
    for (const key of keys) assignment(grantRoleKey(key));
    if (await unlessThere(() => deps.directory.revokeRole(control.id, assignment(ADMINISTRATOR_ROLE), actor))) {
      fromAdministrator = new Set(keys.filter((k) => OPERATOR_PERMISSIONS.includes(k)));
      for (const key of OPERATOR_PERMISSIONS) if (!fromAdministrator.has(key)) await grantOne(key);
    }
  }
  for (const key of keys) {
    if (input.revoke) {
      // The CLI's door of an assignment, checked by the schema the role-assignments route declares.
      const changed = await unlessThere(() => deps.directory.revokeRole(control.id, assignment(grantRoleKey(key)), actor));
      out.permissions.push({ key, changed: changed || fromAdministrator.has(key) });
      continue;
    }
    // A grant's permission and role are checked by their own creation first (the same order as before).
    out.permissions.push({ key, changed: await grantOne(key) });
  }
  return out;
}
