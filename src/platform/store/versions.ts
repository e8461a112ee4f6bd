import type { Sql } from './sql';
import { checkChannel } from './version-channels';

const BUMP = {
  sqlite: `INSERT INTO version_channels (name, version) VALUES (?, 1)
    ON CONFLICT (name) DO UPDATE SET version = version_channels.version + 1 RETURNING version AS v`,
  // engage_version_bump (migrations/pg/0025) also notifies every process and the writer.
  postgres: 'SELECT engage_version_bump(?) AS v',
} as const;

/**
 * Moves named version channels (platform/store/version-channels.ts) that no trigger moves. Call
 * `bump` in the transaction that makes the change the channel versions: the move commits (and
 * is published to every process) with it, or not at all.
 */
export function createVersionStore(db: Sql) {
  return {
    /** Moves the channel (made at its first move); its new value in the database. */
    async bump(channel: string): Promise<number> {
      const row = await db.get<{ v: number | string }>(BUMP[db.dialect], [checkChannel(channel)]);
      return Number(row!.v);
    },
  };
}
