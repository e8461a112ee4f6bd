import { digest, newSecret } from '../../platform/crypto';
import type { ResolvedTenant } from '../tenants/service';
import { authorizationRedirect, validateAuthorizationRequest, type AuthorizationParams, type AuthorizationValidation } from './authorization-request';
import { formatScope, isSubset, parseScope } from './scopes';
import { createTokenIssuer } from './tokens';
import { createAuthorizationCodeGrant } from './grants/authorization-code';
import { createRefreshTokenGrant } from './grants/refresh-token';
import { createClientCredentialsGrant } from './grants/client-credentials';
import { createDeviceCodeGrant } from './grants/device-code';
import { createTokenIntrospection } from './introspection';
import { createRevocation } from './revocation';

import type { OAuthDeps, OAuthTx } from './context';

export type { AuthorizationRequest, AuthorizationValidation, AuthorizationParams } from './authorization-request';

export interface IssueCodeInput {
  tenantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string[];
  resource: string | null;
  nonce: string | null;
  /** Epoch seconds of the user's authentication. */
  authTime: number;
  /** Digest of the installation binding code the request carried (issue 24), if any. */
  bindingCodeDigest?: string | null;
}

/**
 * `services.oauth`: the protocol core. The browser pages and the native adapter call the
 * first group (validate, consent, issue a code, build the callback URL); the token,
 * introspection, userinfo and revocation routes call the rest.
 */
export function createOAuthService(deps: OAuthDeps) {
  const { store, clock, config, clients, resources } = deps;
  const tokens = createTokenIssuer(deps);
  const lookups = {
    findClient: async (tenantId: string, clientId: string) => clients.cached(tenantId, clientId) ?? (await clients.find(tenantId, clientId)),
    findResource: (tenantId: string, uri: string) => resources.findByUri(tenantId, uri),
    listResources: (tenantId: string) => resources.list(tenantId),
  };
  const ctx = { ...deps, tokens };

  /** A code; inside another transaction it joins it (the native adapter ends its interaction in the same one). */
  async function issueAuthorizationCode(input: IssueCodeInput): Promise<string> {
    const code = newSecret();
    await store.tx((tx) => insertCode(tx, code, input));
    return code;
  }

  function insertCode(tx: OAuthTx, code: string, input: IssueCodeInput): Promise<unknown> {
    return tx.oauth.insertCode({
      codeDigest: digest(code),
      tenantId: input.tenantId,
      clientId: input.clientId,
      userId: input.userId,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      scope: formatScope(input.scope),
      resource: input.resource,
      nonce: input.nonce,
      authTime: input.authTime,
      expiresAt: clock.nowSeconds() + config.authorizationCodeTtl,
      bindingCodeDigest: input.bindingCodeDigest ?? null,
    });
  }

  return {
    tokens,

    /** Spec 02 authorize table; see AuthorizationValidation for the three outcomes. */
    validateAuthorizationRequest(tenant: ResolvedTenant, params: AuthorizationParams): Promise<AuthorizationValidation> {
      return validateAuthorizationRequest(tenant, params, lookups);
    },

    authorizationRedirect,

    /** A one-time code (256 random bits), stored as its digest for config.authorizationCodeTtl seconds. */
    issueAuthorizationCode,

    /**
     * Ends everything the user holds at every client of the tenant: grants (so their access
     * tokens turn inactive at introspection and userinfo), refresh tokens, and codes not yet
     * exchanged. In the caller's transaction (password recovery).
     */
    async revokeAllOfUserIn(tx: OAuthTx, tenantId: string, userId: string): Promise<number> {
      return tx.oauth.revokeAllOfUser(tenantId, userId, clock.nowSeconds());
    },

    /**
     * True when the user need not be asked: the client is PRE_AUTHORIZED, or a remembered
     * consent for the same resource covers every requested scope.
     */
    async hasConsent(tenantId: string, userId: string, clientId: string, scope: string[], resource: string | null): Promise<boolean> {
      const client = clients.cached(tenantId, clientId) ?? (await clients.find(tenantId, clientId));
      if (!client) return false;
      if (client.consentPolicy === 'PRE_AUTHORIZED') return true;
      const row = await store.oauth.findConsent(tenantId, userId, clientId);
      return !!row && row.resource === resource && isSubset(scope, parseScope(row.scope));
    },

    /** Remembers a consent; scopes accumulate while the resource stays the same. */
    async rememberConsent(tenantId: string, userId: string, clientId: string, scope: string[], resource: string | null): Promise<void> {
      await store.tx(async (tx) => {
        // Locked: two consents of the same user and client merge rather than overwrite each other.
        const now = clock.now().toISOString();
        const row = await tx.oauth.lockConsent(tenantId, userId, clientId, now);
        const merged = row && row.resource === resource ? [...new Set([...parseScope(row.scope), ...scope])] : scope;
        await tx.oauth.upsertConsent(tenantId, userId, clientId, formatScope(merged), resource, now);
      });
    },

    ...createAuthorizationCodeGrant(ctx),
    ...createRefreshTokenGrant(ctx),
    ...createClientCredentialsGrant(ctx),
    ...createDeviceCodeGrant(ctx),
    ...createTokenIntrospection(ctx),
    ...createRevocation(ctx),

    /**
     * Housekeeping for the minute sweep: rows a day past their expiry, a batch per transaction
     * with a turn of the event loop between, so a large backlog never stalls requests.
     */
    async purgeExpired(batch = 500): Promise<number> {
      const before = clock.nowSeconds() - 86400;
      let deleted = 0;
      for (;;) {
        const r = await store.tx((tx) => tx.oauth.purgeExpired(before, batch));
        deleted += r.deleted;
        if (!r.more) return deleted;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
