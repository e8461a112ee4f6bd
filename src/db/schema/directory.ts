import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { tenants } from './identity';

/**
 * The tenant directory (spec 03 "Directory objects", issue 11) and the audit trail. Migration
 * 0009 creates them by hand on both engines; its triggers move the `directory` version channel (the
 * directory permission version) with every change that can grant or withdraw a permission, so
 * processes keep `hasPermission` answers in memory while it stands still.
 * Statuses are ACTIVE or DISABLED; scopes TENANT, ORGANIZATION or TEAM.
 */

export const directoryOrganizations = sqliteTable(
  'directory_organizations',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    displayName: text('display_name').notNull(),
    status: text('status').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('directory_organizations_tenant_slug').on(t.tenantId, t.slug)],
);

export const directoryTeams = sqliteTable(
  'directory_teams',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').notNull().references(() => directoryOrganizations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    displayName: text('display_name').notNull(),
    status: text('status').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('directory_teams_organization_slug').on(t.organizationId, t.slug)],
);

export const directoryOrganizationMembers = sqliteTable(
  'directory_organization_members',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').notNull().references(() => directoryOrganizations.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    status: text('status').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.subject] })],
);

export const directoryTeamMembers = sqliteTable(
  'directory_team_members',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').notNull().references(() => directoryOrganizations.id, { onDelete: 'cascade' }),
    teamId: text('team_id').notNull().references(() => directoryTeams.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    status: text('status').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.subject] }), index('directory_team_members_organization_subject').on(t.organizationId, t.subject)],
);

export const directoryPermissions = sqliteTable(
  'directory_permissions',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    status: text('status').notNull(),
    /** Owned by `engage apply` (migration 0012). */
    configurationManaged: integer('configuration_managed', { mode: 'boolean' }).notNull().default(false),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] })],
);

export const directoryRoles = sqliteTable(
  'directory_roles',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    scope: text('scope').notNull(),
    status: text('status').notNull(),
    /** Owned by `engage apply` (migration 0012). */
    configurationManaged: integer('configuration_managed', { mode: 'boolean' }).notNull().default(false),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('directory_roles_tenant_key').on(t.tenantId, t.key)],
);

export const directoryRolePermissions = sqliteTable(
  'directory_role_permissions',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    roleId: text('role_id').notNull().references(() => directoryRoles.id, { onDelete: 'cascade' }),
    permissionKey: text('permission_key').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.permissionKey] })],
);

/**
 * `context_id` is '' for a TENANT assignment, the organization id for ORGANIZATION, the team id
 * for TEAM: a non-null key column, so the primary key makes each assignment unique.
 */
export const directoryRoleAssignments = sqliteTable(
  'directory_role_assignments',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    roleId: text('role_id').notNull().references(() => directoryRoles.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    scope: text('scope').notNull(),
    organizationId: text('organization_id').references(() => directoryOrganizations.id, { onDelete: 'cascade' }),
    teamId: text('team_id').references(() => directoryTeams.id, { onDelete: 'cascade' }),
    contextId: text('context_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.subject, t.contextId] }), index('directory_role_assignments_tenant_subject').on(t.tenantId, t.subject)],
);

/**
 * The audit trail (issue 11 point 4): one row per mutation, written in the mutation's
 * transaction. No foreign key to tenants: the trail outlives what it records. `tenant_id` is
 * null for environment-wide events; `details` is JSON without secrets.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id'),
    actorSubject: text('actor_subject').notNull(),
    actorClientId: text('actor_client_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    details: text('details').notNull(),
    createdAt: text('created_at').notNull(),
    /** The engagement environment the event is about (issue 24); null for identity events. */
    environmentId: text('environment_id'),
  },
  (t) => [
    index('audit_events_environment_created').on(t.environmentId, t.createdAt, t.id),
    index('audit_events_created').on(t.createdAt, t.id),
    index('audit_events_tenant_created').on(t.tenantId, t.createdAt, t.id),
    index('audit_events_action_created').on(t.action, t.createdAt, t.id),
    index('audit_events_actor_created').on(t.actorSubject, t.createdAt, t.id),
  ],
);
