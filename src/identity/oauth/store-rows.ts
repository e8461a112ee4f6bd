/** The rows of the OAuth store (store.ts): codes, grants, refresh tokens, access token state, consents. */

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
  /** SHA-256 of the installation binding code the sign-in carried (issue 24), or null. */
  bindingCodeDigest: string | null;
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

// A type, not an interface: it is bound as named parameters, which need an index signature.
export type RefreshTokenRow = {
  tokenDigest: string;
  tenantId: string;
  grantId: string;
  clientId: string;
  scope: string;
  expiresAt: number;
  createdAt: number;
};

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
  /** The user's updated_at (ISO 8601): the profile scope's claim. */
  updatedAt: string;
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

/**
 * A live refresh token's grant and subject, read as it is rotated (rotateLiveRefreshToken): what
 * a refresh that asks for nothing new (no scope, no resource) needs to issue its tokens.
 */
export interface LiveRefreshState {
  grantId: string;
  scope: string;
  resource: string | null;
  /** The grant's resource's audience (null without a resource). */
  audience: string | null;
  authTime: number;
  grantExpiresAt: number;
  subject: string;
  email: string;
  emailVerified: number;
  /** The user's updated_at (ISO 8601): the profile scope's claim. */
  updatedAt: string;
}

/** The rotation of a live refresh token (rotateLiveRefreshToken); a type: bound as named parameters. */
export type LiveRotation = {
  tenantId: string;
  clientId: string;
  /** The token presented. */
  rotated: string;
  /** Its successor's digest and expiry, issued at `createdAt` (now). */
  tokenDigest: string;
  expiresAt: number;
  createdAt: number;
  /** A grant that expires before `lastExpiry` is extended to `extendTo`. */
  lastExpiry: number;
  extendTo: number;
};

/** What introspection and userinfo need to know about a verified access token's grant. */
export interface AccessTokenState {
  grantRevokedAt: number | null;
  jtiRevoked: number;
  subject: string;
  email: string;
  emailVerified: number;
  /** The user's updated_at (ISO 8601): the profile scope's claim. */
  updatedAt: string;
  userStatus: 'ACTIVE' | 'DISABLED';
}

export interface ConsentRow {
  scope: string;
  resource: string | null;
}
