import { digest } from '../../../platform/crypto';
import type { Client } from '../../clients/service';
import type { ResolvedTenant } from '../../tenants/service';
import { invalidGrant, invalidScope } from '../errors';
import type { OAuthContext } from '../context';
import { formatScope, isSubset, parseScope } from '../scopes';
import { retiredByReplacement, type RefreshTokenRow, type RefreshTokenState } from '../store';
import { userinfoAudience } from '../tokens';
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

  /** The successor of a token of `st`'s grant, issued now. */
  const successorOf = (st: RefreshTokenState, next: { digest: string }, client: Client, now: number): RefreshTokenRow => ({
    tokenDigest: next.digest, tenantId: st.tenantId, grantId: st.grantId, clientId: client.clientId, scope: st.scope, expiresAt: now + config.refreshTokenTtl, createdAt: now,
  });

  /** When the last of the tokens a refresh issues at `now` expires. */
  const lastExpiryOf = (now: number) => now + Math.max(config.refreshTokenTtl, config.accessTokenTtl);

  /**
   * The grant must outlive the tokens just issued: null when it does already, else the new
   * expiry, a day beyond them, so a grant refreshed often is written once a day rather than at
   * every refresh.
   */
  const grantExtension = (st: RefreshTokenState, now: number): number | null => {
    const lastExpiry = lastExpiryOf(now);
    return st.grantExpiresAt < lastExpiry ? lastExpiry + GRANT_EXTENSION_SLACK : null;
  };

  /**
   * After signing. The common case first: the token was unused when read, and the conditional
   * rotation succeeds, in one statement (store.write) that nothing else waits for. Otherwise,
   * in a transaction, re-read under the lock, then rotate, replace the unused successor or end
   * the grant. A grant revoked meanwhile has its refresh tokens revoked too (revokeGrant), which
   * the conditional rotation sees.
   */
  async function commit(tokenDigest: string, next: { digest: string }, client: Client, now: number, read: RefreshTokenState): Promise<boolean> {
    if (decide(read, now) === 'rotate' && (await store.write((s) => s.oauth.rotateRefreshToken(tokenDigest, successorOf(read, next, client, now), grantExtension(read, now))))) {
      return true;
    }
    return store.tx(async (tx) => {
      // The re-read chooses which conditional write to try; its row count decides.
      const st = await tx.oauth.findRefreshTokenLocked(read.tenantId, tokenDigest);
      if (!st || revoked(st)) return false;
      // Rotated by a request committed while we were signing: replace (grace) or reuse.
      const d = decide(st, now);
      const successor = successorOf(st, next, client, now);
      if (d === 'rotate' && (await tx.oauth.rotateRefreshToken(tokenDigest, successor, grantExtension(st, now)))) return true;
      if (d === 'replace' && (await tx.oauth.replaceUnusedSuccessor(st.tenantId, tokenDigest, st.replacedBy!, next.digest, now))) {
        await tx.oauth.insertRefreshToken(successor);
        const extension = grantExtension(st, now);
        if (extension !== null) await tx.oauth.extendGrant(st.tenantId, st.grantId, extension);
        return true;
      }
      await tx.oauth.revokeGrant(st.tenantId, st.grantId, now);
      return false;
    });
  }

  /**
   * The common refresh, asking for nothing new (no scope, no resource) with a live token: one
   * statement reads, checks and rotates it (store.write), then the tokens are signed. Undefined
   * when the token is not live (nothing written): the general path below tells why. Only while
   * the tenant's signing key is at hand, so that what was rotated is answered.
   */
  async function rotateLive(tenant: ResolvedTenant, client: Client, tokenDigest: string, now: number): Promise<TokenResponse | undefined> {
    const tenantId = tenant.tenant.id;
    if (!tokens.canSign(tenantId)) return undefined;
    const lastExpiry = lastExpiryOf(now);
    const next = newRefreshToken();
    const st = await store.write((s) =>
      s.oauth.rotateLiveRefreshToken({
        tenantId, clientId: client.clientId, rotated: tokenDigest, tokenDigest: next.digest, expiresAt: now + config.refreshTokenTtl, createdAt: now,
        lastExpiry, extendTo: lastExpiry + GRANT_EXTENSION_SLACK,
      }),
    );
    if (!st) return undefined;
    const scope = parseScope(st.scope);
    const issued = await tokens.issue({
      tenant, clientId: client.clientId, grantId: st.grantId, scope,
      audience: st.resource === null ? userinfoAudience(tenant.issuer) : st.audience!,
      user: st, authTime: st.authTime, nonce: null,
    });
    return tokenResponse(issued, formatScope(scope), next.token);
  }

  return {
    async refresh(tenant: ResolvedTenant, client: Client, input: RefreshInput): Promise<TokenResponse> {
      const tenantId = tenant.tenant.id;
      const tokenDigest = digest(input.refreshToken);
      const now = clock.nowSeconds();
      if (input.scope === null && input.resource === null) {
        const answered = await rotateLive(tenant, client, tokenDigest, now);
        if (answered) return answered;
      }
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
      const ok = await commit(tokenDigest, next, client, now, st);
      if (!ok) throw invalidGrant('refresh token already used');
      return tokenResponse(issued, formatScope(scope), next.token);
    },
  };
}
