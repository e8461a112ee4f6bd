import type { workItems } from '../../db/schema';
import type { Sql } from '../store/sql';
import { leasedRows, type ClaimTable } from './claim';

export type WorkItemRow = typeof workItems.$inferSelect;

const COLUMNS = `id, kind, payload, status, attempts, due_ms AS "dueMs", last_error AS "lastError", created_ms AS "createdMs"`;

/** The work_items table as the claim sees it (platform/work/claim.ts). */
export const WORK_ITEMS = {
  table: 'work_items', id: 'id', due: 'due_ms', attempts: 'attempts', pending: `status = 'PENDING'`, returning: COLUMNS, error: 'last_error', failed: `status = 'FAILED'`,
} satisfies ClaimTable;

const kindsIn = (n: number) => `AND kind IN (${new Array<string>(n).fill('?').join(', ')})`;

const SQL = {
  insert: `INSERT INTO work_items (id, kind, payload, status, attempts, due_ms, created_ms) VALUES (?, ?, ?, 'PENDING', 0, ?, ?)`,
  find: `SELECT ${COLUMNS} FROM work_items WHERE id = ?`,
  byKind: `SELECT ${COLUMNS} FROM work_items WHERE kind = ? ORDER BY created_ms, id`,
  pending: `SELECT kind, COUNT(*) AS n FROM work_items WHERE status = 'PENDING' GROUP BY kind ORDER BY kind`,
} as const;

/** The durable work items of platform/work (table work_items, migration 0023). */
export function createWorkStore(db: Sql) {
  // The claim and the next due time of the kinds a worker registered: one text per number of kinds.
  const byKinds = new Map<number, ReturnType<typeof leasedRows<WorkItemRow>>>();
  const rows = (n: number) => {
    let r = byKinds.get(n);
    if (!r) byKinds.set(n, (r = leasedRows<WorkItemRow>(db, WORK_ITEMS, kindsIn(n))));
    return r;
  };
  const held = rows(0);
  return {
    async insert(r: { id: string; kind: string; payload: string; dueMs: number; createdMs: number }): Promise<void> {
      await db.run(SQL.insert, [r.id, r.kind, r.payload, r.dueMs, r.createdMs]);
    },
    /** Claims up to `limit` due items of these kinds until `leaseUntil` (claim.ts). */
    claim(kinds: readonly string[], nowMs: number, leaseUntil: number, limit: number): Promise<WorkItemRow[]> {
      return rows(kinds.length).claim(nowMs, leaseUntil, limit, kinds);
    },
    nextDueMs(kinds: readonly string[]): Promise<number | undefined> {
      return rows(kinds.length).nextDue(kinds);
    },
    done: held.done,
    retry: held.retry,
    fail: held.fail,
    renew: held.renew,
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
