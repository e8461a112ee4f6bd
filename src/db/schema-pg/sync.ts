import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { environments } from './engage';

/**
 * Remote-state sync (issue 26): the definitions the sync modules derive documents from, and the
 * per-environment revision that orders their commits. Migration 0031 (SQLite and PostgreSQL).
 *
 * Every definition row carries the definitions revision of its last change (`revision`), taken
 * from `sync_environments.revision` in the writing transaction under that row's lock
 * (engage/definitions), so definitions revisions follow commit order. A deleted list or channel
 * stays as a row (`deleted`) for the tombstone a delta sends; an archived flag is its status.
 */

export const syncEnvironments = pgTable('sync_environments', {
  environmentId: text('environment_id').primaryKey().references(() => environments.id, { onDelete: 'cascade' }),
  /** The revision of the environment's last definition change (0: none yet). */
  revision: bigint('revision', { mode: 'number' }).notNull().default(0),
  /** Cursors whose definitions revision is below this can no longer be answered with a delta (tombstones purged). */
  horizon: bigint('horizon', { mode: 'number' }).notNull().default(0),
  /** The sync's refreshAfterSeconds when nothing scheduled is due sooner (spec 01: min 30, default 900). */
  refreshAfterSeconds: integer('refresh_after_seconds').notNull().default(900),
  /** In-app messages (issue 27, migration 0033): the least time between two messages on a device, and the revision of its last change. */
  inAppMinIntervalSeconds: integer('in_app_min_interval_seconds').notNull().default(30),
  inAppSettingsRevision: bigint('in_app_settings_revision', { mode: 'number' }).notNull().default(0),
  updatedAt: text('updated_at').notNull(),
});

export const flags = pgTable(
  'flags',
  {
    environmentId: text('environment_id').notNull(),
    key: text('key').notNull(),
    status: text('status', { enum: ['ACTIVE', 'ARCHIVED'] }).notNull(),
    /** The flag's current version (flag_versions). */
    version: bigint('version', { mode: 'number' }).notNull(),
    /** The definitions revision of the flag's last change. */
    revision: bigint('revision', { mode: 'number' }).notNull(),
    /** The validated FlagDefinition (JSON). */
    definition: text('definition').notNull(),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.key] }), index('flags_revision').on(t.environmentId, t.revision)],
);

/** Every version a flag had: what rollback restores and the audit trail's diff is taken from. */
export const flagVersions = pgTable(
  'flag_versions',
  {
    environmentId: text('environment_id').notNull(),
    flagKey: text('flag_key').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    definition: text('definition').notNull(),
    /** What wrote it: API, CLI, APPLY, SCHEDULE, ROLLBACK. */
    origin: text('origin').notNull(),
    /** Who wrote it (the audit actor). */
    actor: text('actor').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.flagKey, t.version] })],
);

/** A flag edit to apply at a time (an activation, a step of a rollout), by the durable work primitive. */
export const flagSchedules = pgTable(
  'flag_schedules',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    flagKey: text('flag_key').notNull(),
    dueMs: bigint('due_ms', { mode: 'number' }).notNull(),
    /** The FlagDefinition the flag takes at dueMs (JSON). */
    definition: text('definition').notNull(),
    status: text('status', { enum: ['PENDING', 'APPLIED', 'CANCELLED', 'FAILED'] }).notNull(),
    actor: text('actor').notNull(),
    createdAt: text('created_at').notNull(),
    appliedVersion: bigint('applied_version', { mode: 'number' }),
    appliedAt: text('applied_at'),
  },
  (t) => [index('flag_schedules_flag').on(t.environmentId, t.flagKey, t.dueMs), index('flag_schedules_due').on(t.status, t.dueMs)],
);

/** FLAG_EXPOSED, counted once per installation per experiment revision (the primary key deduplicates). */
export const flagExposures = pgTable(
  'flag_exposures',
  {
    environmentId: text('environment_id').notNull(),
    flagKey: text('flag_key').notNull(),
    experimentId: text('experiment_id').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    installationId: text('installation_id').notNull(),
    variantKey: text('variant_key').notNull(),
    exposedMs: bigint('exposed_ms', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'flag_exposures_pk', columns: [t.environmentId, t.flagKey, t.experimentId, t.revision, t.installationId] }),
    index('flag_exposures_installation').on(t.installationId),
  ],
);

/** What a split served an installation while it was anonymous: kept when it binds (profile-sticky flags). */
export const flagStickyAssignments = pgTable(
  'flag_sticky_assignments',
  {
    installationId: text('installation_id').notNull(),
    flagKey: text('flag_key').notNull(),
    environmentId: text('environment_id').notNull(),
    /** The experiment's id, '' for a rollout. */
    experimentId: text('experiment_id').notNull().default(''),
    variantKey: text('variant_key').notNull(),
    assignedMs: bigint('assigned_ms', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.flagKey] }), index('flag_sticky_assignments_environment').on(t.environmentId)],
);

/** Subscription lists (the PREFERENCES module). */
export const subscriptionLists = pgTable(
  'subscription_lists',
  {
    environmentId: text('environment_id').notNull(),
    key: text('key').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    deleted: integer('deleted').notNull().default(0),
    /** The validated list definition (JSON). */
    definition: text('definition').notNull(),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.key] }), index('subscription_lists_revision').on(t.environmentId, t.revision)],
);

/** Android notification channels and iOS notification categories of an app (the PUSH module). */
export const pushChannels = pgTable(
  'push_channels',
  {
    environmentId: text('environment_id').notNull(),
    appId: text('app_id').notNull(),
    key: text('key').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    deleted: integer('deleted').notNull().default(0),
    /** The validated channel or category definition (JSON). */
    definition: text('definition').notNull(),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.key] }), index('push_channels_revision').on(t.environmentId, t.revision)],
);
