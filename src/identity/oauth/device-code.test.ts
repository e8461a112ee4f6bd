import * as oidc from 'openid-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { FormDriver } from '../../../test/conformance/form-driver';
import { API, basic, createFixture, decodeJwt, form, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { DEVICE_CODE } from '../clients/schemas';
import { SYSTEM_ACTOR } from '../audit';
import { THROTTLE } from '../sessions/throttle';

/**
 * Issue 23 point 7: the device authorization grant (RFC 8628), opt-in per client. The device
 * gets codes, the user enters the user code on the verification page, approves and signs in
 * through the ordinary sign-in pages; the device polls (authorization_pending, slow_down) and
 * gets its tokens once. Denial, expiry, wrong-code throttling and CSRF are refused.
 */

let h: Harness;
let f: OAuthFixture;
let browser: FormDriver;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  await h.services.clients.create(tenantId(), {
    clientId: 'tv', displayName: 'Living-room TV', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: ['http://127.0.0.1/unused'], scopes: ['openid', 'email', 'offline_access', 'api.read'], defaultResource: API, grantTypes: [DEVICE_CODE],
  }, SYSTEM_ACTOR);
  browser = new FormDriver(async (u, i) => h.app.request(u, i), PUBLIC_URL);
});
afterEach(() => h.close());

const tenantId = () => f.tenant.tenant.id;
const discovery = async () => (await (await h.request(`${f.issuerPath}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;

interface DeviceAnswer { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number }

async function authorizeDevice(fields: Record<string, string> = { client_id: 'tv', scope: 'openid email offline_access api.read' }): Promise<DeviceAnswer> {
  const res = await post(h, `${f.issuerPath}/oauth2/device_authorization`, form(fields));
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('cache-control')).toContain('no-store');
  return (await res.json()) as DeviceAnswer;
}

const poll = (deviceCode: string, clientId = 'tv') =>
  post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: DEVICE_CODE, device_code: deviceCode, client_id: clientId }));
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
const path = (uri: string) => uri.replace(PUBLIC_URL, '');

/** The user: verification page, code, approve, sign in; returns the last page. */
async function approveInBrowser(d: DeviceAnswer, decision: 'approve' | 'deny' = 'approve'): Promise<Response> {
  const entry = await browser.get(path(d.verification_uri));
  expect(entry.status).toBe(200);
  const confirm = await browser.submit(await entry.text(), { user_code: d.user_code.toLowerCase() });
  expect(confirm.status).toBe(200);
  const confirmPage = await confirm.text();
  expect(confirmPage).toContain('Living-room TV');
  expect(confirmPage).toContain(d.user_code);
  const next = await browser.submit(confirmPage, { decision });
  if (decision === 'deny') return next;
  expect(next.status).toBe(303);
  const signInPage = await browser.get(next.headers.get('location')!);
  expect(signInPage.status).toBe(200);
  const signedIn = await browser.submit(await signInPage.text(), { email: 'ada@example.com', password: 'correct horse battery' });
  expect(signedIn.status).toBe(302);
  const callback = signedIn.headers.get('location')!;
  expect(callback.startsWith(`${f.tenant.issuer}/oauth2/device/callback?`)).toBe(true);
  return browser.get(callback);
}

describe('device authorization grant', () => {
  it('discovery names the endpoint and the grant only while a client of the tenant registered it', async () => {
    const doc = await discovery();
    expect(doc.device_authorization_endpoint).toBe(`${f.tenant.issuer}/oauth2/device_authorization`);
    expect(doc.grant_types_supported).toEqual(['authorization_code', 'refresh_token', DEVICE_CODE]);
    await h.services.clients.update(tenantId(), 'tv', { grantTypes: [] }, SYSTEM_ACTOR);
    const plain = await discovery();
    expect(plain).not.toHaveProperty('device_authorization_endpoint');
    expect(plain.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
  });

  it('codes, pending and slow_down polls, approval in the browser, tokens once', async () => {
    const d = await authorizeDevice();
    expect(d.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(d.verification_uri).toBe(`${f.tenant.issuer}/oauth2/device`);
    expect(d.verification_uri_complete).toBe(`${d.verification_uri}?user_code=${d.user_code}`);
    expect([d.expires_in, d.interval]).toEqual([600, 5]);

    expect(await errorOf(await poll(d.device_code))).toBe('authorization_pending');
    const fast = await poll(d.device_code);
    expect(fast.status).toBe(400);
    expect(await errorOf(fast)).toBe('slow_down');
    h.clock.advance(6); // the interval is now 10 s: too soon again, now 15 s
    expect(await errorOf(await poll(d.device_code))).toBe('slow_down');
    h.clock.advance(15);
    expect(await errorOf(await poll(d.device_code))).toBe('authorization_pending');

    const done = await approveInBrowser(d);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device connected');

    h.clock.advance(20);
    const res = await poll(d.device_code);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Record<string, string>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ sub: f.subject, client_id: 'tv', scope: 'openid email offline_access api.read' });
    expect(decodeJwt(tokens.id_token).payload).toMatchObject({ sub: f.subject, aud: 'tv', email: 'ada@example.com' });
    // The refresh token works as any other.
    const refreshed = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'tv' }));
    expect(refreshed.status).toBe(200);

    h.clock.advance(20);
    const again = await poll(d.device_code);
    expect([again.status, await errorOf(again)]).toEqual([400, 'invalid_grant']);
  });

  it('openid-client initiates and polls; the user approves in between; the ID token validates', async () => {
    // openid-client checks the ID token's times against the real clock.
    h.clock.set(new Date());
    const rp = await oidc.discovery(new URL(f.tenant.issuer), 'tv', {}, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: async (url: string, init: RequestInit) => h.app.request(url, init),
    });
    expect(rp.serverMetadata().device_authorization_endpoint).toBe(`${f.tenant.issuer}/oauth2/device_authorization`);
    const d = await oidc.initiateDeviceAuthorization(rp, { scope: 'openid email offline_access api.read' });
    expect((await approveInBrowser(d as unknown as DeviceAnswer)).status).toBe(200);
    const tokens = await oidc.pollDeviceAuthorizationGrant(rp, d);
    expect(tokens.claims()).toMatchObject({ sub: f.subject, aud: 'tv', email: 'ada@example.com' });
    expect(tokens.refresh_token).toBeTruthy();
  }, 20_000);

  it('a denied request is access_denied; an expired one expired_token; another client invalid_grant', async () => {
    const d = await authorizeDevice();
    const denied = await approveInBrowser(d, 'deny');
    expect(denied.status).toBe(200);
    expect(await denied.text()).toContain('Request denied');
    expect(await errorOf(await poll(d.device_code))).toBe('access_denied');

    const late = await authorizeDevice();
    expect(await errorOf(await poll(late.device_code, f.publicClient))).toBe('unauthorized_client');
    h.clock.advance(601);
    expect(await errorOf(await poll(late.device_code))).toBe('expired_token');
    // The user code is gone too.
    const entry = await browser.get(path(late.verification_uri));
    const res = await browser.submit(await entry.text(), { user_code: late.user_code });
    expect(res.status).toBe(400);
  });

  it('refuses a client not registered for the grant, a bad scope, and a code sent by the wrong client', async () => {
    const notOpted = await post(h, `${f.issuerPath}/oauth2/device_authorization`, form({ client_id: f.publicClient }));
    expect([notOpted.status, await errorOf(notOpted)]).toEqual([400, 'unauthorized_client']);
    const badScope = await post(h, `${f.issuerPath}/oauth2/device_authorization`, form({ client_id: 'tv', scope: 'api.write' }));
    expect([badScope.status, await errorOf(badScope)]).toEqual([400, 'invalid_scope']);
    const noClient = await post(h, `${f.issuerPath}/oauth2/device_authorization`, form({ scope: 'openid' }));
    expect([noClient.status, await errorOf(noClient)]).toEqual([401, 'invalid_client']);
    const web = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: DEVICE_CODE, device_code: 'x' }), { authorization: basic(f.webClient, f.webSecret) });
    expect([web.status, await errorOf(web)]).toEqual([400, 'unauthorized_client']);
    const unknown = await poll('not-a-device-code');
    expect([unknown.status, await errorOf(unknown)]).toEqual([400, 'invalid_grant']);
    await h.services.clients.update(tenantId(), 'tv', { grantTypes: [] }, SYSTEM_ACTOR);
    const unsupported = await poll('not-a-device-code');
    expect([unsupported.status, await errorOf(unsupported)]).toEqual([400, 'unsupported_grant_type']);
  });

  it('wrong user codes are throttled per client address; a form without the CSRF cookie is 403', async () => {
    const d = await authorizeDevice();
    const entry = await browser.get(path(d.verification_uri));
    const pageText = await entry.text();
    for (let i = 0; i < 10; i++) expect((await browser.submit(pageText, { user_code: 'BBBB-BBBB' })).status).toBe(400);
    const locked = await browser.submit(pageText, { user_code: d.user_code });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(31);
    expect((await browser.submit(pageText, { user_code: d.user_code })).status).toBe(200);

    const stranger = new FormDriver(async (u, i) => h.app.request(u, i), PUBLIC_URL);
    const forged = await stranger.post(path(d.verification_uri), { user_code: d.user_code, csrf_token: 'x'.repeat(43), decision: 'approve' });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('a callback this browser did not start connects nothing', async () => {
    const d = await authorizeDevice();
    const res = await browser.get(`${f.issuerPath}/oauth2/device/callback?code=abc&state=def`);
    expect(res.status).toBe(400);
    expect(await errorOf(await poll(d.device_code))).toBe('authorization_pending');
  });
});

describe('device authorization grant: what an outside review found', () => {
  /** Up to the sign-in page of an approval: entry, code, approve, the authorization request it starts. */
  async function startApproval(d: DeviceAnswer): Promise<Response> {
    const entry = await browser.get(path(d.verification_uri));
    const confirm = await browser.submit(await entry.text(), { user_code: d.user_code });
    const next = await browser.submit(await confirm.text(), { decision: 'approve' });
    expect(next.status).toBe(303);
    return browser.get(next.headers.get('location')!);
  }

  it('a code issued to the device callback is never redeemed at the authorization_code grant, even with its state as the verifier', async () => {
    const d = await authorizeDevice();
    const signInPage = await startApproval(d);
    const signedIn = await browser.submit(await signInPage.text(), { email: 'ada@example.com', password: 'correct horse battery' });
    const callback = new URL(signedIn.headers.get('location')!);
    expect((await browser.get(callback.toString())).status).toBe(200);
    // Someone who saw only the callback's URL (history, a proxy's log), not the browser's cookie:
    const stolen = await post(h, `${f.issuerPath}/oauth2/token`, form({
      grant_type: 'authorization_code', code: callback.searchParams.get('code')!, code_verifier: callback.searchParams.get('state')!,
      client_id: 'tv', redirect_uri: `${f.tenant.issuer}/oauth2/device/callback`,
    }));
    expect(stolen.status).toBe(400);
    expect(await errorOf(stolen)).toBe('invalid_grant');
    // The device still gets its tokens.
    h.clock.advance(10);
    const tokens = await poll(d.device_code);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(((await tokens.json()) as { access_token: string }).access_token).payload.sub).toBeDefined();
  });

  it('wrong user codes sent in parallel are counted one after the other: the lock stops them after the free ones', async () => {
    const d = await authorizeDevice();
    const entry = await (await browser.get(path(d.verification_uri))).text();
    const answers = await Promise.all(Array.from({ length: 30 }, () => browser.submit(entry, { user_code: 'BBBB-BBBB' })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10); // THROTTLE.deviceFreeFailures
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('polls sent in parallel: one is on time, the others are told to slow down; the interval grows to 60 s at most', async () => {
    const d = await authorizeDevice();
    const errors = await Promise.all(Array.from({ length: 5 }, async () => errorOf(await poll(d.device_code))));
    expect(errors.filter((e) => e === 'authorization_pending')).toHaveLength(1);
    expect(errors.filter((e) => e === 'slow_down')).toHaveLength(4);
    for (let i = 0; i < 20; i++) await poll(d.device_code);
    const last = (await (await poll(d.device_code)).json()) as { error: string; error_description: string };
    expect(last).toEqual({ error: 'slow_down', error_description: 'poll at most every 60 seconds' });
  });

  it('device authorizations are throttled per client address: after the free ones 429 slow_down with Retry-After, and nothing is stored', async () => {
    const start = () => post(h, `${f.issuerPath}/oauth2/device_authorization`, form({ client_id: 'tv', scope: 'openid' }));
    const rows = async () => (await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM device_authorizations'))!.n;
    const answers = await Promise.all(Array.from({ length: THROTTLE.deviceStartFreeRequests + 3 }, async () => (await start()).status));
    expect(answers.filter((s) => s === 200)).toHaveLength(THROTTLE.deviceStartFreeRequests);
    const before = await rows();
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toBe('slow_down');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await rows()).toBe(before);
    h.clock.advance(THROTTLE.maxLockSeconds + THROTTLE.windowSeconds);
    expect((await start()).status).toBe(200);
  });

  it('approving a device asks for the password again, even in a browser already signed in (RFC 8628 §5.4)', async () => {
    const first = await authorizeDevice();
    const signInPage = await startApproval(first);
    const signedIn = await browser.submit(await signInPage.text(), { email: 'ada@example.com', password: 'correct horse battery' });
    await browser.get(signedIn.headers.get('location')!);
    // A second request, as a phishing link would bring: the browser's live session is not enough.
    const again = await startApproval(await authorizeDevice());
    expect(again.status).toBe(200);
    expect(await again.text()).toMatch(/type="password"/);
  });
});
