import type { Sql } from '../../platform/store/sql';

const SQL = {
  // A range of operations_environment_received (migration 0029).
  since: `SELECT status, COUNT(*) AS n FROM operations WHERE environment_id = ? AND received_ms >= ? GROUP BY status`,
  // The same index range bounded on both sides, grouped by the minute of reception (integer division on both engines).
  perMinute: `SELECT received_ms / 60000 AS minute, status, COUNT(*) AS n FROM operations
    WHERE environment_id = ? AND received_ms >= ? AND received_ms < ? GROUP BY received_ms / 60000, status`,
} as const;

/** Read-only counts of the operations ledger for the environment overview (engage/operations owns the table). */
export function createOperationOverviewStore(db: Sql) {
  return {
    ingestedSince(environmentId: string, sinceMs: number): Promise<{ status: string; n: number }[]> {
      return db.all<{ status: string; n: number }>(SQL.since, [environmentId, sinceMs]);
    },
    /** Operations received in [fromMs, toMs) by minute (its number since the epoch) and status. */
    perMinute(environmentId: string, fromMs: number, toMs: number): Promise<{ minute: number | string; status: string; n: number | string }[]> {
      return db.all<{ minute: number | string; status: string; n: number | string }>(SQL.perMinute, [environmentId, fromMs, toMs]);
    },
  };
}

export type OperationOverviewStore = ReturnType<typeof createOperationOverviewStore>;
