import type { browserInteractions, browserSessions, loginThrottle, sessionAccounts } from '../../db/schema';
import { forUpdate, type Sql } from '../../platform/store/sql';

export type SessionRow = typeof browserSessions.$inferSelect;
export type SessionAccountRow = typeof sessionAccounts.$inferSelect;
export type InteractionRow = typeof browserInteractions.$inferSelect;
export type ThrottleRow = typeof loginThrottle.$inferSelect;

const SESSION = `id, tenant_id AS "tenantId", token_digest AS "tokenDigest", active_user_id AS "activeUserId", created_at AS "createdAt", expires_at AS "expiresAt"`;
const INTERACTION = `id_digest AS "idDigest", tenant_id AS "tenantId", session_id AS "sessionId", request, user_id AS "userId", auth_time AS "authTime",
  mfa_user_id AS "mfaUserId", created_at AS "createdAt", expires_at AS "expiresAt"`;
const THROTTLE = `key, failures, last_failure_at AS "lastFailureAt", locked_until AS "lockedUntil"`;

const SQL = {
  insertSession: `INSERT INTO browser_sessions (id, tenant_id, token_digest, active_user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
  findSessionByDigest: `SELECT ${SESSION} FROM browser_sessions WHERE token_digest = ? AND tenant_id = ?`,
  findSessionById: `SELECT ${SESSION} FROM browser_sessions WHERE id = ? AND tenant_id = ?`,
  // Its accounts and interactions go with it (ON DELETE CASCADE).
  deleteSession: `DELETE FROM browser_sessions WHERE id = ? AND tenant_id = ?`,
  renewSession: `UPDATE browser_sessions SET token_digest = ?, expires_at = ? WHERE id = ?`,
  setActiveAccount: `UPDATE browser_sessions SET active_user_id = ? WHERE id = ?`,
  upsertAccount: `INSERT INTO session_accounts (session_id, tenant_id, user_id, auth_time) VALUES (?, ?, ?, ?)
    ON CONFLICT (session_id, user_id) DO UPDATE SET auth_time = excluded.auth_time`,
  listAccounts: `SELECT session_id AS "sessionId", tenant_id AS "tenantId", user_id AS "userId", auth_time AS "authTime"
    FROM session_accounts WHERE session_id = ? ORDER BY auth_time DESC`,
  deleteExpiredSessions: `DELETE FROM browser_sessions WHERE expires_at < ?`,
  insertInteraction: `INSERT INTO browser_interactions (id_digest, tenant_id, session_id, request, user_id, auth_time, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  findInteraction: `SELECT ${INTERACTION} FROM browser_interactions WHERE id_digest = ? AND tenant_id = ?`,
  markInteraction: `UPDATE browser_interactions SET user_id = ?, auth_time = ? WHERE id_digest = ?`,
  setMfaUser: `UPDATE browser_interactions SET mfa_user_id = ? WHERE id_digest = ?`,
  consumeInteraction: `DELETE FROM browser_interactions WHERE id_digest = ?`,
  deleteExpiredInteractions: `DELETE FROM browser_interactions WHERE expires_at < ?`,
  // A counter that does not exist yet starts as a zero row (what a missing counter means), so it
  // can be locked like any other: no lost update between two first failures.
  ensureThrottle: `INSERT INTO login_throttle (key, failures, last_failure_at, locked_until) VALUES (?, 0, 0, 0) ON CONFLICT (key) DO NOTHING`,
  findThrottle: `SELECT ${THROTTLE} FROM login_throttle WHERE key = ?`,
  saveThrottle: `INSERT INTO login_throttle (key, failures, last_failure_at, locked_until) VALUES (?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, last_failure_at = excluded.last_failure_at, locked_until = excluded.locked_until`,
  refundThrottle: `UPDATE login_throttle SET failures = failures - 1, locked_until = CASE WHEN locked_until = ? THEN ? ELSE locked_until END
    WHERE key = ? AND failures > 0`,
  clearThrottle: `DELETE FROM login_throttle WHERE key = ?`,
  removeAccountEverywhere: `DELETE FROM session_accounts WHERE tenant_id = ? AND user_id = ?`,
  clearActiveAccount: `UPDATE browser_sessions SET active_user_id = NULL WHERE tenant_id = ? AND active_user_id = ?`,
  removeAccountElsewhere: `DELETE FROM session_accounts WHERE tenant_id = ? AND user_id = ? AND session_id <> ?`,
  clearActiveAccountElsewhere: `UPDATE browser_sessions SET active_user_id = NULL WHERE tenant_id = ? AND active_user_id = ? AND id <> ?`,
  deleteStaleThrottles: `DELETE FROM login_throttle WHERE last_failure_at < ? AND locked_until < ?`,
} as const;

/** Browser sessions, their accounts, pending interactions and the sign-in throttle. */
export function createSessionStore(db: Sql) {
  const lockThrottle = `${SQL.findThrottle}${forUpdate(db.dialect)}`;
  return {
    async insertSession(r: SessionRow): Promise<void> {
      await db.run(SQL.insertSession, [r.id, r.tenantId, r.tokenDigest, r.activeUserId ?? null, r.createdAt, r.expiresAt]);
    },
    /** Only the tenant's own sessions: a cookie from another tenant never matches. */
    async findLiveSession(tenantId: string, tokenDigest: string, now: number): Promise<SessionRow | undefined> {
      const row = await db.get<SessionRow>(SQL.findSessionByDigest, [tokenDigest, tenantId]);
      return row && row.expiresAt > now ? row : undefined;
    },
    findSessionById(tenantId: string, id: string): Promise<SessionRow | undefined> {
      return db.get<SessionRow>(SQL.findSessionById, [id, tenantId]);
    },
    /** RP-initiated logout (issue 23): the session ends with every account signed in to it. */
    async deleteSession(tenantId: string, id: string): Promise<void> {
      await db.run(SQL.deleteSession, [id, tenantId]);
    },
    /** A new cookie secret and a fresh lifetime (every sign-in). */
    async renewSession(id: string, tokenDigest: string, expiresAt: number): Promise<void> {
      await db.run(SQL.renewSession, [tokenDigest, expiresAt, id]);
    },
    async setActiveAccount(id: string, userId: string): Promise<void> {
      await db.run(SQL.setActiveAccount, [userId, id]);
    },
    async upsertAccount(r: SessionAccountRow): Promise<void> {
      await db.run(SQL.upsertAccount, [r.sessionId, r.tenantId, r.userId, r.authTime]);
    },
    /** Most recently authenticated first. */
    listAccounts(sessionId: string): Promise<SessionAccountRow[]> {
      return db.all<SessionAccountRow>(SQL.listAccounts, [sessionId]);
    },
    deleteExpiredSessions(now: number): Promise<number> {
      return db.run(SQL.deleteExpiredSessions, [now]);
    },

    async insertInteraction(r: InteractionRow): Promise<void> {
      await db.run(SQL.insertInteraction, [r.idDigest, r.tenantId, r.sessionId, r.request, r.userId ?? null, r.authTime ?? null, r.createdAt, r.expiresAt]);
    },
    findInteraction(tenantId: string, idDigest: string): Promise<InteractionRow | undefined> {
      return db.get<InteractionRow>(SQL.findInteraction, [idDigest, tenantId]);
    },
    async markInteractionAuthenticated(idDigest: string, userId: string, authTime: number): Promise<void> {
      await db.run(SQL.markInteraction, [userId, authTime, idDigest]);
    },
    /** The user whose password was right and whose second factor is awaited (null: none). */
    async setInteractionMfaUser(idDigest: string, userId: string | null): Promise<void> {
      await db.run(SQL.setMfaUser, [userId, idDigest]);
    },
    /** One-use: returns false when another request already finished it. */
    async consumeInteraction(idDigest: string): Promise<boolean> {
      return (await db.run(SQL.consumeInteraction, [idDigest])) === 1;
    },
    deleteExpiredInteractions(now: number): Promise<number> {
      return db.run(SQL.deleteExpiredInteractions, [now]);
    },

    findThrottle(key: string): Promise<ThrottleRow | undefined> {
      return db.get<ThrottleRow>(SQL.findThrottle, [key]);
    },
    /**
     * The counter, locked until the transaction ends (created as a zero row if missing), so the
     * caller's read-count-write holds with several writers (sql.ts). Lock keys in one global order
     * (every email key before every address key) so two attempts never wait on each other.
     */
    async lockThrottle(key: string): Promise<ThrottleRow> {
      await db.run(SQL.ensureThrottle, [key]);
      return (await db.get<ThrottleRow>(lockThrottle, [key]))!;
    },
    async saveThrottle(r: ThrottleRow): Promise<void> {
      await db.run(SQL.saveThrottle, [r.key, r.failures, r.lastFailureAt, r.lockedUntil]);
    },
    /**
     * Gives back one counted failure; the lock goes back to `previousLock` only when it is still
     * the one that count set (a later failure's lock stays). Conditional, so safe under races.
     */
    async refundThrottle(key: string, countedLock: number, previousLock: number): Promise<void> {
      await db.run(SQL.refundThrottle, [countedLock, previousLock, key]);
    },
    async clearThrottle(key: string): Promise<void> {
      await db.run(SQL.clearThrottle, [key]);
    },
    async removeAccountEverywhere(tenantId: string, userId: string): Promise<void> {
      await db.run(SQL.removeAccountEverywhere, [tenantId, userId]);
      await db.run(SQL.clearActiveAccount, [tenantId, userId]);
    },
    /** The same, except in the session `keepSessionId` (the one that changed the password). */
    async removeAccountElsewhere(tenantId: string, userId: string, keepSessionId: string): Promise<void> {
      await db.run(SQL.removeAccountElsewhere, [tenantId, userId, keepSessionId]);
      await db.run(SQL.clearActiveAccountElsewhere, [tenantId, userId, keepSessionId]);
    },
    deleteStaleThrottles(before: number): Promise<number> {
      return db.run(SQL.deleteStaleThrottles, [before, before]);
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
