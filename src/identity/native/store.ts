import type { nativeChallenges, nativeGrants, nativeInteractions } from '../../db/schema';
import type { Sql } from '../../platform/store/sql';

export type InteractionRow = typeof nativeInteractions.$inferSelect;
export type ChallengeRow = typeof nativeChallenges.$inferSelect;
export type GrantRow = typeof nativeGrants.$inferSelect;
export type InteractionState = InteractionRow['state'];

const INTERACTION = `id_digest AS "idDigest", tenant_id AS "tenantId", client_id AS "clientId", request, flow, state, user_id AS "userId",
  auth_time AS "authTime", challenge_digest AS "challengeDigest", created_at AS "createdAt", expires_at AS "expiresAt"`;
const CHALLENGE = `id, tenant_id AS "tenantId", interaction_digest AS "interactionDigest", purpose, email, user_id AS "userId", code_digest AS "codeDigest",
  attempts, created_at AS "createdAt", resend_after AS "resendAfter", expires_at AS "expiresAt", consumed_at AS "consumedAt"`;
const GRANT = `grant_digest AS "grantDigest", tenant_id AS "tenantId", interaction_digest AS "interactionDigest", purpose, email, user_id AS "userId",
  created_at AS "createdAt", expires_at AS "expiresAt", consumed_at AS "consumedAt"`;

const SQL = {
  insertInteraction: `INSERT INTO native_interactions (id_digest, tenant_id, client_id, request, state, created_at, expires_at) VALUES (?, ?, ?, ?, 'OPEN', ?, ?)`,
  findInteraction: `SELECT ${INTERACTION} FROM native_interactions WHERE tenant_id = ? AND id_digest = ?`,
  claimFlow: `UPDATE native_interactions SET flow = ? WHERE tenant_id = ? AND id_digest = ? AND state = 'OPEN' AND expires_at > ? AND (flow IS NULL OR flow = ?)`,
  startMfa: `UPDATE native_interactions SET state = 'MFA', user_id = ?, auth_time = ?, challenge_digest = ?
    WHERE tenant_id = ? AND id_digest = ? AND state = 'OPEN' AND expires_at > ?`,
  finish: `UPDATE native_interactions SET state = 'DONE', challenge_digest = NULL WHERE tenant_id = ? AND id_digest = ? AND state = ? AND expires_at > ?`,
  end: `UPDATE native_interactions SET state = 'DONE', challenge_digest = NULL WHERE tenant_id = ? AND id_digest = ? AND state <> 'DONE'`,
  // One live challenge per address and purpose: a new one replaces the old only once its resend wait is over.
  upsertChallenge: `INSERT INTO native_challenges (id, tenant_id, interaction_digest, purpose, email, user_id, code_digest, attempts, created_at, resend_after, expires_at)
    VALUES (@id, @tenantId, @interactionDigest, @purpose, @email, @userId, @codeDigest, 0, @createdAt, @resendAfter, @expiresAt)
    ON CONFLICT (tenant_id, purpose, email) DO UPDATE SET id = excluded.id, interaction_digest = excluded.interaction_digest, user_id = excluded.user_id,
      code_digest = excluded.code_digest, attempts = 0, created_at = excluded.created_at, resend_after = excluded.resend_after,
      expires_at = excluded.expires_at, consumed_at = NULL
    WHERE native_challenges.resend_after <= @createdAt`,
  findChallenge: `SELECT ${CHALLENGE} FROM native_challenges WHERE tenant_id = ? AND purpose = ? AND email = ?`,
  countAttempt: `UPDATE native_challenges SET attempts = attempts + 1 WHERE id = ? AND consumed_at IS NULL AND expires_at > ? AND attempts < ?`,
  consumeChallenge: `UPDATE native_challenges SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL`,
  insertGrant: `INSERT INTO native_grants (grant_digest, tenant_id, interaction_digest, purpose, email, user_id, created_at, expires_at)
    VALUES (@grantDigest, @tenantId, @interactionDigest, @purpose, @email, @userId, @createdAt, @expiresAt)`,
  findGrant: `SELECT ${GRANT} FROM native_grants WHERE tenant_id = ? AND grant_digest = ?`,
  consumeGrant: `UPDATE native_grants SET consumed_at = ? WHERE tenant_id = ? AND grant_digest = ? AND consumed_at IS NULL AND expires_at > ?`,
  purgeInteractions: `DELETE FROM native_interactions WHERE expires_at < ?`,
  purgeChallenges: `DELETE FROM native_challenges WHERE expires_at < ?`,
  purgeGrants: `DELETE FROM native_grants WHERE expires_at < ?`,
} as const;

/**
 * The native adapter's state. Every transition is a conditional write that names the state it
 * leaves, so of two concurrent requests exactly one moves it, on either engine (sql.ts).
 */
export function createNativeStore(db: Sql) {
  const changed = async (text: string, params: unknown[] | Record<string, unknown>) => (await db.run(text, params)) === 1;
  return {
    async insertInteraction(r: Pick<InteractionRow, 'idDigest' | 'tenantId' | 'clientId' | 'request' | 'createdAt' | 'expiresAt'>): Promise<void> {
      await db.run(SQL.insertInteraction, [r.idDigest, r.tenantId, r.clientId, r.request, r.createdAt, r.expiresAt]);
    },
    findInteraction(tenantId: string, idDigest: string): Promise<InteractionRow | undefined> {
      return db.get<InteractionRow>(SQL.findInteraction, [tenantId, idDigest]);
    },
    /** Binds an open interaction to one proof flow; false when another flow has it, or it is no longer open. */
    claimFlow(tenantId: string, idDigest: string, flow: string, now: number): Promise<boolean> {
      return changed(SQL.claimFlow, [flow, tenantId, idDigest, now, flow]);
    },
    /** OPEN → MFA with the user and the challenge token's digest; false when it was not open. */
    startMfa(tenantId: string, idDigest: string, userId: string, authTime: number, challengeDigest: string, now: number): Promise<boolean> {
      return changed(SQL.startMfa, [userId, authTime, challengeDigest, tenantId, idDigest, now]);
    },
    /** `from` → DONE (a code is issued in the same transaction); false for the second of two racing requests. */
    finish(tenantId: string, idDigest: string, from: InteractionState, now: number): Promise<boolean> {
      return changed(SQL.finish, [tenantId, idDigest, from, now]);
    },
    /** Ends it without a code (registration done, or a page needed). */
    async end(tenantId: string, idDigest: string): Promise<void> {
      await db.run(SQL.end, [tenantId, idDigest]);
    },

    /** Writes the address's challenge; false while the previous one's resend wait runs. */
    upsertChallenge(r: Omit<ChallengeRow, 'attempts' | 'consumedAt'>): Promise<boolean> {
      return changed(SQL.upsertChallenge, r);
    },
    findChallenge(tenantId: string, purpose: string, email: string): Promise<ChallengeRow | undefined> {
      return db.get<ChallengeRow>(SQL.findChallenge, [tenantId, purpose, email]);
    },
    /** Counts one verification attempt; false when the challenge is spent, expired or out of attempts. */
    countAttempt(id: string, now: number, maxAttempts: number): Promise<boolean> {
      return changed(SQL.countAttempt, [id, now, maxAttempts]);
    },
    /** One use: true only for the first caller. */
    consumeChallenge(id: string, now: number): Promise<boolean> {
      return changed(SQL.consumeChallenge, [now, id]);
    },

    async insertGrant(r: Omit<GrantRow, 'consumedAt'>): Promise<void> {
      await db.run(SQL.insertGrant, r);
    },
    findGrant(tenantId: string, grantDigest: string): Promise<GrantRow | undefined> {
      return db.get<GrantRow>(SQL.findGrant, [tenantId, grantDigest]);
    },
    /** One use, while unexpired: true only for the first caller. */
    consumeGrant(tenantId: string, grantDigest: string, now: number): Promise<boolean> {
      return changed(SQL.consumeGrant, [now, tenantId, grantDigest, now]);
    },

    /** Housekeeping: everything past its expiry before `before`. */
    async purgeExpired(before: number): Promise<number> {
      let n = 0;
      for (const text of [SQL.purgeInteractions, SQL.purgeChallenges, SQL.purgeGrants]) n += await db.run(text, [before]);
      return n;
    },
  };
}

export type NativeStore = ReturnType<typeof createNativeStore>;
