import { randomInt } from 'node:crypto';
import { digest, newId, newSecret, s256, safeEqual } from '../../../platform/crypto';
import { OAuthError } from '../../../platform/http/errors';
import { DEVICE_CODE } from '../../clients/schemas';
import type { Client } from '../../clients/service';
import type { ResolvedTenant } from '../../tenants/service';
import { deviceCallbackUri, validateAuthorizationRequest } from '../authorization-request';
import type { OAuthContext } from '../context';
import type { DeviceRow } from '../device-store';
import { deviceError, E, invalidGrant, unauthorizedClient } from '../errors';
import { formatScope, parseScope } from '../scopes';
import { audienceFor, newRefreshToken, tokenResponse, type TokenResponse } from './common';

/**
 * The device authorization grant (RFC 8628, issue 23), opt-in per client. The device asks
 * {issuer}/oauth2/device_authorization for a device code and a user code; the user enters the
 * user code at {issuer}/oauth2/device, approves, and signs in through the ordinary browser
 * sign-in (an authorization request to this issuer's own device callback, bound to the browser
 * by a state cookie whose digest is the PKCE challenge); the device polls the token endpoint
 * with grant_type urn:ietf:params:oauth:grant-type:device_code and gets the tokens once.
 */

/** RFC 8628 §6.1: 20 consonants (no vowels: no words), 8 characters, shown as XXXX-XXXX. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const DEVICE_CODE_TTL = 600;
export const DEVICE_POLL_INTERVAL = 5;
/** RFC 8628 §3.5: slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP = 5;
/** The interval slow_down grows to, at most (seconds). */
const MAX_POLL_INTERVAL = 60;

export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export const verificationUri = (issuer: string) => `${issuer}/oauth2/device`;

function newUserCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** What a person typed, as stored: upper case, no dash or spaces; undefined when it cannot be a user code. */
export function normalizeUserCode(typed: string): string | undefined {
  const s = typed.toUpperCase().replace(/[\s-]/g, '');
  return s.length === 8 && [...s].every((ch) => USER_CODE_ALPHABET.includes(ch)) ? s : undefined;
}

const userCodeDigest = (tenantId: string, normalized: string) => digest(`${tenantId}|user-code|${normalized}`);

export type DeviceCompletion = 'approved' | 'denied' | 'invalid';

export function createDeviceCodeGrant(ctx: OAuthContext) {
  const { store, clock, config, tokens, users, clients, resources } = ctx;

  function checkClient(client: Client): void {
    if (!client.grantTypes.includes(DEVICE_CODE)) throw unauthorizedClient('the client is not registered for the device authorization grant');
  }

  return {
    /** RFC 8628 §3.1-3.2: scope and resource checked as for an authorization request of the client. */
    async deviceAuthorization(tenant: ResolvedTenant, client: Client, input: { scope: string | null; resource: string | null }): Promise<DeviceAuthorizationResponse> {
      const tenantId = tenant.tenant.id;
      checkClient(client);
      const params: Record<string, string> = {
        client_id: client.clientId, redirect_uri: deviceCallbackUri(tenant.issuer), response_type: 'code',
        code_challenge: s256(newSecret()), code_challenge_method: 'S256', scope: input.scope ?? client.scopes.join(' '),
      };
      if (input.resource !== null) params.resource = input.resource;
      const v = await validateAuthorizationRequest(tenant, params, {
        findClient: async () => client,
        findResource: (t, uri) => resources.findByUri(t, uri),
        listResources: (t) => resources.list(t),
      });
      if (!v.ok) throw new OAuthError(v.error === E.invalidClient ? 401 : 400, v.error, v.description);
      const deviceCode = newSecret();
      const now = clock.nowSeconds();
      for (let attempt = 0; ; attempt++) {
        const userCode = newUserCode();
        try {
          await store.write((w) => w.oauth.insertDevice({
            deviceCodeDigest: digest(deviceCode), tenantId, clientId: client.clientId, userCodeDigest: userCodeDigest(tenantId, normalizeUserCode(userCode)!),
            scope: formatScope(v.request.scope), resource: v.request.resource, pollInterval: DEVICE_POLL_INTERVAL, createdAt: now, expiresAt: now + DEVICE_CODE_TTL,
          }));
        } catch (e) {
          // A user code live in the tenant already (1 in 2.56e10 per pair): draw another.
          if (attempt < 3 && (e as Error).name === 'UniqueViolation') continue;
          throw e;
        }
        const uri = verificationUri(tenant.issuer);
        return {
          device_code: deviceCode, user_code: userCode, verification_uri: uri, verification_uri_complete: `${uri}?user_code=${userCode}`,
          expires_in: DEVICE_CODE_TTL, interval: DEVICE_POLL_INTERVAL,
        };
      }
    },

    /** The PENDING request a typed user code names, with its client (undefined: no such live code). */
    async findPendingDevice(tenant: ResolvedTenant, typed: string): Promise<{ row: DeviceRow; client: Client } | undefined> {
      const normalized = normalizeUserCode(typed);
      if (!normalized) return undefined;
      const row = await store.oauth.findPendingDevice(tenant.tenant.id, userCodeDigest(tenant.tenant.id, normalized), clock.nowSeconds());
      const client = row && (await clients.find(tenant.tenant.id, row.clientId));
      return row && client?.status === 'ACTIVE' && client.grantTypes.includes(DEVICE_CODE) ? { row, client } : undefined;
    },

    /** The user denied on the verification page. */
    async denyDevice(tenant: ResolvedTenant, row: DeviceRow): Promise<void> {
      await store.write((w) => w.oauth.denyDevice(tenant.tenant.id, row.deviceCodeDigest));
    },

    /**
     * The user approved: the authorization request that signs them in, bound to this browser by
     * `state` (kept in a cookie; its digest on the row and, as S256, the code's PKCE challenge).
     */
    async startDeviceSignIn(tenant: ResolvedTenant, row: DeviceRow): Promise<{ location: string; state: string } | undefined> {
      const state = newSecret();
      if (!(await store.write((w) => w.oauth.bindDeviceBrowser(tenant.tenant.id, row.deviceCodeDigest, digest(state), clock.nowSeconds())))) return undefined;
      const q = new URLSearchParams({
        client_id: row.clientId, redirect_uri: deviceCallbackUri(tenant.issuer), response_type: 'code', scope: row.scope, state,
        code_challenge: s256(state), code_challenge_method: 'S256',
        // RFC 8628 §5.4: a remote device's request is approved with a fresh sign-in, never on a
        // browser session alone, so one click on a phishing link cannot hand over the account.
        prompt: 'login',
      });
      if (row.resource !== null) q.set('resource', row.resource);
      return { location: `${tenant.issuer}/oauth2/authorize?${q}`, state };
    },

    /** The sign-in came back to the device callback: with a code (approved) or an error (denied). */
    async completeDeviceSignIn(tenant: ResolvedTenant, cookieState: string | undefined, answer: { state: string | null; code: string | null; error: string | null }): Promise<DeviceCompletion> {
      const tenantId = tenant.tenant.id;
      if (!cookieState || answer.state === null || !safeEqual(cookieState, answer.state)) return 'invalid';
      const now = clock.nowSeconds();
      const row = await store.oauth.findDeviceByBrowserState(tenantId, digest(cookieState), now);
      if (!row) return 'invalid';
      if (answer.code === null) {
        await store.write((w) => w.oauth.denyDevice(tenantId, row.deviceCodeDigest));
        return answer.error === 'access_denied' ? 'denied' : 'invalid';
      }
      const codeDigest = digest(answer.code);
      const code = await store.oauth.findCode(tenantId, codeDigest);
      if (!code || code.clientId !== row.clientId || code.consumedAt !== null || code.expiresAt <= now) return 'invalid';
      if (code.redirectUri !== deviceCallbackUri(tenant.issuer) || !safeEqual(code.codeChallenge, s256(cookieState))) return 'invalid';
      return (await store.write((w) => w.oauth.approveDevice(tenantId, row.deviceCodeDigest, codeDigest, code.userId, now))) ? 'approved' : 'invalid';
    },

    /** grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4-3.5). */
    async deviceCodeToken(tenant: ResolvedTenant, client: Client, deviceCode: string): Promise<TokenResponse> {
      const tenantId = tenant.tenant.id;
      if (!(await clients.grantsOffered(tenantId)).has(DEVICE_CODE)) throw new OAuthError(400, E.unsupportedGrantType, `grant_type ${DEVICE_CODE} is not supported`);
      checkClient(client);
      const deviceDigest = digest(deviceCode);
      const row = await store.oauth.findDevice(tenantId, deviceDigest);
      if (!row || row.clientId !== client.clientId) throw invalidGrant('invalid device code');
      if (row.status === 'CONSUMED') throw invalidGrant('device code already used');
      const now = clock.nowSeconds();
      if (row.expiresAt <= now) throw deviceError('expired_token', 'the device code has expired');
      if (row.status === 'DENIED') throw deviceError('access_denied', 'the user denied the request');
      if (row.status === 'PENDING') {
        // Decided by a conditional write, so polls sent in parallel cannot all pass as on time.
        const polled = await store.write((w) => w.oauth.recordDevicePoll(tenantId, deviceDigest, now, SLOW_DOWN_STEP, MAX_POLL_INTERVAL));
        if (polled !== true) throw deviceError('slow_down', `poll at most every ${polled} seconds`);
        throw deviceError('authorization_pending', 'the user has not yet approved the request');
      }
      // APPROVED: the sign-in's code carries the user, the scope and the resource.
      const code = row.codeDigest === null ? undefined : await store.oauth.findCode(tenantId, row.codeDigest);
      if (!code || code.consumedAt !== null) throw invalidGrant('device code already used');
      const user = await users.findById(tenantId, code.userId);
      if (!user || user.status !== 'ACTIVE') throw invalidGrant('the user is no longer active');
      const scope = parseScope(code.scope);
      const grantId = newId();
      const issued = await tokens.issue({
        tenant, clientId: client.clientId, grantId, scope, audience: await audienceFor(ctx, tenant, code.resource), user, authTime: code.authTime, nonce: null,
      });
      const refresh = scope.includes('offline_access') ? newRefreshToken() : undefined;
      const expiresAt = now + (refresh ? Math.max(config.refreshTokenTtl, config.accessTokenTtl) : config.accessTokenTtl);
      const grant = { id: grantId, tenantId, clientId: client.clientId, userId: code.userId, scope: code.scope, resource: code.resource, authTime: code.authTime, createdAt: now, expiresAt };
      const done = await store.tx(async (tx) => {
        // Single use: only the request that moves APPROVED to CONSUMED gets the tokens.
        if (!(await tx.oauth.consumeDevice(tenantId, deviceDigest))) return false;
        return tx.oauth.exchangeCode(code.codeDigest, grant, refresh ? { tokenDigest: refresh.digest, expiresAt: now + config.refreshTokenTtl } : null);
      });
      if (!done) throw invalidGrant('device code already used');
      return tokenResponse(issued, code.scope, refresh?.token);
    },
  };
}
