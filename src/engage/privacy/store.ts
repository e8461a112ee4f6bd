import { getTableConfig, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { erasedProfileOwned, externalIdOwned, installationOwned, profileOwned, type OwnedRows } from '../../db/schema/erasure';
import { forUpdate, inList, type Sql } from '../../platform/store/sql';

const ANONYMOUS_PROFILES = (n: number) => `SELECT DISTINCT g.installation_id AS "installationId", g.profile_id AS "profileId"
  FROM installation_generations g JOIN profiles p ON p.id = g.profile_id
  WHERE g.installation_id IN (${inList(n)}) AND p.external_id IS NULL AND p.environment_id = ?`;
/** Ids per IN list. */
const CHUNK = 500;

/** The value a cleared column takes: NULL, or the empty value of its type when NOT NULL. */
function clearedValue(c: SQLiteColumn): string {
  if (!c.notNull) return 'NULL';
  return c.dataType === 'string' ? "''" : '0';
}

/**
 * The statements that erase what `rules` declare (db/schema/erasure.ts) for one owner, in
 * order. A table that carries an environment id is also scoped by it (every query of
 * environment-owned data takes its owner id, CONVENTIONS.md).
 */
/** The statements that erase what `rules` declare, built once per rule set (not per transaction). */
const plans = new WeakMap<readonly OwnedRows[], { text: string; scoped: boolean }[]>();
function planOf(rules: readonly OwnedRows[]): { text: string; scoped: boolean }[] {
  let plan = plans.get(rules);
  if (!plan) {
    plan = rules.map(({ table, owner, erase }) => {
      const config = getTableConfig(table);
      const scoped = config.columns.some((c) => c.name === 'environment_id');
      const where = `WHERE "${owner.name}" = @owner${scoped ? ' AND environment_id = @env' : ''}`;
      const text =
        erase === 'delete'
          ? `DELETE FROM "${config.name}" ${where}`
          : `UPDATE "${config.name}" SET ${erase.clear.map((c) => `"${c.name}" = ${clearedValue(c)}`).join(', ')} ${where}`;
      return { text, scoped };
    });
    plans.set(rules, plan);
  }
  return plan;
}

export function eraseOwnedRows(db: Sql, rules: readonly OwnedRows[]): (ownerId: string, environmentId: string) => Promise<void> {
  return async (ownerId, environmentId) => {
    for (const { text, scoped } of planOf(rules)) await db.run(text, scoped ? { owner: ownerId, env: environmentId } : { owner: ownerId });
  };
}

/** Erasure of an installation (spec 01: privacy revocation) and the record that it happened. */
export function createPrivacyStore(db: Sql) {
  const SQL = {
    installation: 'SELECT id, environment_id AS "environmentId" FROM installations WHERE revocation_digest = ?',
    // Inside the erasure: the row stays locked until the erasure commits, so an ingest or a
    // binding transition of this installation (which lock it too) runs wholly before or after.
    lockInstallation: `SELECT id, environment_id AS "environmentId" FROM installations WHERE revocation_digest = ?${forUpdate(db.dialect)}`,
    revoked: 'SELECT 1 AS one FROM revoked_installations WHERE revocation_digest = ?',
    // The administration API's erasures (issue 24): an installation by id, a profile and the
    // installations bound to it, each locked until the erasure commits.
    lockById: `SELECT id, environment_id AS "environmentId", revocation_digest AS "revocationDigest" FROM installations WHERE environment_id = ? AND id = ?${forUpdate(db.dialect)}`,
    lockProfile: `SELECT id, external_id AS "externalId" FROM profiles WHERE environment_id = ? AND id = ?${forUpdate(db.dialect)}`,
    profileByExternalId: 'SELECT id FROM profiles WHERE environment_id = ? AND external_id = ?',
    boundTo: `SELECT id, environment_id AS "environmentId", revocation_digest AS "revocationDigest" FROM installations WHERE environment_id = ? AND profile_id = ? ORDER BY id${forUpdate(db.dialect)}`,
    boundIds: 'SELECT id FROM installations WHERE environment_id = ? AND profile_id = ?',
    lockProfiles: (n: number) => `SELECT id FROM profiles WHERE environment_id = ? AND id IN (${inList(n)}) ORDER BY id${forUpdate(db.dialect)}`,
    recordRevoked: `INSERT INTO revoked_installations (revocation_digest, environment_id, operation_id, revoked_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (revocation_digest) DO NOTHING`,
  } as const;
  const eraseInstallationRows = eraseOwnedRows(db, installationOwned);
  const eraseProfileRows = eraseOwnedRows(db, profileOwned);
  const erasePersonRows = eraseOwnedRows(db, erasedProfileOwned);
  const eraseExternalIdRows = eraseOwnedRows(db, externalIdOwned);
  type Locked = { id: string; environmentId: string; revocationDigest: string };
  return {
    /** The installation of the environment, locked until the transaction ends; undefined for none there. */
    lockById(environmentId: string, id: string): Promise<Locked | undefined> {
      return db.get<Locked>(SQL.lockById, [environmentId, id]);
    },
    /** The profile of the environment, locked until the transaction ends. */
    lockProfile(environmentId: string, id: string): Promise<{ id: string; externalId: string | null } | undefined> {
      return db.get<{ id: string; externalId: string | null }>(SQL.lockProfile, [environmentId, id]);
    },
    async profileIdOf(environmentId: string, externalId: string): Promise<string | undefined> {
      return (await db.get<{ id: string }>(SQL.profileByExternalId, [environmentId, externalId]))?.id;
    },
    /** The installations bound to the profile now, locked (in id order). */
    boundTo(environmentId: string, profileId: string): Promise<Locked[]> {
      return db.all<Locked>(SQL.boundTo, [environmentId, profileId]);
    },
    /** The ids of the installations bound to the profile now, not locked (what `boundTo` will likely lock). */
    async boundIds(environmentId: string, profileId: string): Promise<string[]> {
      return (await db.all<{ id: string }>(SQL.boundIds, [environmentId, profileId])).map((r) => r.id);
    },
    /** Locks the profiles of the environment among `ids` until the transaction ends, in id order (`ids` sorted and distinct). */
    async lockProfiles(environmentId: string, ids: readonly string[]): Promise<void> {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        await db.all(SQL.lockProfiles(part.length), [environmentId, ...part]);
      }
    },
    /**
     * Erases a person's profile (erasedProfileOwned: the operations recorded under it, its
     * attributes, tags, subscriptions, the sends' index of it, the row) and the rows naming its
     * external id (externalIdOwned). Call after its installations were erased.
     */
    async eraseProfile(environmentId: string, profileId: string, externalId: string | null): Promise<void> {
      await erasePersonRows(profileId, environmentId);
      if (externalId !== null) await eraseExternalIdRows(externalId, environmentId);
    },
    findByRevocationDigest(revocationDigest: string): Promise<{ id: string; environmentId: string } | undefined> {
      return db.get<{ id: string; environmentId: string }>(SQL.installation, [revocationDigest]);
    },
    /** The installation a revocation credential names, locked until the transaction ends (PostgreSQL). */
    lockByRevocationDigest(revocationDigest: string): Promise<{ id: string; environmentId: string } | undefined> {
      return db.get<{ id: string; environmentId: string }>(SQL.lockInstallation, [revocationDigest]);
    },
    async wasRevoked(revocationDigest: string): Promise<boolean> {
      return (await db.get(SQL.revoked, [revocationDigest])) !== undefined;
    },
    /** The anonymous profiles (none has an external id) each of the installations used, erased with it; an installation with none has no entry. */
    async anonymousProfiles(environmentId: string, installationIds: readonly string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      for (let i = 0; i < installationIds.length; i += CHUNK) {
        const part = installationIds.slice(i, i + CHUNK);
        for (const r of await db.all<{ installationId: string; profileId: string }>(ANONYMOUS_PROFILES(part.length), [...part, environmentId])) {
          out.set(r.installationId, [...(out.get(r.installationId) ?? []), r.profileId]);
        }
      }
      return out;
    },
    /**
     * Erases everything declared as the installation's (db/schema/erasure.ts): operations
     * (events and state history), batches, attributes, subscriptions, binding codes and
     * transitions, generations, deliveries, the sends' index of it, the row (device metadata,
     * push token, credentials), then the anonymous profiles only it used (`anonymousProfiles`).
     * Profiles with an external id belong to the person across devices and stay. Call with the
     * installation locked (`lockByRevocationDigest`), after the sends naming them are redacted.
     */
    async erase(environmentId: string, installationId: string, anonymous: readonly string[], revocationDigest: string, operationId: string, at: string): Promise<void> {
      await eraseInstallationRows(installationId, environmentId);
      for (const profileId of anonymous) await eraseProfileRows(profileId, environmentId);
      await db.run(SQL.recordRevoked, [revocationDigest, environmentId, operationId, at]);
    },
  };
}

export type PrivacyStore = ReturnType<typeof createPrivacyStore>;
