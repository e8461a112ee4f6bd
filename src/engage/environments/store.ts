import type { accessKeys, apps, environments } from '../../db/schema';
import { updateStatement, type Sql } from '../../platform/store/sql';

/** An environment; `identityTenantId` read back always, optional when inserting (set by `setIdentityTenant`). */
export type EnvironmentRow = Omit<typeof environments.$inferSelect, 'identityTenantId'> & { identityTenantId?: string | null };
export type AppRow = typeof apps.$inferSelect;
export type AccessKeyRow = typeof accessKeys.$inferSelect;

/** What `updateEnvironment` may change. */
export type EnvironmentChange = Partial<Pick<EnvironmentRow, 'displayName' | 'status'> & { identityTenantId: string | null }>;
/** What `updateAccessKey` may change. */
export type AccessKeyChange = Partial<Pick<AccessKeyRow, 'keyDigest' | 'status' | 'rotatedAt' | 'revokedAt' | 'keyHint' | 'previousKeyDigest' | 'previousExpiresAt'>>;
/** What `updateApp` may change. */
export type AppChange = Partial<Pick<AppRow, 'name' | 'bundleId' | 'status'>>;

const ENV_COLUMNS = `id, name, created_at AS "createdAt", identity_tenant_id AS "identityTenantId", display_name AS "displayName", status,
  configuration_managed AS "configurationManaged"`;
const APP_COLUMNS = `id, environment_id AS "environmentId", platform, name, app_key AS "appKey", status, created_at AS "createdAt",
  bundle_id AS "bundleId", configuration_managed AS "configurationManaged"`;
const KEY_COLUMNS = `id, environment_id AS "environmentId", name, key_digest AS "keyDigest", app_ids AS "appIds", status,
  created_at AS "createdAt", rotated_at AS "rotatedAt", revoked_at AS "revokedAt", expires_at AS "expiresAt", key_hint AS "keyHint",
  previous_key_digest AS "previousKeyDigest", previous_expires_at AS "previousExpiresAt", configuration_managed AS "configurationManaged"`;

const SQL = {
  insertEnvironment: `INSERT INTO environments (id, name, created_at, display_name, identity_tenant_id) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (name) DO NOTHING`,
  environmentStatus: 'SELECT status FROM environments WHERE id = ?',
  // The environment row goes last, once the deletion job erased everything it held.
  deleteEnvironment: `DELETE FROM environments WHERE id = ? AND status = 'DELETING'`,
  environmentById: `SELECT ${ENV_COLUMNS} FROM environments WHERE id = ?`,
  environmentByName: `SELECT ${ENV_COLUMNS} FROM environments WHERE name = ?`,
  environments: `SELECT ${ENV_COLUMNS} FROM environments ORDER BY created_at, id`,
  environmentsOfTenant: `SELECT ${ENV_COLUMNS} FROM environments WHERE identity_tenant_id = ? ORDER BY created_at, id`,
  setIdentityTenant: 'UPDATE environments SET identity_tenant_id = ? WHERE id = ?',
  insertApp: `INSERT INTO apps (id, environment_id, platform, name, app_key, status, created_at, bundle_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (environment_id, name) DO NOTHING`,
  /*
   * Deletes an app only while nothing hangs on it: no installation (their rows would cascade
   * away with it) and no provider credentials (messaging's rows, deleted through its service
   * first). Read-only looks at those tables inside the conditional delete, so a bootstrap racing
   * the deletion either lands first and keeps the app or finds no app.
   */
  deleteUnusedApp: `DELETE FROM apps WHERE environment_id = ? AND id = ?
    AND NOT EXISTS (SELECT 1 FROM installations i WHERE i.app_id = apps.id)
    AND NOT EXISTS (SELECT 1 FROM push_credentials p WHERE p.app_id = apps.id)`,
  app: `SELECT ${APP_COLUMNS} FROM apps WHERE environment_id = ? AND id = ?`,
  appByName: `SELECT ${APP_COLUMNS} FROM apps WHERE environment_id = ? AND name = ?`,
  appById: `SELECT ${APP_COLUMNS} FROM apps WHERE id = ?`,
  appByKey: `SELECT ${APP_COLUMNS} FROM apps WHERE app_key = ?`,
  apps: `SELECT ${APP_COLUMNS} FROM apps WHERE environment_id = ? ORDER BY created_at, id`,
  setAppStatus: 'UPDATE apps SET status = ? WHERE environment_id = ? AND id = ?',
  insertAccessKey: `INSERT INTO access_keys (id, environment_id, name, key_digest, app_ids, status, created_at, rotated_at, revoked_at, expires_at, key_hint)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  accessKey: `SELECT ${KEY_COLUMNS} FROM access_keys WHERE id = ?`,
  accessKeyByDigest: `SELECT ${KEY_COLUMNS} FROM access_keys WHERE key_digest = ?`,
  accessKeyByPreviousDigest: `SELECT ${KEY_COLUMNS} FROM access_keys WHERE previous_key_digest = ?`,
  accessKeyIn: `SELECT ${KEY_COLUMNS} FROM access_keys WHERE environment_id = ? AND id = ?`,
  setAccessKeyApps: 'UPDATE access_keys SET app_ids = ? WHERE environment_id = ? AND id = ?',
  // Only a key not yet revoked: a repeat changes nothing, returns nothing, and so records no second event.
  revokeAccessKey: `UPDATE access_keys SET status = 'REVOKED', revoked_at = COALESCE(revoked_at, ?) WHERE environment_id = ? AND id = ? AND status <> 'REVOKED'
    RETURNING revoked_at AS "revokedAt"`,
  accessKeys: `SELECT ${KEY_COLUMNS} FROM access_keys WHERE environment_id = ? ORDER BY created_at, id`,
} as const;

/** Which columns `updateAccessKey` writes, by field; with or without the status condition. */
const KEY_CHANGE_COLUMNS: Record<keyof AccessKeyChange, string> = {
  keyDigest: 'key_digest',
  status: 'status',
  rotatedAt: 'rotated_at',
  revokedAt: 'revoked_at',
  keyHint: 'key_hint',
  previousKeyDigest: 'previous_key_digest',
  previousExpiresAt: 'previous_expires_at',
};
const APP_CHANGE_COLUMNS: Record<keyof AppChange, string> = { name: 'name', bundleId: 'bundle_id', status: 'status' };
const updateAppStatement = updateStatement('apps', APP_CHANGE_COLUMNS, 'environment_id = ? AND id = ?');
const updateEnvironmentStatement = updateStatement(
  'environments',
  { displayName: 'display_name', status: 'status', identityTenantId: 'identity_tenant_id' } satisfies Record<keyof EnvironmentChange, string>,
  "id = ? AND status <> 'DELETING'",
);
const updateKey = updateStatement('access_keys', KEY_CHANGE_COLUMNS, 'environment_id = ? AND id = ?');
const updateKeyWithStatus = updateStatement('access_keys', KEY_CHANGE_COLUMNS, 'environment_id = ? AND id = ? AND status = ?');
const replaceKeySecret = updateStatement('access_keys', KEY_CHANGE_COLUMNS, "environment_id = ? AND id = ? AND status = 'ACTIVE' AND key_digest = ?");

/** Environments, their platform apps and access keys. */
export function createEnvironmentStore(db: Sql) {
  return {
    /** Inserts an environment; false when its name is taken (a conditional write: the name is unique). */
    async insertEnvironment(row: EnvironmentRow): Promise<boolean> {
      return (await db.run(SQL.insertEnvironment, [row.id, row.name, row.createdAt, row.displayName ?? null, row.identityTenantId ?? null])) === 1;
    },
    /**
     * Changes an environment unless it is being deleted (a conditional write: a change racing
     * the deletion never lands on a DELETING environment). The number of rows changed.
     */
    updateEnvironment(id: string, change: EnvironmentChange): Promise<number> {
      const u = updateEnvironmentStatement(change);
      if (!u) return Promise.resolve(0);
      return db.run(u.text, [...u.values, id]);
    },
    /** The environment's status, or undefined once it is gone (every edge credential checks it). */
    async environmentStatus(id: string): Promise<EnvironmentRow['status'] | undefined> {
      return (await db.get<{ status: EnvironmentRow['status'] }>(SQL.environmentStatus, [id]))?.status;
    },
    /** Deletes the row of an environment being deleted (the deletion job's last step); false when there is none. */
    async deleteEnvironment(id: string): Promise<boolean> {
      return (await db.run(SQL.deleteEnvironment, [id])) === 1;
    },
    findEnvironmentById(id: string): Promise<EnvironmentRow | undefined> {
      return db.get<EnvironmentRow>(SQL.environmentById, [id]);
    },
    findEnvironmentByName(name: string): Promise<EnvironmentRow | undefined> {
      return db.get<EnvironmentRow>(SQL.environmentByName, [name]);
    },
    listEnvironments(): Promise<EnvironmentRow[]> {
      return db.all<EnvironmentRow>(SQL.environments);
    },
    /** The environments naming an identity tenant (issue 24: a sign-in through it binds their installations). */
    listEnvironmentsOfTenant(tenantId: string): Promise<EnvironmentRow[]> {
      return db.all<EnvironmentRow>(SQL.environmentsOfTenant, [tenantId]);
    },
    async setIdentityTenant(id: string, tenantId: string | null): Promise<void> {
      await db.run(SQL.setIdentityTenant, [tenantId, id]);
    },

    /** Inserts an app; false when its name is taken in the environment. */
    async insertApp(r: AppRow): Promise<boolean> {
      return (await db.run(SQL.insertApp, [r.id, r.environmentId, r.platform, r.name, r.appKey, r.status, r.createdAt, r.bundleId ?? null])) === 1;
    },
    /** Changes an app; the number of rows changed (0: no such app). A taken name throws the engine's unique violation. */
    updateApp(environmentId: string, id: string, change: AppChange): Promise<number> {
      const u = updateAppStatement(change);
      if (!u) return Promise.resolve(0);
      return db.run(u.text, [...u.values, environmentId, id]);
    },
    /** Deletes an app that has no installations and no provider credentials; false otherwise (or no such app). */
    async deleteUnusedApp(environmentId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.deleteUnusedApp, [environmentId, id])) === 1;
    },
    findApp(environmentId: string, id: string): Promise<AppRow | undefined> {
      return db.get<AppRow>(SQL.app, [environmentId, id]);
    },
    findAppByName(environmentId: string, name: string): Promise<AppRow | undefined> {
      return db.get<AppRow>(SQL.appByName, [environmentId, name]);
    },
    /** The app key is global (it is the only thing bootstrap presents). Bootstrap hot path. */
    findAppByKey(appKey: string): Promise<AppRow | undefined> {
      return db.get<AppRow>(SQL.appByKey, [appKey]);
    },
    async findAppAnywhere(ref: string): Promise<AppRow | undefined> {
      return (await db.get<AppRow>(SQL.appById, [ref])) ?? (await db.get<AppRow>(SQL.appByKey, [ref]));
    },
    listApps(environmentId: string): Promise<AppRow[]> {
      return db.all<AppRow>(SQL.apps, [environmentId]);
    },
    async setAppStatus(environmentId: string, id: string, status: AppRow['status']): Promise<void> {
      await db.run(SQL.setAppStatus, [status, environmentId, id]);
    },

    async insertAccessKey(r: AccessKeyRow): Promise<void> {
      await db.run(SQL.insertAccessKey, [r.id, r.environmentId, r.name, r.keyDigest, r.appIds, r.status, r.createdAt, r.rotatedAt, r.revokedAt, r.expiresAt, r.keyHint]);
    },
    findAccessKey(id: string): Promise<AccessKeyRow | undefined> {
      return db.get<AccessKeyRow>(SQL.accessKey, [id]);
    },
    findAccessKeyByDigest(keyDigest: string): Promise<AccessKeyRow | undefined> {
      return db.get<AccessKeyRow>(SQL.accessKeyByDigest, [keyDigest]);
    },
    /** The key whose previous secret (kept during a rotation's overlap) has this digest. */
    findAccessKeyByPreviousDigest(keyDigest: string): Promise<AccessKeyRow | undefined> {
      return db.get<AccessKeyRow>(SQL.accessKeyByPreviousDigest, [keyDigest]);
    },
    /** A key of this environment only: another environment's key id is unknown here. */
    findAccessKeyIn(environmentId: string, id: string): Promise<AccessKeyRow | undefined> {
      return db.get<AccessKeyRow>(SQL.accessKeyIn, [environmentId, id]);
    },
    async setAccessKeyApps(environmentId: string, id: string, appIdsJson: string): Promise<void> {
      await db.run(SQL.setAccessKeyApps, [appIdsJson, environmentId, id]);
    },
    listAccessKeys(environmentId: string): Promise<AccessKeyRow[]> {
      return db.all<AccessKeyRow>(SQL.accessKeys, [environmentId]);
    },
    /** Revokes a key (the first revocation's time stays); the revocation time, or undefined for no such key or one revoked already. */
    async revokeAccessKey(environmentId: string, id: string, at: string): Promise<string | undefined> {
      return (await db.get<{ revokedAt: string }>(SQL.revokeAccessKey, [at, environmentId, id]))?.revokedAt;
    },
    /**
     * Changes an access key; with `onlyIfStatus`, only while it has that status (a conditional
     * write: a rotation never revives a key revoked meanwhile). The number of rows changed.
     */
    /**
     * A rotation's write: only while the key is active and its current secret is still
     * `currentDigest` (a compare-and-swap: of two rotations racing, one replaces the secret and
     * the other changes nothing, so no caller is handed a key that never worked). Rows changed.
     */
    rotateAccessKeySecret(environmentId: string, id: string, currentDigest: string, change: AccessKeyChange): Promise<number> {
      const u = replaceKeySecret(change);
      if (!u) return Promise.resolve(0);
      return db.run(u.text, [...u.values, environmentId, id, currentDigest]);
    },
    updateAccessKey(environmentId: string, id: string, change: AccessKeyChange, onlyIfStatus?: AccessKeyRow['status']): Promise<number> {
      const u = onlyIfStatus === undefined ? updateKey(change) : updateKeyWithStatus(change);
      if (!u) return Promise.resolve(0);
      return db.run(u.text, onlyIfStatus === undefined ? [...u.values, environmentId, id] : [...u.values, environmentId, id, onlyIfStatus]);
    },
  };
}

export type EnvironmentStore = ReturnType<typeof createEnvironmentStore>;
