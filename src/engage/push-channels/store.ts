/**
 * Push channels and categories (issue 26, migration 0031): statements of engage/push-channels,
 * the owner of `push_channels` (src/db/owners.ts). Every one takes the environment and the app
 * explicitly. A deleted channel keeps its row (`deleted = 1`, a new revision): its tombstone.
 */
import type { Sql } from '../../platform/store/sql';

export interface PushChannelStoreRow {
  environmentId: string;
  appId: string;
  key: string;
  revision: number;
  deleted: number;
  /** PushChannelDefinition as JSON. */
  definition: string;
  configurationManaged: number;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `environment_id AS "environmentId", app_id AS "appId", key, revision, deleted, definition,
  configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt"`;

const SQL = {
  find: `SELECT ${COLUMNS} FROM push_channels WHERE environment_id = ? AND app_id = ? AND key = ?`,
  // A new key, or a deleted one revived (a new channel under the old key: unmanaged, created now).
  create: `INSERT INTO push_channels (environment_id, app_id, key, revision, deleted, definition, configuration_managed, created_at, updated_at)
    VALUES (?, ?, ?, ?, 0, ?, 0, ?, ?)
    ON CONFLICT (app_id, key) DO UPDATE SET revision = excluded.revision, deleted = 0, definition = excluded.definition,
      configuration_managed = 0, created_at = excluded.created_at, updated_at = excluded.updated_at
    WHERE push_channels.deleted = 1 AND push_channels.environment_id = excluded.environment_id`,
  update: `UPDATE push_channels SET revision = ?, definition = ?, updated_at = ? WHERE environment_id = ? AND app_id = ? AND key = ? AND deleted = 0`,
  // If-Match: only while the channel is at the revision the caller read.
  updateIf: `UPDATE push_channels SET revision = ?, definition = ?, updated_at = ? WHERE environment_id = ? AND app_id = ? AND key = ? AND deleted = 0 AND revision = ?`,
  remove: `UPDATE push_channels SET revision = ?, deleted = 1, configuration_managed = 0, updated_at = ?
    WHERE environment_id = ? AND app_id = ? AND key = ? AND deleted = 0`,
  removeIf: `UPDATE push_channels SET revision = ?, deleted = 1, configuration_managed = 0, updated_at = ?
    WHERE environment_id = ? AND app_id = ? AND key = ? AND deleted = 0 AND revision = ?`,
  page: `SELECT ${COLUMNS} FROM push_channels WHERE environment_id = ? AND app_id = ? AND deleted = 0 ORDER BY key LIMIT ? OFFSET ?`,
  all: `SELECT ${COLUMNS} FROM push_channels WHERE environment_id = ? AND app_id = ? AND deleted = 0 ORDER BY key`,
  mark: `UPDATE push_channels SET configuration_managed = 1 WHERE environment_id = ? AND app_id = ? AND key = ? AND deleted = 0 AND configuration_managed = 0`,
} as const;

export function createPushChannelStore(db: Sql) {
  return {
    /** The channel's row, deleted or not. */
    findChannel(environmentId: string, appId: string, key: string): Promise<PushChannelStoreRow | undefined> {
      return db.get<PushChannelStoreRow>(SQL.find, [environmentId, appId, key]);
    },
    /** False when a channel of that key exists in the app (not deleted). */
    async createChannel(environmentId: string, appId: string, key: string, revision: number, definition: string, at: string): Promise<boolean> {
      return (await db.run(SQL.create, [environmentId, appId, key, revision, definition, at, at])) === 1;
    },
    /** False when there is no such channel, or (with `expectedRevision`) it is no longer at that revision. */
    async updateChannel(environmentId: string, appId: string, key: string, revision: number, definition: string, at: string, expectedRevision?: number): Promise<boolean> {
      const args = [revision, definition, at, environmentId, appId, key];
      return (await (expectedRevision === undefined ? db.run(SQL.update, args) : db.run(SQL.updateIf, [...args, expectedRevision]))) === 1;
    },
    /** Marks the channel deleted under a new revision (its tombstone); false when there is none to delete (or, with `expectedRevision`, it moved on). */
    async deleteChannel(environmentId: string, appId: string, key: string, revision: number, at: string, expectedRevision?: number): Promise<boolean> {
      const args = [revision, at, environmentId, appId, key];
      return (await (expectedRevision === undefined ? db.run(SQL.remove, args) : db.run(SQL.removeIf, [...args, expectedRevision]))) === 1;
    },
    pageChannels(environmentId: string, appId: string, limit: number, offset: number): Promise<PushChannelStoreRow[]> {
      return db.all<PushChannelStoreRow>(SQL.page, [environmentId, appId, limit, offset]);
    },
    allChannels(environmentId: string, appId: string): Promise<PushChannelStoreRow[]> {
      return db.all<PushChannelStoreRow>(SQL.all, [environmentId, appId]);
    },
    /** `engage apply`'s configuration-managed mark; true when set now. */
    async markChannel(environmentId: string, appId: string, key: string): Promise<boolean> {
      return (await db.run(SQL.mark, [environmentId, appId, key])) === 1;
    },
  };
}

export type PushChannelStore = ReturnType<typeof createPushChannelStore>;
