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
  read: `SELECT revision, horizon, refresh_after_seconds AS "refreshAfterSeconds" FROM sync_environments WHERE environment_id = ?`,
  setRefresh: `INSERT INTO sync_environments (environment_id, refresh_after_seconds, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (environment_id) DO UPDATE SET refresh_after_seconds = excluded.refresh_after_seconds, updated_at = excluded.updated_at`,
  raiseHorizon: 'UPDATE sync_environments SET horizon = ? WHERE environment_id = ? AND horizon < ?',
} as const;

export interface SyncEnvironmentRow {
  revision: number;
  horizon: number;
  refreshAfterSeconds: number;
}

export function createDefinitionStore(db: Sql) {
  return {
    /** The next definitions revision of the environment, its counter row locked until the transaction ends. */
    async next(environmentId: string, at: string): Promise<number> {
      return Number((await db.get<{ revision: number }>(SQL.next, [environmentId, at]))!.revision);
    },
    async read(environmentId: string): Promise<SyncEnvironmentRow | undefined> {
      const r = await db.get<SyncEnvironmentRow>(SQL.read, [environmentId]);
      return r && { revision: Number(r.revision), horizon: Number(r.horizon), refreshAfterSeconds: Number(r.refreshAfterSeconds) };
    },
    async setRefreshAfter(environmentId: string, seconds: number, at: string): Promise<void> {
      await db.run(SQL.setRefresh, [environmentId, seconds, at]);
    },
    /** Cursors below `horizon` get a full snapshot from now on (tombstones older than it were purged). */
    async raiseHorizon(environmentId: string, horizon: number): Promise<void> {
      await db.run(SQL.raiseHorizon, [horizon, environmentId, horizon]);
    },
  };
}

export type DefinitionStore = ReturnType<typeof createDefinitionStore>;
