import type { Dialect, Sql } from '../store/sql';

/**
 * The row-level claim (platform/work, issue 22 point 2), over the work_items table or over a
 * context's own table whose rows are its work items (push_deliveries, mail_outbox): one
 * statement takes up to `limit` due rows, oldest due first, moves their due time to the end of
 * the claim's lease and counts the attempt. A worker that dies mid-attempt thus leaves its rows
 * due again once the lease lapses (at-least-once), and no other worker takes them meanwhile:
 * on PostgreSQL the rows are locked by `FOR UPDATE SKIP LOCKED`, so concurrent claims from
 * several processes take disjoint rows without waiting for each other; on SQLite the single
 * writer runs one claim at a time.
 */
export interface ClaimTable {
  table: string;
  /** The primary key column. */
  id: string;
  /** The due-time column; while claimed, when the lease lapses. */
  due: string;
  /** The attempts column, counted by the claim (none: not counted). */
  attempts?: string;
  /** What makes a row claimable besides being due (`status = 'PENDING'`). */
  pending: string;
  /** The RETURNING list. */
  returning: string;
  /** The column keeping the last failure (settlements of retries and failures write it). */
  error?: string;
  /** The assignment that marks a row given up (`status = 'FAILED'`). */
  failed?: string;
}

/**
 * The claim's text. Positional parameters, in order: the lease's end, now, the parameters of
 * `filter` (more conditions ANDed to the due rows' selection), the limit.
 */
export function claimText(t: ClaimTable, dialect: Dialect, filter = ''): string {
  const count = t.attempts ? `, ${t.attempts} = ${t.attempts} + 1` : '';
  const lock = dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  return `UPDATE ${t.table} SET ${t.due} = ?${count}
     WHERE ${t.id} IN (SELECT ${t.id} FROM ${t.table} WHERE ${t.pending} AND ${t.due} <= ?${filter ? ` ${filter}` : ''}
       ORDER BY ${t.due} LIMIT ?${lock})
     RETURNING ${t.returning}`;
}

/** The earliest due time of the table's claimable rows (the worker's one timer). */
export const nextDueText = (t: ClaimTable) => `SELECT MIN(${t.due}) AS "dueMs" FROM ${t.table} WHERE ${t.pending}`;

/**
 * The claim and the settlements of a work table, every settlement and renewal conditional on the
 * lease the caller holds (the due time its claim wrote): a holder whose lease lapsed and was
 * taken over changes nothing. Done deletes the row; a retry moves its due time; a failure marks
 * it given up. `extra` conditions of the claim take their parameters in `claim`'s `params`.
 */
export function leasedRows<R>(db: Sql, t: ClaimTable & { error: string; failed: string }, extra = '') {
  const held = `${t.id} = ? AND ${t.pending} AND ${t.due} = ?`;
  const SQL = {
    claim: claimText(t, db.dialect, extra),
    nextDue: `${nextDueText(t)}${extra ? ` ${extra}` : ''}`,
    done: `DELETE FROM ${t.table} WHERE ${held}`,
    retry: `UPDATE ${t.table} SET ${t.due} = ?, ${t.error} = ? WHERE ${held}`,
    fail: `UPDATE ${t.table} SET ${t.failed}, ${t.error} = ? WHERE ${held}`,
    renew: `UPDATE ${t.table} SET ${t.due} = ? WHERE ${held}`,
  };
  const one = async (text: string, params: unknown[]) => (await db.run(text, params)) === 1;
  return {
    /** Claims up to `limit` rows due at `now` until `leaseUntil`, counting the attempt. */
    claim(now: number, leaseUntil: number, limit: number, params: readonly unknown[] = []): Promise<R[]> {
      return db.all<R>(SQL.claim, [leaseUntil, now, ...params, limit]);
    },
    /** The earliest due time of the claimable rows. */
    async nextDue(params: readonly unknown[] = []): Promise<number | undefined> {
      const r = await db.get<{ dueMs: number | null }>(SQL.nextDue, [...params]);
      return r?.dueMs === null || r?.dueMs === undefined ? undefined : Number(r.dueMs);
    },
    done: (id: string, lease: number) => one(SQL.done, [id, lease]),
    retry: (id: string, lease: number, due: number, error: string) => one(SQL.retry, [due, error, id, lease]),
    fail: (id: string, lease: number, error: string) => one(SQL.fail, [error, id, lease]),
    renew: (id: string, lease: number, until: number) => one(SQL.renew, [until, id, lease]),
  };
}
