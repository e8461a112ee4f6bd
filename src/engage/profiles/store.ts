import { forUpdate, textsByRows, valuesList, type Sql } from '../../platform/store/sql';
import type { InstallationState, InstallationView, NewInstallation, Recovery, StateKind } from './schemas';

/**
 * Profile state (db/owners.ts): the only writer of installations, installation_generations,
 * profiles and the last-writer-wins tables of attributes, tags and subscriptions.
 */

/**
 * The effect tables, last-writer-wins per row on (ms, op): each with its key columns and its
 * value column. A row of `upsert` is the key values, the value, ms and op. The INSERT names its
 * table in a literal, so db/owners.test.ts sees which tables this store writes.
 */
const EFFECTS = {
  installationAttributes: { into: 'INSERT INTO installation_attributes', table: 'installation_attributes', keys: ['installation_id', 'key'], value: 'value' },
  profileAttributes: { into: 'INSERT INTO profile_attributes', table: 'profile_attributes', keys: ['profile_id', 'key'], value: 'value' },
  profileTags: { into: 'INSERT INTO profile_tags', table: 'profile_tags', keys: ['profile_id', 'tag'], value: 'present' },
  installationSubscriptions: { into: 'INSERT INTO installation_subscriptions', table: 'installation_subscriptions', keys: ['installation_id', 'list'], value: 'subscribed' },
  profileSubscriptions: { into: 'INSERT INTO profile_subscriptions', table: 'profile_subscriptions', keys: ['profile_id', 'list', 'channel'], value: 'subscribed' },
} as const satisfies Record<StateKind, { into: string; table: string; keys: readonly string[]; value: string }>;

/**
 * Rows per multi-row statement. A batch's rows go in statements of exactly as many rows as it
 * has (one statement for a batch of up to this many), so each kind of statement has at most
 * this many texts, each prepared once and kept (platform/store/sql.ts caches by text).
 */
export const MAX_ROWS_PER_STATEMENT = 100;

/** Multi-row upsert; a row lands when it is newer, or as new with a greater-or-equal operation id (last-writer-wins). */
function upsertText(kind: StateKind, rows: number): string {
  const { into, table, keys, value } = EFFECTS[kind];
  const cols = [...keys, value, 'ms', 'op'];
  return `${into} (${cols.join(', ')}) VALUES ${valuesList(rows, cols.length)}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${value} = excluded.${value}, ms = excluded.ms, op = excluded.op
    WHERE excluded.ms > ${table}.ms OR (excluded.ms = ${table}.ms AND excluded.op >= ${table}.op)`;
}

const upsertTexts = Object.fromEntries(Object.keys(EFFECTS).map((k) => [k, textsByRows((n) => upsertText(k as StateKind, n))])) as Record<StateKind, (rows: number) => string>;
const profilesText = textsByRows(
  (n) => `SELECT generation, profile_id AS "profileId" FROM installation_generations WHERE installation_id = ? AND generation IN (${valuesList(1, n).slice(1, -1)})`,
);

/** The owners' keys a cap counts (operations/key-budget.ts): live ones only (a removed attribute or tag is a tombstone row). */
export type KeyedKind = 'installationAttributes' | 'profileAttributes' | 'profileTags';
const KEYED: Record<KeyedKind, { table: string; owner: string; key: string; live: string }> = {
  installationAttributes: { table: 'installation_attributes', owner: 'installation_id', key: 'key', live: 'value IS NOT NULL' },
  profileAttributes: { table: 'profile_attributes', owner: 'profile_id', key: 'key', live: 'value IS NOT NULL' },
  profileTags: { table: 'profile_tags', owner: 'profile_id', key: 'tag', live: 'present = 1' },
};
const liveCountText = (k: KeyedKind) => `SELECT COUNT(*) AS n FROM ${KEYED[k].table} WHERE ${KEYED[k].owner} = ? AND ${KEYED[k].live}`;
const liveAmongTexts = Object.fromEntries(
  (Object.keys(KEYED) as KeyedKind[]).map((k) => [
    k,
    textsByRows((n) => `SELECT ${KEYED[k].key} AS key FROM ${KEYED[k].table} WHERE ${KEYED[k].owner} = ? AND ${KEYED[k].live} AND ${KEYED[k].key} IN (${valuesList(1, n).slice(1, -1)})`),
  ]),
) as Record<KeyedKind, (rows: number) => string>;

type RawState = {
  generation: number;
  privacy: 'OPTED_IN' | 'OPTED_OUT';
  privacyMs: number;
  privacyOp: string;
  pushSubscription: string;
  pushSubscriptionMs: number;
  pushSubscriptionOp: string;
  pushPermission: string;
  pushPermissionMs: number;
  pushPermissionOp: string;
  pushToken: string | null;
  pushTokenMs: number;
  pushTokenOp: string;
};

const STATE_COLUMNS = `i.generation, i.privacy, i.privacy_ms AS "privacyMs", i.privacy_op AS "privacyOp",
  i.push_subscription AS "pushSubscription", i.push_subscription_ms AS "pushSubscriptionMs", i.push_subscription_op AS "pushSubscriptionOp",
  i.push_permission AS "pushPermission", i.push_permission_ms AS "pushPermissionMs", i.push_permission_op AS "pushPermissionOp",
  i.push_token AS "pushToken", i.push_token_ms AS "pushTokenMs", i.push_token_op AS "pushTokenOp"`;

const INSTALLATION_LINE = `id, app_id AS "appId", platform, binding_state AS "bindingState", generation, profile_id AS "profileId",
  privacy, push_subscription AS "pushSubscription", push_permission AS "pushPermission",
  CASE WHEN push_token IS NULL THEN 0 ELSE 1 END AS "pushTokenHeld", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Rows of each kind the sync reads for one installation or profile (the first, in key order). */
export const SYNC_READ_LIMIT = 1_000;

const SQL = {
  state: `SELECT ${STATE_COLUMNS} FROM installations i WHERE i.environment_id = ? AND i.id = ?`,
  writeState: `UPDATE installations SET privacy = ?, privacy_ms = ?, privacy_op = ?,
      push_subscription = ?, push_subscription_ms = ?, push_subscription_op = ?,
      push_permission = ?, push_permission_ms = ?, push_permission_op = ?,
      push_token = ?, push_token_ms = ?, push_token_op = ?, updated_at = ?, sync_revision = sync_revision + 1
    WHERE environment_id = ? AND id = ?`,
  // A token the provider reported invalid since `invalidSinceMs`: cleared unless the app set it again later.
  clearToken: `UPDATE installations SET push_token = NULL, updated_at = ?, sync_revision = sync_revision + 1 WHERE environment_id = ? AND id = ? AND push_token = ? AND push_token_ms <= ?`,
  insertAnonymousProfile: 'INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, ?, NULL, ?)',
  insertNamedProfile: `INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (environment_id, external_id) WHERE external_id IS NOT NULL DO NOTHING`,
  profileByExternalId: 'SELECT id FROM profiles WHERE environment_id = ? AND external_id = ?',
  insertInstallation: `INSERT INTO installations (id, environment_id, app_id, platform, locale, timezone, sdk_version, app_version, app_build, device_model,
      os_version, credential_digest, revocation_digest, recovery_digest, generation, profile_id, binding_state, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'ANONYMOUS', ?, ?)`,
  insertFirstGeneration: `INSERT INTO installation_generations (installation_id, generation, profile_id, binding_state, committed_at) VALUES (?, 0, ?, 'ANONYMOUS', ?)`,
  // Recovery: new credentials and metadata, only while the recovery digest is still the one
  // presented (a conditional write: of two recoveries with the same token, one wins).
  recover: `UPDATE installations SET locale = ?, timezone = ?, sdk_version = ?, app_version = ?, app_build = ?, device_model = ?, os_version = ?,
      credential_digest = ?, revocation_digest = ?, recovery_digest = ?, updated_at = ?, sync_revision = sync_revision + 1
    WHERE environment_id = ? AND id = ? AND recovery_digest = ?`,
  // Generations only move forward: a conditional write, whoever else commits at the same time.
  advance: `UPDATE installations SET generation = ?, profile_id = ?, binding_state = ?, updated_at = ?, sync_revision = sync_revision + 1
    WHERE environment_id = ? AND id = ? AND generation < ?`,
  insertGeneration: 'INSERT INTO installation_generations (installation_id, generation, profile_id, binding_state, committed_at) VALUES (?, ?, ?, ?, ?)',
  // Sync revisions (issue 26): bumped in the writing transaction, under the row's lock, so each
  // installation's and profile's revisions follow its commit order.
  // What sync documents derive from (issue 26), bounded: an installation cannot make every sync of
  // its own slow by holding 200,000 keys (an outside review); docs/decisions.md "Sync reads".
  syncAttributes: `SELECT key, value FROM installation_attributes WHERE installation_id = ? AND value IS NOT NULL ORDER BY key LIMIT ${SYNC_READ_LIMIT}`,
  syncSubscriptions: `SELECT list, subscribed FROM installation_subscriptions WHERE installation_id = ? ORDER BY list LIMIT ${SYNC_READ_LIMIT}`,
  syncProfileAttributes: `SELECT key, value FROM profile_attributes WHERE profile_id = ? AND value IS NOT NULL ORDER BY key LIMIT ${SYNC_READ_LIMIT}`,
  syncProfileTags: `SELECT tag FROM profile_tags WHERE profile_id = ? AND present = 1 ORDER BY tag LIMIT ${SYNC_READ_LIMIT}`,
  syncProfileSubscriptions: `SELECT list, channel, subscribed FROM profile_subscriptions WHERE profile_id = ? ORDER BY list, channel LIMIT ${SYNC_READ_LIMIT}`,
  // The inbox's view of an installation (issue 27): its generation, current profile and locale.
  binding: `SELECT generation, profile_id AS "profileId", locale FROM installations WHERE environment_id = ? AND id = ?`,
  bumpInstallation: 'UPDATE installations SET sync_revision = sync_revision + 1 WHERE environment_id = ? AND id = ?',
  bumpProfile: 'UPDATE profiles SET sync_revision = sync_revision + 1 WHERE environment_id = ? AND id = ?',
  attributes: `SELECT key, value FROM installation_attributes WHERE installation_id = ? AND value IS NOT NULL ORDER BY key`,
  subscriptions: `SELECT list, subscribed FROM installation_subscriptions WHERE installation_id = ? ORDER BY list`,
  profile: `SELECT id, external_id AS "externalId" FROM profiles WHERE environment_id = ? AND id = ?`,
  profileAttributes: `SELECT key, value FROM profile_attributes WHERE profile_id = ? AND value IS NOT NULL ORDER BY key`,
  profileTags: `SELECT tag FROM profile_tags WHERE profile_id = ? AND present = 1 ORDER BY tag`,
  profileSubscriptions: `SELECT list, channel, subscribed FROM profile_subscriptions WHERE profile_id = ? ORDER BY list, channel`,
  // Read models for operators (inspection/service.ts).
  environmentOf: 'SELECT environment_id AS "environmentId" FROM installations WHERE id = ?',
  installationView: `SELECT i.id, i.environment_id AS "environmentId", i.app_id AS "appId", i.platform, i.locale, i.timezone, i.sdk_version AS "sdkVersion",
        i.app_version AS "appVersion", i.app_build AS "appBuild", i.device_model AS "deviceModel", i.os_version AS "osVersion",
        i.generation, i.binding_state AS "bindingState", i.profile_id AS "profileId", p.external_id AS "externalId",
        i.privacy, i.push_subscription AS "pushSubscription", i.push_permission AS "pushPermission", i.push_token AS "pushToken",
        i.created_at AS "createdAt", i.updated_at AS "updatedAt"
      FROM installations i LEFT JOIN profiles p ON p.id = i.profile_id
     WHERE i.environment_id = ? AND i.id = ?`,
  generations: `SELECT generation, profile_id AS "profileId", binding_state AS "bindingState", committed_at AS "committedAt"
      FROM installation_generations WHERE installation_id = ? ORDER BY generation`,
  profileView: 'SELECT id, external_id AS "externalId", created_at AS "createdAt" FROM profiles WHERE environment_id = ? AND external_id = ?',
  // By installations_profile: the CAST keeps SQLite (without statistics) from choosing installations_environment, a scan of the environment.
  installationsOfProfile: 'SELECT id, app_id AS "appId", platform, generation FROM installations WHERE CAST(environment_id AS TEXT) = ? AND profile_id = ? ORDER BY created_at',
  profileById: 'SELECT id, external_id AS "externalId", created_at AS "createdAt" FROM profiles WHERE environment_id = ? AND id = ?',
  // A keyset page: one seek of installations_environment (environment_id, id, migration 0030), whatever the environment's size.
  installationPage: `SELECT ${INSTALLATION_LINE} FROM installations WHERE environment_id = ? AND id > ? ORDER BY id LIMIT ?`,
} as const;

/** A line of the installations page (issue 24): never the push token, only whether one is held. */
export interface InstallationListRow {
  id: string;
  appId: string;
  platform: string;
  bindingState: string;
  generation: number;
  profileId: string;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushTokenHeld: number;
  createdAt: string;
  updatedAt: string;
}

export function createProfileStore(db: Sql) {
  // The installation row locked until the transaction ends (PostgreSQL): ingest, binding and
  // erasure of one installation run one after the other.
  const lockedState = `${SQL.state}${forUpdate(db.dialect)}`;
  const findProfileByExternalId = async (environmentId: string, externalId: string): Promise<string | undefined> =>
    (await db.get<{ id: string }>(SQL.profileByExternalId, [environmentId, externalId]))?.id;
  return {
    /** The installation-level state, its row locked until the transaction ends (PostgreSQL); undefined for no such installation. */
    async lockState(environmentId: string, installationId: string): Promise<InstallationState | undefined> {
      const r = await db.get<RawState>(lockedState, [environmentId, installationId]);
      if (r === undefined) return undefined;
      return {
        generation: r.generation,
        privacy: { value: r.privacy, ms: r.privacyMs, op: r.privacyOp },
        pushSubscription: { value: r.pushSubscription, ms: r.pushSubscriptionMs, op: r.pushSubscriptionOp },
        pushPermission: { value: r.pushPermission, ms: r.pushPermissionMs, op: r.pushPermissionOp },
        pushToken: { value: r.pushToken, ms: r.pushTokenMs, op: r.pushTokenOp },
      };
    },
    /** The profiles bound in `generations` of the installation (the fence of spec 01); distinct generations. */
    /** How many live keys (attributes set, tags present) the owner holds of a kind. */
    async liveKeyCount(kind: KeyedKind, ownerId: string): Promise<number> {
      return Number((await db.get<{ n: number }>(liveCountText(kind), [ownerId]))?.n ?? 0);
    },
    /** Which of `keys` the owner holds live. */
    async liveKeysAmong(kind: KeyedKind, ownerId: string, keys: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let i = 0; i < keys.length; i += MAX_ROWS_PER_STATEMENT) {
        const part = keys.slice(i, i + MAX_ROWS_PER_STATEMENT);
        for (const r of await db.all<{ key: string }>(liveAmongTexts[kind](part.length), [ownerId, ...part])) found.add(r.key);
      }
      return found;
    },
    async profilesOfGenerations(installationId: string, generations: readonly number[]): Promise<Map<number, string>> {
      const found = new Map<number, string>();
      for (let i = 0; i < generations.length; i += MAX_ROWS_PER_STATEMENT) {
        const part = generations.slice(i, i + MAX_ROWS_PER_STATEMENT);
        for (const r of await db.all<{ generation: number; profileId: string }>(profilesText(part.length), [installationId, ...part])) found.set(r.generation, r.profileId);
      }
      return found;
    },
    /**
     * Last-writer-wins upsert of rows of one kind: each row is its key values, then the value,
     * ms and op (booleans as 0/1). Keys must be distinct (PostgreSQL updates a row at most once
     * per statement): the caller keeps each key's winner (schemas.ts `StateEffects`).
     */
    async upsert(kind: StateKind, rows: readonly (readonly unknown[])[]): Promise<void> {
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_STATEMENT) {
        const n = Math.min(MAX_ROWS_PER_STATEMENT, rows.length - i);
        const params: unknown[] = [];
        for (let j = 0; j < n; j++) for (const v of rows[i + j]) params.push(v);
        await db.run(upsertTexts[kind](n), params);
      }
    },
    /** What sync documents derive from, at most SYNC_READ_LIMIT rows of each kind (in key order). */
    async syncSources(installationId: string, profileId: string) {
      return {
        attributes: await db.all<{ key: string; value: string }>(SQL.syncAttributes, [installationId]),
        subscriptions: await db.all<{ list: string; subscribed: number | boolean }>(SQL.syncSubscriptions, [installationId]),
        profileAttributes: await db.all<{ key: string; value: string }>(SQL.syncProfileAttributes, [profileId]),
        profileTags: (await db.all<{ tag: string }>(SQL.syncProfileTags, [profileId])).map((r) => r.tag),
        profileSubscriptions: await db.all<{ list: string; channel: string; subscribed: number | boolean }>(SQL.syncProfileSubscriptions, [profileId]),
      };
    },
    /** The installation's generation, current profile and locale; its row locked until the transaction ends with `lock` (PostgreSQL). */
    async binding(environmentId: string, installationId: string, lock: boolean): Promise<{ generation: number; profileId: string; locale: string } | undefined> {
      const r = await db.get<{ generation: number; profileId: string; locale: string }>(lock ? `${SQL.binding}${forUpdate(db.dialect)}` : SQL.binding, [environmentId, installationId]);
      return r && { ...r, generation: Number(r.generation) };
    },
    /** Marks the installation's sync documents as possibly changed (issue 26: its sync revision moves on). */
    async bumpInstallation(environmentId: string, installationId: string): Promise<void> {
      await db.run(SQL.bumpInstallation, [environmentId, installationId]);
    },
    /** Marks the profile's sync documents as possibly changed. */
    async bumpProfile(environmentId: string, profileId: string): Promise<void> {
      await db.run(SQL.bumpProfile, [environmentId, profileId]);
    },
    /** Writes the installation-level state (as decided under the lock of `lockState`) and when it changed. */
    async writeState(environmentId: string, installationId: string, s: InstallationState, updatedAt: string): Promise<void> {
      await db.run(SQL.writeState, [
        s.privacy.value, s.privacy.ms, s.privacy.op,
        s.pushSubscription.value, s.pushSubscription.ms, s.pushSubscription.op,
        s.pushPermission.value, s.pushPermission.ms, s.pushPermission.op,
        s.pushToken.value, s.pushToken.ms, s.pushToken.op,
        updatedAt, environmentId, installationId,
      ]);
    },
    /** Clears `token` unless it was set again after `invalidSinceMs`; false when nothing was cleared. */
    async clearPushToken(environmentId: string, installationId: string, token: string, invalidSinceMs: number, at: string): Promise<boolean> {
      return (await db.run(SQL.clearToken, [at, environmentId, installationId, token, invalidSinceMs])) === 1;
    },
    /** Bootstrap hot path: the anonymous profile, the installation and its generation-0 fence. */
    async insertInstallation(r: NewInstallation): Promise<void> {
      await db.run(SQL.insertAnonymousProfile, [r.profileId, r.environmentId, r.createdAt]);
      await db.run(SQL.insertInstallation, [r.id, r.environmentId, r.appId, r.platform, r.locale, r.timezone, r.sdkVersion, r.appVersion, r.appBuild,
        r.deviceModel, r.osVersion, r.credentialDigest, r.revocationDigest, r.recoveryDigest, r.profileId, r.createdAt, r.createdAt]);
      await db.run(SQL.insertFirstGeneration, [r.id, r.profileId, r.createdAt]);
    },
    /** New metadata and credentials while `presentedRecoveryDigest` still names the installation; false when another recovery won. */
    async recover(environmentId: string, id: string, presentedRecoveryDigest: string, r: Recovery): Promise<boolean> {
      const changed = await db.run(SQL.recover, [r.locale, r.timezone, r.sdkVersion, r.appVersion, r.appBuild, r.deviceModel, r.osVersion,
        r.credentialDigest, r.revocationDigest, r.recoveryDigest, r.updatedAt, environmentId, id, presentedRecoveryDigest]);
      return changed === 1;
    },
    findProfileByExternalId,
    async insertAnonymousProfile(environmentId: string, id: string, createdAt: string): Promise<void> {
      await db.run(SQL.insertAnonymousProfile, [id, environmentId, createdAt]);
    },
    /** The profile with `externalId`, created as `newId` when there is none (once, whoever else creates it at the same time). */
    async ensureProfile(environmentId: string, externalId: string, newId: string, createdAt: string): Promise<string> {
      const found = await findProfileByExternalId(environmentId, externalId);
      if (found !== undefined) return found;
      if ((await db.run(SQL.insertNamedProfile, [newId, environmentId, externalId, createdAt])) === 1) return newId;
      return (await findProfileByExternalId(environmentId, externalId))!;
    },
    /**
     * Moves the installation to `generation`, bound to `profileId`, and records the fence;
     * false (nothing written) when the installation is already at `generation` or beyond.
     */
    async commitGeneration(environmentId: string, installationId: string, generation: number, profileId: string, bindingState: 'BOUND' | 'ANONYMOUS', at: string): Promise<boolean> {
      if ((await db.run(SQL.advance, [generation, profileId, bindingState, at, environmentId, installationId, generation])) !== 1) return false;
      await db.run(SQL.insertGeneration, [installationId, generation, profileId, bindingState, at]);
      return true;
    },
    async state(environmentId: string, installationId: string): Promise<(InstallationState & { profileId: string | null }) | undefined> {
      const r = await db.get<RawState & { profileId: string | null }>(
        `SELECT ${STATE_COLUMNS}, i.profile_id AS "profileId" FROM installations i WHERE i.environment_id = ? AND i.id = ?`,
        [environmentId, installationId],
      );
      if (r === undefined) return undefined;
      return {
        generation: r.generation,
        profileId: r.profileId,
        privacy: { value: r.privacy, ms: r.privacyMs, op: r.privacyOp },
        pushSubscription: { value: r.pushSubscription, ms: r.pushSubscriptionMs, op: r.pushSubscriptionOp },
        pushPermission: { value: r.pushPermission, ms: r.pushPermissionMs, op: r.pushPermissionOp },
        pushToken: { value: r.pushToken, ms: r.pushTokenMs, op: r.pushTokenOp },
      };
    },
    installationAttributes: (installationId: string) => db.all<{ key: string; value: string }>(SQL.attributes, [installationId]),
    installationSubscriptions: (installationId: string) => db.all<{ list: string; subscribed: number | boolean }>(SQL.subscriptions, [installationId]),
    profile: (environmentId: string, id: string) => db.get<{ id: string; externalId: string | null }>(SQL.profile, [environmentId, id]),
    profileAttributes: (profileId: string) => db.all<{ key: string; value: string }>(SQL.profileAttributes, [profileId]),
    profileTags: async (profileId: string) => (await db.all<{ tag: string }>(SQL.profileTags, [profileId])).map((r) => r.tag),
    profileSubscriptions: (profileId: string) => db.all<{ list: string; channel: string; subscribed: number | boolean }>(SQL.profileSubscriptions, [profileId]),
    environmentOf: async (installationId: string) => (await db.get<{ environmentId: string }>(SQL.environmentOf, [installationId]))?.environmentId,
    installationView: (environmentId: string, id: string) => db.get<InstallationView>(SQL.installationView, [environmentId, id]),
    generations: (installationId: string) =>
      db.all<{ generation: number; profileId: string; bindingState: string; committedAt: string }>(SQL.generations, [installationId]),
    profileView: (environmentId: string, externalId: string) => db.get<{ id: string; externalId: string; createdAt: string }>(SQL.profileView, [environmentId, externalId]),
    installationsOfProfile: (environmentId: string, profileId: string) =>
      db.all<{ id: string; appId: string; platform: string; generation: number }>(SQL.installationsOfProfile, [environmentId, profileId]),
    profileById: (environmentId: string, id: string) => db.get<{ id: string; externalId: string | null; createdAt: string }>(SQL.profileById, [environmentId, id]),
    /** Up to `limit` installations of the environment whose id sorts after `after` ('' for the first page), in id order. */
    installationPage: (environmentId: string, after: string, limit: number) => db.all<InstallationListRow>(SQL.installationPage, [environmentId, after, limit]),
  };
}

export type ProfileStore = ReturnType<typeof createProfileStore>;
