import type { mailOutbox } from '../../db/schema';
import type { Sql } from '../store/sql';

export type MailRow = typeof mailOutbox.$inferSelect;

const COLUMNS = `id, tenant_id AS "tenantId", purpose, message, status, attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError", created_at AS "createdAt"`;

const SQL = {
  insert: `INSERT INTO mail_outbox (id, tenant_id, purpose, message, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'PENDING', 0, ?, ?)`,
  due: `SELECT ${COLUMNS} FROM mail_outbox WHERE status = 'PENDING' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
  sent: `DELETE FROM mail_outbox WHERE id = ? AND status = 'PENDING'`,
  retry: `UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND status = 'PENDING'`,
  fail: `UPDATE mail_outbox SET attempts = attempts + 1, status = 'FAILED', last_error = ? WHERE id = ? AND status = 'PENDING'`,
  list: `SELECT ${COLUMNS} FROM mail_outbox WHERE tenant_id = ? ORDER BY created_at, id`,
} as const;

/** The mail outbox (table mail_outbox, migration 0006). */
export function createMailOutboxStore(db: Sql) {
  return {
    async insert(r: { id: string; tenantId: string; purpose: string; message: string; nextAttemptAt: number; createdAt: number }): Promise<void> {
      await db.run(SQL.insert, [r.id, r.tenantId, r.purpose, r.message, r.nextAttemptAt, r.createdAt]);
    },
    /** Pending messages due at `now`, oldest first. */
    due(now: number, limit: number): Promise<MailRow[]> {
      return db.all<MailRow>(SQL.due, [now, limit]);
    },
    /** Accepted by the server: the row (and the code it carries) goes. */
    async markSent(id: string): Promise<void> {
      await db.run(SQL.sent, [id]);
    },
    async retryLater(id: string, at: number, error: string): Promise<void> {
      await db.run(SQL.retry, [at, error, id]);
    },
    async giveUp(id: string, error: string): Promise<void> {
      await db.run(SQL.fail, [error, id]);
    },
    listOfTenant(tenantId: string): Promise<MailRow[]> {
      return db.all<MailRow>(SQL.list, [tenantId]);
    },
  };
}

export type MailOutboxStore = ReturnType<typeof createMailOutboxStore>;
