import { createHash, randomBytes } from 'node:crypto';
import type { Harness } from '../helpers/harness';
import { SYSTEM_ACTOR } from '../../src/identity/audit';

export const PASSWORD = 'correct horse battery';
export const WEB_CALLBACK = 'https://web.example/callback';
export const APP_CALLBACK = 'com.example.app:/oauth/callback';
export const API = 'https://api.example';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A tenant with one API, an EXPLICIT-consent web client, a PRE_AUTHORIZED native client and
 * two users, created through the same services the CLI uses.
 */
export async function seedTenant(h: Harness, slug = 'acme') {
  const tenant = await h.services.tenants.create({ slug }, SYSTEM_ACTOR);
  const tenantId = tenant.id;
  await h.services.resources.create(tenantId, { uri: API, audience: 'orders-api', scopes: ['orders.read'] }, SYSTEM_ACTOR);
  const web = await h.services.clients.create(tenantId, {
    clientId: 'web',
    displayName: 'Acme Web',
    applicationType: 'WEB',
    tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC',
    consentPolicy: 'EXPLICIT',
    redirectUris: [WEB_CALLBACK],
    scopes: ['openid', 'email', 'offline_access', 'orders.read'],
  }, SYSTEM_ACTOR);
  await h.services.clients.create(tenantId, {
    clientId: 'app',
    displayName: 'Acme App',
    applicationType: 'NATIVE',
    tokenEndpointAuthMethod: 'NONE',
    consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [APP_CALLBACK],
    scopes: ['openid', 'email', 'offline_access'],
  }, SYSTEM_ACTOR);
  const alice = await h.services.users.create(tenantId, { email: 'alice@example.com', emailVerified: true, password: PASSWORD }, SYSTEM_ACTOR);
  const bob = await h.services.users.create(tenantId, { email: 'bob@example.com', emailVerified: true, password: PASSWORD }, SYSTEM_ACTOR);
  return { tenant, tenantId, issuer: tenant.issuer, webSecret: web.clientSecret!, alice, bob };
}

/** A valid authorize URL (path relative to the public URL) with `overrides` applied; null removes a parameter. */
export function authorizeUrl(slug: string, overrides: Record<string, string | null> = {}, client: 'web' | 'app' = 'web'): string {
  const params: Record<string, string | null> = {
    client_id: client,
    redirect_uri: client === 'web' ? WEB_CALLBACK : APP_CALLBACK,
    response_type: 'code',
    scope: 'openid email',
    state: 'st-123',
    nonce: 'n-456',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null) q.append(k, v);
  return `/t/${slug}/oauth2/authorize?${q}`;
}
