import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * In-app messages (issue 27, the IN_APP sync module): the messages of an environment, their
 * interactions counted per message, variant, type and day, and each installation's impression
 * window per capped message. Migration 0033 (SQLite and PostgreSQL), which also adds the
 * environment's minimum interval between messages to sync_environments.
 */

export const inAppMessages = pgTable(
  'in_app_messages',
  {
    environmentId: text('environment_id').notNull(),
    key: text('key').notNull(),
    /** The message's id (a UUID): INTERACTION_TRACKED's experienceId. */
    id: text('id').notNull(),
    status: text('status', { enum: ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] }).notNull(),
    /** The latest edit's version and its validated definition (JSON). */
    version: bigint('version', { mode: 'number' }).notNull(),
    definition: text('definition').notNull(),
    /** The version syncs serve while ACTIVE (null until the first publish). */
    publishedVersion: bigint('published_version', { mode: 'number' }),
    publishedDefinition: text('published_definition'),
    /** The definitions revision of the last change devices can see (publish, pause, archive). */
    revision: bigint('revision', { mode: 'number' }).notNull(),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    publishedAt: text('published_at'),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.key] }), uniqueIndex('in_app_messages_id').on(t.id)],
);

/** INTERACTION_TRACKED counted per message, variant ('' for none), type and UTC day. */
export const inAppInteractions = pgTable(
  'in_app_interactions',
  {
    environmentId: text('environment_id').notNull(),
    messageId: text('message_id').notNull(),
    variantId: text('variant_id').notNull().default(''),
    type: text('type', { enum: ['IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION'] }).notNull(),
    day: text('day').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.variantId, t.type, t.day] }), index('in_app_interactions_environment').on(t.environmentId)],
);

/** An installation's impressions of a capped message in its current window (the frequency cap). */
export const inAppImpressions = pgTable(
  'in_app_impressions',
  {
    installationId: text('installation_id').notNull(),
    messageId: text('message_id').notNull(),
    environmentId: text('environment_id').notNull(),
    windowStartMs: bigint('window_start_ms', { mode: 'number' }).notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.messageId] }), index('in_app_impressions_environment').on(t.environmentId)],
);

/** An in-app message made eligible for a profile until `until_ms` by an automation's in-app step (issue 28; migration 0037). */
export const inAppGrants = pgTable(
  'in_app_grants',
  {
    profileId: text('profile_id').notNull(),
    messageId: text('message_id').notNull(),
    environmentId: text('environment_id').notNull(),
    untilMs: bigint('until_ms', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.profileId, t.messageId] }), index('in_app_grants_environment').on(t.environmentId)],
);
