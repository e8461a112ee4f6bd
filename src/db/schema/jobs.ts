import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * One row per background job (platform/jobs): the process holding its lease runs it, so a job
 * runs once even when several processes share the database. A lease is taken or renewed by a
 * conditional UPDATE (free, expired, or already ours) and lapses on its own if its holder dies.
 */
export const jobLeases = sqliteTable('job_leases', {
  name: text('name').primaryKey(),
  /** The holder's id (one per process), null when released. */
  owner: text('owner'),
  /** Epoch ms after which another process may take the lease. */
  leaseUntil: integer('lease_until').notNull().default(0),
  /** Epoch ms before which the job need not run again (its schedule). */
  runAfter: integer('run_after').notNull().default(0),
  lastRunAt: integer('last_run_at'),
});
