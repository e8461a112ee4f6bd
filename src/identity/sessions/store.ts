import { and, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { browserInteractions, browserSessions, loginThrottle, sessionAccounts } from '../../db/schema';

export type SessionRow = typeof browserSessions.$inferSelect;
export type SessionAccountRow = typeof sessionAccounts.$inferSelect;
export type InteractionRow = typeof browserInteractions.$inferSelect;
export type ThrottleRow = typeof loginThrottle.$inferSelect;

/** Browser sessions, their accounts, pending interactions and the sign-in throttle. */
export function createSessionStore(db: Db) {
  return {
    insertSession(row: typeof browserSessions.$inferInsert): void {
      db.insert(browserSessions).values(row).run();
    },
    /** Only the tenant's own sessions: a cookie from another tenant never matches. */
    findLiveSession(tenantId: string, tokenDigest: string, now: number): SessionRow | undefined {
      const row = db
        .select()
        .from(browserSessions)
        .where(and(eq(browserSessions.tokenDigest, tokenDigest), eq(browserSessions.tenantId, tenantId)))
        .get();
      return row && row.expiresAt > now ? row : undefined;
    },
    findSessionById(tenantId: string, id: string): SessionRow | undefined {
      return db
        .select()
        .from(browserSessions)
        .where(and(eq(browserSessions.id, id), eq(browserSessions.tenantId, tenantId)))
        .get();
    },
    /** A new cookie secret and a fresh lifetime (every sign-in). */
    renewSession(id: string, tokenDigest: string, expiresAt: number): void {
      db.update(browserSessions).set({ tokenDigest, expiresAt }).where(eq(browserSessions.id, id)).run();
    },
    setActiveAccount(id: string, userId: string): void {
      db.update(browserSessions).set({ activeUserId: userId }).where(eq(browserSessions.id, id)).run();
    },
    upsertAccount(row: SessionAccountRow): void {
      db.insert(sessionAccounts)
        .values(row)
        .onConflictDoUpdate({ target: [sessionAccounts.sessionId, sessionAccounts.userId], set: { authTime: row.authTime } })
        .run();
    },
    /** Most recently authenticated first. */
    listAccounts(sessionId: string): SessionAccountRow[] {
      return db
        .select()
        .from(sessionAccounts)
        .where(eq(sessionAccounts.sessionId, sessionId))
        .orderBy(desc(sessionAccounts.authTime))
        .all();
    },
    deleteExpiredSessions(now: number): number {
      return db.delete(browserSessions).where(lt(browserSessions.expiresAt, now)).run().changes;
    },

    insertInteraction(row: typeof browserInteractions.$inferInsert): void {
      db.insert(browserInteractions).values(row).run();
    },
    findInteraction(tenantId: string, idDigest: string): InteractionRow | undefined {
      return db
        .select()
        .from(browserInteractions)
        .where(and(eq(browserInteractions.idDigest, idDigest), eq(browserInteractions.tenantId, tenantId)))
        .get();
    },
    markInteractionAuthenticated(idDigest: string, userId: string, authTime: number): void {
      db.update(browserInteractions).set({ userId, authTime }).where(eq(browserInteractions.idDigest, idDigest)).run();
    },
    /** One-use: returns false when another request already finished it. */
    consumeInteraction(idDigest: string): boolean {
      return db.delete(browserInteractions).where(eq(browserInteractions.idDigest, idDigest)).run().changes === 1;
    },
    deleteExpiredInteractions(now: number): number {
      return db.delete(browserInteractions).where(lt(browserInteractions.expiresAt, now)).run().changes;
    },

    findThrottle(key: string): ThrottleRow | undefined {
      return db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();
    },
    saveThrottle(row: ThrottleRow): void {
      db.insert(loginThrottle)
        .values(row)
        .onConflictDoUpdate({
          target: loginThrottle.key,
          set: { failures: row.failures, lastFailureAt: row.lastFailureAt, lockedUntil: row.lockedUntil },
        })
        .run();
    },
    /**
     * Gives back one counted failure; the lock goes back to `previousLock` only when it is still
     * the one that count set (a later failure's lock stays). Conditional, so safe under races.
     */
    refundThrottle(key: string, countedLock: number, previousLock: number): void {
      db.update(loginThrottle)
        .set({
          failures: sql`${loginThrottle.failures} - 1`,
          lockedUntil: sql`CASE WHEN ${loginThrottle.lockedUntil} = ${countedLock} THEN ${previousLock} ELSE ${loginThrottle.lockedUntil} END`,
        })
        .where(and(eq(loginThrottle.key, key), gt(loginThrottle.failures, 0)))
        .run();
    },
    clearThrottle(key: string): void {
      db.delete(loginThrottle).where(eq(loginThrottle.key, key)).run();
    },
    deleteStaleThrottles(before: number): number {
      return db.delete(loginThrottle).where(and(lt(loginThrottle.lastFailureAt, before), lt(loginThrottle.lockedUntil, before))).run().changes;
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
