import { randomBytes } from 'node:crypto';
import { s256 } from '../../platform/crypto';
import type { Harness } from '../../../test/helpers/harness';
import type { ResolvedTenant } from '../tenants/service';

/** Test fixtures for the OAuth core: one tenant with an API, clients, a user and a resource-server credential. */

export const API = 'https://api.example.com';
export const API_AUDIENCE = 'urn:example:api';
export const CALLBACK = 'https://app.example.com/cb';

export interface OAuthFixture {
  slug: string;
  tenant: ResolvedTenant;
  issuerPath: string;
  userId: string;
  subject: string;
  publicClient: string;
  webClient: string;
  webSecret: string;
  credentialId: string;
  credentialSecret: string;
}

export async function createFixture(h: Harness, slug = 'acme'): Promise<OAuthFixture> {
  const { services } = h;
  const t = await services.tenants.create({ slug });
  const tenantId = t.id;
  await services.resources.create(tenantId, { uri: API, audience: API_AUDIENCE, scopes: ['api.read', 'api.write'] });
  await services.clients.create(tenantId, {
    clientId: 'mobile', displayName: 'Mobile', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [CALLBACK], scopes: ['openid', 'email', 'offline_access', 'api.read'], defaultResource: API,
  });
  const web = await services.clients.create(tenantId, {
    clientId: 'web', displayName: 'Web', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT',
    redirectUris: [CALLBACK], scopes: ['openid', 'email', 'offline_access'],
  });
  const user = await services.users.create(tenantId, { email: 'Ada@Example.com', emailVerified: true, password: 'correct horse battery' });
  const cred = await services.credentials.issue(tenantId, API);
  return {
    slug,
    tenant: (await services.tenants.resolveByPath(slug))!,
    issuerPath: `/t/${slug}`,
    userId: user.id,
    subject: user.subject,
    publicClient: 'mobile',
    webClient: 'web',
    webSecret: web.clientSecret!,
    credentialId: cred.credentialId,
    credentialSecret: cred.credentialSecret,
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export function basic(id: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
}

export function form(fields: Record<string, string> | [string, string][]): string {
  return new URLSearchParams(fields).toString();
}

export const FORM = 'application/x-www-form-urlencoded';

/** A code as the browser flow would issue it. */
export async function issueCode(h: Harness, f: OAuthFixture, opts: { clientId?: string; scope?: string[]; resource?: string | null; nonce?: string | null } = {}) {
  const p = pkce();
  const clientId = opts.clientId ?? f.publicClient;
  const code = await h.services.oauth.issueAuthorizationCode({
    tenantId: f.tenant.tenant.id,
    clientId,
    userId: f.userId,
    redirectUri: CALLBACK,
    codeChallenge: p.challenge,
    scope: opts.scope ?? ['openid', 'email', 'offline_access', 'api.read'],
    resource: opts.resource === undefined ? (clientId === f.publicClient ? API : null) : opts.resource,
    nonce: opts.nonce === undefined ? 'n-0S6_WzA2Mj' : opts.nonce,
    authTime: h.clock.nowSeconds(),
  });
  return { code, verifier: p.verifier };
}

export async function post(h: Harness, path: string, body: string, headers: Record<string, string> = {}) {
  return h.request(path, { method: 'POST', headers: { 'content-type': FORM, ...headers }, body });
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope: string;
  expires_in: number;
  token_type: string;
}

/** Code exchange for the public client; returns the parsed token response. */
export async function exchange(h: Harness, f: OAuthFixture, opts: Parameters<typeof issueCode>[2] = {}): Promise<Tokens> {
  const { code, verifier } = await issueCode(h, f, opts);
  const clientId = opts.clientId ?? f.publicClient;
  const headers: Record<string, string> = clientId === f.webClient ? { authorization: basic(f.webClient, f.webSecret) } : {};
  const fields: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier };
  if (clientId !== f.webClient) fields.client_id = clientId;
  const res = await post(h, `${f.issuerPath}/oauth2/token`, form(fields), headers);
  if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Tokens;
}

export function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = jwt.split('.');
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), payload: JSON.parse(Buffer.from(p, 'base64url').toString()) };
}
