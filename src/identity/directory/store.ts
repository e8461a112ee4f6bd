import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import { forUpdate, type Sql } from '../../platform/store/sql';

export type Status = 'ACTIVE' | 'DISABLED';
export type RoleScope = 'TENANT' | 'ORGANIZATION' | 'TEAM';

export interface Organization {
  id: string;
  slug: string;
  displayName: string;
  status: Status;
}
export interface Team {
  id: string;
  organizationId: string;
  slug: string;
  displayName: string;
  status: Status;
}
export interface Member {
  subject: string;
  status: Status;
}
export interface Permission {
  key: string;
  displayName: string;
  status: Status;
}
export interface Role {
  id: string;
  key: string;
  displayName: string;
  scope: RoleScope;
  status: Status;
}
export interface RoleAssignment {
  roleKey: string;
  subject: string;
  scope: RoleScope;
  organizationId: string | null;
  teamId: string | null;
}

/** An assignment as stored: the role by id, the context as one key column ('' for TENANT). */
export interface AssignmentRow {
  tenantId: string;
  roleId: string;
  subject: string;
  scope: RoleScope;
  organizationId: string | null;
  teamId: string | null;
}

const contextOf = (a: Pick<AssignmentRow, 'organizationId' | 'teamId'>) => a.teamId ?? a.organizationId ?? '';

const ORG = `id, slug, display_name AS "displayName", status`;
const TEAM = `id, organization_id AS "organizationId", slug, display_name AS "displayName", status`;
const PERMISSION = `key, display_name AS "displayName", status`;
const ROLE = `id, key, display_name AS "displayName", scope, status`;
const PAGE = `LIMIT ? OFFSET ?`;

const SQL = {
  insertOrganization: `INSERT INTO directory_organizations (id, tenant_id, slug, display_name, status, created_at) VALUES (?, ?, ?, ?, 'ACTIVE', ?)`,
  organizationBySlug: `SELECT ${ORG} FROM directory_organizations WHERE tenant_id = ? AND slug = ?`,
  organizations: `SELECT ${ORG} FROM directory_organizations WHERE tenant_id = ? ORDER BY slug ${PAGE}`,
  insertTeam: `INSERT INTO directory_teams (id, tenant_id, organization_id, slug, display_name, status, created_at) VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?)`,
  teamBySlug: `SELECT ${TEAM} FROM directory_teams WHERE tenant_id = ? AND organization_id = ? AND slug = ?`,
  teamById: `SELECT ${TEAM} FROM directory_teams WHERE tenant_id = ? AND id = ?`,
  organizationById: `SELECT ${ORG} FROM directory_organizations WHERE tenant_id = ? AND id = ?`,
  teams: `SELECT ${TEAM} FROM directory_teams WHERE tenant_id = ? AND organization_id = ? ORDER BY slug ${PAGE}`,

  addOrganizationMember: `INSERT INTO directory_organization_members (tenant_id, organization_id, subject, status, created_at) VALUES (?, ?, ?, 'ACTIVE', ?)
    ON CONFLICT (organization_id, subject) DO NOTHING`,
  removeOrganizationMember: `DELETE FROM directory_organization_members WHERE tenant_id = ? AND organization_id = ? AND subject = ?`,
  organizationMember: `SELECT subject, status FROM directory_organization_members WHERE tenant_id = ? AND organization_id = ? AND subject = ?`,
  organizationMembers: `SELECT subject, status FROM directory_organization_members WHERE tenant_id = ? AND organization_id = ? ORDER BY subject ${PAGE}`,
  addTeamMember: `INSERT INTO directory_team_members (tenant_id, organization_id, team_id, subject, status, created_at) VALUES (?, ?, ?, ?, 'ACTIVE', ?)
    ON CONFLICT (team_id, subject) DO NOTHING`,
  removeTeamMember: `DELETE FROM directory_team_members WHERE tenant_id = ? AND team_id = ? AND subject = ?`,
  removeTeamMembershipsIn: `DELETE FROM directory_team_members WHERE tenant_id = ? AND organization_id = ? AND subject = ?`,
  teamMember: `SELECT subject, status FROM directory_team_members WHERE tenant_id = ? AND team_id = ? AND subject = ?`,
  teamMembers: `SELECT subject, status FROM directory_team_members WHERE tenant_id = ? AND team_id = ? ORDER BY subject ${PAGE}`,

  insertPermission: `INSERT INTO directory_permissions (tenant_id, key, display_name, status, created_at) VALUES (?, ?, ?, 'ACTIVE', ?)
    ON CONFLICT (tenant_id, key) DO NOTHING`,
  permission: `SELECT ${PERMISSION} FROM directory_permissions WHERE tenant_id = ? AND key = ?`,
  permissions: `SELECT ${PERMISSION} FROM directory_permissions WHERE tenant_id = ? ORDER BY key ${PAGE}`,

  insertRole: `INSERT INTO directory_roles (id, tenant_id, key, display_name, scope, status, created_at) VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?)
    ON CONFLICT (tenant_id, key) DO NOTHING`,
  roleByKey: `SELECT ${ROLE}, configuration_managed AS "configurationManaged" FROM directory_roles WHERE tenant_id = ? AND key = ?`,
  roles: `SELECT ${ROLE} FROM directory_roles WHERE tenant_id = ? ORDER BY key ${PAGE}`,
  addRolePermission: `INSERT INTO directory_role_permissions (tenant_id, role_id, permission_key, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (role_id, permission_key) DO NOTHING`,
  removeRolePermission: `DELETE FROM directory_role_permissions WHERE tenant_id = ? AND role_id = ? AND permission_key = ?`,
  managedPermissionKeys: `SELECT key FROM directory_permissions WHERE tenant_id = ? AND configuration_managed = 1`,
  managedRoleKeys: `SELECT key FROM directory_roles WHERE tenant_id = ? AND configuration_managed = 1`,
  replaceManagedPermission: `UPDATE directory_permissions SET display_name = ?, status = 'ACTIVE', configuration_managed = 1 WHERE tenant_id = ? AND key = ?`,
  replaceManagedRole: `UPDATE directory_roles SET display_name = ?, status = 'ACTIVE', configuration_managed = 1 WHERE tenant_id = ? AND key = ?`,
  rolePermissions: `SELECT p.key, p.display_name AS "displayName", p.status FROM directory_role_permissions rp
    JOIN directory_permissions p ON p.tenant_id = rp.tenant_id AND p.key = rp.permission_key
    WHERE rp.tenant_id = ? AND rp.role_id = ? ORDER BY p.key ${PAGE}`,

  assign: `INSERT INTO directory_role_assignments (tenant_id, role_id, subject, scope, organization_id, team_id, context_id, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (role_id, subject, context_id) DO NOTHING`,
  revoke: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND role_id = ? AND subject = ? AND context_id = ?`,
  revokeInOrganization: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND subject = ? AND organization_id = ?`,
  revokeInTeam: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND subject = ? AND team_id = ?`,
  assignments: `SELECT r.key AS "roleKey", a.subject, a.scope, a.organization_id AS "organizationId", a.team_id AS "teamId"
    FROM directory_role_assignments a JOIN directory_roles r ON r.id = a.role_id
    WHERE a.tenant_id = ? ORDER BY r.key, a.subject, a.context_id ${PAGE}`,

  // Deletions (the management API, issue 25): what depends on the object first, each as its own statement (no reliance on ON DELETE CASCADE).
  deleteOrganizationAssignments: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND organization_id = ?`,
  deleteOrganizationTeamMembers: `DELETE FROM directory_team_members WHERE tenant_id = ? AND organization_id = ?`,
  deleteOrganizationMembers: `DELETE FROM directory_organization_members WHERE tenant_id = ? AND organization_id = ?`,
  deleteOrganizationTeams: `DELETE FROM directory_teams WHERE tenant_id = ? AND organization_id = ?`,
  deleteOrganization: `DELETE FROM directory_organizations WHERE tenant_id = ? AND id = ?`,
  deleteTeamAssignments: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND team_id = ?`,
  deleteTeamMembers: `DELETE FROM directory_team_members WHERE tenant_id = ? AND team_id = ?`,
  deleteTeam: `DELETE FROM directory_teams WHERE tenant_id = ? AND id = ?`,
  deleteRoleAssignments: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND role_id = ?`,
  deleteRolePermissions: `DELETE FROM directory_role_permissions WHERE tenant_id = ? AND role_id = ?`,
  deleteRole: `DELETE FROM directory_roles WHERE tenant_id = ? AND id = ?`,
  deletePermissionGrants: `DELETE FROM directory_role_permissions WHERE tenant_id = ? AND permission_key = ?`,
  deletePermission: `DELETE FROM directory_permissions WHERE tenant_id = ? AND key = ?`,
  permissionManaged: `SELECT configuration_managed AS "configurationManaged" FROM directory_permissions WHERE tenant_id = ? AND key = ?`,

  forgetOrganizationMemberships: `DELETE FROM directory_organization_members WHERE tenant_id = ? AND subject = ?`,
  forgetTeamMemberships: `DELETE FROM directory_team_members WHERE tenant_id = ? AND subject = ?`,
  forgetAssignments: `DELETE FROM directory_role_assignments WHERE tenant_id = ? AND subject = ?`,

  /**
   * The live permission check (spec 03 "Authentication"): a TENANT-scoped assignment of an
   * ACTIVE role holding the ACTIVE permission. Starts from the subject's assignments
   * (directory_role_assignments_tenant_subject), then primary keys only.
   */
  hasPermission: `SELECT 1 AS "ok" FROM directory_role_assignments a
    JOIN directory_roles r ON r.id = a.role_id AND r.status = 'ACTIVE'
    JOIN directory_role_permissions rp ON rp.role_id = a.role_id AND rp.permission_key = ?
    JOIN directory_permissions p ON p.tenant_id = a.tenant_id AND p.key = rp.permission_key AND p.status = 'ACTIVE'
    WHERE a.tenant_id = ? AND a.subject = ? AND a.scope = 'TENANT' LIMIT 1`,
  /** Every permission key `hasPermission` would answer true for, by the same joins. */
  livePermissions: `SELECT DISTINCT rp.permission_key AS "key" FROM directory_role_assignments a
    JOIN directory_roles r ON r.id = a.role_id AND r.status = 'ACTIVE'
    JOIN directory_role_permissions rp ON rp.role_id = a.role_id
    JOIN directory_permissions p ON p.tenant_id = a.tenant_id AND p.key = rp.permission_key AND p.status = 'ACTIVE'
    WHERE a.tenant_id = ? AND a.subject = ? AND a.scope = 'TENANT' ORDER BY 1`,
} as const;

/** The directory of each tenant (spec 03): every query takes the tenant id. */
export function createDirectoryStore(db: Sql) {
  // A membership that decides a write (a team membership, an assignment) is locked until commit,
  // so a concurrent removal waits and then removes what was added (PostgreSQL; SQLite has one writer).
  const lockOrganizationMember = `${SQL.organizationMember}${forUpdate(db.dialect)}`;
  const lockTeamMember = `${SQL.teamMember}${forUpdate(db.dialect)}`;
  // The object a write adds to or deletes, locked until commit (PostgreSQL): a deletion waits for
  // the additions under way and an addition after a deletion finds nothing (no foreign-key failure).
  const locked = {
    organizationBySlug: `${SQL.organizationBySlug}${forUpdate(db.dialect)}`,
    organizationById: `${SQL.organizationById}${forUpdate(db.dialect)}`,
    teamBySlug: `${SQL.teamBySlug}${forUpdate(db.dialect)}`,
    teamById: `${SQL.teamById}${forUpdate(db.dialect)}`,
    roleByKey: `${SQL.roleByKey}${forUpdate(db.dialect)}`,
    permission: `${SQL.permission}${forUpdate(db.dialect)}`,
  };
  const page = async <T>(text: string, args: unknown[], req: PageRequest): Promise<Page<T>> => {
    const { limit, offset } = limitOf(req);
    return pageFrom(await db.all<T>(text, [...args, limit, offset]), req);
  };
  return {
    async insertOrganization(tenantId: string, o: { id: string; slug: string; displayName: string }, at: string): Promise<void> {
      await db.run(SQL.insertOrganization, [o.id, tenantId, o.slug, o.displayName, at]);
    },
    organizationBySlug: (tenantId: string, slug: string, lock = false) => db.get<Organization>(lock ? locked.organizationBySlug : SQL.organizationBySlug, [tenantId, slug]),
    organizationById: (tenantId: string, id: string, lock = false) => db.get<Organization>(lock ? locked.organizationById : SQL.organizationById, [tenantId, id]),
    organizations: (tenantId: string, req: PageRequest) => page<Organization>(SQL.organizations, [tenantId], req),

    async insertTeam(tenantId: string, t: { id: string; organizationId: string; slug: string; displayName: string }, at: string): Promise<void> {
      await db.run(SQL.insertTeam, [t.id, tenantId, t.organizationId, t.slug, t.displayName, at]);
    },
    teamBySlug: (tenantId: string, organizationId: string, slug: string, lock = false) => db.get<Team>(lock ? locked.teamBySlug : SQL.teamBySlug, [tenantId, organizationId, slug]),
    teamById: (tenantId: string, id: string, lock = false) => db.get<Team>(lock ? locked.teamById : SQL.teamById, [tenantId, id]),
    teams: (tenantId: string, organizationId: string, req: PageRequest) => page<Team>(SQL.teams, [tenantId, organizationId], req),

    /** False when the subject already is a member. */
    async addOrganizationMember(tenantId: string, organizationId: string, subject: string, at: string): Promise<boolean> {
      return (await db.run(SQL.addOrganizationMember, [tenantId, organizationId, subject, at])) > 0;
    },
    async removeOrganizationMember(tenantId: string, organizationId: string, subject: string): Promise<boolean> {
      return (await db.run(SQL.removeOrganizationMember, [tenantId, organizationId, subject])) > 0;
    },
    organizationMember: (tenantId: string, organizationId: string, subject: string) => db.get<Member>(SQL.organizationMember, [tenantId, organizationId, subject]),
    /** The membership, locked until commit (inside a transaction). */
    lockOrganizationMember: (tenantId: string, organizationId: string, subject: string) => db.get<Member>(lockOrganizationMember, [tenantId, organizationId, subject]),
    organizationMembers: (tenantId: string, organizationId: string, req: PageRequest) => page<Member>(SQL.organizationMembers, [tenantId, organizationId], req),
    async addTeamMember(tenantId: string, team: Pick<Team, 'id' | 'organizationId'>, subject: string, at: string): Promise<boolean> {
      return (await db.run(SQL.addTeamMember, [tenantId, team.organizationId, team.id, subject, at])) > 0;
    },
    async removeTeamMember(tenantId: string, teamId: string, subject: string): Promise<boolean> {
      return (await db.run(SQL.removeTeamMember, [tenantId, teamId, subject])) > 0;
    },
    /** Every team membership of `subject` in the organization's teams; how many. */
    removeTeamMembershipsIn: (tenantId: string, organizationId: string, subject: string) => db.run(SQL.removeTeamMembershipsIn, [tenantId, organizationId, subject]),
    teamMember: (tenantId: string, teamId: string, subject: string) => db.get<Member>(SQL.teamMember, [tenantId, teamId, subject]),
    /** The membership, locked until commit (inside a transaction). */
    lockTeamMember: (tenantId: string, teamId: string, subject: string) => db.get<Member>(lockTeamMember, [tenantId, teamId, subject]),
    teamMembers: (tenantId: string, teamId: string, req: PageRequest) => page<Member>(SQL.teamMembers, [tenantId, teamId], req),

    /** False when the key exists already. */
    async insertPermission(tenantId: string, p: { key: string; displayName: string }, at: string): Promise<boolean> {
      return (await db.run(SQL.insertPermission, [tenantId, p.key, p.displayName, at])) > 0;
    },
    permission: (tenantId: string, key: string, lock = false) => db.get<Permission>(lock ? locked.permission : SQL.permission, [tenantId, key]),
    permissions: (tenantId: string, req: PageRequest) => page<Permission>(SQL.permissions, [tenantId], req),

    /** False when the key exists already. */
    async insertRole(tenantId: string, r: { id: string; key: string; displayName: string; scope: RoleScope }, at: string): Promise<boolean> {
      return (await db.run(SQL.insertRole, [r.id, tenantId, r.key, r.displayName, r.scope, at])) > 0;
    },
    /** The role, and whether `engage apply` owns it (configuration-managed). */
    async roleByKey(tenantId: string, key: string, lock = false): Promise<(Role & { configurationManaged: boolean }) | undefined> {
      const r = await db.get<Role & { configurationManaged: number }>(lock ? locked.roleByKey : SQL.roleByKey, [tenantId, key]);
      return r && { ...r, configurationManaged: Number(r.configurationManaged) === 1 };
    },
    roles: (tenantId: string, req: PageRequest) => page<Role>(SQL.roles, [tenantId], req),
    /** False when the role holds it already. */
    async addRolePermission(tenantId: string, roleId: string, key: string, at: string): Promise<boolean> {
      return (await db.run(SQL.addRolePermission, [tenantId, roleId, key, at])) > 0;
    },
    async removeRolePermission(tenantId: string, roleId: string, key: string): Promise<boolean> {
      return (await db.run(SQL.removeRolePermission, [tenantId, roleId, key])) > 0;
    },
    rolePermissions: (tenantId: string, roleId: string, req: PageRequest) => page<Permission>(SQL.rolePermissions, [tenantId, roleId], req),

    /** The keys of the tenant's permissions and roles `engage apply` owns (configuration-managed). */
    async managedKeys(tenantId: string): Promise<{ permissions: Set<string>; roles: Set<string> }> {
      const keys = async (text: string) => new Set((await db.all<{ key: string }>(text, [tenantId])).map((r) => r.key));
      return { permissions: await keys(SQL.managedPermissionKeys), roles: await keys(SQL.managedRoleKeys) };
    },
    /** A permission as `engage apply` declares it: its display name, ACTIVE, configuration-managed. */
    async replaceManagedPermission(tenantId: string, key: string, displayName: string): Promise<void> {
      await db.run(SQL.replaceManagedPermission, [displayName, tenantId, key]);
    },
    /** A role as `engage apply` declares it: its display name, ACTIVE, configuration-managed. */
    async replaceManagedRole(tenantId: string, key: string, displayName: string): Promise<void> {
      await db.run(SQL.replaceManagedRole, [displayName, tenantId, key]);
    },

    /** False when the same assignment exists already. */
    async assign(a: AssignmentRow, at: string): Promise<boolean> {
      return (await db.run(SQL.assign, [a.tenantId, a.roleId, a.subject, a.scope, a.organizationId, a.teamId, contextOf(a), at])) > 0;
    },
    async revoke(a: AssignmentRow): Promise<boolean> {
      return (await db.run(SQL.revoke, [a.tenantId, a.roleId, a.subject, contextOf(a)])) > 0;
    },
    /** The subject's ORGANIZATION and TEAM assignments in the organization; how many. */
    revokeInOrganization: (tenantId: string, organizationId: string, subject: string) => db.run(SQL.revokeInOrganization, [tenantId, subject, organizationId]),
    /** The subject's TEAM assignments in the team; how many. */
    revokeInTeam: (tenantId: string, teamId: string, subject: string) => db.run(SQL.revokeInTeam, [tenantId, subject, teamId]),
    assignments: (tenantId: string, req: PageRequest) => page<RoleAssignment>(SQL.assignments, [tenantId], req),

    /** An organization with its teams, memberships and assignments; how many of each went. */
    async deleteOrganization(tenantId: string, id: string) {
      const roleAssignments = await db.run(SQL.deleteOrganizationAssignments, [tenantId, id]);
      const teamMemberships = await db.run(SQL.deleteOrganizationTeamMembers, [tenantId, id]);
      const memberships = await db.run(SQL.deleteOrganizationMembers, [tenantId, id]);
      const teams = await db.run(SQL.deleteOrganizationTeams, [tenantId, id]);
      await db.run(SQL.deleteOrganization, [tenantId, id]);
      return { teams, memberships, teamMemberships, roleAssignments };
    },
    /** A team with its memberships and TEAM assignments; how many of each went. */
    async deleteTeam(tenantId: string, id: string) {
      const roleAssignments = await db.run(SQL.deleteTeamAssignments, [tenantId, id]);
      const teamMemberships = await db.run(SQL.deleteTeamMembers, [tenantId, id]);
      await db.run(SQL.deleteTeam, [tenantId, id]);
      return { teamMemberships, roleAssignments };
    },
    /** A role with its permissions and assignments; how many of each went. */
    async deleteRole(tenantId: string, id: string) {
      const roleAssignments = await db.run(SQL.deleteRoleAssignments, [tenantId, id]);
      const permissions = await db.run(SQL.deleteRolePermissions, [tenantId, id]);
      await db.run(SQL.deleteRole, [tenantId, id]);
      return { permissions, roleAssignments };
    },
    /** A permission, taken from every role holding it; how many roles held it. */
    async deletePermission(tenantId: string, key: string) {
      const roles = await db.run(SQL.deletePermissionGrants, [tenantId, key]);
      await db.run(SQL.deletePermission, [tenantId, key]);
      return { roles };
    },
    /** Whether `engage apply` owns the permission (undefined: no such permission), the row locked until commit. */
    async permissionManaged(tenantId: string, key: string): Promise<boolean | undefined> {
      const r = await db.get<{ configurationManaged: number }>(`${SQL.permissionManaged}${forUpdate(db.dialect)}`, [tenantId, key]);
      return r && Number(r.configurationManaged) === 1;
    },

    /** Every membership and assignment of `subject` in the tenant (a deleted user); how many rows. */
    async forgetSubject(tenantId: string, subject: string): Promise<number> {
      let n = await db.run(SQL.forgetAssignments, [tenantId, subject]);
      n += await db.run(SQL.forgetTeamMemberships, [tenantId, subject]);
      n += await db.run(SQL.forgetOrganizationMemberships, [tenantId, subject]);
      return n;
    },
    async hasPermission(tenantId: string, subject: string, key: string): Promise<boolean> {
      return (await db.get(SQL.hasPermission, [key, tenantId, subject])) !== undefined;
    },
    /** The keys of every live permission of `subject` in the tenant, sorted. */
    async livePermissions(tenantId: string, subject: string): Promise<string[]> {
      return (await db.all<{ key: string }>(SQL.livePermissions, [tenantId, subject])).map((r) => r.key);
    },
  };
}

export type DirectoryStore = ReturnType<typeof createDirectoryStore>;
