import { digest } from '../../../platform/crypto';
import type { Client } from '../../clients/service';
import type { ResolvedTenant } from '../../tenants/service';
import { invalidGrant, invalidScope } from '../errors';
import type { OAuthContext } from '../context';
import { formatScope, isSubset, parseScope } from '../scopes';
import { retiredByReplacement, type OAuthStore, type RefreshTokenState } from '../store';
import { audienceFor, newRefreshToken, tokenResponse, type TokenResponse } from './common';

/** Seconds a refresh extends its grant beyond its new tokens (see commit). */
const GRANT_EXTENSION_SLACK = 86400;

/**
 * grant_type=refresh_token (RFC 6749 §6) with rotation on every use (RFC 9700 §4.14.2).
 *
 * Reuse of a rotated token revokes the whole grant, except inside the grace window
 * (config.refreshReuseGraceSeconds) after its rotation while its successor is still unused:
 * that may be a client that lost our answer, so the unused successor is retired and a fresh set
 * is issued in its place. "Latest answer wins": at most one live refresh token per chain.
 *
 * The window cannot tell the client from a thief replaying the same token, so it never settles
 * who wins: whoever holds the retired successor and presents it proves that the answer it came
 * with was delivered, so the replay was not a lost answer. That presentation is reuse and ends
 * the grant (both sides lose, as RFC 9700 §4.14.2 wants). Both orders end the same way: client
 * first and thief replaying, or thief first and client retrying.
 */

export interface RefreshInput {
  refreshToken: string;
  /** Requested narrower scope, or null for the original one. */
  scope: string | null;
  resource: string | null;
}

export const refreshParameters = ['refresh_token', 'scope', 'resource'] as const;

type Decision = 'rotate' | 'replace' | 'reuse';

export function createRefreshTokenGrant(ctx: OAuthContext) {
  const { store, clock, config, tokens } = ctx;

  /** Revoked for good: its grant ended (a retired successor is not this; see decide). */
  const revoked = (st: RefreshTokenState) => st.grantRevokedAt !== null || (st.revokedAt !== null && !retiredByReplacement(st));

  function usable(st: RefreshTokenState | undefined, client: Client, now: number): asserts st is RefreshTokenState {
    if (!st || st.clientId !== client.clientId) throw invalidGrant('invalid refresh token');
    if (revoked(st)) throw invalidGrant('refresh token revoked');
    if (st.expiresAt <= now) throw invalidGrant('refresh token expired');
    if (st.userStatus !== 'ACTIVE') throw invalidGrant('the user is no longer active');
  }

  function decide(st: RefreshTokenState, now: number): Decision {
    if (retiredByReplacement(st)) return 'reuse';
    if (st.rotatedAt === null) return 'rotate';
    return st.replacedBy !== null && config.refreshReuseGraceSeconds > 0 && now - st.rotatedAt <= config.refreshReuseGraceSeconds ? 'replace' : 'reuse';
  }

  /**
   * Inside the transaction. The common case first: the token was unused when read, and the
   * conditional UPDATE that rotates it (it takes the row's lock) succeeds, so nothing is read
   * again. Otherwise re-read under the lock, then replace the unused successor or end the grant.
   * A grant revoked meanwhile has its refresh tokens revoked too (revokeGrant), which the
   * conditional UPDATE sees.
   */
  async function commit(tx: { oauth: OAuthStore }, tenantId: string, tokenDigest: string, next: { digest: string }, client: Client, now: number, read: RefreshTokenState): Promise<boolean> {
    let st = read;
    if (!(decide(read, now) === 'rotate' && (await tx.oauth.rotateRefreshToken(tenantId, tokenDigest, next.digest, now)))) {
      // The re-read chooses which conditional UPDATE to try; the UPDATE's row count decides.
      const locked = await tx.oauth.findRefreshTokenLocked(tenantId, tokenDigest);
      if (!locked || revoked(locked)) return false;
      st = locked;
      // Rotated by a request committed while we were signing: replace (grace) or reuse.
      const d = decide(st, now);
      const ok =
        d === 'rotate'
          ? await tx.oauth.rotateRefreshToken(tenantId, tokenDigest, next.digest, now)
          : d === 'replace' && (await tx.oauth.replaceUnusedSuccessor(tenantId, tokenDigest, st.replacedBy!, next.digest, now));
      if (!ok) {
        await tx.oauth.revokeGrant(tenantId, st.grantId, now);
        return false;
      }
    }
    await tx.oauth.insertRefreshToken({
      tokenDigest: next.digest, tenantId, grantId: st.grantId, clientId: client.clientId, scope: st.scope, expiresAt: now + config.refreshTokenTtl, createdAt: now,
    });
    // The grant must outlive the tokens just issued. Extended a day beyond them, so a grant
    // refreshed often is written once a day rather than at every refresh.
    const lastExpiry = now + Math.max(config.refreshTokenTtl, config.accessTokenTtl);
    if (st.grantExpiresAt < lastExpiry) await tx.oauth.extendGrant(tenantId, st.grantId, lastExpiry + GRANT_EXTENSION_SLACK);
    return true;
  }

  return {
    async refresh(tenant: ResolvedTenant, client: Client, input: RefreshInput): Promise<TokenResponse> {
      const tenantId = tenant.tenant.id;
      const tokenDigest = digest(input.refreshToken);
      const now = clock.nowSeconds();
      const st = await store.oauth.findRefreshToken(tenantId, tokenDigest);
      usable(st, client, now);
      if (decide(st, now) === 'reuse') {
        await store.tx((tx) => tx.oauth.revokeGrant(tenantId, st.grantId, now));
        throw invalidGrant('refresh token already used');
      }
      const granted = parseScope(st.scope);
      const scope = input.scope === null ? granted : parseScope(input.scope);
      // RFC 6749 §6: the scope may only narrow; the new refresh token keeps the original scope.
      if (scope.length === 0 || !isSubset(scope, granted)) throw invalidScope('scope exceeds the original grant');
      if (input.resource !== null && input.resource !== st.resource) throw invalidGrant('resource does not match the grant');

      const issued = await tokens.issue({
        tenant,
        clientId: client.clientId,
        grantId: st.grantId,
        scope,
        audience: await audienceFor(ctx, tenant, st.resource),
        user: st,
        authTime: st.authTime,
        // OIDC Core §12.2: a refreshed ID token carries no nonce.
        nonce: null,
      });
      const next = newRefreshToken();
      const ok = await store.tx((tx) => commit(tx, tenantId, tokenDigest, next, client, now, st));
      if (!ok) throw invalidGrant('refresh token already used');
      return tokenResponse(issued, formatScope(scope), next.token);
    },
  };
}
