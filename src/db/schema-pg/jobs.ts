import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * One row per background job (platform/jobs): the process holding its lease runs it, so a job
 * runs once even when several processes share the database. A lease is taken or renewed by a
 * conditional UPDATE (free, expired, or already ours) and lapses on its own if its holder dies.
 */
export const jobLeases = pgTable('job_leases', {
  name: text('name').primaryKey(),
  /** The holder's id (one per process), null when released. */
  owner: text('owner'),
  /** Epoch ms after which another process may take the lease. */
  leaseUntil: bigint('lease_until', { mode: 'number' }).notNull().default(0),
  /** Epoch ms before which the job need not run again (its schedule). */
  runAfter: bigint('run_after', { mode: 'number' }).notNull().default(0),
  lastRunAt: bigint('last_run_at', { mode: 'number' }),
});
