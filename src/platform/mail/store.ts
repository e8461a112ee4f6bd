import type { mailOutbox } from '../../db/schema';
import type { Sql } from '../store/sql';
import { leasedRows, type ClaimTable } from '../work/claim';

export type MailRow = typeof mailOutbox.$inferSelect;

const COLUMNS = `id, tenant_id AS "tenantId", purpose, message, status, attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError", created_at AS "createdAt"`;

/** The outbox's rows as the work claim sees them (platform/work): due and leased by `next_attempt_at`, in epoch seconds. */
export const MAIL_OUTBOX = {
  table: 'mail_outbox', id: 'id', due: 'next_attempt_at', attempts: 'attempts', pending: `status = 'PENDING'`, returning: COLUMNS, error: 'last_error', failed: `status = 'FAILED'`,
} satisfies ClaimTable;

const SQL = {
  insert: `INSERT INTO mail_outbox (id, tenant_id, purpose, message, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'PENDING', 0, ?, ?)`,
  list: `SELECT ${COLUMNS} FROM mail_outbox WHERE tenant_id = ? ORDER BY created_at, id`,
} as const;

/**
 * The mail outbox (table mail_outbox, migration 0006), a work table of platform/work: claimed
 * (the attempt counted, `next_attempt_at` moved to the lease's end), then deleted once the server
 * accepted the message, rescheduled, or marked FAILED, each conditional on the lease held.
 */
export function createMailOutboxStore(db: Sql) {
  const rows = leasedRows<MailRow>(db, MAIL_OUTBOX);
  return {
    async insert(r: { id: string; tenantId: string; purpose: string; message: string; nextAttemptAt: number; createdAt: number }): Promise<void> {
      await db.run(SQL.insert, [r.id, r.tenantId, r.purpose, r.message, r.nextAttemptAt, r.createdAt]);
    },
    /** Claims up to `limit` pending messages due at `now` until `leaseUntil` (seconds). */
    claim: (now: number, leaseUntil: number, limit: number) => rows.claim(now, leaseUntil, limit),
    /** When the earliest pending message is due (seconds). */
    nextDue: () => rows.nextDue(),
    /** Accepted by the server: the row (and the code it carries) goes. */
    markSent: rows.done,
    retryLater: rows.retry,
    giveUp: rows.fail,
    renew: rows.renew,
    listOfTenant(tenantId: string): Promise<MailRow[]> {
      return db.all<MailRow>(SQL.list, [tenantId]);
    },
  };
}

export type MailOutboxStore = ReturnType<typeof createMailOutboxStore>;
