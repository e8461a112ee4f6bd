import type { Db } from '../store/sqlite';

export interface JobLease {
  name: string;
  /** The holder's id, null when released. */
  owner: string | null;
  leaseUntil: number;
  runAfter: number;
  lastRunAt: number | null;
}

/**
 * Leases of background jobs (table job_leases, migration 0004). Every write is a conditional
 * UPDATE that states who may make it, so the rules hold with several processes on one database
 * and carry over to PostgreSQL unchanged (DESIGN.md "Storage").
 */
export function createJobLeaseStore(db: Db) {
  const raw = db.$client;
  // Compiled on first use (a store may be bound before migrations ran).
  let compiled: ReturnType<typeof compile> | undefined;
  const sql = () => (compiled ??= compile());
  const compile = () => ({
    register: raw.prepare('INSERT OR IGNORE INTO job_leases (name) VALUES (?)'),
    // Free (released), expired (its holder died or stalled), or already ours.
    take: raw.prepare(
      `UPDATE job_leases SET owner = @owner, lease_until = @until
       WHERE name = @name AND (owner IS NULL OR owner = @owner OR lease_until <= @now)
       RETURNING run_after AS runAfter`,
    ),
    // A request made while the run was going on moved run_after below what the holder saw:
    // keep it, so that run happens again rather than being overwritten by the schedule.
    record: raw.prepare(
      `UPDATE job_leases SET last_run_at = @at,
         run_after = CASE WHEN run_after < @seen THEN run_after ELSE @next END
       WHERE name = @name AND owner = @owner`,
    ),
    request: raw.prepare('UPDATE job_leases SET run_after = MIN(run_after, @now) - 1 WHERE name = @name'),
    release: raw.prepare('UPDATE job_leases SET owner = NULL, lease_until = 0 WHERE name = @name AND owner = @owner'),
    find: raw.prepare('SELECT name, owner, lease_until AS leaseUntil, run_after AS runAfter, last_run_at AS lastRunAt FROM job_leases WHERE name = ?'),
  });

  return {
    /** Creates the job's row on first use; a no-op once it exists. */
    registerJob(name: string): void {
      sql().register.run(name);
    },
    /**
     * Takes the lease, or renews it, until `until` (epoch ms). Returns when the job is next
     * due, or undefined while another live holder has it.
     */
    takeLease(name: string, owner: string, now: number, until: number): { runAfter: number } | undefined {
      return sql().take.get({ name, owner, now, until }) as { runAfter: number } | undefined;
    },
    /**
     * Records a run by the holder: when it ran and when the job is next due. `seenRunAfter` is
     * the due time the holder read when it took the lease. False when the lease was lost.
     */
    recordRun(name: string, owner: string, at: number, seenRunAfter: number, nextRunAfter: number): boolean {
      return sql().record.run({ name, owner, at, seen: seenRunAfter, next: nextRunAfter }).changes === 1;
    },
    /**
     * Asks whoever holds the lease to run the job at its next look: run_after moves strictly
     * earlier (so `recordRun` can tell a request made during a run from the schedule it read).
     */
    requestRun(name: string, now: number): void {
      sql().request.run({ name, now });
    },
    /** Gives the lease up at once (on stop), if it is still ours. */
    releaseLease(name: string, owner: string): void {
      sql().release.run({ name, owner });
    },
    /** The lease row, for tests and inspection. */
    lease(name: string): JobLease | undefined {
      return sql().find.get(name) as JobLease | undefined;
    },
  };
}

export type JobLeaseStore = ReturnType<typeof createJobLeaseStore>;
