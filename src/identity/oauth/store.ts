import { forUpdate, greatest, type Sql } from '../../platform/store/sql';
import { createDeviceStore } from './device-store';
import type { AccessTokenState, CodeRow, ConsentRow, GrantRow, LiveRefreshState, LiveRotation, RefreshTokenRow, RefreshTokenState } from './store-rows';

/**
 * Grants, authorization codes, refresh tokens, revoked access tokens and consents.
 * The token paths run thousands of times a second, so every query is a constant text (the engine
 * prepares it once) addressed by primary key; every one takes the tenant id. Written once for both
 * engines (platform/store/sql.ts): quoted camelCase aliases, no SQLite-only forms.
 */

export * from './store-rows';

/** Every statement whose text is the same on both engines (the others are built in createOAuthStore). */
const SQL = {
  insertCode: `INSERT INTO authorization_codes (code_digest, tenant_id, client_id, user_id, redirect_uri, code_challenge, scope, resource, nonce, auth_time, expires_at, binding_code_digest)
    VALUES (@codeDigest, @tenantId, @clientId, @userId, @redirectUri, @codeChallenge, @scope, @resource, @nonce, @authTime, @expiresAt, @bindingCodeDigest)`,
  findCode: `SELECT code_digest AS "codeDigest", tenant_id AS "tenantId", client_id AS "clientId", user_id AS "userId", redirect_uri AS "redirectUri",
      code_challenge AS "codeChallenge", scope, resource, nonce, auth_time AS "authTime", expires_at AS "expiresAt", consumed_at AS "consumedAt", grant_id AS "grantId",
      binding_code_digest AS "bindingCodeDigest"
    FROM authorization_codes WHERE tenant_id = ? AND code_digest = ?`,
  consumeCode: `UPDATE authorization_codes SET consumed_at = ?, grant_id = ? WHERE tenant_id = ? AND code_digest = ? AND consumed_at IS NULL`,
  insertGrant: `INSERT INTO grants (id, tenant_id, client_id, user_id, scope, resource, auth_time, created_at, expires_at)
    VALUES (@id, @tenantId, @clientId, @userId, @scope, @resource, @authTime, @createdAt, @expiresAt)`,
  findGrant: `SELECT id, tenant_id AS "tenantId", client_id AS "clientId", user_id AS "userId", scope, resource, auth_time AS "authTime",
      created_at AS "createdAt", revoked_at AS "revokedAt", expires_at AS "expiresAt" FROM grants WHERE tenant_id = ? AND id = ?`,
  revokeGrant: `UPDATE grants SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL`,
  revokeGrantTokens: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND grant_id = ? AND revoked_at IS NULL`,
  insertRefresh: `INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
    VALUES (@tokenDigest, @tenantId, @grantId, @clientId, @scope, @expiresAt, @createdAt)`,
  findRefresh: `SELECT t.token_digest AS "tokenDigest", t.tenant_id AS "tenantId", t.grant_id AS "grantId", t.client_id AS "clientId", t.scope,
      t.expires_at AS "expiresAt", t.created_at AS "createdAt", t.rotated_at AS "rotatedAt", t.replaced_by AS "replacedBy", t.revoked_at AS "revokedAt",
      g.revoked_at AS "grantRevokedAt", g.expires_at AS "grantExpiresAt", g.resource, g.auth_time AS "authTime", g.user_id AS "userId",
      u.subject, u.email, u.email_verified AS "emailVerified", u.updated_at AS "updatedAt", u.status AS "userStatus"
    FROM refresh_tokens t JOIN grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
    WHERE t.tenant_id = ? AND t.token_digest = ?`,
  rotateRefresh: `UPDATE refresh_tokens SET rotated_at = ?, replaced_by = ?
    WHERE tenant_id = ? AND token_digest = ? AND rotated_at IS NULL AND revoked_at IS NULL`,
  replaceSuccessor: `UPDATE refresh_tokens SET replaced_by = ? WHERE tenant_id = ? AND token_digest = ? AND replaced_by = ?`,
  // A retired token keeps rotated_at NULL and names its replacement: see retiredByReplacement.
  retireUnusedRefresh: `UPDATE refresh_tokens SET revoked_at = ?, replaced_by = ?
    WHERE tenant_id = ? AND token_digest = ? AND rotated_at IS NULL AND revoked_at IS NULL`,
  revokeRefresh: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND token_digest = ? AND revoked_at IS NULL`,
  // Live: unused, unrevoked, unexpired, of this client; its grant unrevoked, its user active,
  // its resource (if any) active. Written for both engines (PostgreSQL wraps it: PG.rotateLive).
  findLiveRefresh: `SELECT t.grant_id AS "grantId", t.scope, g.resource, rs.audience, g.auth_time AS "authTime", g.expires_at AS "grantExpiresAt",
      u.subject, u.email, u.email_verified AS "emailVerified", u.updated_at AS "updatedAt"
    FROM refresh_tokens t JOIN grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
      LEFT JOIN resources rs ON rs.tenant_id = g.tenant_id AND rs.uri = g.resource
    WHERE t.tenant_id = @tenantId AND t.token_digest = @rotated AND t.client_id = @clientId AND t.expires_at > @createdAt
      AND t.rotated_at IS NULL AND t.revoked_at IS NULL AND g.revoked_at IS NULL AND u.status = 'ACTIVE'
      AND (g.resource IS NULL OR rs.status = 'ACTIVE')`,
  accessState: `SELECT g.revoked_at AS "grantRevokedAt",
      CASE WHEN EXISTS (SELECT 1 FROM revoked_access_tokens r WHERE r.jti = ? AND r.tenant_id = g.tenant_id) THEN 1 ELSE 0 END AS "jtiRevoked",
      u.subject, u.email, u.email_verified AS "emailVerified", u.updated_at AS "updatedAt", u.status AS "userStatus"
    FROM grants g JOIN users u ON u.id = g.user_id WHERE g.tenant_id = ? AND g.id = ?`,
  jtiRevoked: `SELECT 1 AS revoked FROM revoked_access_tokens WHERE jti = ? AND tenant_id = ?`,
  revokeJti: `INSERT INTO revoked_access_tokens (jti, tenant_id, expires_at) VALUES (?, ?, ?) ON CONFLICT (jti) DO NOTHING`,
  revokeSubjectGrants: `UPDATE grants SET revoked_at = ? WHERE tenant_id = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL`,
  revokeSubjectTokens: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL
      AND grant_id IN (SELECT id FROM grants WHERE tenant_id = ? AND user_id = ? AND client_id = ?)`,
  revokeUserGrants: `UPDATE grants SET revoked_at = ? WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL`,
  revokeUserTokens: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL
      AND grant_id IN (SELECT id FROM grants WHERE tenant_id = ? AND user_id = ?)`,
  deleteUserCodes: `DELETE FROM authorization_codes WHERE tenant_id = ? AND user_id = ? AND consumed_at IS NULL`,
  // Codes not yet exchanged would otherwise start a fresh grant after the revocation.
  deleteSubjectCodes: `DELETE FROM authorization_codes WHERE tenant_id = ? AND user_id = ? AND client_id = ? AND consumed_at IS NULL`,
  findConsent: `SELECT scope, resource FROM consents WHERE tenant_id = ? AND user_id = ? AND client_id = ?`,
  upsertConsent: `INSERT INTO consents (tenant_id, user_id, client_id, scope, resource, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, user_id, client_id) DO UPDATE SET scope = excluded.scope, resource = excluded.resource, created_at = excluded.created_at`,
  deleteConsent: `DELETE FROM consents WHERE tenant_id = ? AND user_id = ? AND client_id = ?`,
  // A row to lock even for a first consent (empty scope, no resource: merges as nothing).
  ensureConsent: `INSERT INTO consents (tenant_id, user_id, client_id, scope, resource, created_at) VALUES (?, ?, ?, '', NULL, ?)
    ON CONFLICT (tenant_id, user_id, client_id) DO NOTHING`,
  // A LIMITed delete selects primary keys (no rowid on PostgreSQL), found by the expiry indexes.
  purgeCodes: `DELETE FROM authorization_codes WHERE code_digest IN (SELECT code_digest FROM authorization_codes WHERE expires_at < ? LIMIT ?)`,
  purgeJtis: `DELETE FROM revoked_access_tokens WHERE jti IN (SELECT jti FROM revoked_access_tokens WHERE expires_at < ? LIMIT ?)`,
  purgeRefresh: `DELETE FROM refresh_tokens WHERE token_digest IN (SELECT token_digest FROM refresh_tokens WHERE expires_at < ? LIMIT ?)`,
  purgeGrants: `DELETE FROM grants WHERE id IN (SELECT id FROM grants WHERE expires_at < ? LIMIT ?)`,
} as const;

/**
 * PostgreSQL's single statements for the two hottest writes (store.write): the conditional
 * UPDATE that decides, and the INSERTs it allows as data-modifying WITHs reading its RETURNING,
 * so that nothing is written unless it matched. Parameters in a SELECT list have no column to
 * take their type from: the integers are cast.
 */
const PG = {
  exchangeCode: (withRefresh: boolean) => `WITH c AS (
      UPDATE authorization_codes SET consumed_at = @createdAt, grant_id = @id WHERE tenant_id = @tenantId AND code_digest = @codeDigest AND consumed_at IS NULL RETURNING 1
    )${withRefresh ? `, r AS (
      INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
      SELECT @refreshDigest, @tenantId, @id, @clientId, @scope, @refreshExpiresAt::bigint, @createdAt::bigint FROM c
    )` : ''}
    INSERT INTO grants (id, tenant_id, client_id, user_id, scope, resource, auth_time, created_at, expires_at)
    SELECT @id, @tenantId, @clientId, @userId, @scope, @resource, @authTime::bigint, @createdAt::bigint, @expiresAt::bigint FROM c`,
  rotateRefresh: (extendGrant: boolean) => `WITH r AS (
      UPDATE refresh_tokens SET rotated_at = @createdAt, replaced_by = @tokenDigest
      WHERE tenant_id = @tenantId AND token_digest = @rotated AND rotated_at IS NULL AND revoked_at IS NULL RETURNING 1
    )${extendGrant ? `, e AS (
      UPDATE grants SET expires_at = GREATEST(expires_at, @grantExpiresAt::bigint) WHERE tenant_id = @tenantId AND id = @grantId AND EXISTS (SELECT 1 FROM r)
    )` : ''}
    INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
    SELECT @tokenDigest, @tenantId, @grantId, @clientId, @scope, @expiresAt::bigint, @createdAt::bigint FROM r`,
};
/**
 * The live token's state (SQL.findLiveRefresh), its rotation, its successor and the grant's
 * extension in one statement: the UPDATE re-checks the token under its row lock (a concurrent
 * rotation leaves it nothing to update), and the rest reads what the UPDATE returned.
 */
const pgRotateLive = (findLive: string) => `WITH st AS (${findLive}),
    r AS (
      UPDATE refresh_tokens t SET rotated_at = @createdAt, replaced_by = @tokenDigest FROM st
      WHERE t.tenant_id = @tenantId AND t.token_digest = @rotated AND t.rotated_at IS NULL AND t.revoked_at IS NULL
      RETURNING st.*
    ),
    i AS (
      INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
      SELECT @tokenDigest, @tenantId, r."grantId", @clientId, r.scope, @expiresAt::bigint, @createdAt::bigint FROM r
    ),
    e AS (
      UPDATE grants g SET expires_at = @extendTo::bigint FROM r WHERE g.tenant_id = @tenantId AND g.id = r."grantId" AND g.expires_at < @lastExpiry::bigint
    )
    SELECT * FROM r`;

const PG_TEXTS = {
  rotateLive: pgRotateLive(SQL.findLiveRefresh),
  exchangeCode: [PG.exchangeCode(false), PG.exchangeCode(true)],
  rotateRefresh: [PG.rotateRefresh(false), PG.rotateRefresh(true)],
};

export function createOAuthStore(db: Sql) {
  const devices = createDeviceStore(db);
  // Only the token's row: not its grant's or its user's, which other refreshes share.
  const findRefreshLocked = SQL.findRefresh + (db.dialect === 'postgres' ? ' FOR UPDATE OF t' : '');
  const extendGrant = `UPDATE grants SET expires_at = ${greatest(db.dialect, 'expires_at', '?')} WHERE tenant_id = ? AND id = ?`;
  const lockConsent = `${SQL.findConsent}${forUpdate(db.dialect)}`;
  const pg = db.dialect === 'postgres';

  return {
    async insertCode(row: Omit<CodeRow, 'consumedAt' | 'grantId'>): Promise<void> {
      await db.run(SQL.insertCode, row);
    },
    findCode(tenantId: string, codeDigest: string): Promise<CodeRow | undefined> {
      return db.get<CodeRow>(SQL.findCode, [tenantId, codeDigest]);
    },
    /**
     * The exchange of a code (RFC 6749 §4.1.2: one use): consumes it and creates its grant and,
     * when given, the grant's first refresh token; true only for the first caller, and nothing
     * is written for the others. One statement on PostgreSQL (store.write).
     */
    async exchangeCode(codeDigest: string, grant: Omit<GrantRow, 'revokedAt'>, refresh: Pick<RefreshTokenRow, 'tokenDigest' | 'expiresAt'> | null): Promise<boolean> {
      if (pg) {
        const params = { ...grant, codeDigest, refreshDigest: refresh?.tokenDigest, refreshExpiresAt: refresh?.expiresAt };
        return (await db.run(PG_TEXTS.exchangeCode[refresh ? 1 : 0], params)) === 1;
      }
      if ((await db.run(SQL.consumeCode, [grant.createdAt, grant.id, grant.tenantId, codeDigest])) !== 1) return false;
      await db.run(SQL.insertGrant, grant);
      if (refresh) {
        const { id: grantId, tenantId, clientId, scope, createdAt } = grant;
        await db.run(SQL.insertRefresh, { tokenDigest: refresh.tokenDigest, tenantId, grantId, clientId, scope, expiresAt: refresh.expiresAt, createdAt });
      }
      return true;
    },

    async insertGrant(row: Omit<GrantRow, 'revokedAt'>): Promise<void> {
      await db.run(SQL.insertGrant, row);
    },
    /** A token of the grant now lives until `expiresAt`: the grant lives at least as long (callers add slack, see refresh-token.ts). */
    async extendGrant(tenantId: string, grantId: string, expiresAt: number): Promise<void> {
      await db.run(extendGrant, [expiresAt, tenantId, grantId]);
    },
    findGrant(tenantId: string, id: string): Promise<GrantRow | undefined> {
      return db.get<GrantRow>(SQL.findGrant, [tenantId, id]);
    },
    /** Ends a grant: its access tokens fail the grant check, its refresh tokens are revoked. */
    async revokeGrant(tenantId: string, grantId: string, now: number): Promise<void> {
      await db.run(SQL.revokeGrant, [now, tenantId, grantId]);
      await db.run(SQL.revokeGrantTokens, [now, tenantId, grantId]);
    },
    async revokeGrantsOf(tenantId: string, userId: string, clientId: string, now: number): Promise<number> {
      const n = await db.run(SQL.revokeSubjectGrants, [now, tenantId, userId, clientId]);
      await db.run(SQL.revokeSubjectTokens, [now, tenantId, tenantId, userId, clientId]);
      await db.run(SQL.deleteSubjectCodes, [tenantId, userId, clientId]);
      return n;
    },

    /** Every grant, refresh token and unexchanged code of the user, at every client. */
    async revokeAllOfUser(tenantId: string, userId: string, now: number): Promise<number> {
      const n = await db.run(SQL.revokeUserGrants, [now, tenantId, userId]);
      await db.run(SQL.revokeUserTokens, [now, tenantId, tenantId, userId]);
      await db.run(SQL.deleteUserCodes, [tenantId, userId]);
      return n;
    },

    async insertRefreshToken(row: RefreshTokenRow): Promise<void> {
      await db.run(SQL.insertRefresh, row);
    },
    findRefreshToken(tenantId: string, tokenDigest: string): Promise<RefreshTokenState | undefined> {
      return db.get<RefreshTokenState>(SQL.findRefresh, [tenantId, tokenDigest]);
    },
    /**
     * The same, with the token's row locked until the transaction ends: concurrent refreshes of
     * one token (a client retrying, inside the grace window) decide one after the other, each
     * on what the previous one committed, as under SQLite's single writer.
     */
    findRefreshTokenLocked(tenantId: string, tokenDigest: string): Promise<RefreshTokenState | undefined> {
      return db.get<RefreshTokenState>(findRefreshLocked, [tenantId, tokenDigest]);
    },
    /**
     * Rotates the token `rotated` to its successor `next` (same grant, client and scope, created
     * now) and, when `grantExpiresAt` is given, makes the grant live at least that long: false,
     * and nothing written, when another request rotated or revoked it first. One statement on
     * PostgreSQL (store.write).
     */
    async rotateRefreshToken(rotated: string, next: RefreshTokenRow, grantExpiresAt: number | null): Promise<boolean> {
      if (pg) return (await db.run(PG_TEXTS.rotateRefresh[grantExpiresAt === null ? 0 : 1], { ...next, rotated, grantExpiresAt })) === 1;
      if ((await db.run(SQL.rotateRefresh, [next.createdAt, next.tokenDigest, next.tenantId, rotated])) !== 1) return false;
      await db.run(SQL.insertRefresh, next);
      if (grantExpiresAt !== null) await db.run(extendGrant, [grantExpiresAt, next.tenantId, next.grantId]);
      return true;
    },
    /**
     * A refresh's one step when the token is live (SQL.findLiveRefresh): rotates it to its
     * successor, extends the grant if it would end before `lastExpiry`, and answers the state
     * to issue tokens from; undefined, and nothing written, when it is not live (unknown,
     * used, revoked, expired, another client's, its grant or user or resource ended). One
     * statement on PostgreSQL (store.write).
     */
    async rotateLiveRefreshToken(rotation: LiveRotation): Promise<LiveRefreshState | undefined> {
      if (pg) return db.get<LiveRefreshState>(PG_TEXTS.rotateLive, rotation);
      const st = await db.get<LiveRefreshState>(SQL.findLiveRefresh, rotation);
      if (!st) return undefined;
      const { tenantId, clientId, rotated, tokenDigest, expiresAt, createdAt } = rotation;
      await db.run(SQL.rotateRefresh, [createdAt, tokenDigest, tenantId, rotated]);
      await db.run(SQL.insertRefresh, { tokenDigest, tenantId, grantId: st.grantId, clientId, scope: st.scope, expiresAt, createdAt });
      if (st.grantExpiresAt < rotation.lastExpiry) await db.run(extendGrant, [rotation.extendTo, tenantId, st.grantId]);
      return st;
    },
    /**
     * Inside the reuse grace window: the successor nobody used is retired (revoked, pointing at
     * its replacement) and replaced. False when the successor was already used (or revoked):
     * then it is a real reuse.
     */
    async replaceUnusedSuccessor(tenantId: string, tokenDigest: string, oldSuccessor: string, newSuccessor: string, now: number): Promise<boolean> {
      if ((await db.run(SQL.retireUnusedRefresh, [now, newSuccessor, tenantId, oldSuccessor])) !== 1) return false;
      return (await db.run(SQL.replaceSuccessor, [newSuccessor, tenantId, tokenDigest, oldSuccessor])) === 1;
    },
    async revokeRefreshToken(tenantId: string, tokenDigest: string, now: number): Promise<void> {
      await db.run(SQL.revokeRefresh, [now, tenantId, tokenDigest]);
    },

    accessTokenState(tenantId: string, grantId: string, jti: string): Promise<AccessTokenState | undefined> {
      return db.get<AccessTokenState>(SQL.accessState, [jti, tenantId, grantId]);
    },
    /** Whether this access token was revoked (a client credentials token has no grant to look at). */
    async accessTokenRevoked(tenantId: string, jti: string): Promise<boolean> {
      return (await db.get(SQL.jtiRevoked, [jti, tenantId])) !== undefined;
    },
    async revokeAccessToken(tenantId: string, jti: string, expiresAt: number): Promise<void> {
      await db.run(SQL.revokeJti, [jti, tenantId, expiresAt]);
    },

    findConsent(tenantId: string, userId: string, clientId: string): Promise<ConsentRow | undefined> {
      return db.get<ConsentRow>(SQL.findConsent, [tenantId, userId, clientId]);
    },
    /** The consent, locked until the transaction ends (a merge reads it, then writes it). */
    /**
     * The consent, locked until the transaction ends; a first consent is created empty and
     * locked too, so two first consents of one user and client merge instead of one overwriting
     * the other (nothing to lock otherwise on PostgreSQL).
     */
    async lockConsent(tenantId: string, userId: string, clientId: string, at: string): Promise<ConsentRow | undefined> {
      await db.run(SQL.ensureConsent, [tenantId, userId, clientId, at]);
      return db.get<ConsentRow>(lockConsent, [tenantId, userId, clientId]);
    },
    async upsertConsent(tenantId: string, userId: string, clientId: string, scope: string, resource: string | null, at: string): Promise<void> {
      await db.run(SQL.upsertConsent, [tenantId, userId, clientId, scope, resource, at]);
    },
    async deleteConsent(tenantId: string, userId: string, clientId: string): Promise<void> {
      await db.run(SQL.deleteConsent, [tenantId, userId, clientId]);
    },

    /** Housekeeping: up to `limit` rows of each kind that expired before `before`; whether any kind has more. */
    ...devices,
    async purgeExpired(before: number, limit: number): Promise<{ deleted: number; more: boolean }> {
      const counts: number[] = [];
      for (const text of [SQL.purgeCodes, SQL.purgeJtis, SQL.purgeRefresh, SQL.purgeGrants]) counts.push(await db.run(text, [before, limit]));
      counts.push(await devices.purgeDevices(before, limit));
      return { deleted: counts.reduce((a, b) => a + b, 0), more: counts.some((n) => n === limit) };
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
