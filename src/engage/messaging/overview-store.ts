import type { Sql } from '../../platform/store/sql';

const SQL = {
  // A range of push_sends_environment_created (migration 0029); test sends are not counted (issue 24).
  sends: `SELECT COUNT(*) AS n FROM push_sends WHERE environment_id = ? AND created_ms >= ? AND is_test = 0`,
  // A range of push_deliveries_environment_created, each joined to its send by primary key to leave test sends out.
  deliveries: `SELECT d.state AS state, COUNT(*) AS n FROM push_deliveries d JOIN push_sends s ON s.id = d.send_id
    WHERE d.environment_id = ? AND d.created_ms >= ? AND s.is_test = 0 GROUP BY d.state`,
  // The same range bounded on both sides, grouped by the minute of creation (integer division on both engines).
  deliveriesPerMinute: `SELECT d.created_ms / 60000 AS minute, d.state AS state, COUNT(*) AS n FROM push_deliveries d JOIN push_sends s ON s.id = d.send_id
    WHERE d.environment_id = ? AND d.created_ms >= ? AND d.created_ms < ? AND s.is_test = 0 GROUP BY d.created_ms / 60000, d.state`,
} as const;

/** Read-only counts of the send ledger for the environment overview (engage/messaging owns the tables). */
export function createMessagingOverviewStore(db: Sql) {
  return {
    async sendsSince(environmentId: string, sinceMs: number): Promise<number> {
      return Number((await db.get<{ n: number }>(SQL.sends, [environmentId, sinceMs]))?.n ?? 0);
    },
    deliveriesSince(environmentId: string, sinceMs: number): Promise<{ state: string; n: number }[]> {
      return db.all<{ state: string; n: number }>(SQL.deliveries, [environmentId, sinceMs]);
    },
    /** Deliveries created in [fromMs, toMs) by minute (its number since the epoch) and state, test sends left out. */
    deliveriesPerMinute(environmentId: string, fromMs: number, toMs: number): Promise<{ minute: number | string; state: string; n: number | string }[]> {
      return db.all<{ minute: number | string; state: string; n: number | string }>(SQL.deliveriesPerMinute, [environmentId, fromMs, toMs]);
    },
  };
}

export type MessagingOverviewStore = ReturnType<typeof createMessagingOverviewStore>;
