import type { Db } from '../../platform/store/sqlite';

const ANONYMOUS_PROFILES = `SELECT g.profile_id FROM installation_generations g JOIN profiles p ON p.id = g.profile_id
                            WHERE g.installation_id = ? AND p.external_id IS NULL AND p.environment_id = ?`;

/** Erasure of an installation (spec 01: privacy revocation) and the record that it happened. */
export function createPrivacyStore(db: Db) {
  const raw = db.$client;
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
     * Deletes the installation and everything stored for it: operations (events and state
     * history), batches, attributes, subscriptions, push token and credentials (the row),
     * binding codes and transitions, generations, and the anonymous profiles only it used.
     * Profiles with an external id belong to the person across devices and stay.
     */
    erase(environmentId: string, installationId: string, revocationDigest: string, operationId: string, at: string): void {
      const anonymous = (raw.prepare(ANONYMOUS_PROFILES).all(installationId, environmentId) as { profile_id: string }[]).map((r) => r.profile_id);
      for (const sql of [
        'DELETE FROM operations WHERE installation_id = ?',
        'DELETE FROM operation_batches WHERE installation_id = ?',
        'DELETE FROM installation_attributes WHERE installation_id = ?',
        'DELETE FROM installation_subscriptions WHERE installation_id = ?',
        'DELETE FROM binding_codes WHERE installation_id = ?',
        'DELETE FROM binding_transitions WHERE installation_id = ?',
        'DELETE FROM installation_generations WHERE installation_id = ?',
      ])
        raw.prepare(sql).run(installationId);
      raw.prepare('DELETE FROM installations WHERE environment_id = ? AND id = ?').run(environmentId, installationId);
      for (const profileId of anonymous) {
        for (const table of ['profile_attributes', 'profile_tags', 'profile_subscriptions']) raw.prepare(`DELETE FROM ${table} WHERE profile_id = ?`).run(profileId);
        raw.prepare('DELETE FROM profiles WHERE environment_id = ? AND id = ?').run(environmentId, profileId);
      }
      raw
        .prepare('INSERT OR IGNORE INTO revoked_installations (revocation_digest, environment_id, operation_id, revoked_at) VALUES (?, ?, ?, ?)')
        .run(revocationDigest, environmentId, operationId, at);
    },
  };
}

export type PrivacyStore = ReturnType<typeof createPrivacyStore>;
