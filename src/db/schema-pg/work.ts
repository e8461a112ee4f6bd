import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * Durable work items (platform/work, issue 22 point 2): one row per piece of work of a declared
 * kind, due at `due_ms`. A worker claims due rows (the claim moves `due_ms` to the end of its
 * lease and counts the attempt), so a process that dies mid-attempt leaves them due again once
 * the lease lapses. A due time hours away is a row, not a timer. The payload names what the work
 * is about by id: personal data stays in the owning context's tables (erased there).
 */
export const workItems = pgTable(
  'work_items',
  {
    id: text('id').primaryKey(),
    /** The declared kind (work.ts registers every kind; a context declares its own). */
    kind: text('kind').notNull(),
    /** JSON of the kind's payload: ids, never personal data. */
    payload: text('payload').notNull(),
    /** PENDING until done (then deleted), FAILED when given up (kept for the operator). */
    status: text('status', { enum: ['PENDING', 'FAILED'] }).notNull().default('PENDING'),
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    /** Epoch ms when the item is due; while claimed, when its lease lapses. */
    dueMs: bigint('due_ms', { mode: 'number' }).notNull(),
    lastError: text('last_error'),
    createdMs: bigint('created_ms', { mode: 'number' }).notNull(),
  },
  (t) => [index('work_items_due').on(t.status, t.dueMs)],
);
