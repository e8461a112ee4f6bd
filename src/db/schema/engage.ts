import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { tenants } from './identity';

/**
 * Mobile edge tables (spec 01). Timestamps shown to people are ISO strings (`*_at` text);
 * instants compared on the hot path (last-writer-wins, expiry) are epoch milliseconds
 * (`*_ms` integers). Every row of environment-owned data carries its environment id.
 */

export const environments = sqliteTable('environments', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  createdAt: text('created_at').notNull(),
  /**
   * The identity tenant whose user subjects are this environment's external ids (issue 24):
   * a sign-in through it binds the app's installation. Null: external ids are opaque (spec 01).
   * Cleared when the tenant is deleted.
   */
  identityTenantId: text('identity_tenant_id').references(() => tenants.id, { onDelete: 'set null' }),
  /** Shown by the administration API and the console; null: the name (issue 24, migration 0028). */
  displayName: text('display_name'),
  /** DELETING while the durable deletion job erases its rows; DISABLED refuses the SDK and server APIs. */
  status: text('status', { enum: ['ACTIVE', 'DISABLED', 'DELETING'] }).notNull().default('ACTIVE'),
  /** Declared by `engage apply`: the administration API refuses edits (409 configuration_managed). */
  configurationManaged: integer('configuration_managed').notNull().default(0),
});

export const apps = sqliteTable(
  'apps',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull().references(() => environments.id, { onDelete: 'cascade' }),
    platform: text('platform', { enum: ['IOS', 'ANDROID'] }).notNull(),
    name: text('name').notNull(),
    /** Public bootstrap identifier `svc_app_...` (not a secret). */
    appKey: text('app_key').notNull().unique(),
    status: text('status', { enum: ['ACTIVE', 'DISABLED'] }).notNull().default('ACTIVE'),
    createdAt: text('created_at').notNull(),
    /** The iOS bundle id or Android package name (issue 24); null until given. */
    bundleId: text('bundle_id'),
    configurationManaged: integer('configuration_managed').notNull().default(0),
  },
  (t) => [uniqueIndex('apps_environment_name').on(t.environmentId, t.name)],
);

export const accessKeys = sqliteTable(
  'access_keys',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull().references(() => environments.id, { onDelete: 'cascade' }),
    name: text('name'),
    /** SHA-256 (hex) of the key; the key itself is shown once. */
    keyDigest: text('key_digest').notNull().unique(),
    /** JSON array of the app ids the key may act for. */
    appIds: text('app_ids').notNull(),
    status: text('status', { enum: ['ACTIVE', 'REVOKED'] }).notNull().default('ACTIVE'),
    createdAt: text('created_at').notNull(),
    rotatedAt: text('rotated_at'),
    revokedAt: text('revoked_at'),
    /** After this instant the key no longer authenticates (null: no expiry). */
    expiresAt: text('expires_at'),
    /** The key's last four characters, shown in lists beside its prefix (never the key). */
    keyHint: text('key_hint'),
    /** During a rotation's overlap: the previous secret's digest, accepted until previousExpiresAt. */
    previousKeyDigest: text('previous_key_digest').unique(),
    previousExpiresAt: text('previous_expires_at'),
    configurationManaged: integer('configuration_managed').notNull().default(0),
  },
  (t) => [index('access_keys_environment').on(t.environmentId)],
);

export const profiles = sqliteTable(
  'profiles',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull().references(() => environments.id, { onDelete: 'cascade' }),
    /** Null for an anonymous profile. */
    externalId: text('external_id'),
    createdAt: text('created_at').notNull(),
    /** Bumped with every change a sync document is derived from (issue 26, migration 0031). */
    syncRevision: integer('sync_revision').notNull().default(0),
  },
  (t) => [
    uniqueIndex('profiles_environment_external').on(t.environmentId, t.externalId).where(sql`external_id IS NOT NULL`),
    // The environment deletion job finds every profile of an environment (migration 0029).
    index('profiles_environment').on(t.environmentId),
  ],
);

export const installations = sqliteTable(
  'installations',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull().references(() => environments.id, { onDelete: 'cascade' }),
    appId: text('app_id').notNull().references(() => apps.id, { onDelete: 'cascade' }),
    platform: text('platform', { enum: ['IOS', 'ANDROID'] }).notNull(),
    locale: text('locale').notNull(),
    timezone: text('timezone').notNull(),
    sdkVersion: text('sdk_version').notNull(),
    appVersion: text('app_version').notNull(),
    appBuild: text('app_build'),
    deviceModel: text('device_model'),
    osVersion: text('os_version'),
    credentialDigest: text('credential_digest').notNull().unique(),
    revocationDigest: text('revocation_digest').notNull().unique(),
    recoveryDigest: text('recovery_digest').notNull().unique(),
    /** Current (committed) generation and the profile bound in it. */
    generation: integer('generation').notNull().default(0),
    profileId: text('profile_id').notNull(),
    bindingState: text('binding_state', { enum: ['ANONYMOUS', 'BOUND'] }).notNull().default('ANONYMOUS'),
    // Installation-level state, each last-writer-wins on (occurredAt ms, operationId).
    privacy: text('privacy', { enum: ['OPTED_IN', 'OPTED_OUT'] }).notNull().default('OPTED_IN'),
    privacyMs: integer('privacy_ms').notNull().default(0),
    privacyOp: text('privacy_op').notNull().default(''),
    pushSubscription: text('push_subscription', { enum: ['OPTED_IN', 'OPTED_OUT'] }).notNull().default('OPTED_IN'),
    pushSubscriptionMs: integer('push_subscription_ms').notNull().default(0),
    pushSubscriptionOp: text('push_subscription_op').notNull().default(''),
    pushPermission: text('push_permission', { enum: ['NOT_DETERMINED', 'DENIED', 'AUTHORIZED', 'PROVISIONAL', 'EPHEMERAL'] })
      .notNull()
      .default('NOT_DETERMINED'),
    pushPermissionMs: integer('push_permission_ms').notNull().default(0),
    pushPermissionOp: text('push_permission_op').notNull().default(''),
    pushToken: text('push_token'),
    pushTokenMs: integer('push_token_ms').notNull().default(0),
    pushTokenOp: text('push_token_op').notNull().default(''),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Bumped with every change of installation state a sync document is derived from (issue 26, migration 0031). */
    syncRevision: integer('sync_revision').notNull().default(0),
  },
  (t) => [index('installations_environment').on(t.environmentId, t.id), index('installations_profile').on(t.profileId)],
);

/** Which profile each generation of an installation was bound to: the fence of spec 01. */
export const installationGenerations = sqliteTable(
  'installation_generations',
  {
    installationId: text('installation_id').notNull().references(() => installations.id, { onDelete: 'cascade' }),
    generation: integer('generation').notNull(),
    profileId: text('profile_id').notNull(),
    bindingState: text('binding_state', { enum: ['ANONYMOUS', 'BOUND'] }).notNull(),
    committedAt: text('committed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.generation] })],
);

export const bindingCodes = sqliteTable(
  'binding_codes',
  {
    codeDigest: text('code_digest').primaryKey(),
    environmentId: text('environment_id').notNull(),
    installationId: text('installation_id').notNull().references(() => installations.id, { onDelete: 'cascade' }),
    /** The generation this code reserves; a transition commits exactly this one. */
    generation: integer('generation').notNull(),
    /** The code sealed with the master key, so a repeated issue can show the same code. */
    codeSealed: text('code_sealed').notNull(),
    status: text('status', { enum: ['PENDING', 'CONSUMED', 'EXPIRED'] }).notNull(),
    expiresMs: integer('expires_ms').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('binding_codes_one_pending').on(t.installationId).where(sql`status = 'PENDING'`),
    // Every code of an installation, for its deletion and the foreign key's cascade (migration 0029).
    index('binding_codes_installation').on(t.installationId),
  ],
);

export const bindingTransitions = sqliteTable(
  'binding_transitions',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 of the canonical request, to tell a replay from a reuse. */
    requestHash: text('request_hash').notNull(),
    installationId: text('installation_id').notNull(),
    /** The response body as first committed (JSON). */
    response: text('response').notNull(),
    committedAt: text('committed_at').notNull(),
  },
  (t) => [uniqueIndex('binding_transitions_idempotency').on(t.environmentId, t.idempotencyKey), index('binding_transitions_installation').on(t.installationId)],
);

/**
 * Every operation an installation submitted, keyed by (installation, operationId): the
 * idempotency ledger and, for accepted ones, the stored event/state history.
 * Rejected operations keep only their ids and status (no payload).
 */
export const operations = sqliteTable(
  'operations',
  {
    seq: integer('seq').primaryKey(),
    installationId: text('installation_id').notNull(),
    operationId: text('operation_id').notNull(),
    environmentId: text('environment_id').notNull(),
    profileId: text('profile_id'),
    generation: integer('generation').notNull(),
    type: text('type').notNull(),
    status: text('status', { enum: ['ACCEPTED', 'REJECTED'] }).notNull(),
    occurredMs: integer('occurred_ms'),
    receivedMs: integer('received_ms').notNull(),
    /** JSON payload of an accepted operation; null when rejected. */
    payload: text('payload'),
  },
  (t) => [
    uniqueIndex('operations_installation_op').on(t.installationId, t.operationId),
    index('operations_profile').on(t.profileId, t.seq),
    // The environment overview's operations of the last hour and day (migration 0029).
    index('operations_environment_received').on(t.environmentId, t.receivedMs),
  ],
);

export const operationBatches = sqliteTable(
  'operation_batches',
  {
    installationId: text('installation_id').notNull(),
    batchId: text('batch_id').notNull(),
    /**
     * `sha256:<hex digest of the request>\n` then the OperationBatchResult as first answered
     * (JSON); rows written before request digests hold the JSON alone (operations/store.ts).
     */
    result: text('result').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.batchId] })],
);

/** Attribute rows; a removal is a tombstone (value null) so a late set cannot resurrect it. */
export const installationAttributes = sqliteTable(
  'installation_attributes',
  {
    installationId: text('installation_id').notNull(),
    key: text('key').notNull(),
    value: text('value'),
    ms: integer('ms').notNull(),
    op: text('op').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.key] })],
);

export const profileAttributes = sqliteTable(
  'profile_attributes',
  {
    profileId: text('profile_id').notNull(),
    key: text('key').notNull(),
    value: text('value'),
    ms: integer('ms').notNull(),
    op: text('op').notNull(),
  },
  (t) => [primaryKey({ columns: [t.profileId, t.key] })],
);

export const profileTags = sqliteTable(
  'profile_tags',
  {
    profileId: text('profile_id').notNull(),
    tag: text('tag').notNull(),
    present: integer('present', { mode: 'boolean' }).notNull(),
    ms: integer('ms').notNull(),
    op: text('op').notNull(),
  },
  (t) => [primaryKey({ columns: [t.profileId, t.tag] })],
);

export const installationSubscriptions = sqliteTable(
  'installation_subscriptions',
  {
    installationId: text('installation_id').notNull(),
    list: text('list').notNull(),
    subscribed: integer('subscribed', { mode: 'boolean' }).notNull(),
    ms: integer('ms').notNull(),
    op: text('op').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.list] })],
);

export const profileSubscriptions = sqliteTable(
  'profile_subscriptions',
  {
    profileId: text('profile_id').notNull(),
    list: text('list').notNull(),
    channel: text('channel', { enum: ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] }).notNull(),
    subscribed: integer('subscribed', { mode: 'boolean' }).notNull(),
    ms: integer('ms').notNull(),
    op: text('op').notNull(),
  },
  (t) => [primaryKey({ columns: [t.profileId, t.list, t.channel] })],
);

/** Revocation credentials already used, so a repeated revocation answers 204 (spec 01). */
export const revokedInstallations = sqliteTable(
  'revoked_installations',
  {
    revocationDigest: text('revocation_digest').primaryKey(),
    environmentId: text('environment_id').notNull(),
    operationId: text('operation_id').notNull(),
    revokedAt: text('revoked_at').notNull(),
  },
  // The environment deletion job finds them by environment (migration 0029).
  (t) => [index('revoked_installations_environment').on(t.environmentId)],
);

/** Named sets of installations or external ids for console test sends (issue 24). */
export const testGroups = sqliteTable(
  'test_groups',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull().references(() => environments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('test_groups_environment_name').on(t.environmentId, t.name)],
);

/** A test group's members in order: exactly one of installation id and external id per row. */
export const testGroupMembers = sqliteTable(
  'test_group_members',
  {
    groupId: text('group_id').notNull().references(() => testGroups.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id').notNull(),
    position: integer('position').notNull(),
    installationId: text('installation_id'),
    externalId: text('external_id'),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.position] }), index('test_group_members_installation').on(t.environmentId, t.installationId)],
);
