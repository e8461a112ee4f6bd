import { randomBytes, type KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { Config } from '../../platform/config';
import { OAuthError } from '../../platform/http/errors';
import type { KeyService, SigningKey } from '../keys/service';
import type { ResolvedTenant } from '../tenants/service';
import { decodeJws, signJwt, verifyJws } from './jwt';
import { epochSeconds, formatScope } from './scopes';

/**
 * ID tokens (OIDC Core §2) and access tokens (RFC 9068), both RS256 with the tenant's ACTIVE key.
 * An access token carries `gid`, the grant it came from: introspection and userinfo look the
 * grant up by primary key, so revoking a grant ends its access tokens at once.
 */

export interface TokenSubject {
  subject: string;
  email: string;
  emailVerified: boolean | number;
  /** ISO 8601; released as updated_at (epoch seconds) under the profile scope. */
  updatedAt: string;
}

export interface IssueInput {
  tenant: ResolvedTenant;
  clientId: string;
  grantId: string;
  /** Scopes of this access token (may be narrower than the grant on refresh). */
  scope: string[];
  /** `aud` of the access token (the resource's audience, or the issuer's userinfo URL). */
  audience: string;
  user: TokenSubject;
  authTime: number;
  nonce: string | null;
}

export interface IssuedTokens {
  accessToken: string;
  idToken?: string;
  expiresIn: number;
}

/** Claims of a verified access token (RFC 9068 §2.2 plus our grant reference). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  /** The grant (user tokens). Absent: a client credentials token, whose sub is its client_id (issue 23). */
  gid?: string;
}

/** A user's access token: it came from a grant. */
export type UserAccessTokenClaims = AccessTokenClaims & { gid: string };

export interface MachineIssueInput {
  tenant: ResolvedTenant;
  clientId: string;
  scope: string[];
  audience: string;
}

/** Where a token without an API resource is usable: the userinfo endpoint (docs/decisions.md). */
export const userinfoAudience = (issuer: string) => `${issuer}/oauth2/userinfo`;

/**
 * What verifyAccessToken answers when the token's key is not in the catalogue cache: await
 * `verifyAccessTokenLoadingKey` then (the hot path never awaits while the cache holds the key).
 */
export const KEY_MISS = 'key-miss' as const;

/** Verified access tokens remembered (see verifyAccessToken); oldest evicted first. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createTokenIssuer(deps: { keys: KeyService; clock: Clock; config: Pick<Config, 'accessTokenTtl' | 'idTokenTtl'> }) {
  const { keys, clock, config } = deps;
  const verified = new Map<string, { key: KeyObject; claims: Record<string, unknown> }>();

  async function signingKeyOf(tenant: ResolvedTenant): Promise<SigningKey> {
    const key = keys.cachedSigningKey(tenant.tenant.id) ?? (await keys.signingKey(tenant.tenant.id));
    if (!key) throw new OAuthError(500, 'server_error', 'tenant has no active signing key');
    return key;
  }

  return {
    /** Whether the tenant's signing key is at hand (in the catalogue cache): `issue` then cannot fail for want of it. */
    canSign(tenantId: string): boolean {
      return keys.cachedSigningKey(tenantId) !== undefined;
    },

    /**
     * A client credentials access token (issue 23): sub is the client id, as Hydra and Keycloak
     * name a machine client's tokens, and there is no gid (no grant, no user) and no ID token.
     */
    async issueForClient(input: MachineIssueInput): Promise<IssuedTokens> {
      const key = await signingKeyOf(input.tenant);
      const iat = clock.nowSeconds();
      const claims = { iss: input.tenant.issuer, sub: input.clientId, aud: input.audience, client_id: input.clientId, scope: formatScope(input.scope), iat, exp: iat + config.accessTokenTtl, jti: randomBytes(16).toString('base64url') };
      return { accessToken: await signJwt(key, 'at+jwt', claims), expiresIn: config.accessTokenTtl };
    },

    /** Signs the access token and, for an OpenID Connect scope, the ID token. Outside any transaction. */
    async issue(input: IssueInput): Promise<IssuedTokens> {
      const key = await signingKeyOf(input.tenant);
      const iat = clock.nowSeconds();
      const iss = input.tenant.issuer;
      const at = signJwt(key, 'at+jwt', {
        iss,
        sub: input.user.subject,
        aud: input.audience,
        client_id: input.clientId,
        scope: formatScope(input.scope),
        iat,
        exp: iat + config.accessTokenTtl,
        jti: randomBytes(16).toString('base64url'),
        gid: input.grantId,
      });
      let id: Promise<string> | undefined;
      if (input.scope.includes('openid')) {
        const claims: Record<string, unknown> = { iss, sub: input.user.subject, aud: input.clientId, exp: iat + config.idTokenTtl, iat, auth_time: input.authTime };
        if (input.nonce) claims.nonce = input.nonce;
        if (input.scope.includes('email')) {
          claims.email = input.user.email;
          claims.email_verified = !!input.user.emailVerified;
        }
        // OIDC Core §5.4: the profile claims the user has (no name, no preferred_username).
        if (input.scope.includes('profile')) claims.updated_at = epochSeconds(input.user.updatedAt);
        id = signJwt(key, 'JWT', claims);
      }
      const [accessToken, idToken] = await Promise.all([at, id]);
      return { accessToken, idToken, expiresIn: config.accessTokenTtl };
    },

    /**
     * Verifies an access token of this tenant: RS256 with an ACTIVE or RETIRING key of the
     * tenant, `typ` at+jwt (RFC 9068 §4), this issuer, not expired. Revocation is the caller's.
     * Synchronous (pure crypto on cached keys); KEY_MISS when the key must come from the database.
     */
    verifyAccessToken(tenant: ResolvedTenant, token: string): AccessTokenClaims | undefined | typeof KEY_MISS {
      const jws = decodeJws(token);
      if (!jws || jws.typ !== 'at+jwt') return undefined;
      const key = keys.cachedVerificationKey(tenant.tenant.id, jws.kid);
      if (key === 'miss') return KEY_MISS;
      if (!key) return undefined;
      // A resource server introspects the same token on every call it serves. The token is
      // immutable, so its RSA check is remembered against the exact key object that passed
      // it; a key that is retired, revoked or rotated away is a different (or no) object.
      const cached = verified.get(token);
      let c: Record<string, unknown> | undefined;
      if (cached && cached.key === key) c = cached.claims;
      else {
        c = verifyJws(jws, key);
        if (!c) return undefined;
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        verified.set(token, { key, claims: c });
      }
      if (c.iss !== tenant.issuer || typeof c.exp !== 'number' || c.exp <= clock.nowSeconds()) return undefined;
      if (typeof c.sub !== 'string' || typeof c.aud !== 'string' || typeof c.client_id !== 'string' || typeof c.scope !== 'string') return undefined;
      if (typeof c.jti !== 'string' || typeof c.iat !== 'number') return undefined;
      // No gid: a client credentials token, whose subject must be its client.
      if (c.gid === undefined ? c.sub !== c.client_id : typeof c.gid !== 'string') return undefined;
      return c as unknown as AccessTokenClaims;
    },

    /** verifyAccessToken after a KEY_MISS: loads the key (into the catalogue cache) and verifies. */
    async verifyAccessTokenLoadingKey(tenant: ResolvedTenant, token: string): Promise<AccessTokenClaims | undefined> {
      const jws = decodeJws(token);
      if (!jws || jws.typ !== 'at+jwt') return undefined;
      await keys.verificationKey(tenant.tenant.id, jws.kid);
      const c = this.verifyAccessToken(tenant, token);
      return c === KEY_MISS ? undefined : c; // still a miss: no such key
    },

    /** Like verifyAccessToken but accepts an expired token (revocation of what is already dead is a no-op anyway). */
    async verifyAccessTokenIgnoringExpiry(tenant: ResolvedTenant, token: string): Promise<AccessTokenClaims | undefined> {
      const jws = decodeJws(token);
      if (!jws || jws.typ !== 'at+jwt') return undefined;
      const key = await keys.verificationKey(tenant.tenant.id, jws.kid);
      const c = key && verifyJws(jws, key);
      if (!c || c.iss !== tenant.issuer || typeof c.jti !== 'string' || typeof c.client_id !== 'string' || typeof c.exp !== 'number') return undefined;
      return c as unknown as AccessTokenClaims;
    },
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
