import type { workItems } from '../../db/schema';
import type { Sql } from '../store/sql';
import { claimText, nextDueText, type ClaimTable } from './claim';

export type WorkItemRow = typeof workItems.$inferSelect;

const COLUMNS = `id, kind, payload, status, attempts, due_ms AS "dueMs", last_error AS "lastError", created_ms AS "createdMs"`;

/** The work_items table as the claim sees it (platform/work/claim.ts). */
export const WORK_ITEMS: ClaimTable = { table: 'work_items', id: 'id', due: 'due_ms', attempts: 'attempts', pending: `status = 'PENDING'`, returning: COLUMNS };

const kindsIn = (n: number) => `AND kind IN (${new Array<string>(n).fill('?').join(', ')})`;

const SQL = {
  insert: `INSERT INTO work_items (id, kind, payload, status, attempts, due_ms, created_ms) VALUES (?, ?, ?, 'PENDING', 0, ?, ?)`,
  // Every settlement and renewal names the lease it holds (the due time its claim wrote).
  done: `DELETE FROM work_items WHERE id = ? AND status = 'PENDING' AND due_ms = ?`,
  retry: `UPDATE work_items SET due_ms = ?, last_error = ? WHERE id = ? AND status = 'PENDING' AND due_ms = ?`,
  fail: `UPDATE work_items SET status = 'FAILED', last_error = ? WHERE id = ? AND status = 'PENDING' AND due_ms = ?`,
  renew: `UPDATE work_items SET due_ms = ? WHERE id = ? AND status = 'PENDING' AND due_ms = ?`,
  nextDue: (n: number) => `${nextDueText(WORK_ITEMS)} ${kindsIn(n)}`,
  find: `SELECT ${COLUMNS} FROM work_items WHERE id = ?`,
  byKind: `SELECT ${COLUMNS} FROM work_items WHERE kind = ? ORDER BY created_ms, id`,
  pending: `SELECT kind, COUNT(*) AS n FROM work_items WHERE status = 'PENDING' GROUP BY kind ORDER BY kind`,
} as const;

/** The durable work items of platform/work (table work_items, migration 0023). */
export function createWorkStore(db: Sql) {
  return {
    async insert(r: { id: string; kind: string; payload: string; dueMs: number; createdMs: number }): Promise<void> {
      await db.run(SQL.insert, [r.id, r.kind, r.payload, r.dueMs, r.createdMs]);
    },
    /** Claims up to `limit` due items of these kinds until `leaseUntil` (claim.ts). */
    claim(kinds: readonly string[], nowMs: number, leaseUntil: number, limit: number): Promise<WorkItemRow[]> {
      return db.all<WorkItemRow>(claimText(WORK_ITEMS, db.dialect, kindsIn(kinds.length)), [leaseUntil, nowMs, ...kinds, limit]);
    },
    async nextDueMs(kinds: readonly string[]): Promise<number | undefined> {
      const r = await db.get<{ dueMs: number | null }>(SQL.nextDue(kinds.length), [...kinds]);
      return r?.dueMs === null || r?.dueMs === undefined ? undefined : Number(r.dueMs);
    },
    async done(id: string, leaseUntil: number): Promise<boolean> {
      return (await db.run(SQL.done, [id, leaseUntil])) === 1;
    },
    async retry(id: string, leaseUntil: number, dueMs: number, error: string): Promise<boolean> {
      return (await db.run(SQL.retry, [dueMs, error, id, leaseUntil])) === 1;
    },
    async fail(id: string, leaseUntil: number, error: string): Promise<boolean> {
      return (await db.run(SQL.fail, [error, id, leaseUntil])) === 1;
    },
    async renew(id: string, fromMs: number, toMs: number): Promise<boolean> {
      return (await db.run(SQL.renew, [toMs, id, fromMs])) === 1;
    },
    find(id: string): Promise<WorkItemRow | undefined> {
      return db.get<WorkItemRow>(SQL.find, [id]);
    },
    ofKind(kind: string): Promise<WorkItemRow[]> {
      return db.all<WorkItemRow>(SQL.byKind, [kind]);
    },
    /** PENDING items by kind, across processes (metrics). */
    pendingByKind(): Promise<{ kind: string; n: number }[]> {
      return db.all<{ kind: string; n: number }>(SQL.pending);
    },
  };
}

export type WorkStore = ReturnType<typeof createWorkStore>;
