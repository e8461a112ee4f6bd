import type { Sql } from '../../platform/store/sql';

const SQL = {
  // A range of operations_environment_received (migration 0029).
  since: `SELECT status, COUNT(*) AS n FROM operations WHERE environment_id = ? AND received_ms >= ? GROUP BY status`,
} as const;

/** Read-only counts of the operations ledger for the environment overview (engage/operations owns the table). */
export function createOperationOverviewStore(db: Sql) {
  return {
    ingestedSince(environmentId: string, sinceMs: number): Promise<{ status: string; n: number }[]> {
      return db.all<{ status: string; n: number }>(SQL.since, [environmentId, sinceMs]);
    },
  };
}

export type OperationOverviewStore = ReturnType<typeof createOperationOverviewStore>;
