import { createApp } from '../../app';
import { silentLogger } from '../../platform/logger';
import type { Harness } from '../../../test/helpers/harness';
import type { SecondFactors } from '../mfa/port';
import type { ResolvedTenant } from '../tenants/service';
import { API, CALLBACK, FORM, form, pkce } from '../oauth/testing';
import type { SocialSignIn } from './context';
import { createNativeService } from './service';

/** Test fixtures for the native adapter: a SELF_SERVICE tenant with a native client, an EXPLICIT one, a plain one, and a user. */

export const PASSWORD = 'correct horse battery';
export const EMAIL = 'ada@example.com';

export interface NativeFixture {
  slug: string;
  tenant: ResolvedTenant;
  base: string;
  issuerPath: string;
  userId: string;
}

export async function createNativeFixture(h: Harness, opts: { slug?: string; registrationMode?: 'SELF_SERVICE' | 'CONTROLLED' } = {}): Promise<NativeFixture> {
  const slug = opts.slug ?? 'acme';
  const { services } = h;
  const t = await services.tenants.create({ slug, registrationMode: opts.registrationMode ?? 'SELF_SERVICE' });
  await services.resources.create(t.id, { uri: API, audience: 'urn:example:api', scopes: ['api.read'] });
  const client = { displayName: 'App', applicationType: 'NATIVE' as const, tokenEndpointAuthMethod: 'NONE' as const, redirectUris: [CALLBACK] };
  await services.clients.create(t.id, { ...client, clientId: 'app', consentPolicy: 'PRE_AUTHORIZED', scopes: ['openid', 'email', 'offline_access', 'api.read'], nativeAuthenticationEnabled: true });
  await services.clients.create(t.id, { ...client, clientId: 'asking', consentPolicy: 'EXPLICIT', scopes: ['openid', 'email'], nativeAuthenticationEnabled: true });
  await services.clients.create(t.id, { ...client, clientId: 'browser-only', consentPolicy: 'PRE_AUTHORIZED', scopes: ['openid', 'email'] });
  const user = await services.users.create(t.id, { email: EMAIL, emailVerified: true, password: PASSWORD });
  return { slug, tenant: (await services.tenants.resolveByPath(slug))!, base: `/t/${slug}/oauth2/native`, issuerPath: `/t/${slug}`, userId: user.id };
}

export type Request = (path: string, init?: RequestInit) => Promise<Response> | Response;

/** POSTs a form to a native route (no browser headers). */
export async function nativePost(request: Request, f: NativeFixture, route: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return request(`${f.base}${route}`, { method: 'POST', headers: { 'content-type': FORM, ...headers }, body: form(fields) });
}

export function interactionFields(challenge: string, change: Record<string, string | undefined> = {}): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    client_id: 'app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email offline_access', state: 'st-123',
    code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n-456', ...change,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A new interaction; returns its id and the PKCE verifier. */
export async function openInteraction(request: Request, f: NativeFixture, change: Record<string, string | undefined> = {}) {
  const p = pkce();
  const res = await nativePost(request, f, '/interactions', interactionFields(p.challenge, change));
  if (res.status !== 201) throw new Error(`interaction: ${res.status} ${await res.text()}`);
  const { interactionId } = (await res.json()) as { interactionId: string };
  return { interactionId, verifier: p.verifier };
}

/** Exchanges a native code at the token endpoint as the public client. */
export async function redeem(request: Request, f: NativeFixture, code: string, verifier: string, clientId = 'app'): Promise<Response> {
  return request(`${f.issuerPath}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': FORM },
    body: form({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: CALLBACK, code_verifier: verifier }),
  });
}

/**
 * The same app with a native adapter whose second factors and identity providers are the given
 * fakes (part B's services, until they are merged).
 */
export function appWith(h: Harness, fakes: { mfa?: SecondFactors; providers?: SocialSignIn }) {
  const s = h.services;
  const native = createNativeService({ store: s.store, clock: h.clock, clients: s.clients, users: s.users, oauth: s.oauth, sessions: s.sessions, mail: s.mail, mfa: fakes.mfa ?? s.mfa, providers: fakes.providers ?? s.providers });
  const app = createApp({ config: h.config, clock: h.clock, logger: silentLogger, services: { ...s, native } });
  return (p: string, init?: RequestInit) => app.request('http://engage.test' + p, init);
}
