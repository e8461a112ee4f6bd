import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { CALLBACK, basic, createFixture, exchange, form, pkce, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let f: OAuthFixture;
const SPA = 'https://spa.example.com';
const DEV = 'http://localhost:5173';
/** The origin of the fixture's redirect URI: the default web origin of `mobile` and `web`. */
const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  await h.services.clients.create(f.tenant.tenant.id, {
    clientId: 'spa', displayName: 'SPA', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [`${SPA}/cb`], scopes: ['openid', 'offline_access'], webOrigins: [SPA, DEV],
  }, SYSTEM_ACTOR);
});
afterEach(() => h.close());

const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'access-control-expose-headers', 'access-control-allow-credentials'];
const corsOf = (res: Response) => Object.fromEntries(CORS_HEADERS.filter((k) => res.headers.has(k)).map((k) => [k, res.headers.get(k)]));
const preflight = (p: string, origin: string, method = 'POST') =>
  h.request(p, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' } });
const path = (p: string) => `${f.issuerPath}${p}`;

/** A code exchange of the SPA, as a browser would send it from `origin`. */
async function spaExchange(origin: string, change: (x: Record<string, string>) => void = () => {}) {
  const p = pkce();
  const code = await h.services.oauth.issueAuthorizationCode({
    tenantId: f.tenant.tenant.id, clientId: 'spa', userId: f.userId, redirectUri: `${SPA}/cb`, codeChallenge: p.challenge,
    scope: ['openid', 'offline_access'], resource: null, nonce: null, authTime: h.clock.nowSeconds(),
  });
  const fields = { grant_type: 'authorization_code', client_id: 'spa', code, redirect_uri: `${SPA}/cb`, code_verifier: p.verifier };
  change(fields);
  return post(h, path('/oauth2/token'), form(fields), { origin });
}

describe('preflight (OPTIONS) on token, revocation and userinfo', () => {
  it.each([
    ['/oauth2/token', 'POST'],
    ['/oauth2/revoke', 'POST'],
    ['/oauth2/userinfo', 'GET, POST'],
  ])('%s: 204 for an origin an active client of the tenant allows', async (p, methods) => {
    for (const origin of [SPA, DEV, APP]) {
      const res = await preflight(path(p), origin);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(corsOf(res)).toEqual({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': 'Authorization, Content-Type',
        'access-control-max-age': '600',
      });
      expect(res.headers.get('vary')).toBe('Origin');
    }
  });

  it('no CORS headers for an origin no active client allows (a disabled client\'s included)', async () => {
    await h.services.clients.setStatus(f.tenant.tenant.id, 'spa', 'DISABLED', SYSTEM_ACTOR);
    for (const origin of [EVIL, SPA, 'null']) {
      const res = await preflight(path('/oauth2/token'), origin);
      expect(res.status).toBe(204);
      expect(corsOf(res)).toEqual({});
    }
  });

  it('an unknown issuer is still 404 with an empty body', async () => {
    const res = await preflight('/t/nope/oauth2/token', SPA);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
    expect(corsOf(res)).toEqual({});
  });
});

describe('answers of the token endpoint', () => {
  const allowed = { 'access-control-allow-origin': SPA, 'access-control-expose-headers': 'WWW-Authenticate' };

  it('a single-page app exchanges its code and reads the answer', async () => {
    const res = await spaExchange(SPA);
    expect(res.status).toBe(200);
    expect(corsOf(res)).toEqual(allowed);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(Object.keys((await res.json()) as object).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
  });

  it('an origin allowed for another client only, or for none, gets no CORS header', async () => {
    for (const origin of [APP, EVIL]) {
      const res = await spaExchange(origin);
      expect(res.status).toBe(200);
      expect(corsOf(res)).toEqual({});
      expect(res.headers.get('vary')).toBe('Origin');
    }
  });

  it('errors carry the CORS headers too, so the page can read them', async () => {
    const bad = await spaExchange(SPA, (x) => (x.code_verifier = 'v'.repeat(43)));
    expect(bad.status).toBe(400);
    expect(corsOf(bad)).toEqual(allowed);
    expect(await bad.json()).toEqual({ error: 'invalid_grant', error_description: 'PKCE verification failed' });
    // Named client unknown, or none at all, or no readable form: the tenant's origins apply.
    const ghost = await post(h, path('/oauth2/token'), form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'ghost' }), { origin: SPA });
    expect(ghost.status).toBe(401);
    expect(corsOf(ghost)).toEqual(allowed);
    const anonymous = await post(h, path('/oauth2/token'), form({ grant_type: 'refresh_token', refresh_token: 'x' }), { origin: SPA });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="oauth2/token"');
    expect(corsOf(anonymous)).toEqual(allowed);
    const json = await post(h, path('/oauth2/token'), '{}', { origin: SPA, 'content-type': 'application/json' });
    expect(json.status).toBe(400);
    expect(corsOf(json)).toEqual(allowed);
    expect(corsOf(await post(h, path('/oauth2/token'), '{}', { origin: EVIL, 'content-type': 'application/json' }))).toEqual({});
  });

  it('without an Origin (server to server) there is nothing but Vary', async () => {
    const t = await exchange(h, f);
    expect(t.access_token).toBeTruthy();
    const res = await spaExchange(SPA, () => {});
    expect(corsOf(res)).toEqual(allowed);
    const plain = await post(h, path('/oauth2/token'), form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }));
    expect(plain.status).toBe(200);
    expect(corsOf(plain)).toEqual({});
    expect(plain.headers.get('vary')).toBe('Origin');
  });
});

describe('revocation and userinfo answers', () => {
  it('revocation: the client named by Basic or client_id decides', async () => {
    const web = await post(h, path('/oauth2/revoke'), form({ token: 'x' }), { authorization: basic(f.webClient, f.webSecret), origin: APP });
    expect(web.status).toBe(200);
    expect(corsOf(web)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'WWW-Authenticate' });
    const notForWeb = await post(h, path('/oauth2/revoke'), form({ token: 'x' }), { authorization: basic(f.webClient, f.webSecret), origin: SPA });
    expect(corsOf(notForWeb)).toEqual({});
    const spa = await post(h, path('/oauth2/revoke'), form({ token: 'x', client_id: 'spa' }), { origin: DEV });
    expect(spa.status).toBe(200);
    expect(corsOf(spa)).toEqual({ 'access-control-allow-origin': DEV, 'access-control-expose-headers': 'WWW-Authenticate' });
  });

  it('userinfo: the client the access token was issued to decides; a bad token falls back to the tenant\'s origins', async () => {
    const t = await exchange(h, f); // issued to `mobile`, default origin APP
    const ok = await h.request(path('/oauth2/userinfo'), { headers: { authorization: `Bearer ${t.access_token}`, origin: APP } });
    expect(ok.status).toBe(200);
    expect(corsOf(ok)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'WWW-Authenticate' });
    expect(ok.headers.get('vary')).toBe('Origin');
    const viaForm = await post(h, path('/oauth2/userinfo'), form({ access_token: t.access_token }), { origin: APP });
    expect(corsOf(viaForm)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'WWW-Authenticate' });
    const otherOrigin = await h.request(path('/oauth2/userinfo'), { headers: { authorization: `Bearer ${t.access_token}`, origin: SPA } });
    expect(otherOrigin.status).toBe(200);
    expect(corsOf(otherOrigin)).toEqual({});
    const bad = await h.request(path('/oauth2/userinfo'), { headers: { authorization: 'Bearer nope', origin: SPA } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(corsOf(bad)).toEqual({ 'access-control-allow-origin': SPA, 'access-control-expose-headers': 'WWW-Authenticate' });
  });
});

describe('discovery and JWKS: any origin', () => {
  it.each(['/t/acme/.well-known/openid-configuration', '/t/acme/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/t/acme', '/t/acme/oauth2/jwks'])(
    '%s',
    async (p) => {
      const res = await h.request(p, { headers: { origin: EVIL } });
      expect(res.status).toBe(200);
      expect(corsOf(res)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' });
      const notModified = await h.request(p, { headers: { origin: EVIL, 'if-none-match': res.headers.get('etag')! } });
      expect(notModified.status).toBe(304);
      expect(corsOf(notModified)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' });
      const pre = await preflight(p, EVIL, 'GET');
      expect(pre.status).toBe(204);
      expect(corsOf(pre)).toEqual({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET',
        'access-control-allow-headers': 'If-None-Match',
        'access-control-max-age': '600',
      });
    },
  );
});

describe('no CORS anywhere else', () => {
  it('introspection, revoke-application-grants and the authorization endpoint answer without CORS headers, and no preflight', async () => {
    const t = await exchange(h, f);
    const introspect = await post(h, path('/oauth2/introspect'), form({ token: t.access_token }), { authorization: basic(f.credentialId, f.credentialSecret), origin: APP });
    expect(introspect.status).toBe(200);
    expect(corsOf(introspect)).toEqual({});
    expect(introspect.headers.get('vary')).toBeNull();
    const grants = await post(h, path('/oauth2/revoke-application-grants'), form({ subject: f.subject, client_id: f.publicClient }), { authorization: basic(f.credentialId, f.credentialSecret), origin: APP });
    expect(grants.status).toBe(204);
    expect(corsOf(grants)).toEqual({});
    const authorize = await h.request(path(`/oauth2/authorize?client_id=${f.publicClient}&redirect_uri=${encodeURIComponent(CALLBACK)}`), { headers: { origin: APP } });
    expect(authorize.status).toBe(302);
    expect(corsOf(authorize)).toEqual({});
    for (const p of ['/oauth2/introspect', '/oauth2/authorize', '/oauth2/revoke-application-grants']) {
      const res = await preflight(path(p), APP);
      expect({ p, status: res.status }).toEqual({ p, status: 404 });
      expect(corsOf(res)).toEqual({});
    }
  });
});

describe('web origins of a client', () => {
  it('default: the origins of its http(s) redirect URIs; an explicit list replaces them; an empty one allows none', async () => {
    const t = f.tenant.tenant.id;
    const c = h.services.clients;
    expect((await c.find(t, 'mobile'))!.allowedOrigins).toEqual(new Set([APP]));
    expect((await c.find(t, 'spa'))!.allowedOrigins).toEqual(new Set([SPA, DEV]));
    expect(await c.originsOfTenant(t)).toEqual(new Set([APP, SPA, DEV]));
    await c.create(t, {
      clientId: 'ios', displayName: 'iOS', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: ['com.example.app:/cb', 'http://127.0.0.1/cb'], scopes: ['openid'],
    }, SYSTEM_ACTOR);
    expect((await c.find(t, 'ios'))!.allowedOrigins).toEqual(new Set(['http://127.0.0.1']));
    expect(await c.update(t, 'spa', { webOrigins: [] }, SYSTEM_ACTOR)).toMatchObject({ webOrigins: [] });
    expect(await c.allowsOrigin(t, 'spa', SPA)).toBe(false);
    expect(await c.update(t, 'spa', { webOrigins: null }, SYSTEM_ACTOR)).toMatchObject({ webOrigins: null });
    expect(await c.allowsOrigin(t, 'spa', SPA)).toBe(true);
  });

  it.each(['https://spa.example.com/', 'https://SPA.example.com', 'https://spa.example.com:443', 'https://spa.example.com/app', 'ftp://spa.example.com', 'null', '*'])(
    'refuses %s (not a serialized origin)',
    async (origin) => {
      await expect(h.services.clients.update(f.tenant.tenant.id, 'spa', { webOrigins: [origin] }, SYSTEM_ACTOR)).rejects.toMatchObject({ kind: 'invalid', code: 'invalid_request' });
    },
  );
});
