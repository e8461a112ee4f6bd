import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { API, CALLBACK, createFixture, pkce, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let f: OAuthFixture;
let challenge: string;
beforeAll(() => {
  challenge = pkce().challenge;
});
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const base = () => ({
  client_id: 'mobile', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email api.read', state: 'xyz',
  code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n1',
});
const validate = (params: Record<string, string | string[] | undefined>) => h.services.oauth.validateAuthorizationRequest(f.tenant, params);

describe('validateAuthorizationRequest', () => {
  it('accepts a valid request; the default resource applies', async () => {
    const v = await validate(base());
    expect(v.ok).toBe(true);
    if (v.ok) {
      expect(v.request).toMatchObject({ redirectUri: CALLBACK, scope: ['openid', 'email', 'api.read'], state: 'xyz', nonce: 'n1', codeChallenge: challenge, resource: API, prompt: [], maxAge: null });
      expect(v.request.client.clientId).toBe('mobile');
    }
  });

  it('accepts URLSearchParams, prompt and max_age', async () => {
    const v = await h.services.oauth.validateAuthorizationRequest(f.tenant, new URLSearchParams({ ...base(), prompt: 'login consent', max_age: '300', resource: API }));
    expect(v).toMatchObject({ ok: true, request: { prompt: ['login', 'consent'], maxAge: 300, resource: API } });
  });

  it.each([
    ['missing client_id', { client_id: undefined }, 'invalid_request'],
    ['duplicated client_id', { client_id: ['mobile', 'mobile'] }, 'invalid_request'],
    ['unknown client', { client_id: 'ghost' }, 'invalid_client'],
    ['missing redirect_uri', { redirect_uri: undefined }, 'invalid_request'],
    ['unregistered redirect_uri', { redirect_uri: 'https://evil.example.com/cb' }, 'invalid_request'],
    ['redirect_uri differing by a trailing slash', { redirect_uri: CALLBACK + '/' }, 'invalid_request'],
  ])('%s is never redirected', async (_n, change, error) => {
    expect(await validate({ ...base(), ...change })).toEqual({ ok: false, redirect: false, status: 400, error, description: expect.any(String) });
  });

  it.each([
    ['missing response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_type code id_token', { response_type: 'code id_token' }, 'unsupported_response_type'],
    ['duplicated scope', { scope: ['openid', 'openid'] }, 'invalid_request'],
    ['duplicated nonce', { nonce: ['a', 'b'] }, 'invalid_request'],
    ['missing code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['missing code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['missing scope', { scope: undefined }, 'invalid_request'],
    ['unregistered scope', { scope: 'openid admin' }, 'invalid_scope'],
    ['scope not offered by the resource', { scope: 'openid api.write' }, 'invalid_scope'],
    ['unknown resource', { resource: 'https://unknown.example.com' }, 'invalid_target'],
    ['resource with a fragment', { resource: API + '#x' }, 'invalid_target'],
    ['relative resource', { resource: '/api' }, 'invalid_target'],
    ['response_mode fragment', { response_mode: 'fragment' }, 'invalid_request'],
    ['request object', { request: 'eyJ...' }, 'invalid_request'],
    ['unknown prompt', { prompt: 'bogus' }, 'invalid_request'],
    ['prompt none with login', { prompt: 'none login' }, 'invalid_request'],
    ['bad max_age', { max_age: '-1' }, 'invalid_request'],
  ])('%s is redirected with state', async (_n, change, error) => {
    expect(await validate({ ...base(), ...change })).toEqual({ ok: false, redirect: true, error, description: expect.any(String), redirectUri: CALLBACK, state: 'xyz' });
  });

  it('a duplicated state is not echoed', async () => {
    expect(await validate({ ...base(), state: ['a', 'b'] })).toMatchObject({ ok: false, redirect: true, error: 'invalid_request', state: null });
  });

  it('a resource that is neither the default nor shares a scope is invalid_target', async () => {
    await h.services.resources.create(f.tenant.tenant.id, { uri: 'https://billing.example.com', audience: 'urn:billing', scopes: ['billing'] }, SYSTEM_ACTOR);
    expect(await validate({ ...base(), scope: 'openid', resource: 'https://billing.example.com' })).toMatchObject({ redirect: true, error: 'invalid_target' });
  });

  it('API scopes with no resource at all are invalid_target; OpenID scopes need none', async () => {
    // The web client has no default resource.
    expect(await validate({ ...base(), client_id: 'web', scope: 'openid email' })).toMatchObject({ ok: true, request: { resource: null } });
    await h.services.clients.create(f.tenant.tenant.id, {
      clientId: 'bare', displayName: 'Bare', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', 'api.read'],
    }, SYSTEM_ACTOR);
    expect(await validate({ ...base(), client_id: 'bare', scope: 'openid api.read' })).toMatchObject({ ok: false, redirect: true, error: 'invalid_target' });
    expect(await validate({ ...base(), client_id: 'bare', scope: 'openid api.read', resource: API })).toMatchObject({ ok: true, request: { resource: API } });
  });
});

describe('authorizationRedirect', () => {
  it('adds code, state and iss, keeping the callback query', () => {
    const url = h.services.oauth.authorizationRedirect('https://app.example.com/cb?x=1', { code: 'c', state: 's', iss: f.tenant.issuer, error: null });
    expect(url).toBe(`https://app.example.com/cb?x=1&code=c&state=s&iss=${encodeURIComponent(f.tenant.issuer)}`);
  });
});

describe('consent', () => {
  it('PRE_AUTHORIZED needs none; EXPLICIT remembers and accumulates scopes per resource', async () => {
    const t = f.tenant.tenant.id;
    expect(await h.services.oauth.hasConsent(t, f.userId, 'mobile', ['openid'], API)).toBe(true);
    expect(await h.services.oauth.hasConsent(t, f.userId, 'web', ['openid'], null)).toBe(false);
    await h.services.oauth.rememberConsent(t, f.userId, 'web', ['openid'], null);
    await h.services.oauth.rememberConsent(t, f.userId, 'web', ['email'], null);
    expect(await h.services.oauth.hasConsent(t, f.userId, 'web', ['openid', 'email'], null)).toBe(true);
    expect(await h.services.oauth.hasConsent(t, f.userId, 'web', ['openid', 'offline_access'], null)).toBe(false);
    expect(await h.services.oauth.hasConsent(t, f.userId, 'web', ['openid'], API)).toBe(false);
  });
});

describe('users.verifyPassword', () => {
  it('returns the user for the right password only (email case-insensitive)', async () => {
    const t = f.tenant.tenant.id;
    expect((await h.services.users.verifyPassword(t, 'ADA@example.com', 'correct horse battery'))?.id).toBe(f.userId);
    expect(await h.services.users.verifyPassword(t, 'ada@example.com', 'wrong password')).toBeUndefined();
    expect(await h.services.users.verifyPassword(t, 'nobody@example.com', 'correct horse battery')).toBeUndefined();
  });
});
