import { digest, newId, s256, safeEqual } from '../../../platform/crypto';
import type { Client } from '../../clients/service';
import type { ResolvedTenant } from '../../tenants/service';
import { deviceCallbackUri } from '../authorization-request';
import { invalidGrant, invalidRequest } from '../errors';
import type { InstallationBinding, OAuthContext } from '../context';
import { parseScope } from '../scopes';
import type { CodeRow } from '../store';
import { audienceFor, newRefreshToken, tokenResponse, type TokenResponse } from './common';

/** grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.5). */

export interface CodeExchange {
  code: string;
  redirectUri: string;
  codeVerifier: string;
  resource: string | null;
}

/** RFC 7636 §4.1: 43-128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const codeExchangeParameters = ['code', 'redirect_uri', 'code_verifier', 'resource'] as const;

export function createAuthorizationCodeGrant(ctx: OAuthContext) {
  const { store, clock, config, tokens, users } = ctx;

  /** RFC 6749 §4.1.2: a code used twice revokes what was issued from it. */
  async function revokeIssuedFrom(tenantId: string, codeDigest: string): Promise<void> {
    await store.tx(async (tx) => {
      const row = await tx.oauth.findCode(tenantId, codeDigest);
      if (row?.grantId) await tx.oauth.revokeGrant(tenantId, row.grantId, clock.nowSeconds());
    });
  }

  function checkCode(row: CodeRow | undefined, client: Client, input: CodeExchange, issuer: string): asserts row is CodeRow {
    if (!row || row.clientId !== client.clientId) throw invalidGrant('invalid authorization code');
    if (row.expiresAt <= clock.nowSeconds()) throw invalidGrant('authorization code expired');
    if (row.redirectUri !== input.redirectUri) throw invalidGrant('redirect_uri does not match the authorization request');
    // A code issued to the device callback belongs to the device flow (its state, the PKCE
    // verifier, travels in the callback's URL): only the device's own poll redeems it.
    if (row.redirectUri === deviceCallbackUri(issuer)) throw invalidGrant('invalid authorization code');
    if (!safeEqual(s256(input.codeVerifier), row.codeChallenge)) throw invalidGrant('PKCE verification failed');
    // RFC 8707 §2.2: a resource at the token endpoint must be the one the code was issued for.
    // Spec 02's token table has no invalid_target: a code not matching its request is invalid_grant.
    if (input.resource !== null && input.resource !== row.resource) throw invalidGrant('resource does not match the authorization request');
  }

  return {
    async exchangeAuthorizationCode(tenant: ResolvedTenant, client: Client, input: CodeExchange): Promise<TokenResponse> {
      if (!VERIFIER.test(input.codeVerifier)) throw invalidRequest('code_verifier is malformed');
      const tenantId = tenant.tenant.id;
      const codeDigest = digest(input.code);
      const row = await store.oauth.findCode(tenantId, codeDigest);
      if (row && row.clientId === client.clientId && row.consumedAt !== null) {
        await revokeIssuedFrom(tenantId, codeDigest);
        throw invalidGrant('authorization code already used');
      }
      checkCode(row, client, input, tenant.issuer);
      const user = await users.findById(tenantId, row.userId);
      if (!user || user.status !== 'ACTIVE') throw invalidGrant('the user is no longer active');

      const scope = parseScope(row.scope);
      const grantId = newId();
      const issued = await tokens.issue({
        tenant,
        clientId: client.clientId,
        grantId,
        scope,
        audience: await audienceFor(ctx, tenant, row.resource),
        user,
        authTime: row.authTime,
        nonce: row.nonce,
      });
      const refresh = scope.includes('offline_access') ? newRefreshToken() : undefined;

      const now = clock.nowSeconds();
      // The conditional consume is what makes the code one-use on any engine (RFC 6749 §4.1.2).
      const expiresAt = now + (refresh ? Math.max(config.refreshTokenTtl, config.accessTokenTtl) : config.accessTokenTtl);
      const grant = { id: grantId, tenantId, clientId: client.clientId, userId: row.userId, scope: row.scope, resource: row.resource, authTime: row.authTime, createdAt: now, expiresAt };
      const refreshRow = refresh ? { tokenDigest: refresh.digest, expiresAt: now + config.refreshTokenTtl } : null;
      const bindingCodeDigest = row.bindingCodeDigest;
      const hook = ctx.onCodeExchanged;
      let binding: InstallationBinding | undefined;
      // A code carrying an installation binding code (issue 24) binds in the exchange's own
      // transaction: both commit or neither does. Every other exchange stays one statement.
      const consumed =
        bindingCodeDigest === null
          ? await store.write((s) => s.oauth.exchangeCode(codeDigest, grant, refreshRow))
          : await store.tx(async (tx) => {
              if (!(await tx.oauth.exchangeCode(codeDigest, grant, refreshRow))) return false;
              binding = hook ? await hook({ tenantId, subject: user.subject, bindingCodeDigest, grantId }) : { status: 'NOT_BOUND', reason: 'not_available' };
              return true;
            });
      if (!consumed) {
        // Another request exchanged the code while we were signing: that is a reuse too.
        await revokeIssuedFrom(tenantId, codeDigest);
        throw invalidGrant('authorization code already used');
      }
      const body = tokenResponse(issued, row.scope, refresh?.token);
      if (binding) body.installation_binding = binding;
      return body;
    },
  };
}
