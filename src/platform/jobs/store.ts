import type { Sql } from '../store/sql';

export interface JobLease {
  name: string;
  /** The holder's id, null when released. */
  owner: string | null;
  leaseUntil: number;
  runAfter: number;
  lastRunAt: number | null;
}

const SQL = {
  register: 'INSERT INTO job_leases (name) VALUES (?) ON CONFLICT (name) DO NOTHING',
  // Free (released), expired (its holder died or stalled), or already ours.
  take: `UPDATE job_leases SET owner = @owner, lease_until = @until
    WHERE name = @name AND (owner IS NULL OR owner = @owner OR lease_until <= @now)
    RETURNING run_after AS "runAfter"`,
  // A request made while the run was going on moved run_after below what the holder saw:
  // keep it, so that run happens again rather than being overwritten by the schedule.
  record: `UPDATE job_leases SET last_run_at = @at,
      run_after = CASE WHEN run_after < @seen THEN run_after ELSE @next END
    WHERE name = @name AND owner = @owner`,
  request: 'UPDATE job_leases SET run_after = CASE WHEN run_after < @now THEN run_after ELSE @now END - 1 WHERE name = @name',
  release: 'UPDATE job_leases SET owner = NULL, lease_until = 0 WHERE name = @name AND owner = @owner',
  find: 'SELECT name, owner, lease_until AS "leaseUntil", run_after AS "runAfter", last_run_at AS "lastRunAt" FROM job_leases WHERE name = ?',
  list: 'SELECT name, owner, lease_until AS "leaseUntil", run_after AS "runAfter", last_run_at AS "lastRunAt" FROM job_leases ORDER BY name',
} as const;

/**
 * Leases of background jobs (table job_leases, migration 0004). Every write is a conditional
 * UPDATE that states who may make it, so the rules hold with several processes on one database,
 * on either engine (DESIGN.md "Storage").
 */
export function createJobLeaseStore(db: Sql) {
  return {
    /** Creates the job's row on first use; a no-op once it exists. */
    async registerJob(name: string): Promise<void> {
      await db.run(SQL.register, [name]);
    },
    /**
     * Takes the lease, or renews it, until `until` (epoch ms). Returns when the job is next
     * due, or undefined while another live holder has it.
     */
    takeLease(name: string, owner: string, now: number, until: number): Promise<{ runAfter: number } | undefined> {
      return db.get<{ runAfter: number }>(SQL.take, { name, owner, now, until });
    },
    /**
     * Records a run by the holder: when it ran and when the job is next due. `seenRunAfter` is
     * the due time the holder read when it took the lease. False when the lease was lost.
     */
    async recordRun(name: string, owner: string, at: number, seenRunAfter: number, nextRunAfter: number): Promise<boolean> {
      return (await db.run(SQL.record, { name, owner, at, seen: seenRunAfter, next: nextRunAfter })) === 1;
    },
    /**
     * Asks whoever holds the lease to run the job at its next look: run_after moves strictly
     * earlier (so `recordRun` can tell a request made during a run from the schedule it read).
     */
    async requestRun(name: string, now: number): Promise<void> {
      await db.run(SQL.request, { name, now });
    },
    /** Gives the lease up at once (on stop), if it is still ours. */
    async releaseLease(name: string, owner: string): Promise<void> {
      await db.run(SQL.release, { name, owner });
    },
    /** The lease row, for tests and inspection. */
    lease(name: string): Promise<JobLease | undefined> {
      return db.get<JobLease>(SQL.find, [name]);
    },
    /** Every job's row, across processes (metrics). */
    leases(): Promise<JobLease[]> {
      return db.all<JobLease>(SQL.list);
    },
  };
}

export type JobLeaseStore = ReturnType<typeof createJobLeaseStore>;
