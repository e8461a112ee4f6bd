/**
 * The apps' push provider credentials (migration 0008; APNs keys and FCM service accounts,
 * sealed, credentials.ts opens them): statements of the messaging store (the owner of
 * push_credentials, src/db/owners.ts). One row per app and provider.
 */
import type { pushCredentials } from '../../db/schema';
import type { Sql } from '../../platform/store/sql';

export type CredentialRow = typeof pushCredentials.$inferSelect;

const SQL = {
  upsert: `INSERT INTO push_credentials (app_id, environment_id, provider, info, sealed, updated_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (app_id, provider) DO UPDATE SET info = excluded.info, sealed = excluded.sealed, updated_at = excluded.updated_at`,
  apps: `SELECT app_id AS "appId", provider FROM push_credentials WHERE environment_id = ?`,
  delete: 'DELETE FROM push_credentials WHERE environment_id = ? AND app_id = ? AND provider = ?',
  one: `SELECT app_id AS "appId", environment_id AS "environmentId", provider, info, sealed, updated_at AS "updatedAt"
    FROM push_credentials WHERE app_id = ? AND provider = ?`,
} as const;

export function createCredentialStatements(db: Sql) {
  return {
    async upsertCredential(r: CredentialRow): Promise<void> {
      await db.run(SQL.upsert, [r.appId, r.environmentId, r.provider, r.info, r.sealed, r.updatedAt]);
    },
    /** Deletes an app's credentials of a provider; false when there were none. */
    async deleteCredential(environmentId: string, appId: string, provider: CredentialRow['provider']): Promise<boolean> {
      return (await db.run(SQL.delete, [environmentId, appId, provider])) === 1;
    },
    credentialApps(environmentId: string): Promise<{ appId: string; provider: CredentialRow['provider'] }[]> {
      return db.all(SQL.apps, [environmentId]);
    },
    credential(appId: string, provider: CredentialRow['provider']): Promise<CredentialRow | undefined> {
      return db.get<CredentialRow>(SQL.one, [appId, provider]);
    },
  };
}
