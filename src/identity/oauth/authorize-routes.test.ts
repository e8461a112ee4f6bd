import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, parseForm, redirectParams } from '../../../test/conformance/form-driver';
import { API, APP_CALLBACK, PASSWORD, WEB_CALLBACK, authorizeUrl, seedTenant } from '../../../test/conformance/fixtures';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let seed: Awaited<ReturnType<typeof seedTenant>>;
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');

beforeEach(async () => {
  h = await createHarness();
  seed = await seedTenant(h);
});
afterEach(() => h.close());

describe('GET /oauth2/authorize: errors that are never redirected', () => {
  const rows: [string, string, number][] = [
    ['unknown client', authorizeUrl('acme', { client_id: 'nope' }), 400],
    ['client_id missing', authorizeUrl('acme', { client_id: null }), 400],
    ['client_id duplicated', authorizeUrl('acme') + '&client_id=web', 400],
    ['unregistered redirect_uri', authorizeUrl('acme', { redirect_uri: 'https://evil.example/cb' }), 400],
    ['redirect_uri of another client', authorizeUrl('acme', { redirect_uri: APP_CALLBACK }), 400],
    ['redirect_uri missing', authorizeUrl('acme', { redirect_uri: null }), 400],
    ['redirect_uri duplicated', authorizeUrl('acme') + '&redirect_uri=' + encodeURIComponent(WEB_CALLBACK), 400],
  ];
  it.each(rows)('%s answers a page, no Location', async (_name, url, status) => {
    const res = await h.request(url);
    expect(res.status).toBe(status);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await res.text()).toContain('<h1>');
  });

  it('an unknown issuer is 404 with an empty body', async () => {
    const res = await h.request(authorizeUrl('nope'));
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });

  it('a disabled tenant is 404 with an empty body', async () => {
    await h.services.tenants.setStatus('acme', 'DISABLED', SYSTEM_ACTOR);
    const res = await h.request(authorizeUrl('acme'));
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });
});

describe('GET /oauth2/authorize: errors redirected with error, state and iss', () => {
  beforeEach(async () => {
    await h.services.resources.create(seed.tenantId, { uri: 'https://billing.example', audience: 'billing', scopes: ['billing'] }, SYSTEM_ACTOR);
    await h.services.resources.create(seed.tenantId, { uri: 'https://retired.example', audience: 'retired', scopes: ['orders.read'] }, SYSTEM_ACTOR);
    await h.sql.run(`UPDATE resources SET status = 'DISABLED' WHERE uri = 'https://retired.example'`);
  });
  const rows: [string, string, string][] = [
    ['response_type missing', authorizeUrl('acme', { response_type: null }), 'invalid_request'],
    ['response_type token', authorizeUrl('acme', { response_type: 'token' }), 'unsupported_response_type'],
    ['scope duplicated', authorizeUrl('acme') + '&scope=openid', 'invalid_request'],
    ['nonce duplicated', authorizeUrl('acme') + '&nonce=x', 'invalid_request'],
    ['code_challenge missing', authorizeUrl('acme', { code_challenge: null }), 'invalid_request'],
    ['code_challenge_method missing (plain)', authorizeUrl('acme', { code_challenge_method: null }), 'invalid_request'],
    ['code_challenge_method plain', authorizeUrl('acme', { code_challenge_method: 'plain' }), 'invalid_request'],
    ['code_challenge malformed', authorizeUrl('acme', { code_challenge: 'short' }), 'invalid_request'],
    ['scope missing', authorizeUrl('acme', { scope: null }), 'invalid_request'],
    ['scope not registered', authorizeUrl('acme', { scope: 'openid admin' }), 'invalid_scope'],
    ['resource unknown', authorizeUrl('acme', { resource: 'https://other.example' }), 'invalid_target'],
    ['resource with fragment', authorizeUrl('acme', { resource: API + '#x' }), 'invalid_target'],
    ['resource not a URI', authorizeUrl('acme', { resource: 'orders' }), 'invalid_target'],
    ['API scope with no resource at all', authorizeUrl('acme', { scope: 'openid orders.read' }), 'invalid_target'],
    ['resource disabled', authorizeUrl('acme', { resource: 'https://retired.example', scope: 'openid' }), 'invalid_target'],
    ['resource offering none of the client scopes', authorizeUrl('acme', { resource: 'https://billing.example', scope: 'openid' }), 'invalid_target'],
    ['prompt unsupported', authorizeUrl('acme', { prompt: 'bogus' }), 'invalid_request'],
    ['prompt none combined', authorizeUrl('acme', { prompt: 'none login' }), 'invalid_request'],
    ['max_age malformed', authorizeUrl('acme', { max_age: 'soon' }), 'invalid_request'],
    ['request object', authorizeUrl('acme', { request: 'eyJ.x.y' }), 'invalid_request'],
    ['prompt=none without a session', authorizeUrl('acme', { prompt: 'none' }), 'login_required'],
  ];
  it.each(rows)('%s', async (_name, url, error) => {
    const res = await h.request(url);
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe(WEB_CALLBACK);
    expect(loc.searchParams.get('error')).toBe(error);
    expect(loc.searchParams.get('state')).toBe('st-123');
    expect(loc.searchParams.get('iss')).toBe(seed.issuer);
    expect(loc.searchParams.get('code')).toBeNull();
  });

  it('an echoed resource is held to the RFC 6749 error_description characters', async () => {
    const p = redirectParams(await h.request(authorizeUrl('acme', { resource: 'https://x.example/a"b\\c\u00e9\u0001', scope: 'openid' })));
    expect(p).toEqual({ error: 'invalid_target', error_description: "resource https://x.example/a'b/c?? is not available to the client", state: 'st-123', iss: seed.issuer });
  });

  it('a duplicated state is not echoed', async () => {
    const p = redirectParams(await h.request(authorizeUrl('acme') + '&state=other'));
    expect(p.error).toBe('invalid_request');
    expect(p.state).toBeUndefined();
    expect(p.iss).toBe(seed.issuer);
  });
});

describe('sign-in and consent', () => {
  it('signs in, asks consent for an EXPLICIT client once, then redirects with code, state and iss', async () => {
    const d = driver();
    const consent = await d.signIn(authorizeUrl('acme', { scope: 'openid email orders.read', resource: API }), 'Alice@Example.com', PASSWORD);
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain('Allow Acme Web to access your account?');
    expect(page).toContain('alice@example.com');
    expect(page).toContain('orders-api');
    const done = await d.submit(page, { decision: 'allow' });
    expect(done.status).toBe(302);
    const p = redirectParams(done);
    expect(p).toMatchObject({ state: 'st-123', iss: seed.issuer });
    expect(p.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Remembered: the same request now goes straight back, even without a page.
    const again = redirectParams(await d.get(authorizeUrl('acme', { scope: 'openid email orders.read', resource: API, prompt: 'none' })));
    expect(again.code).toBeDefined();
    expect(again.state).toBe('st-123');
  });

  it('the code is bound to the request: it exchanges once with the PKCE verifier', async () => {
    const d = driver();
    const { verifier, challenge } = (await import('../../../test/conformance/fixtures')).pkce();
    const consent = await d.signIn(authorizeUrl('acme', { code_challenge: challenge, scope: 'openid email' }), 'alice@example.com', PASSWORD);
    const code = redirectParams(await d.submit(await consent.text(), { decision: 'allow' })).code;
    const basic = 'Basic ' + Buffer.from(`web:${seed.webSecret}`).toString('base64');
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: WEB_CALLBACK, code_verifier: verifier });
    const res = await h.request('/t/acme/oauth2/token', { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: seed.issuer, aud: 'web', nonce: 'n-456', auth_time: h.clock.nowSeconds() });
  });

  it('a PRE_AUTHORIZED client skips consent', async () => {
    const res = await driver().signIn(authorizeUrl('acme', {}, 'app'), 'bob@example.com', PASSWORD);
    expect(res.status).toBe(302);
    const loc = res.headers.get('location')!;
    expect(loc.startsWith(APP_CALLBACK + '?')).toBe(true);
    expect(redirectParams(res)).toMatchObject({ state: 'st-123', iss: seed.issuer });
  });

  it('denying consent redirects with access_denied', async () => {
    const d = driver();
    const consent = await d.signIn(authorizeUrl('acme'), 'alice@example.com', PASSWORD);
    const p = redirectParams(await d.submit(await consent.text(), { decision: 'deny' }));
    expect(p).toMatchObject({ error: 'access_denied', state: 'st-123', iss: seed.issuer });
  });

  it('remembered consent skips the page; prompt=consent shows it again', async () => {
    const d = driver();
    const consent = await d.signIn(authorizeUrl('acme'), 'alice@example.com', PASSWORD);
    expect(redirectParams(await d.submit(await consent.text(), { decision: 'allow' })).code).toBeDefined();
    expect(redirectParams(await d.get(authorizeUrl('acme'))).code).toBeDefined();
    const again = await d.get(authorizeUrl('acme', { prompt: 'consent' }));
    expect(again.status).toBe(200);
    const page = await again.text();
    expect(page).toContain('Allow Acme Web');
    expect(redirectParams(await d.submit(page, { decision: 'allow' }))).toMatchObject({ state: 'st-123', iss: seed.issuer });
  });

  it('single sign-on: a second authorization reuses the session; another EXPLICIT client asks for consent', async () => {
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    expect(redirectParams(await d.get(authorizeUrl('acme', {}, 'app'))).code).toBeDefined();
    const consent = await d.get(authorizeUrl('acme'));
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain('Allow Acme Web');
  });

  it('prompt=none with consent missing redirects consent_required', async () => {
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    const p = redirectParams(await d.get(authorizeUrl('acme', { prompt: 'none' })));
    expect(p).toMatchObject({ error: 'consent_required', state: 'st-123', iss: seed.issuer });
  });

  it('prompt=login and an elapsed max_age force a new sign-in; auth_time moves', async () => {
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    const forced = await d.get(authorizeUrl('acme', { prompt: 'login' }, 'app'));
    expect(forced.status).toBe(200);
    expect(await forced.text()).toContain('Sign in');
    h.clock.advance(120);
    expect(redirectParams(await d.get(authorizeUrl('acme', { max_age: '300' }, 'app'))).code).toBeDefined();
    const stale = await d.get(authorizeUrl('acme', { max_age: '60' }, 'app'));
    expect(stale.status).toBe(200);
    const page = await stale.text();
    expect(parseForm(page).action).toBe('/t/acme/oauth2/authorize/login');
    expect(page).toContain('value="alice@example.com"');
    const done = await d.submit(page, { email: 'alice@example.com', password: PASSWORD });
    expect(done.status).toBe(302);
    // prompt=none with max_age 0 after a fresh sign-in still needs a new one.
    h.clock.advance(1);
    expect(redirectParams(await d.get(authorizeUrl('acme', { prompt: 'none', max_age: '0' }, 'app'))).error).toBe('login_required');
  });
});

describe('POST /oauth2/authorize (OIDC Core 3.1.2.1)', () => {
  const post = (d: FormDriver, body: string, type = 'application/x-www-form-urlencoded') =>
    h.app.request('http://engage.test/t/acme/oauth2/authorize', { method: 'POST', redirect: 'manual', headers: { 'content-type': type, cookie: d.cookieHeader(new URL('http://engage.test/t/acme/oauth2/authorize')) ?? '' }, body });

  it('is answered 303 to the same request as a GET, which then works as GET does (the session cookie included)', async () => {
    const d = driver();
    const first = await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    expect(first.status).toBe(302);

    const get = authorizeUrl('acme', { state: 'st-post', nonce: 'n "quoted"' }, 'app') + '&ui_locales=en';
    const query = get.slice(get.indexOf('?') + 1);
    const res = await post(d, query);
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toBe(`${seed.issuer}/oauth2/authorize?${query}`);
    expect(await res.text()).toBe('');

    const done = await d.get(res.headers.get('location')!);
    expect(done.status).toBe(302);
    const p = redirectParams(done);
    expect(p).toMatchObject({ state: 'st-post', iss: seed.issuer });
    expect(p.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('keeps repetitions, so a duplicated parameter is reported exactly as on GET', async () => {
    const get = authorizeUrl('acme') + '&scope=openid';
    const res = await post(driver(), get.slice(get.indexOf('?') + 1));
    expect(res.status).toBe(303);
    const viaPost = await h.request(res.headers.get('location')!.slice('http://engage.test'.length));
    const viaGet = await h.request(get);
    expect(redirectParams(viaPost)).toEqual(redirectParams(viaGet));
    expect(redirectParams(viaPost).error).toBe('invalid_request');
  });

  it('another content type is a 400 page, an oversized form 413; an unknown issuer 404 empty', async () => {
    const json = await post(driver(), '{"client_id":"web"}', 'application/json');
    expect(json.status).toBe(400);
    expect(json.headers.get('location')).toBeNull();
    expect(await json.text()).toContain('<h1>');
    const big = await post(driver(), 'state=' + 'x'.repeat(17 * 1024));
    expect(big.status).toBe(413);
    const unknown = await h.request('/t/nope/oauth2/authorize', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=web' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('');
  });
});
