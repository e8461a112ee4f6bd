import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { FormDriver, parseForm } from '../../../test/conformance/form-driver';
import { CALLBACK, createFixture, exchange, pkce, type OAuthFixture } from '../../../test/fixtures/oauth';
import { applyConfiguration } from '../operators/apply';
import type { ApplyFile } from '../operators/apply-schema';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 23 point 7: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), opt-in: the
 * discovery document names end_session_endpoint only once a client registered a post-logout
 * redirect URI. A valid id_token_hint for a user of the session ends it and returns to the
 * registered URI with state; without one the user confirms (a forged request ends nothing).
 */

const BYE = 'https://app.example.com/bye';
let h: Harness;
let f: OAuthFixture;
let driver: FormDriver;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  driver = new FormDriver(async (u, i) => h.app.request(u, i), PUBLIC_URL);
});
afterEach(() => h.close());

const tenantId = () => f.tenant.tenant.id;
const issuer = () => f.tenant.issuer;
const logoutUrl = (params: Record<string, string>) => `${f.issuerPath}/oauth2/logout?${new URLSearchParams(params)}`;
const register = () => h.services.clients.update(tenantId(), 'mobile', { postLogoutRedirectUris: [BYE] }, SYSTEM_ACTOR);

/** Authorize in the driver's browser: 302 with a code when its session is signed in, else the sign-in page. */
const authorize = () =>
  driver.get(
    `${f.issuerPath}/oauth2/authorize?` +
      new URLSearchParams({ client_id: 'mobile', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', state: 's', nonce: 'n', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
  );
const signedIn = async () => (await authorize()).status === 302;

async function signIn(email = 'ada@example.com', password = 'correct horse battery') {
  const page = await authorize();
  expect(page.status).toBe(200);
  const res = await driver.submit(await page.text(), { email, password });
  expect(res.status).toBe(302);
  expect(await signedIn()).toBe(true);
}

const discovery = async (path = '/.well-known/openid-configuration') => (await (await h.request(`${f.issuerPath}${path}`)).json()) as Record<string, unknown>;

describe('RP-initiated logout', () => {
  it('discovery names end_session_endpoint only once a client registered a post-logout redirect URI', async () => {
    expect(await discovery()).not.toHaveProperty('end_session_endpoint');
    expect(await discovery('/.well-known/oauth-authorization-server')).not.toHaveProperty('end_session_endpoint');
    const view = await register();
    expect(view.postLogoutRedirectUris).toEqual([BYE]);
    expect(await discovery()).toMatchObject({ end_session_endpoint: `${issuer()}/oauth2/logout` });
    expect(await discovery('/.well-known/oauth-authorization-server')).toMatchObject({ end_session_endpoint: `${issuer()}/oauth2/logout` });
    await h.services.clients.update(tenantId(), 'mobile', { postLogoutRedirectUris: [] }, SYSTEM_ACTOR);
    expect(await discovery()).not.toHaveProperty('end_session_endpoint');
  });

  it('engage apply sets, keeps and clears the post-logout redirect URIs of a client it manages', async () => {
    const client = { clientId: 'spa', displayName: 'SPA', applicationType: 'WEB' as const, tokenEndpointAuthMethod: 'NONE' as const, consentPolicy: 'PRE_AUTHORIZED' as const };
    const file = (uris?: string[]): ApplyFile => ({
      version: 1,
      tenants: [{ slug: 'beta', clients: [{ ...client, redirectUris: [CALLBACK], scopes: ['openid'], ...(uris ? { postLogoutRedirectUris: uris } : {}) }] }],
    });
    const run = (uris?: string[]) => applyConfiguration(h.services, file(uris), { dryRun: false, env: {}, actor: { subject: 'os:ci', clientId: null } });
    const uris = async () => (await h.services.clients.list((await h.services.tenants.get('beta')).id)).find((c) => c.clientId === 'spa')!.postLogoutRedirectUris;
    await run([BYE]);
    expect(await uris()).toEqual([BYE]);
    await run([BYE]);
    expect(await uris()).toEqual([BYE]);
    await run(['https://app.example.com/other']);
    expect(await uris()).toEqual(['https://app.example.com/other']);
    await run();
    expect(await uris()).toEqual([]);
  });

  it('a post-logout redirect URI must be an absolute URI without a fragment', async () => {
    await expect(h.services.clients.update(tenantId(), 'mobile', { postLogoutRedirectUris: ['/relative'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(h.services.clients.update(tenantId(), 'mobile', { postLogoutRedirectUris: ['https://a.example/#x'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('GET with a valid id_token_hint for the session’s user ends the session and returns to the registered URI with state', async () => {
    await register();
    await signIn();
    const { id_token } = await exchange(h, f, { clientId: 'mobile', scope: ['openid'] });
    const res = await driver.get(logoutUrl({ id_token_hint: id_token!, post_logout_redirect_uri: BYE, state: 'xyz' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${BYE}?state=xyz`);
    expect(res.headers.get('set-cookie')).toMatch(/engage_session=;.*Max-Age=0/i);
    expect(await signedIn()).toBe(false);
  });

  it('POST works the same; an expired ID token is still a valid hint', async () => {
    await register();
    await signIn();
    const { id_token } = await exchange(h, f, { clientId: 'mobile', scope: ['openid'] });
    h.clock.advance(2 * 24 * 3600);
    if (!(await signedIn())) await signIn();
    const res = await driver.post(`${f.issuerPath}/oauth2/logout`, { id_token_hint: id_token!, client_id: 'mobile', post_logout_redirect_uri: BYE });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(BYE);
    expect(await signedIn()).toBe(false);
  });

  it('without a hint the user confirms: the request alone ends nothing; the confirmation does', async () => {
    await register();
    await signIn();
    const page = await driver.get(logoutUrl({ client_id: 'mobile', post_logout_redirect_uri: BYE, state: 'abc' }));
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('Sign out?');
    expect(await signedIn()).toBe(true);
    // A forged confirmation (another site cannot know the CSRF token) is refused.
    const forged = await driver.post(`${f.issuerPath}/oauth2/logout`, { client_id: 'mobile', post_logout_redirect_uri: BYE, confirm: 'yes', csrf_token: 'guess' });
    expect(forged.status).toBe(403);
    expect(await signedIn()).toBe(true);
    const form = parseForm(body);
    expect(form.action).toBe(`${f.issuerPath}/oauth2/logout`);
    const done = await driver.post(form.action, { ...form.hidden, confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${BYE}?state=abc`);
    expect(await signedIn()).toBe(false);
  });

  it('a hint for a user who is not signed in to this session asks for confirmation', async () => {
    await register();
    await h.services.users.create(tenantId(), { email: 'bob@example.com', emailVerified: true, password: 'another horse battery' }, SYSTEM_ACTOR);
    await signIn('bob@example.com', 'another horse battery');
    const { id_token } = await exchange(h, f, { clientId: 'mobile', scope: ['openid'] });
    const res = await driver.get(logoutUrl({ id_token_hint: id_token!, post_logout_redirect_uri: BYE }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Sign out?');
    expect(await signedIn()).toBe(true);
  });

  it('with no session, returns to the registered URI at once; with no URI, says signed out', async () => {
    await register();
    const res = await driver.get(logoutUrl({ client_id: 'mobile', post_logout_redirect_uri: BYE, state: 's1' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${BYE}?state=s1`);
    const plain = await driver.get(`${f.issuerPath}/oauth2/logout`);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('You are signed out');
  });

  it.each([
    ['an unregistered return URI', { client_id: 'mobile', post_logout_redirect_uri: 'https://evil.example/' }, 400],
    ['a return URI without a client', { post_logout_redirect_uri: BYE }, 400],
    ['a return URI of another client', { client_id: 'web', post_logout_redirect_uri: BYE }, 400],
    ['an unknown client', { client_id: 'nobody' }, 400],
    ['a hint that is no ID token of this issuer', { id_token_hint: 'a.b.c', post_logout_redirect_uri: BYE }, 400],
    ['a repeated parameter', [['client_id', 'mobile'], ['client_id', 'mobile']], 400],
  ] as [string, Record<string, string> | [string, string][], number][])('refuses %s with a page, never a redirect, and ends nothing', async (_name, params, status) => {
    await register();
    await signIn();
    const res = await driver.get(`${f.issuerPath}/oauth2/logout?${new URLSearchParams(params)}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await signedIn()).toBe(true);
  });

  it('a hint whose audience is not the client_id given is refused', async () => {
    await register();
    await signIn();
    const { id_token } = await exchange(h, f, { clientId: 'mobile', scope: ['openid'] });
    const res = await driver.get(logoutUrl({ id_token_hint: id_token!, client_id: 'web' }));
    expect(res.status).toBe(400);
    expect(await signedIn()).toBe(true);
  });

  it('an access token is not an ID token hint', async () => {
    await register();
    await signIn();
    const { access_token } = await exchange(h, f, { clientId: 'mobile', scope: ['openid'] });
    const res = await driver.get(logoutUrl({ id_token_hint: access_token }));
    expect(res.status).toBe(400);
  });
});
