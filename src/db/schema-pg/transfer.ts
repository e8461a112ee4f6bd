import { bigint, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenants, users } from './identity';

/** Bulk user transfer (issue 12, identity/transfer). Migration 0013 creates these by hand on both engines. */

/** (source, externalId) identifies one source-system account (spec 03): at most one user each. */
export const userImportSources = pgTable(
  'user_import_sources',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    externalId: text('external_id').notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.source, t.externalId] }), index('user_import_sources_user').on(t.userId)],
);

/** An import or export job of the management API (spec 03 "Job"). */
export const userTransferJobs = pgTable(
  'user_transfer_jobs',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['IMPORT', 'EXPORT'] }).notNull(),
    status: text('status', { enum: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED'] }).notNull(),
    source: text('source'),
    mode: text('mode'),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the canonical request: the same key with another request is a conflict. */
    requestDigest: text('request_digest'),
    /** The import records (JSON) until the job ends; cleared then, so hashes are not kept twice. */
    payload: text('payload'),
    totalItems: bigint('total_items', { mode: 'number' }).notNull().default(0),
    processedItems: bigint('processed_items', { mode: 'number' }).notNull().default(0),
    succeededItems: bigint('succeeded_items', { mode: 'number' }).notNull().default(0),
    failedItems: bigint('failed_items', { mode: 'number' }).notNull().default(0),
    /** Exports: users created up to this instant are in it. */
    snapshotAt: text('snapshot_at'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    completedAt: text('completed_at'),
    lastFailure: text('last_failure'),
  },
  (t) => [
    uniqueIndex('user_transfer_jobs_idempotency').on(t.tenantId, t.kind, t.idempotencyKey),
    index('user_transfer_jobs_tenant').on(t.tenantId, t.kind, t.createdAt),
    index('user_transfer_jobs_pending').on(t.status, t.createdAt),
  ],
);

/** One import record's outcome (spec 03 "Import result record"). */
export const userTransferResults = pgTable(
  'user_transfer_results',
  {
    jobId: text('job_id').notNull().references(() => userTransferJobs.id, { onDelete: 'cascade' }),
    position: bigint('position', { mode: 'number' }).notNull(),
    externalId: text('external_id'),
    email: text('email'),
    status: text('status', { enum: ['SUCCEEDED', 'FAILED'] }).notNull(),
    subject: text('subject'),
    errorCode: text('error_code'),
    processedAt: text('processed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.position] })],
);
