import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Transactional push (issue 13, spec 01 "Transactional send"): provider credentials per app,
 * templates and their versions, per-template rate windows, sends (the idempotency ledger) and
 * the delivery outbox. Migration 0008 (SQLite and PostgreSQL).
 */

/** APNs or FCM credentials of one app, sealed with the master key (platform/crypto.ts Sealer). */
export const pushCredentials = sqliteTable(
  'push_credentials',
  {
    appId: text('app_id').notNull(),
    environmentId: text('environment_id').notNull(),
    provider: text('provider', { enum: ['APNS', 'FCM'] }).notNull(),
    /** JSON of what may be shown: key id, team id, topic, sandbox; project id, client email. */
    info: text('info').notNull(),
    /** The private key (APNs .p8 or the service account's), sealed. */
    sealed: text('sealed').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.provider] })],
);

export const pushTemplates = sqliteTable(
  'push_templates',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    key: text('key').notNull(),
    status: text('status', { enum: ['ACTIVE', 'ARCHIVED'] }).notNull(),
    /** The version that accepts sends, null until the first publish. */
    publishedVersion: integer('published_version'),
    latestVersion: integer('latest_version').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Declared by `engage apply` (issue 24). */
    configurationManaged: integer('configuration_managed').notNull().default(0),
  },
  (t) => [uniqueIndex('push_templates_environment_key').on(t.environmentId, t.key)],
);

export const pushTemplateVersions = sqliteTable(
  'push_template_versions',
  {
    templateId: text('template_id').notNull(),
    version: integer('version').notNull(),
    state: text('state', { enum: ['DRAFT', 'PUBLISHED', 'SUPERSEDED'] }).notNull(),
    /** The validated template definition (JSON), app ids resolved. */
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
    publishedAt: text('published_at'),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.version] })],
);

/** Sends admitted per template per fixed minute (the template's per-minute rate limit). */
export const pushRateWindows = sqliteTable(
  'push_rate_windows',
  {
    templateId: text('template_id').notNull(),
    windowMs: integer('window_ms').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.windowMs] })],
);

/** One row per admitted send: the idempotency ledger and the established response. */
export const pushSends = sqliteTable(
  'push_sends',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    templateId: text('template_id').notNull(),
    templateVersion: integer('template_version').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    requestHash: text('request_hash').notNull(),
    accessKeyId: text('access_key_id').notNull(),
    recipientType: text('recipient_type').notNull(),
    recipientValue: text('recipient_value').notNull(),
    /** The 202 body as first answered (JSON). */
    response: text('response').notNull(),
    createdAt: text('created_at').notNull(),
    createdMs: integer('created_ms').notNull(),
    /** A console test send (issue 24): excluded from rate limits and counts, marked in inspection. */
    isTest: integer('is_test').notNull().default(0),
  },
  (t) => [
    uniqueIndex('push_sends_idempotency').on(t.environmentId, t.isTest, t.idempotencyKey),
    index('push_sends_template').on(t.templateId, t.createdMs),
    // The environment overview's sends of the last hour and day (migration 0029).
    index('push_sends_environment_created').on(t.environmentId, t.createdMs),
  ],
);

/**
 * The installations and profiles each send names (its recipient, the installations of its
 * diagnostics), written with the send: how privacy erasure finds the sends to redact without
 * reading the whole ledger (issue 21 point 16, migration 0017). Erased with its installation or
 * profile (db/schema/erasure.ts).
 */
export const pushSendRecipients = sqliteTable(
  'push_send_recipients',
  {
    recipientId: text('recipient_id').notNull(),
    sendId: text('send_id').notNull(),
    environmentId: text('environment_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.recipientId, t.sendId] }),
    // The environment deletion job finds them by environment (migration 0029).
    index('push_send_recipients_environment').on(t.environmentId),
  ],
);

/** The outbox: one row per (send, installation), committed with the 202 (DESIGN.md "outbox"). */
export const pushDeliveries = sqliteTable(
  'push_deliveries',
  {
    /** Also the apns-id and the deliveryId of PUSH_RECEIPT_RECORDED. */
    id: text('id').primaryKey(),
    sendId: text('send_id').notNull(),
    environmentId: text('environment_id').notNull(),
    templateId: text('template_id').notNull(),
    installationId: text('installation_id').notNull(),
    appId: text('app_id').notNull(),
    provider: text('provider', { enum: ['APNS', 'FCM'] }).notNull(),
    /** The push token at admission. */
    token: text('token').notNull(),
    /** SHA-256 of the rendered content, for the template's deduplication window. */
    contentHash: text('content_hash').notNull(),
    /** The rendered message (JSON: title, body, deepLink, data, priority, collapseId). */
    message: text('message').notNull(),
    state: text('state', { enum: ['PENDING', 'SENT', 'DELIVERED', 'OPENED', 'FAILED', 'EXPIRED'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt is due; while an attempt is in flight, when its claim lapses. */
    nextAttemptMs: integer('next_attempt_ms').notNull(),
    expiresMs: integer('expires_ms').notNull(),
    lastError: text('last_error'),
    createdMs: integer('created_ms').notNull(),
    createdAt: text('created_at').notNull(),
    sentAt: text('sent_at'),
    deliveredAt: text('delivered_at'),
    openedAt: text('opened_at'),
    updatedAt: text('updated_at').notNull(),
    /** The end of the quiet hours the delivery was deferred to (migration 0039); null: admitted to go at once. Its first attempt checks preferences again. */
    deferredUntilMs: integer('deferred_until_ms'),
  },
  (t) => [
    // Only PENDING rows (migration 0014): a delivery leaves the index when it is sent.
    index('push_deliveries_pending').on(t.nextAttemptMs).where(sql`state = 'PENDING'`),
    index('push_deliveries_send').on(t.sendId),
    index('push_deliveries_installation').on(t.installationId, t.templateId, t.createdMs),
    index('push_deliveries_template').on(t.templateId),
    // The environment overview's deliveries of the last hour and day (migration 0029).
    index('push_deliveries_environment_created').on(t.environmentId, t.createdMs),
  ],
);
