import type { installations } from '../../db/schema';
import type { Sql } from '../../platform/store/sql';

export type InstallationRow = typeof installations.$inferSelect;

/** What a credential resolves to on every authenticated mobile request. */
export interface InstallationPrincipal {
  id: string;
  environmentId: string;
  appId: string;
}

/** A new anonymous installation at generation 0. */
export interface NewInstallation {
  id: string;
  environmentId: string;
  appId: string;
  platform: string;
  locale: string;
  timezone: string;
  sdkVersion: string;
  appVersion: string;
  appBuild: string | null;
  deviceModel: string | null;
  osVersion: string | null;
  credentialDigest: string;
  revocationDigest: string;
  recoveryDigest: string;
  profileId: string;
  createdAt: string;
}

const COLUMNS = `id, environment_id AS "environmentId", app_id AS "appId", platform, locale, timezone, sdk_version AS "sdkVersion",
  app_version AS "appVersion", app_build AS "appBuild", device_model AS "deviceModel", os_version AS "osVersion",
  credential_digest AS "credentialDigest", revocation_digest AS "revocationDigest", recovery_digest AS "recoveryDigest",
  generation, profile_id AS "profileId", binding_state AS "bindingState",
  privacy, privacy_ms AS "privacyMs", privacy_op AS "privacyOp",
  push_subscription AS "pushSubscription", push_subscription_ms AS "pushSubscriptionMs", push_subscription_op AS "pushSubscriptionOp",
  push_permission AS "pushPermission", push_permission_ms AS "pushPermissionMs", push_permission_op AS "pushPermissionOp",
  push_token AS "pushToken", push_token_ms AS "pushTokenMs", push_token_op AS "pushTokenOp",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const SQL = {
  principal: `SELECT i.id AS id, i.environment_id AS "environmentId", i.app_id AS "appId"
      FROM installations i JOIN apps a ON a.id = i.app_id
     WHERE i.credential_digest = ? AND a.status = 'ACTIVE'`,
  byRevocation: `SELECT ${COLUMNS} FROM installations WHERE revocation_digest = ?`,
  byRecovery: `SELECT ${COLUMNS} FROM installations WHERE app_id = ? AND recovery_digest = ?`,
  find: `SELECT ${COLUMNS} FROM installations WHERE environment_id = ? AND id = ?`,
  insertProfile: 'INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, ?, NULL, ?)',
  insertInstallation: `INSERT INTO installations (id, environment_id, app_id, platform, locale, timezone, sdk_version, app_version, app_build, device_model,
      os_version, credential_digest, revocation_digest, recovery_digest, generation, profile_id, binding_state, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'ANONYMOUS', ?, ?)`,
  insertGeneration: `INSERT INTO installation_generations (installation_id, generation, profile_id, binding_state, committed_at) VALUES (?, 0, ?, 'ANONYMOUS', ?)`,
  // Recovery: new credentials and metadata, only while the recovery digest is still the one
  // presented (a conditional write: of two recoveries with the same token, one wins).
  recover: `UPDATE installations SET locale = ?, timezone = ?, sdk_version = ?, app_version = ?, app_build = ?, device_model = ?, os_version = ?,
      credential_digest = ?, revocation_digest = ?, recovery_digest = ?, updated_at = ?
    WHERE environment_id = ? AND id = ? AND recovery_digest = ?`,
} as const;

/** Device metadata and fresh credential digests a recovery writes. */
export type Recovery = Pick<
  NewInstallation,
  'locale' | 'timezone' | 'sdkVersion' | 'appVersion' | 'appBuild' | 'deviceModel' | 'osVersion' | 'credentialDigest' | 'revocationDigest' | 'recoveryDigest'
> & { updatedAt: string };

/** Installations, their credentials and their generation-0 anonymous profile. */
export function createInstallationStore(db: Sql) {
  return {
    /** Hot path: one indexed lookup by credential digest; a disabled app's installations do not authenticate. */
    findPrincipalByCredential(credentialDigest: string): Promise<InstallationPrincipal | undefined> {
      return db.get<InstallationPrincipal>(SQL.principal, [credentialDigest]);
    },
    findByRevocationDigest(revocationDigest: string): Promise<InstallationRow | undefined> {
      return db.get<InstallationRow>(SQL.byRevocation, [revocationDigest]);
    },
    /** Recovery is scoped to the app the bootstrap came through. */
    findByRecoveryDigest(appId: string, recoveryDigest: string): Promise<InstallationRow | undefined> {
      return db.get<InstallationRow>(SQL.byRecovery, [appId, recoveryDigest]);
    },
    find(environmentId: string, id: string): Promise<InstallationRow | undefined> {
      return db.get<InstallationRow>(SQL.find, [environmentId, id]);
    },
    /**
     * Bootstrap hot path (spec goal: thousands per second): the anonymous profile, the
     * installation and its generation-0 fence.
     */
    async insertAnonymous(r: NewInstallation): Promise<void> {
      await db.run(SQL.insertProfile, [r.profileId, r.environmentId, r.createdAt]);
      await db.run(SQL.insertInstallation, [r.id, r.environmentId, r.appId, r.platform, r.locale, r.timezone, r.sdkVersion, r.appVersion, r.appBuild,
        r.deviceModel, r.osVersion, r.credentialDigest, r.revocationDigest, r.recoveryDigest, r.profileId, r.createdAt, r.createdAt]);
      await db.run(SQL.insertGeneration, [r.id, r.profileId, r.createdAt]);
    },
    /**
     * Replaces the metadata and credentials of an installation recovered with `presentedRecoveryDigest`;
     * false when that digest no longer names it (another recovery won).
     */
    async recover(environmentId: string, id: string, presentedRecoveryDigest: string, r: Recovery): Promise<boolean> {
      const changed = await db.run(SQL.recover, [r.locale, r.timezone, r.sdkVersion, r.appVersion, r.appBuild, r.deviceModel, r.osVersion,
        r.credentialDigest, r.revocationDigest, r.recoveryDigest, r.updatedAt, environmentId, id, presentedRecoveryDigest]);
      return changed === 1;
    },
  };
}

export type InstallationStore = ReturnType<typeof createInstallationStore>;
