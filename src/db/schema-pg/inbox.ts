import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The inbox (issue 27): entries owned by a profile (scope PROFILE) or an installation (scope
 * INSTALLATION), their owners' counters, and the idempotency of inbox operation batches.
 * Migrations 0032 and 0038 (SQLite and PostgreSQL).
 */

export const inboxEntries = pgTable(
  'inbox_entries',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    scope: text('scope', { enum: ['PROFILE', 'INSTALLATION'] }).notNull(),
    /** The profile's id (PROFILE) or the installation's (INSTALLATION). */
    ownerId: text('owner_id').notNull(),
    /** The owner's entry number, in commit order (inbox_owners.last_seq): what the read-all watermark compares. */
    seq: bigint('seq', { mode: 'number' }).notNull(),
    key: text('key').notNull(),
    sendId: text('send_id'),
    templateId: text('template_id'),
    /** JSON: the payload and LAYOUT surfaces per locale, the locales' fallbacks. */
    content: text('content').notNull(),
    sentAt: text('sent_at').notNull(),
    sentMs: bigint('sent_ms', { mode: 'number' }).notNull(),
    expiresMs: bigint('expires_ms', { mode: 'number' }),
    deleted: integer('deleted').notNull().default(0),
    /** READ or UNREAD when set under the owner's current watermark version; otherwise the watermark decides. */
    readState: text('read_state', { enum: ['READ', 'UNREAD'] }),
    readVersion: bigint('read_version', { mode: 'number' }).notNull().default(0),
    readMs: bigint('read_ms', { mode: 'number' }),
  },
  (t) => [
    // Pages walk each owner's entries by number (commit order; migration 0038).
    uniqueIndex('inbox_entries_owner_seq').on(t.ownerId, t.seq),
    index('inbox_entries_owner_expiry').on(t.ownerId, t.expiresMs).where(sql`expires_ms IS NOT NULL`),
    index('inbox_entries_expiry').on(t.expiresMs).where(sql`expires_ms IS NOT NULL`),
    index('inbox_entries_environment').on(t.environmentId),
  ],
);

/** An inbox's counters: entries numbered under this row's lock, the read-all watermark, the exact unread count. */
export const inboxOwners = pgTable(
  'inbox_owners',
  {
    ownerId: text('owner_id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    scope: text('scope', { enum: ['PROFILE', 'INSTALLATION'] }).notNull(),
    lastSeq: bigint('last_seq', { mode: 'number' }).notNull().default(0),
    /** Entries numbered up to this are read unless marked otherwise since (MARK_ALL_READ). */
    watermarkSeq: bigint('watermark_seq', { mode: 'number' }).notNull().default(0),
    /** Moved by each MARK_ALL_READ: read states set before it no longer count. */
    watermarkVersion: bigint('watermark_version', { mode: 'number' }).notNull().default(0),
    /** Unread entries, not deleted (expired ones until they are purged: the read subtracts them). */
    unread: bigint('unread', { mode: 'number' }).notNull().default(0),
    /** When the watermark was last moved (the readAt of entries it reads). */
    watermarkAt: text('watermark_at'),
  },
  (t) => [index('inbox_owners_environment').on(t.environmentId)],
);

export const inboxBatches = pgTable(
  'inbox_batches',
  {
    installationId: text('installation_id').notNull(),
    batchId: text('batch_id').notNull(),
    environmentId: text('environment_id').notNull(),
    /** `sha256:<hex of the request>\n` then the first answer (JSON). */
    result: text('result').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.batchId] }), index('inbox_batches_environment').on(t.environmentId)],
);

export const inboxOperations = pgTable(
  'inbox_operations',
  {
    installationId: text('installation_id').notNull(),
    operationId: text('operation_id').notNull(),
    environmentId: text('environment_id').notNull(),
    status: text('status', { enum: ['ACCEPTED', 'REJECTED'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.operationId] }), index('inbox_operations_environment').on(t.environmentId)],
);
