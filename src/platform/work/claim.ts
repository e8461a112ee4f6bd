import type { Dialect } from '../store/sql';

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
