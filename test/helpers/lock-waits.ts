import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '../../src/platform/store/sql';

/**
 * For tests that interleave PostgreSQL transactions: how many sessions of the test database wait
 * on a lock now, and a wait until a promise settled or `n` sessions wait on one (the other
 * transaction got as far as the lock it must wait for).
 */
export function lockWaits(sql: Sql) {
  const waiting = async () =>
    Number((await sql.get<{ n: string }>(`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))!.n);
  async function settledOrWaiting(p: Promise<unknown>, n: number): Promise<'settled' | 'waiting'> {
    let settled = false;
    p.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(10)) {
      if (settled) return 'settled';
      if ((await waiting()) >= n) return 'waiting';
    }
    throw new Error(`neither settled nor ${n} sessions waiting on a lock`);
  }
  return { waiting, settledOrWaiting };
}
