import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from '../../platform/store/sqlite';

/**
 * Grants, authorization codes, refresh tokens, revoked access tokens and consents.
 * The token paths run thousands of times a second, so every query is a prepared statement
 * (prepared on first use) addressed by primary key; every one takes the tenant id.
 */

export interface CodeRow {
  codeDigest: string;
  tenantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string | null;
  nonce: string | null;
  authTime: number;
  expiresAt: number;
  consumedAt: number | null;
  grantId: string | null;
}

export interface GrantRow {
  id: string;
  tenantId: string;
  clientId: string;
  userId: string;
  scope: string;
  resource: string | null;
  authTime: number;
  createdAt: number;
  revokedAt: number | null;
  /** When its last access or refresh token expires (see extendGrant). */
  expiresAt: number;
}

export interface RefreshTokenRow {
  tokenDigest: string;
  tenantId: string;
  grantId: string;
  clientId: string;
  scope: string;
  expiresAt: number;
  createdAt: number;
}

/** A refresh token with its grant and subject: everything a refresh needs, in one read. */
export interface RefreshTokenState extends RefreshTokenRow {
  rotatedAt: number | null;
  replacedBy: string | null;
  revokedAt: number | null;
  grantRevokedAt: number | null;
  grantExpiresAt: number;
  resource: string | null;
  authTime: number;
  userId: string;
  subject: string;
  email: string;
  emailVerified: number;
  userStatus: 'ACTIVE' | 'DISABLED';
}

/**
 * A successor that a grace-window replacement retired before anyone used it (revoked, never
 * rotated, and pointing at the token that replaced it). Presenting it later is reuse: the
 * answer it came with reached someone other than whoever replayed its predecessor.
 */
export function retiredByReplacement(st: Pick<RefreshTokenState, 'revokedAt' | 'rotatedAt' | 'replacedBy'>): boolean {
  return st.revokedAt !== null && st.rotatedAt === null && st.replacedBy !== null;
}

/** What introspection and userinfo need to know about a verified access token's grant. */
export interface AccessTokenState {
  grantRevokedAt: number | null;
  jtiRevoked: number;
  subject: string;
  email: string;
  emailVerified: number;
  userStatus: 'ACTIVE' | 'DISABLED';
}

export interface ConsentRow {
  scope: string;
  resource: string | null;
}

type Stmt = BetterSqlite3.Statement;

const SQL = {
  insertCode: `INSERT INTO authorization_codes (code_digest, tenant_id, client_id, user_id, redirect_uri, code_challenge, scope, resource, nonce, auth_time, expires_at)
    VALUES (@codeDigest, @tenantId, @clientId, @userId, @redirectUri, @codeChallenge, @scope, @resource, @nonce, @authTime, @expiresAt)`,
  findCode: `SELECT code_digest AS codeDigest, tenant_id AS tenantId, client_id AS clientId, user_id AS userId, redirect_uri AS redirectUri,
      code_challenge AS codeChallenge, scope, resource, nonce, auth_time AS authTime, expires_at AS expiresAt, consumed_at AS consumedAt, grant_id AS grantId
    FROM authorization_codes WHERE tenant_id = ? AND code_digest = ?`,
  consumeCode: `UPDATE authorization_codes SET consumed_at = ?, grant_id = ? WHERE tenant_id = ? AND code_digest = ? AND consumed_at IS NULL`,
  insertGrant: `INSERT INTO grants (id, tenant_id, client_id, user_id, scope, resource, auth_time, created_at, expires_at)
    VALUES (@id, @tenantId, @clientId, @userId, @scope, @resource, @authTime, @createdAt, @expiresAt)`,
  extendGrant: `UPDATE grants SET expires_at = max(expires_at, ?) WHERE tenant_id = ? AND id = ?`,
  findGrant: `SELECT id, tenant_id AS tenantId, client_id AS clientId, user_id AS userId, scope, resource, auth_time AS authTime,
      created_at AS createdAt, revoked_at AS revokedAt, expires_at AS expiresAt FROM grants WHERE tenant_id = ? AND id = ?`,
  revokeGrant: `UPDATE grants SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL`,
  revokeGrantTokens: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND grant_id = ? AND revoked_at IS NULL`,
  insertRefresh: `INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
    VALUES (@tokenDigest, @tenantId, @grantId, @clientId, @scope, @expiresAt, @createdAt)`,
  findRefresh: `SELECT t.token_digest AS tokenDigest, t.tenant_id AS tenantId, t.grant_id AS grantId, t.client_id AS clientId, t.scope,
      t.expires_at AS expiresAt, t.created_at AS createdAt, t.rotated_at AS rotatedAt, t.replaced_by AS replacedBy, t.revoked_at AS revokedAt,
      g.revoked_at AS grantRevokedAt, g.expires_at AS grantExpiresAt, g.resource, g.auth_time AS authTime, g.user_id AS userId,
      u.subject, u.email, u.email_verified AS emailVerified, u.status AS userStatus
    FROM refresh_tokens t JOIN grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
    WHERE t.tenant_id = ? AND t.token_digest = ?`,
  rotateRefresh: `UPDATE refresh_tokens SET rotated_at = ?, replaced_by = ?
    WHERE tenant_id = ? AND token_digest = ? AND rotated_at IS NULL AND revoked_at IS NULL`,
  replaceSuccessor: `UPDATE refresh_tokens SET replaced_by = ? WHERE tenant_id = ? AND token_digest = ? AND replaced_by = ?`,
  // A retired token keeps rotated_at NULL and names its replacement: see retiredByReplacement.
  retireUnusedRefresh: `UPDATE refresh_tokens SET revoked_at = ?, replaced_by = ?
    WHERE tenant_id = ? AND token_digest = ? AND rotated_at IS NULL AND revoked_at IS NULL`,
  revokeRefresh: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND token_digest = ? AND revoked_at IS NULL`,
  accessState: `SELECT g.revoked_at AS grantRevokedAt,
      EXISTS (SELECT 1 FROM revoked_access_tokens r WHERE r.jti = ? AND r.tenant_id = g.tenant_id) AS jtiRevoked,
      u.subject, u.email, u.email_verified AS emailVerified, u.status AS userStatus
    FROM grants g JOIN users u ON u.id = g.user_id WHERE g.tenant_id = ? AND g.id = ?`,
  revokeJti: `INSERT OR IGNORE INTO revoked_access_tokens (jti, tenant_id, expires_at) VALUES (?, ?, ?)`,
  revokeSubjectGrants: `UPDATE grants SET revoked_at = ? WHERE tenant_id = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL`,
  revokeSubjectTokens: `UPDATE refresh_tokens SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL
      AND grant_id IN (SELECT id FROM grants WHERE tenant_id = ? AND user_id = ? AND client_id = ?)`,
  // Codes not yet exchanged would otherwise start a fresh grant after the revocation.
  deleteSubjectCodes: `DELETE FROM authorization_codes WHERE tenant_id = ? AND user_id = ? AND client_id = ? AND consumed_at IS NULL`,
  findConsent: `SELECT scope, resource FROM consents WHERE tenant_id = ? AND user_id = ? AND client_id = ?`,
  upsertConsent: `INSERT INTO consents (tenant_id, user_id, client_id, scope, resource, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, user_id, client_id) DO UPDATE SET scope = excluded.scope, resource = excluded.resource, created_at = excluded.created_at`,
  deleteConsent: `DELETE FROM consents WHERE tenant_id = ? AND user_id = ? AND client_id = ?`,
  purgeCodes: `DELETE FROM authorization_codes WHERE rowid IN (SELECT rowid FROM authorization_codes WHERE expires_at < ? LIMIT ?)`,
  purgeJtis: `DELETE FROM revoked_access_tokens WHERE rowid IN (SELECT rowid FROM revoked_access_tokens WHERE expires_at < ? LIMIT ?)`,
  purgeRefresh: `DELETE FROM refresh_tokens WHERE rowid IN (SELECT rowid FROM refresh_tokens WHERE expires_at < ? LIMIT ?)`,
  purgeGrants: `DELETE FROM grants WHERE rowid IN (SELECT rowid FROM grants WHERE expires_at < ? LIMIT ?)`,
} as const;

export function createOAuthStore(db: Db) {
  const conn = db.$client;
  const cache = new Map<keyof typeof SQL, Stmt>();
  const q = (name: keyof typeof SQL): Stmt => {
    let s = cache.get(name);
    if (!s) {
      s = conn.prepare(SQL[name]);
      cache.set(name, s);
    }
    return s;
  };

  return {
    insertCode(row: Omit<CodeRow, 'consumedAt' | 'grantId'>): void {
      q('insertCode').run(row);
    },
    findCode(tenantId: string, codeDigest: string): CodeRow | undefined {
      return q('findCode').get(tenantId, codeDigest) as CodeRow | undefined;
    },
    /** One use: true only for the first caller (RFC 6749 §4.1.2). */
    consumeCode(tenantId: string, codeDigest: string, grantId: string, now: number): boolean {
      return q('consumeCode').run(now, grantId, tenantId, codeDigest).changes === 1;
    },

    insertGrant(row: Omit<GrantRow, 'revokedAt'>): void {
      q('insertGrant').run(row);
    },
    /** A token of the grant now lives until `expiresAt`: the grant lives at least as long (callers add slack, see refresh-token.ts). */
    extendGrant(tenantId: string, grantId: string, expiresAt: number): void {
      q('extendGrant').run(expiresAt, tenantId, grantId);
    },
    findGrant(tenantId: string, id: string): GrantRow | undefined {
      return q('findGrant').get(tenantId, id) as GrantRow | undefined;
    },
    /** Ends a grant: its access tokens fail the grant check, its refresh tokens are revoked. */
    revokeGrant(tenantId: string, grantId: string, now: number): void {
      q('revokeGrant').run(now, tenantId, grantId);
      q('revokeGrantTokens').run(now, tenantId, grantId);
    },
    revokeGrantsOf(tenantId: string, userId: string, clientId: string, now: number): number {
      const n = q('revokeSubjectGrants').run(now, tenantId, userId, clientId).changes;
      q('revokeSubjectTokens').run(now, tenantId, tenantId, userId, clientId);
      q('deleteSubjectCodes').run(tenantId, userId, clientId);
      return n;
    },

    insertRefreshToken(row: RefreshTokenRow): void {
      q('insertRefresh').run(row);
    },
    findRefreshToken(tenantId: string, tokenDigest: string): RefreshTokenState | undefined {
      return q('findRefresh').get(tenantId, tokenDigest) as RefreshTokenState | undefined;
    },
    /** Marks a token rotated; false when another request rotated or revoked it first. */
    rotateRefreshToken(tenantId: string, tokenDigest: string, successor: string, now: number): boolean {
      return q('rotateRefresh').run(now, successor, tenantId, tokenDigest).changes === 1;
    },
    /**
     * Inside the reuse grace window: the successor nobody used is retired (revoked, pointing at
     * its replacement) and replaced. False when the successor was already used (or revoked):
     * then it is a real reuse.
     */
    replaceUnusedSuccessor(tenantId: string, tokenDigest: string, oldSuccessor: string, newSuccessor: string, now: number): boolean {
      if (q('retireUnusedRefresh').run(now, newSuccessor, tenantId, oldSuccessor).changes !== 1) return false;
      return q('replaceSuccessor').run(newSuccessor, tenantId, tokenDigest, oldSuccessor).changes === 1;
    },
    revokeRefreshToken(tenantId: string, tokenDigest: string, now: number): void {
      q('revokeRefresh').run(now, tenantId, tokenDigest);
    },

    accessTokenState(tenantId: string, grantId: string, jti: string): AccessTokenState | undefined {
      return q('accessState').get(jti, tenantId, grantId) as AccessTokenState | undefined;
    },
    revokeAccessToken(tenantId: string, jti: string, expiresAt: number): void {
      q('revokeJti').run(jti, tenantId, expiresAt);
    },

    findConsent(tenantId: string, userId: string, clientId: string): ConsentRow | undefined {
      return q('findConsent').get(tenantId, userId, clientId) as ConsentRow | undefined;
    },
    upsertConsent(tenantId: string, userId: string, clientId: string, scope: string, resource: string | null, at: string): void {
      q('upsertConsent').run(tenantId, userId, clientId, scope, resource, at);
    },
    deleteConsent(tenantId: string, userId: string, clientId: string): void {
      q('deleteConsent').run(tenantId, userId, clientId);
    },

    /** Housekeeping: up to `limit` rows of each kind that expired before `before`; whether any kind has more. */
    purgeExpired(before: number, limit: number): { deleted: number; more: boolean } {
      const counts = [q('purgeCodes'), q('purgeJtis'), q('purgeRefresh'), q('purgeGrants')].map((s) => s.run(before, limit).changes);
      return { deleted: counts.reduce((a, b) => a + b, 0), more: counts.some((n) => n === limit) };
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
