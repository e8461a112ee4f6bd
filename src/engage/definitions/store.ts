import type { Sql } from '../../platform/store/sql';

/**
 * The definitions revision of each environment (engage/definitions owns `sync_environments`):
 * one counter row, moved on by every transaction that changes a sync module's definition (a
 * flag, a list, a push channel), under the row's lock until that transaction ends. Two writers
 * of one environment therefore take revisions in the order they commit, and a reader that sees
 * revision n sees every change up to n (issue 26 protocol point 1; the notes' "id order is not
 * commit order").
 */
const SQL = {
  next: `INSERT INTO sync_environments (environment_id, revision, updated_at) VALUES (?, 1, ?)
    ON CONFLICT (environment_id) DO UPDATE SET revision = sync_environments.revision + 1, updated_at = excluded.updated_at
    RETURNING revision`,
  read: `SELECT revision, horizon, refresh_after_seconds AS "refreshAfterSeconds", in_app_min_interval_seconds AS "inAppMinIntervalSeconds",
    in_app_settings_revision AS "inAppSettingsRevision" FROM sync_environments WHERE environment_id = ?`,
  // In the transaction that took `revision` (the IN_APP settings document's source).
  setInAppMinInterval: 'UPDATE sync_environments SET in_app_min_interval_seconds = ?, in_app_settings_revision = ?, updated_at = ? WHERE environment_id = ?',
  setRefresh: `INSERT INTO sync_environments (environment_id, refresh_after_seconds, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (environment_id) DO UPDATE SET refresh_after_seconds = excluded.refresh_after_seconds, updated_at = excluded.updated_at`,
  raiseHorizon: 'UPDATE sync_environments SET horizon = ? WHERE environment_id = ? AND horizon < ?',
} as const;

export interface SyncEnvironmentRow {
  revision: number;
  horizon: number;
  refreshAfterSeconds: number;
  /** In-app messages (issue 27): the least time between two messages on a device, and the definitions revision of its last change. */
  inAppMinIntervalSeconds: number;
  inAppSettingsRevision: number;
}

export function createDefinitionStore(db: Sql) {
  return {
    /** The next definitions revision of the environment, its counter row locked until the transaction ends. */
    async next(environmentId: string, at: string): Promise<number> {
      return Number((await db.get<{ revision: number }>(SQL.next, [environmentId, at]))!.revision);
    },
    async read(environmentId: string): Promise<SyncEnvironmentRow | undefined> {
      const r = await db.get<SyncEnvironmentRow>(SQL.read, [environmentId]);
      return (
        r && {
          revision: Number(r.revision),
          horizon: Number(r.horizon),
          refreshAfterSeconds: Number(r.refreshAfterSeconds),
          inAppMinIntervalSeconds: Number(r.inAppMinIntervalSeconds),
          inAppSettingsRevision: Number(r.inAppSettingsRevision),
        }
      );
    },
    async setRefreshAfter(environmentId: string, seconds: number, at: string): Promise<void> {
      await db.run(SQL.setRefresh, [environmentId, seconds, at]);
    },
    /** The row exists (the caller took `revision` from it in this transaction). */
    async setInAppMinInterval(environmentId: string, seconds: number, revision: number, at: string): Promise<void> {
      await db.run(SQL.setInAppMinInterval, [seconds, revision, at, environmentId]);
    },
    /** Cursors below `horizon` get a full snapshot from now on (tombstones older than it were purged). */
    async raiseHorizon(environmentId: string, horizon: number): Promise<void> {
      await db.run(SQL.raiseHorizon, [horizon, environmentId, horizon]);
    },
  };
}

export type DefinitionStore = ReturnType<typeof createDefinitionStore>;
