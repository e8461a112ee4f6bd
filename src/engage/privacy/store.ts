import { getTableConfig, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { installationOwned, profileOwned, type OwnedRows } from '../../db/schema/erasure';
import type { Db, RawDb } from '../../platform/store/sqlite';

const ANONYMOUS_PROFILES = `SELECT g.profile_id FROM installation_generations g JOIN profiles p ON p.id = g.profile_id
                            WHERE g.installation_id = ? AND p.external_id IS NULL AND p.environment_id = ?`;

/** The value a cleared column takes: NULL, or the empty value of its type when NOT NULL. */
function clearedValue(c: SQLiteColumn): string {
  if (!c.notNull) return 'NULL';
  return c.dataType === 'string' ? "''" : '0';
}

/**
 * The statements that erase what `rules` declare (db/schema/erasure.ts) for one owner. A
 * table that carries an environment id is also scoped by it (every query of environment-owned
 * data takes its owner id, CONVENTIONS.md).
 */
export function eraseOwnedRows(raw: RawDb, rules: readonly OwnedRows[]): (ownerId: string, environmentId: string) => void {
  const steps = rules.map(({ table, owner, erase }) => {
    const config = getTableConfig(table);
    const scoped = config.columns.some((c) => c.name === 'environment_id');
    const where = `WHERE "${owner.name}" = @owner${scoped ? ' AND environment_id = @env' : ''}`;
    const sql =
      erase === 'delete'
        ? `DELETE FROM "${config.name}" ${where}`
        : `UPDATE "${config.name}" SET ${erase.clear.map((c) => `"${c.name}" = ${clearedValue(c)}`).join(', ')} ${where}`;
    const stmt = raw.prepare(sql);
    return scoped ? (ownerId: string, env: string) => stmt.run({ owner: ownerId, env }) : (ownerId: string) => stmt.run({ owner: ownerId });
  });
  return (ownerId, environmentId) => {
    for (const step of steps) step(ownerId, environmentId);
  };
}

/** Erasure of an installation (spec 01: privacy revocation) and the record that it happened. */
export function createPrivacyStore(db: Db) {
  const raw = db.$client;
  // Compiled at the first erasure (a store may be bound before migrations ran).
  let eraseInstallationRows: ReturnType<typeof eraseOwnedRows> | undefined;
  let eraseProfileRows: ReturnType<typeof eraseOwnedRows> | undefined;
  return {
    findByRevocationDigest(revocationDigest: string): { id: string; environmentId: string } | undefined {
      return raw
        .prepare('SELECT id, environment_id AS environmentId FROM installations WHERE revocation_digest = ?')
        .get(revocationDigest) as { id: string; environmentId: string } | undefined;
    },
    wasRevoked(revocationDigest: string): boolean {
      return raw.prepare('SELECT 1 FROM revoked_installations WHERE revocation_digest = ?').get(revocationDigest) !== undefined;
    },
    /**
     * Erases everything declared as the installation's (db/schema/erasure.ts): operations
     * (events and state history), batches, attributes, subscriptions, binding codes and
     * transitions, generations, the row (device metadata, push token, credentials), then the
     * anonymous profiles only it used. Profiles with an external id belong to the person
     * across devices and stay.
     */
    erase(environmentId: string, installationId: string, revocationDigest: string, operationId: string, at: string): void {
      const anonymous = (raw.prepare(ANONYMOUS_PROFILES).all(installationId, environmentId) as { profile_id: string }[]).map((r) => r.profile_id);
      eraseInstallationRows ??= eraseOwnedRows(raw, installationOwned);
      eraseProfileRows ??= eraseOwnedRows(raw, profileOwned);
      eraseInstallationRows(installationId, environmentId);
      for (const profileId of anonymous) eraseProfileRows(profileId, environmentId);
      raw
        .prepare('INSERT OR IGNORE INTO revoked_installations (revocation_digest, environment_id, operation_id, revoked_at) VALUES (?, ?, ?, ?)')
        .run(revocationDigest, environmentId, operationId, at);
    },
  };
}

export type PrivacyStore = ReturnType<typeof createPrivacyStore>;
