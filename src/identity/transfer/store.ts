import type { userTransferJobs, userTransferResults } from '../../db/schema';
import { limitOf, type PageRequest } from '../../platform/http/pagination';
import { AUTO_CHECKPOINT_PAGES } from '../../platform/store/sqlite';
import { inList, insertMany, INSERT_ROWS, type Sql } from '../../platform/store/sql';

export type TransferJobRow = typeof userTransferJobs.$inferSelect;
export type TransferResultRow = typeof userTransferResults.$inferSelect;
export type JobStatus = TransferJobRow['status'];

/** A user row as an import writes it (users table, migration 0013 columns included). */
/** A user as an export reads it (spec 03 "Export record", less the position). */
export interface ExportedUserRow {
  id: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  status: string;
  createdAt: string;
}

const JOB_COLUMNS = `id, tenant_id AS "tenantId", kind, status, source, mode, idempotency_key AS "idempotencyKey",
  request_digest AS "requestDigest", payload, total_items AS "totalItems", processed_items AS "processedItems",
  succeeded_items AS "succeededItems", failed_items AS "failedItems", snapshot_at AS "snapshotAt", created_at AS "createdAt",
  started_at AS "startedAt", completed_at AS "completedAt", last_failure AS "lastFailure"`;
const RESULT_COLUMNS = `job_id AS "jobId", position, external_id AS "externalId", email, status, subject, error_code AS "errorCode",
  processed_at AS "processedAt"`;
const EXPORT_COLUMNS = `id, subject, email, email_verified AS "emailVerified", status, created_at AS "createdAt"`;

const TERMINAL = `('SUCCEEDED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED')`;

const SQL = {
  insertJob: `INSERT INTO user_transfer_jobs (id, tenant_id, kind, status, source, mode, idempotency_key, request_digest, payload,
      total_items, snapshot_at, created_at)
    VALUES (?, ?, ?, 'QUEUED', ?, ?, ?, ?, ?, ?, ?, ?)`,
  job: `SELECT ${JOB_COLUMNS} FROM user_transfer_jobs WHERE tenant_id = ? AND kind = ? AND id = ?`,
  jobByKey: `SELECT ${JOB_COLUMNS} FROM user_transfer_jobs WHERE tenant_id = ? AND kind = ? AND idempotency_key = ?`,
  jobs: `SELECT ${JOB_COLUMNS} FROM user_transfer_jobs WHERE tenant_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  // The oldest job not finished: a RUNNING one first (its runner died: resume it), then QUEUED.
  next: `SELECT ${JOB_COLUMNS} FROM user_transfer_jobs WHERE status IN ('QUEUED', 'RUNNING')
    ORDER BY CASE status WHEN 'RUNNING' THEN 0 ELSE 1 END, created_at, id LIMIT 1`,
  start: `UPDATE user_transfer_jobs SET status = 'RUNNING', started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN ('QUEUED', 'RUNNING')`,
  // Moves the committed position forward, only from where the caller read it (no double count).
  advance: `UPDATE user_transfer_jobs SET processed_items = processed_items + ?, succeeded_items = succeeded_items + ?,
      failed_items = failed_items + ? WHERE id = ? AND status = 'RUNNING' AND processed_items = ?`,
  finish: `UPDATE user_transfer_jobs SET status = ?, completed_at = ?, last_failure = ?, payload = NULL
    WHERE id = ? AND status = 'RUNNING'`,
  completeExport: `UPDATE user_transfer_jobs SET status = 'SUCCEEDED', total_items = ?, processed_items = ?, succeeded_items = ?,
      completed_at = ? WHERE id = ? AND status = 'RUNNING'`,
  cancel: `UPDATE user_transfer_jobs SET status = 'CANCELLED', completed_at = ?, payload = NULL
    WHERE tenant_id = ? AND kind = ? AND id = ? AND status NOT IN ${TERMINAL}`,
  results: `SELECT ${RESULT_COLUMNS} FROM user_transfer_results WHERE job_id = ? ORDER BY position LIMIT ? OFFSET ?`,
  countUsers: `SELECT COUNT(*) AS "n" FROM users WHERE tenant_id = ? AND created_at <= ?`,
  exportPage: `SELECT ${EXPORT_COLUMNS} FROM users WHERE tenant_id = ? AND created_at <= ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
  exportFirst: `SELECT ${EXPORT_COLUMNS} FROM users WHERE tenant_id = ? AND created_at <= ? ORDER BY created_at, id LIMIT ?`,
  // Keyset paging (created_at, id): constant cost per page however deep the export goes.
  // A row-value comparison, which both engines turn into an index range start; an OR of the two
  // cases is not, and made every page rescan the tenant's users from the first (quadratic).
  exportAfter: `SELECT ${EXPORT_COLUMNS} FROM users WHERE tenant_id = ? AND created_at <= ?
    AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?`,
} as const;

type RawExport = Omit<ExportedUserRow, 'emailVerified'> & { emailVerified: number };
const exported = (r: RawExport): ExportedUserRow => ({ ...r, emailVerified: r.emailVerified === 1 });

/** WAL pages between automatic checkpoints during a CLI bulk import (64,000 pages of 4 KiB: 250 MiB of WAL at most, on disk). */
const BULK_CHECKPOINT_PAGES = 64_000;


/**
 * Bulk user transfer (issue 12): the (source, externalId) mapping, set-oriented inserts of
 * imported users and what hangs off them, and the jobs of the management API. Every statement
 * names the tenant or the job (CONVENTIONS.md "Stores").
 */
export function createTransferStore(db: Sql) {
  return {
    /**
     * PostgreSQL only (nothing on SQLite): fresh planner statistics for the tables an import
     * grows. A prepared statement's generic plan is chosen from the statistics of when it was
     * made; made on a nearly empty table, the IN-list probes of `takenEmails` and `importedFrom`
     * became scans that slowed with every batch (40-200 ms each at 30,000 users). ANALYZE
     * samples a bounded number of rows and invalidates those plans.
     */
    async refreshStatistics(): Promise<void> {
      if (db.dialect === 'postgres') await db.run('ANALYZE users, user_import_sources');
    },
    /**
     * SQLite only (nothing on PostgreSQL): while a CLI bulk import runs, its write connection
     * checkpoints the WAL every BULK_CHECKPOINT_PAGES instead of AUTO_CHECKPOINT_PAGES. A
     * million inserts rewrite the same index pages in many commits; checkpointing them 16 times
     * less often halves the import's SQLite time (docs/benchmarks.md). Run in a transaction, so
     * it reaches the write connection; the setting is the connection's, not the transaction's.
     */
    async bulkWrites(on: boolean): Promise<void> {
      if (db.dialect === 'sqlite') await db.get(`PRAGMA wal_autocheckpoint = ${on ? BULK_CHECKPOINT_PAGES : AUTO_CHECKPOINT_PAGES}`);
    },
    /** The users already imported from `source` under these external ids: externalId → their subject and email. */
    async importedFrom(tenantId: string, source: string, externalIds: string[]): Promise<Map<string, { subject: string; email: string }>> {
      const out = new Map<string, { subject: string; email: string }>();
      for (let i = 0; i < externalIds.length; i += INSERT_ROWS) {
        const slice = externalIds.slice(i, i + INSERT_ROWS);
        const rows = await db.all<{ externalId: string; subject: string; email: string }>(
          `SELECT s.external_id AS "externalId", u.subject, u.email FROM user_import_sources s JOIN users u ON u.id = s.user_id
            WHERE s.tenant_id = ? AND s.source = ? AND s.external_id IN (${inList(slice.length)})`,
          [tenantId, source, ...slice],
        );
        for (const r of rows) out.set(r.externalId, { subject: r.subject, email: r.email });
      }
      return out;
    },
    /** Where each imported user came from: (source, externalId) → the user (the table reruns skip by). */
    async insertSources(tenantId: string, source: string, rows: { externalId: string; userId: string }[], now: string): Promise<void> {
      await insertMany(db, rows, 5, 'INSERT INTO user_import_sources (tenant_id, source, external_id, user_id, created_at)',
        (r) => [tenantId, source, r.externalId, r.userId, now]);
    },
    async insertJob(j: Pick<TransferJobRow, 'id' | 'tenantId' | 'kind' | 'source' | 'mode' | 'idempotencyKey' | 'requestDigest' | 'payload' | 'totalItems' | 'snapshotAt' | 'createdAt'>): Promise<void> {
      await db.run(SQL.insertJob, [j.id, j.tenantId, j.kind, j.source, j.mode, j.idempotencyKey, j.requestDigest, j.payload, j.totalItems, j.snapshotAt, j.createdAt]);
    },
    findJob(tenantId: string, kind: 'IMPORT' | 'EXPORT', id: string): Promise<TransferJobRow | undefined> {
      return db.get<TransferJobRow>(SQL.job, [tenantId, kind, id]);
    },
    findJobByKey(tenantId: string, kind: 'IMPORT' | 'EXPORT', key: string): Promise<TransferJobRow | undefined> {
      return db.get<TransferJobRow>(SQL.jobByKey, [tenantId, kind, key]);
    },
    listJobs(tenantId: string, kind: 'IMPORT' | 'EXPORT', req: PageRequest): Promise<TransferJobRow[]> {
      const { limit, offset } = limitOf(req);
      return db.all<TransferJobRow>(SQL.jobs, [tenantId, kind, limit, offset]);
    },
    nextJob(): Promise<TransferJobRow | undefined> {
      return db.get<TransferJobRow>(SQL.next);
    },
    async startJob(id: string, now: string): Promise<boolean> {
      return (await db.run(SQL.start, [now, id])) === 1;
    },
    /** False when the job moved meanwhile (cancelled, or another runner committed this stretch). */
    async advanceJob(id: string, from: number, processed: number, succeeded: number, failed: number): Promise<boolean> {
      return (await db.run(SQL.advance, [processed, succeeded, failed, id, from])) === 1;
    },
    async finishJob(id: string, status: JobStatus, now: string, lastFailure: string | null): Promise<boolean> {
      return (await db.run(SQL.finish, [status, now, lastFailure, id])) === 1;
    },
    /** An export's count, and its end; false when it was cancelled meanwhile. */
    async completeExport(id: string, total: number, now: string): Promise<boolean> {
      return (await db.run(SQL.completeExport, [total, total, total, now, id])) === 1;
    },
    async cancelJob(tenantId: string, kind: 'IMPORT' | 'EXPORT', id: string, now: string): Promise<boolean> {
      return (await db.run(SQL.cancel, [now, tenantId, kind, id])) === 1;
    },
    async insertResults(rows: TransferResultRow[]): Promise<void> {
      await insertMany(db, rows, 8,
        'INSERT INTO user_transfer_results (job_id, position, external_id, email, status, subject, error_code, processed_at)',
        (r) => [r.jobId, r.position, r.externalId, r.email, r.status, r.subject, r.errorCode, r.processedAt]);
    },
    listResults(jobId: string, req: PageRequest): Promise<TransferResultRow[]> {
      const { limit, offset } = limitOf(req);
      return db.all<TransferResultRow>(SQL.results, [jobId, limit, offset]);
    },

    async countUsers(tenantId: string, asOf: string): Promise<number> {
      return Number((await db.get<{ n: number | string }>(SQL.countUsers, [tenantId, asOf]))?.n ?? 0);
    },
    async exportPage(tenantId: string, asOf: string, limit: number, offset: number): Promise<ExportedUserRow[]> {
      return (await db.all<RawExport>(SQL.exportPage, [tenantId, asOf, limit, offset])).map(exported);
    },
    /** The next `limit` users after `after` in (createdAt, id) order. */
    async exportAfter(tenantId: string, asOf: string, after: { createdAt: string; id: string } | undefined, limit: number): Promise<ExportedUserRow[]> {
      const rows = after
        ? await db.all<RawExport>(SQL.exportAfter, [tenantId, asOf, after.createdAt, after.id, limit])
        : await db.all<RawExport>(SQL.exportFirst, [tenantId, asOf, limit]);
      return rows.map(exported);
    },
  };
}

export type TransferStore = ReturnType<typeof createTransferStore>;
