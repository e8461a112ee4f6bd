import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import type { AuditActor } from '../../platform/audit/audit';
import type { AuditStore } from '../../platform/audit/store';
import { CatalogCache } from '../../platform/catalog';
import type { Page, PageRequest } from '../../platform/http/pagination';
import { validInput, type Checker, type Static, type TSchema } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { onUnique } from '../../platform/store/sql';
import type { UserTx } from '../users/service';
import { DirectoryErrors } from './errors';
import { ADMINISTRATOR_ROLE } from './permissions';
import {
  checkKey, checkPermissionCreate, checkRoleAssignment, checkRoleCreate, checkRolePermissionAdd, type MemberChange, type OrganizationCreate, type RoleAssignmentBody,
  type TeamCreate,
} from './schemas';
import type { DirectoryStore, Member, Organization, Permission, Role, RoleAssignment, Team } from './store';

/** The users' own transaction stores (users/service.ts `UserTx`): a member must be a user of the tenant, read in the transaction. */
type Stores = { directory: DirectoryStore; audit: AuditStore } & UserTx;
/** The stores a transaction that writes the directory must carry. */
export type DirectoryTx = { directory: DirectoryStore };
type Tx = Stores;

export type RoleAssignmentInput = Static<typeof RoleAssignmentBody>;
type MemberInput = Static<typeof MemberChange>;
/**
 * An assignment from the CLI's door (`engage operators grant|revoke`), checked by the schema the
 * role-assignments routes declare: each door checks its input once, with the same schema, and
 * assignRole / revokeRole take it checked.
 */
export const roleAssignmentInput = (value: unknown): RoleAssignmentInput => validInput(checkRoleAssignment, value, DirectoryErrors.invalid);
/**
 * What `engage apply` owns (configuration-managed roles) is refused to every other caller, the
 * directory API and CLI alike (issue 21); apply passes allowManaged, as it does for clients.
 */
export interface ManagedOption {
  allowManaged?: boolean;
}

const input = <S extends TSchema>(check: Checker<S>, value: unknown) => validInput(check, value, DirectoryErrors.invalid);
const keyOf = (v: string, what: string) => {
  if (!checkKey.is(v)) throw DirectoryErrors.invalid(`${what}: must be a key`);
  return v;
};

/** Answers kept per (tenant, subject, key) while the directory version stands still. */
const PERMISSION_CACHE_SIZE = 50_000;

/**
 * The tenant directory (spec 03): organizations, teams, memberships, permissions, roles and
 * role assignments, and the live permission check of the directory and management APIs.
 * Every mutation records an audit event in its transaction. Rules (docs/decisions.md
 * "Directory API"): a member is a user of the tenant; a role is assigned in the context its
 * scope names; an ORGANIZATION assignment needs the organization membership and a TEAM one the
 * team membership; removing a membership removes what depends on it.
 */
export function createDirectoryService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; directoryVersion?: () => number }) {
  const { store, clock } = deps;
  const now = () => clock.now();
  // Without a version to watch, every check reads the database.
  const cache = deps.directoryVersion ? new CatalogCache<boolean>(deps.directoryVersion, PERMISSION_CACHE_SIZE) : undefined;

  // Organizations and teams are reached over HTTP only: their slugs were checked by the route's declaration.
  // `lock`: a write adding to or deleting the object locks its row until commit (store.ts `locked`).
  const organization = async (tx: Tx, tenantId: string, slug: string, lock = false): Promise<Organization> =>
    (await tx.directory.organizationBySlug(tenantId, slug, lock)) ?? reject(`no organization ${slug}`);
  const team = async (tx: Tx, tenantId: string, orgSlug: string, teamSlug: string, lock = false): Promise<Team> => {
    const org = await organization(tx, tenantId, orgSlug, lock);
    return (await tx.directory.teamBySlug(tenantId, org.id, teamSlug, lock)) ?? reject(`no team ${teamSlug} in ${orgSlug}`);
  };
  const roleByKey = async (tx: Tx, tenantId: string, key: string, lock = false): Promise<Role & { configurationManaged: boolean }> =>
    (await tx.directory.roleByKey(tenantId, key, lock)) ?? reject(`no role ${key}`);
  /** A role named by a caller whose key no declaration checked (`engage apply` and the CLI call these too). */
  const role = (tx: Tx, tenantId: string, key: string, lock = false) => roleByKey(tx, tenantId, keyOf(key, 'roleKey'), lock);
  /** A role whose permissions change (its row locked): refused when `engage apply` owns it, unless apply is the caller. */
  const editableRole = async (tx: Tx, tenantId: string, key: string, opts: ManagedOption) => {
    const r = await role(tx, tenantId, key, true);
    if (r.configurationManaged && !opts.allowManaged) throw DirectoryErrors.configurationManaged(`role ${r.key}`);
    return r;
  };
  const user = async (tx: Tx, tenantId: string, subject: string) => {
    const u = await tx.users.findBySubject(tenantId, subject);
    if (!u) reject(`no user with subject ${subject} in the tenant`);
  };

  /**
   * The assignment's context checked against the role and the memberships (spec 03 context
   * rules). Its shape was checked by the door it came through (the route's declaration, or
   * `roleAssignmentInput`).
   */
  async function assignment(tx: Tx, tenantId: string, a: RoleAssignmentInput, lock = false) {
    const shapeOk =
      a.scope === 'TENANT' ? a.organizationId === null && a.teamId === null : a.scope === 'ORGANIZATION' ? a.organizationId !== null && a.teamId === null : a.organizationId !== null && a.teamId !== null;
    if (!shapeOk) throw DirectoryErrors.invalid(`scope ${a.scope}: organizationId and teamId do not fit the scope context`);
    const r = await roleByKey(tx, tenantId, a.roleKey, lock);
    return { a, r };
  }

  return {
    // --- the permission core (issue 11 contracts §1) ----------------------------------------
    /**
     * Whether `subject` holds the live permission `key` in the tenant: through a role assigned
     * at TENANT scope whose role and permission are ACTIVE (ORGANIZATION and TEAM assignments
     * do not grant API access). Cached while the directory version stands still (migration
     * 0009's triggers move it with every change to permissions, roles, role permissions and
     * assignments, by any process).
     */
    async hasPermission(tenantId: string, subject: string, key: string): Promise<boolean> {
      if (!cache) return store.directory.hasPermission(tenantId, subject, key);
      const k = `${tenantId}\n${subject}\n${key}`;
      const hit = cache.peek(k);
      if (hit !== undefined) return hit;
      return (await cache.get(k, () => store.directory.hasPermission(tenantId, subject, key))) ?? false;
    },

    /**
     * Every live permission of `subject` in the tenant (what `hasPermission` answers true for),
     * read in the caller's transaction, uncached: the management API compares an operator's
     * with the user they change (issue 21).
     */
    livePermissionsIn(tx: DirectoryTx, tenantId: string, subject: string): Promise<string[]> {
      return tx.directory.livePermissions(tenantId, subject);
    },

    /**
     * Makes `subject` an administrator of the tenant, idempotently: the permissions (created
     * when absent), the TENANT role `administrator` (created or re-used, the permissions added)
     * and its assignment to the subject. The subject must be a user of the tenant.
     */
    async grantAdministrator(tenantId: string, subject: string, permissionKeys: string[], actor: AuditActor) {
      for (const k of permissionKeys) keyOf(k, 'permission');
      const at = now();
      const ts = at.toISOString();
      return store.tx(async (tx) => {
        await user(tx, tenantId, subject);
        const audit = (action: string, targetType: string, targetId: string, details: Record<string, unknown>) =>
          tx.audit.record(actor, { tenantId, action, targetType, targetId, details, at });
        const createdPermissions: string[] = [];
        for (const key of permissionKeys) {
          if (await tx.directory.insertPermission(tenantId, { key, displayName: key }, ts)) {
            createdPermissions.push(key);
            await audit('directory.permission.created', 'directory_permission', key, { key });
          }
        }
        const id = newId();
        if (await tx.directory.insertRole(tenantId, { id, key: ADMINISTRATOR_ROLE, displayName: 'Administrator', scope: 'TENANT' }, ts))
          await audit('directory.role.created', 'directory_role', id, { key: ADMINISTRATOR_ROLE, scope: 'TENANT' });
        const r = (await tx.directory.roleByKey(tenantId, ADMINISTRATOR_ROLE, true))!;
        if (r.scope !== 'TENANT') reject(`role ${ADMINISTRATOR_ROLE} exists with scope ${r.scope}`);
        const addedPermissions: string[] = [];
        for (const key of permissionKeys) {
          if (await tx.directory.addRolePermission(tenantId, r.id, key, ts)) {
            addedPermissions.push(key);
            await audit('directory.role_permission.added', 'directory_role', r.id, { roleKey: r.key, permissionKey: key });
          }
        }
        const assigned = await tx.directory.assign({ tenantId, roleId: r.id, subject, scope: 'TENANT', organizationId: null, teamId: null }, ts);
        if (assigned) await audit('directory.role_assignment.created', 'directory_role_assignment', r.id, { roleKey: r.key, subject, scope: 'TENANT', organizationId: null, teamId: null });
        return { roleId: r.id, createdPermissions, addedPermissions, assigned };
      });
    },

    /**
     * For the users context, in its own transaction: a deleted user's memberships and role
     * assignments go with it (the subject is never reused, but the directory should not list a
     * member who no longer exists). Returns how many rows were removed.
     */
    forgetSubjectIn(tx: Pick<Stores, 'directory'>, tenantId: string, subject: string): Promise<number> {
      return tx.directory.forgetSubject(tenantId, subject);
    },

    // --- reads --------------------------------------------------------------------------------
    organizations: (tenantId: string, page: PageRequest): Promise<Page<Organization>> => store.directory.organizations(tenantId, page),
    async teams(tenantId: string, orgSlug: string, page: PageRequest): Promise<Page<Team>> {
      return store.directory.teams(tenantId, (await organization(store, tenantId, orgSlug)).id, page);
    },
    async organizationMembers(tenantId: string, orgSlug: string, page: PageRequest): Promise<Page<Member>> {
      return store.directory.organizationMembers(tenantId, (await organization(store, tenantId, orgSlug)).id, page);
    },
    async teamMembers(tenantId: string, orgSlug: string, teamSlug: string, page: PageRequest): Promise<Page<Member>> {
      return store.directory.teamMembers(tenantId, (await team(store, tenantId, orgSlug, teamSlug)).id, page);
    },
    permissions: (tenantId: string, page: PageRequest): Promise<Page<Permission>> => store.directory.permissions(tenantId, page),
    roles: (tenantId: string, page: PageRequest): Promise<Page<Role>> => store.directory.roles(tenantId, page),
    async rolePermissions(tenantId: string, roleKey: string, page: PageRequest): Promise<Page<Permission>> {
      return store.directory.rolePermissions(tenantId, (await role(store, tenantId, roleKey)).id, page);
    },
    roleAssignments: (tenantId: string, page: PageRequest): Promise<Page<RoleAssignment>> => store.directory.assignments(tenantId, page),

    // --- mutations ----------------------------------------------------------------------------
    // Organizations, teams and members are changed over HTTP only: the route's declaration is
    // where their input is checked, and these take it typed.
    async createOrganization(tenantId: string, o: Static<typeof OrganizationCreate>, actor: AuditActor): Promise<{ id: string }> {
      const id = newId();
      const at = now();
      return store.tx(async (tx) => {
        if (await tx.directory.organizationBySlug(tenantId, o.slug)) reject(`organization ${o.slug} exists`);
        await tx.directory.insertOrganization(tenantId, { id, ...o }, at.toISOString()).catch(onUnique(() => DirectoryErrors.rejected(`organization ${o.slug} exists`)));
        await tx.audit.record(actor, { tenantId, action: 'directory.organization.created', targetType: 'directory_organization', targetId: id, details: o, at });
        return { id };
      });
    },
    async createTeam(tenantId: string, orgSlug: string, t: Static<typeof TeamCreate>, actor: AuditActor): Promise<{ id: string }> {
      const id = newId();
      const at = now();
      return store.tx(async (tx) => {
        const org = await organization(tx, tenantId, orgSlug, true);
        if (await tx.directory.teamBySlug(tenantId, org.id, t.slug)) reject(`team ${t.slug} exists in ${orgSlug}`);
        await tx.directory.insertTeam(tenantId, { id, organizationId: org.id, ...t }, at.toISOString()).catch(onUnique(() => DirectoryErrors.rejected(`team ${t.slug} exists`)));
        await tx.audit.record(actor, { tenantId, action: 'directory.team.created', targetType: 'directory_team', targetId: id, details: { organizationId: org.id, ...t }, at });
        return { id };
      });
    },
    async addOrganizationMember(tenantId: string, orgSlug: string, { subject }: MemberInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const org = await organization(tx, tenantId, orgSlug, true);
        await user(tx, tenantId, subject);
        if (!(await tx.directory.addOrganizationMember(tenantId, org.id, subject, at.toISOString()))) reject(`${subject} is a member of ${orgSlug} already`);
        await tx.audit.record(actor, { tenantId, action: 'directory.organization_member.added', targetType: 'directory_organization', targetId: org.id, details: { subject }, at });
      });
    },
    /** Spec 03: removing an organization member also removes the team memberships and the ORGANIZATION and TEAM assignments that depend on it. */
    async removeOrganizationMember(tenantId: string, orgSlug: string, { subject }: MemberInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const org = await organization(tx, tenantId, orgSlug);
        if (!(await tx.directory.removeOrganizationMember(tenantId, org.id, subject))) reject(`${subject} is not a member of ${orgSlug}`);
        const teamMemberships = await tx.directory.removeTeamMembershipsIn(tenantId, org.id, subject);
        const assignments = await tx.directory.revokeInOrganization(tenantId, org.id, subject);
        await tx.audit.record(actor, {
          tenantId, action: 'directory.organization_member.removed', targetType: 'directory_organization', targetId: org.id,
          details: { subject, teamMembershipsRemoved: teamMemberships, roleAssignmentsRevoked: assignments }, at,
        });
      });
    },
    /** Spec 03: adding a team member requires a valid organization membership. */
    async addTeamMember(tenantId: string, orgSlug: string, teamSlug: string, { subject }: MemberInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const t = await team(tx, tenantId, orgSlug, teamSlug, true);
        const m = await tx.directory.lockOrganizationMember(tenantId, t.organizationId, subject);
        if (!m || m.status !== 'ACTIVE') reject(`${subject} is not a member of ${orgSlug}`);
        if (!(await tx.directory.addTeamMember(tenantId, t, subject, at.toISOString()))) reject(`${subject} is a member of ${teamSlug} already`);
        await tx.audit.record(actor, { tenantId, action: 'directory.team_member.added', targetType: 'directory_team', targetId: t.id, details: { subject }, at });
      });
    },
    /** Removing a team member also revokes the subject's TEAM assignments in that team (they depend on it). */
    async removeTeamMember(tenantId: string, orgSlug: string, teamSlug: string, { subject }: MemberInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const t = await team(tx, tenantId, orgSlug, teamSlug);
        if (!(await tx.directory.removeTeamMember(tenantId, t.id, subject))) reject(`${subject} is not a member of ${teamSlug}`);
        const assignments = await tx.directory.revokeInTeam(tenantId, t.id, subject);
        await tx.audit.record(actor, { tenantId, action: 'directory.team_member.removed', targetType: 'directory_team', targetId: t.id, details: { subject, roleAssignmentsRevoked: assignments }, at });
      });
    },
    /** The keys of the tenant's permissions and roles `engage apply` owns. */
    managedKeys: (tenantId: string) => store.directory.managedKeys(tenantId),

    /** `engage apply`, in its transaction: a permission's display name as declared, ACTIVE, configuration-managed. */
    async replaceManagedPermissionIn(tx: DirectoryTx, tenantId: string, key: string, displayName: string): Promise<void> {
      await tx.directory.replaceManagedPermission(tenantId, key, displayName);
    },

    /** `engage apply`, in its transaction: a role's display name as declared, ACTIVE, configuration-managed. */
    async replaceManagedRoleIn(tx: DirectoryTx, tenantId: string, key: string, displayName: string): Promise<void> {
      await tx.directory.replaceManagedRole(tenantId, key, displayName);
    },

    async createPermission(tenantId: string, body: unknown, actor: AuditActor): Promise<void> {
      const p = input(checkPermissionCreate, body);
      const at = now();
      await store.tx(async (tx) => {
        if (!(await tx.directory.insertPermission(tenantId, p, at.toISOString()))) reject(`permission ${p.key} exists`);
        await tx.audit.record(actor, { tenantId, action: 'directory.permission.created', targetType: 'directory_permission', targetId: p.key, details: p, at });
      });
    },
    async createRole(tenantId: string, body: unknown, actor: AuditActor): Promise<{ id: string }> {
      const r = input(checkRoleCreate, body);
      const id = newId();
      const at = now();
      return store.tx(async (tx) => {
        if (!(await tx.directory.insertRole(tenantId, { id, ...r }, at.toISOString()))) reject(`role ${r.key} exists`);
        await tx.audit.record(actor, { tenantId, action: 'directory.role.created', targetType: 'directory_role', targetId: id, details: r, at });
        return { id };
      });
    },
    async addRolePermission(tenantId: string, roleKey: string, body: unknown, actor: AuditActor, opts: ManagedOption = {}): Promise<void> {
      const { key } = input(checkRolePermissionAdd, body);
      const at = now();
      await store.tx(async (tx) => {
        const r = await editableRole(tx, tenantId, roleKey, opts);
        if (!(await tx.directory.permission(tenantId, key, true))) reject(`no permission ${key}`);
        if (!(await tx.directory.addRolePermission(tenantId, r.id, key, at.toISOString()))) reject(`role ${roleKey} holds ${key} already`);
        await tx.audit.record(actor, { tenantId, action: 'directory.role_permission.added', targetType: 'directory_role', targetId: r.id, details: { roleKey, permissionKey: key }, at });
      });
    },
    async removeRolePermission(tenantId: string, roleKey: string, permissionKey: string, actor: AuditActor, opts: ManagedOption = {}): Promise<void> {
      keyOf(permissionKey, 'permissionKey');
      const at = now();
      await store.tx(async (tx) => {
        const r = await editableRole(tx, tenantId, roleKey, opts);
        if (!(await tx.directory.removeRolePermission(tenantId, r.id, permissionKey))) reject(`role ${roleKey} does not hold ${permissionKey}`);
        await tx.audit.record(actor, { tenantId, action: 'directory.role_permission.removed', targetType: 'directory_role', targetId: r.id, details: { roleKey, permissionKey }, at });
      });
    },
    // Deletions: the management API's (issue 25; spec 03's directory API has none). What depends
    // on the object goes with it, counted in the audit event's details.
    async deleteOrganization(tenantId: string, orgSlug: string, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const org = await organization(tx, tenantId, orgSlug, true);
        const removed = await tx.directory.deleteOrganization(tenantId, org.id);
        await tx.audit.record(actor, { tenantId, action: 'directory.organization.deleted', targetType: 'directory_organization', targetId: org.id, details: { slug: org.slug, ...removed }, at });
      });
    },
    async deleteTeam(tenantId: string, orgSlug: string, teamSlug: string, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const t = await team(tx, tenantId, orgSlug, teamSlug, true);
        const removed = await tx.directory.deleteTeam(tenantId, t.id);
        await tx.audit.record(actor, { tenantId, action: 'directory.team.deleted', targetType: 'directory_team', targetId: t.id, details: { organizationId: t.organizationId, slug: t.slug, ...removed }, at });
      });
    },
    /** A role `engage apply` owns is refused (configuration_managed), as a change of its permissions is. */
    async deleteRole(tenantId: string, roleKey: string, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const r = await editableRole(tx, tenantId, roleKey, {});
        const removed = await tx.directory.deleteRole(tenantId, r.id);
        await tx.audit.record(actor, { tenantId, action: 'directory.role.deleted', targetType: 'directory_role', targetId: r.id, details: { key: r.key, scope: r.scope, ...removed }, at });
      });
    },
    /** A permission `engage apply` owns is refused (configuration_managed). */
    async deletePermission(tenantId: string, key: string, actor: AuditActor): Promise<void> {
      keyOf(key, 'permissionKey');
      const at = now();
      await store.tx(async (tx) => {
        const managed = await tx.directory.permissionManaged(tenantId, key);
        if (managed === undefined) reject(`no permission ${key}`);
        if (managed) throw DirectoryErrors.configurationManaged(`permission ${key}`);
        const removed = await tx.directory.deletePermission(tenantId, key);
        await tx.audit.record(actor, { tenantId, action: 'directory.permission.deleted', targetType: 'directory_permission', targetId: key, details: { key, ...removed }, at });
      });
    },
    /** `body` checked by the route's declaration or `roleAssignmentInput` (the CLI). */
    async assignRole(tenantId: string, body: RoleAssignmentInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const { a, r } = await assignment(tx, tenantId, body, true);
        if (r.scope !== a.scope) reject(`role ${r.key} has scope ${r.scope}, not ${a.scope}`);
        if (r.status !== 'ACTIVE') reject(`role ${r.key} is not active`);
        await user(tx, tenantId, a.subject);
        if (a.scope !== 'TENANT') {
          const org = (await tx.directory.organizationById(tenantId, a.organizationId!, true)) ?? reject(`no organization ${a.organizationId}`);
          if (!(await tx.directory.lockOrganizationMember(tenantId, org.id, a.subject))) reject(`${a.subject} is not a member of the organization`);
          if (a.scope === 'TEAM') {
            const t = await tx.directory.teamById(tenantId, a.teamId!, true);
            if (!t || t.organizationId !== org.id) reject(`no team ${a.teamId} in the organization`);
            if (!(await tx.directory.lockTeamMember(tenantId, t.id, a.subject))) reject(`${a.subject} is not a member of the team`);
          }
        }
        const row = { tenantId, roleId: r.id, subject: a.subject, scope: a.scope, organizationId: a.organizationId, teamId: a.teamId };
        if (!(await tx.directory.assign(row, at.toISOString()))) reject(`the assignment exists already`);
        await tx.audit.record(actor, { tenantId, action: 'directory.role_assignment.created', targetType: 'directory_role_assignment', targetId: r.id, details: { ...a }, at });
      });
    },
    async revokeRole(tenantId: string, body: RoleAssignmentInput, actor: AuditActor): Promise<void> {
      const at = now();
      await store.tx(async (tx) => {
        const { a, r } = await assignment(tx, tenantId, body);
        const row = { tenantId, roleId: r.id, subject: a.subject, scope: a.scope, organizationId: a.organizationId, teamId: a.teamId };
        if (!(await tx.directory.revoke(row))) reject(`no such assignment`);
        await tx.audit.record(actor, { tenantId, action: 'directory.role_assignment.revoked', targetType: 'directory_role_assignment', targetId: r.id, details: { ...a }, at });
      });
    },
  };
}

function reject(why: string): never {
  throw DirectoryErrors.rejected(why);
}

export type DirectoryService = ReturnType<typeof createDirectoryService>;
