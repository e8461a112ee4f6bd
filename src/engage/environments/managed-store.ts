import type { Sql } from '../../platform/store/sql';

/**
 * What only `engage apply` writes in the environments context (issue 24): the
 * configuration-managed mark (migration 0028) of an environment, an app or an access key, and an
 * access key's secret and app set as the file declares them. Every statement names the
 * environment, so a row of another environment is never touched.
 */
const SQL = {
  markEnvironment: 'UPDATE environments SET configuration_managed = 1 WHERE id = ? AND configuration_managed = 0',
  markApp: 'UPDATE apps SET configuration_managed = 1 WHERE environment_id = ? AND id = ? AND configuration_managed = 0',
  markAccessKey: 'UPDATE access_keys SET configuration_managed = 1 WHERE environment_id = ? AND id = ? AND configuration_managed = 0',
  // The key from the file's variable: the previous secret stops at once (no overlap: the file is the truth).
  setAccessKeySecret: `UPDATE access_keys SET key_digest = ?, key_hint = ?, previous_key_digest = NULL, previous_expires_at = NULL
    WHERE environment_id = ? AND id = ? AND status = 'ACTIVE'`,
  setAccessKeyApps: `UPDATE access_keys SET app_ids = ? WHERE environment_id = ? AND id = ? AND status = 'ACTIVE'`,
  accessKeyDigest: 'SELECT key_digest AS "keyDigest" FROM access_keys WHERE environment_id = ? AND id = ?',
} as const;

export function createEnvironmentMarkStore(db: Sql) {
  return {
    /** True when the mark was set now (false: it was already set, or no such row). */
    async markEnvironment(id: string): Promise<boolean> {
      return (await db.run(SQL.markEnvironment, [id])) === 1;
    },
    async markApp(environmentId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markApp, [environmentId, id])) === 1;
    },
    async markAccessKey(environmentId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markAccessKey, [environmentId, id])) === 1;
    },
    async setAccessKeySecret(environmentId: string, id: string, keyDigest: string, keyHint: string): Promise<boolean> {
      return (await db.run(SQL.setAccessKeySecret, [keyDigest, keyHint, environmentId, id])) === 1;
    },
    async setAccessKeyApps(environmentId: string, id: string, appIds: readonly string[]): Promise<boolean> {
      return (await db.run(SQL.setAccessKeyApps, [JSON.stringify(appIds), environmentId, id])) === 1;
    },
    async accessKeyDigest(environmentId: string, id: string): Promise<string | undefined> {
      return (await db.get<{ keyDigest: string }>(SQL.accessKeyDigest, [environmentId, id]))?.keyDigest;
    },
  };
}

export type EnvironmentMarkStore = ReturnType<typeof createEnvironmentMarkStore>;
