/**
 * Subscription lists (issue 26, migration 0031): statements of engage/preferences, the owner of
 * `subscription_lists` (src/db/owners.ts). Every one takes the environment explicitly. A deleted
 * list keeps its row (`deleted = 1`, a new revision) so the sync sends its tombstone.
 */
import type { Sql } from '../../platform/store/sql';

export interface ListStoreRow {
  environmentId: string;
  key: string;
  revision: number;
  deleted: number;
  /** ListDefinition as JSON. */
  definition: string;
  configurationManaged: number;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `environment_id AS "environmentId", key, revision, deleted, definition, configuration_managed AS "configurationManaged",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const SQL = {
  find: `SELECT ${COLUMNS} FROM subscription_lists WHERE environment_id = ? AND key = ?`,
  // A new key, or a deleted one revived (a new list under the old key: unmanaged, created now).
  create: `INSERT INTO subscription_lists (environment_id, key, revision, deleted, definition, configuration_managed, created_at, updated_at)
    VALUES (?, ?, ?, 0, ?, 0, ?, ?)
    ON CONFLICT (environment_id, key) DO UPDATE SET revision = excluded.revision, deleted = 0, definition = excluded.definition,
      configuration_managed = 0, created_at = excluded.created_at, updated_at = excluded.updated_at
    WHERE subscription_lists.deleted = 1`,
  update: `UPDATE subscription_lists SET revision = ?, definition = ?, updated_at = ? WHERE environment_id = ? AND key = ? AND deleted = 0`,
  // If-Match: only while the list is at the revision the caller read.
  updateIf: `UPDATE subscription_lists SET revision = ?, definition = ?, updated_at = ? WHERE environment_id = ? AND key = ? AND deleted = 0 AND revision = ?`,
  remove: `UPDATE subscription_lists SET revision = ?, deleted = 1, configuration_managed = 0, updated_at = ? WHERE environment_id = ? AND key = ? AND deleted = 0`,
  removeIf: `UPDATE subscription_lists SET revision = ?, deleted = 1, configuration_managed = 0, updated_at = ?
    WHERE environment_id = ? AND key = ? AND deleted = 0 AND revision = ?`,
  page: `SELECT ${COLUMNS} FROM subscription_lists WHERE environment_id = ? AND deleted = 0 ORDER BY key LIMIT ? OFFSET ?`,
  all: `SELECT ${COLUMNS} FROM subscription_lists WHERE environment_id = ? AND deleted = 0 ORDER BY key`,
  mark: 'UPDATE subscription_lists SET configuration_managed = 1 WHERE environment_id = ? AND key = ? AND deleted = 0 AND configuration_managed = 0',
} as const;

export function createPreferenceStore(db: Sql) {
  return {
    /** The list's row, deleted or not. */
    findList(environmentId: string, key: string): Promise<ListStoreRow | undefined> {
      return db.get<ListStoreRow>(SQL.find, [environmentId, key]);
    },
    /** False when a list of that key exists (not deleted). */
    async createList(environmentId: string, key: string, revision: number, definition: string, at: string): Promise<boolean> {
      return (await db.run(SQL.create, [environmentId, key, revision, definition, at, at])) === 1;
    },
    /** False when there is no such list, or (with `expectedRevision`) it is no longer at that revision. */
    async updateList(environmentId: string, key: string, revision: number, definition: string, at: string, expectedRevision?: number): Promise<boolean> {
      const args = [revision, definition, at, environmentId, key];
      return (await (expectedRevision === undefined ? db.run(SQL.update, args) : db.run(SQL.updateIf, [...args, expectedRevision]))) === 1;
    },
    /** Marks the list deleted under a new revision (its tombstone); false when there is none to delete (or, with `expectedRevision`, it moved on). */
    async deleteList(environmentId: string, key: string, revision: number, at: string, expectedRevision?: number): Promise<boolean> {
      const args = [revision, at, environmentId, key];
      return (await (expectedRevision === undefined ? db.run(SQL.remove, args) : db.run(SQL.removeIf, [...args, expectedRevision]))) === 1;
    },
    pageLists(environmentId: string, limit: number, offset: number): Promise<ListStoreRow[]> {
      return db.all<ListStoreRow>(SQL.page, [environmentId, limit, offset]);
    },
    allLists(environmentId: string): Promise<ListStoreRow[]> {
      return db.all<ListStoreRow>(SQL.all, [environmentId]);
    },
    /** `engage apply`'s configuration-managed mark; true when set now. */
    async markList(environmentId: string, key: string): Promise<boolean> {
      return (await db.run(SQL.mark, [environmentId, key])) === 1;
    },
  };
}

export type PreferenceStore = ReturnType<typeof createPreferenceStore>;
