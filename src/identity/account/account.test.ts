import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, parseForm } from '../../../test/conformance/form-driver';
import { APP_CALLBACK, authorizeUrl, PASSWORD, pkce, seedTenant } from '../../../test/conformance/fixtures';
import { stepAt, totpCode } from '../mfa/totp';

/** The account page `{issuer}/account` in process (issue 10); the Chromium test is test/conformance/account-browser.test.ts. */
let h: Harness;
let seed: Awaited<ReturnType<typeof seedTenant>>;
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
const csrfOf = (page: string) => /name="csrf_token" value="([^"]+)"/.exec(page)![1];
const codeAt = (secret: string, d = 0) => totpCode(secret, stepAt(h.clock.now().getTime()) + d);

beforeEach(async () => {
  h = await createHarness();
  seed = await seedTenant(h);
});
afterEach(() => h.close());

/** Signs in through the account page's own form; returns the account page's HTML. */
async function signIn(d: FormDriver, password = PASSWORD): Promise<{ res: Response; page: string }> {
  const login = await d.get('/t/acme/account');
  expect(login.status).toBe(200);
  const page = await login.text();
  expect(parseForm(page).action).toBe('/t/acme/account/login');
  const res = await d.submit(page, { email: 'alice@example.com', password });
  if (res.status !== 303) return { res, page: await res.text() };
  expect(res.headers.get('location')).toBe(`${seed.issuer}/account`);
  const home = await d.get('/t/acme/account');
  return { res: home, page: await home.text() };
}

async function enrol(d: FormDriver, page: string) {
  const enrolPage = await (await d.post('/t/acme/account/totp/enrol', { csrf_token: csrfOf(page) })).text();
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrolPage)![1];
  const done = await d.post('/t/acme/account/totp/confirm', { csrf_token: csrfOf(enrolPage), code: codeAt(secret) });
  const codes = [...(await done.text()).matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((m) => m[1]);
  h.clock.advance(90);
  return { secret, codes };
}

describe('{issuer}/account', () => {
  it('asks a visitor to sign in, then shows the account with the sign-in pages\' security headers', async () => {
    const d = driver();
    const { res, page } = await signIn(d);
    expect(res.status).toBe(200);
    expect(page).toContain('Signed in as <strong>alice@example.com</strong>');
    expect(page).toContain('Set up an authenticator app');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(page).not.toMatch(/<script/i);
    // Another tenant's account page does not know this browser.
    await seedTenant(h, 'globex');
    expect(await (await d.get('/t/globex/account')).text()).toContain('<h1>Sign in</h1>');
    // Unknown issuer: the empty 404 of the issuer's browser routes.
    const none = await d.get('/t/nope/account');
    expect(none.status).toBe(404);
  });

  it('enrols an authenticator: QR code, confirmation with a first code, recovery codes shown once', async () => {
    const d = driver();
    const { page } = await signIn(d);
    const enrolRes = await d.post('/t/acme/account/totp/enrol', { csrf_token: csrfOf(page) });
    const enrolPage = await enrolRes.text();
    expect(enrolPage).toMatch(/<svg class="qr" role="img"[^>]*viewBox/);
    expect(await h.services.mfa.hasSecondFactor(seed.tenantId, seed.alice.id)).toBe(false);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrolPage)![1];
    const wrong = await d.post('/t/acme/account/totp/confirm', { csrf_token: csrfOf(enrolPage), code: '000000' });
    expect(wrong.status).toBe(400);
    const retry = await wrong.text();
    expect(retry).toContain(secret); // the same pending secret, shown again
    const done = await d.post('/t/acme/account/totp/confirm', { csrf_token: csrfOf(retry), code: codeAt(secret) });
    expect(done.status).toBe(200);
    const codes = [...(await done.text()).matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    expect(await h.services.mfa.hasSecondFactor(seed.tenantId, seed.alice.id)).toBe(true);
    const home = await (await d.get('/t/acme/account')).text();
    expect(home).toContain('<span id="codes-left">10</span>');
    for (const c of codes) expect(home).not.toContain(c);
  });

  it('a user with a factor signs in to the account page with the second step too', async () => {
    const first = driver();
    const { codes } = await enrol(first, (await signIn(first)).page);
    const d = driver();
    const { res, page } = await signIn(d);
    expect(res.status).toBe(200);
    expect(page).toContain('<h1>Two-step verification</h1>');
    expect(parseForm(page).action).toBe('/t/acme/account/mfa');
    // Not signed in between the two steps.
    expect(await (await d.get('/t/acme/account')).text()).toContain('<h1>Sign in</h1>');
    const shown = await d.post('/t/acme/account/mfa', { ...parseForm(page).hidden, method: 'recovery', code: codes[0] });
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Save your new recovery code');
    expect(await (await d.get('/t/acme/account')).text()).toContain('Signed in as');
  });

  it('new recovery codes and removal need the password or a current code; the old codes stop working', async () => {
    const d = driver();
    const { page } = await signIn(d);
    const { secret, codes } = await enrol(d, page);
    const home = await (await d.get('/t/acme/account')).text();
    const refused = await d.post('/t/acme/account/recovery-codes', { csrf_token: csrfOf(home), proof: 'wrong password' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The password or code is incorrect.');
    const fresh = await d.post('/t/acme/account/recovery-codes', { csrf_token: csrfOf(home), proof: PASSWORD });
    expect(fresh.status).toBe(200);
    const newCodes = [...(await fresh.text()).matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(newCodes).toHaveLength(10);
    expect(await h.services.mfa.verifySecondFactor(seed.tenantId, seed.alice.id, 'recovery', codes[5])).toEqual({ ok: false });
    const removed = await d.post('/t/acme/account/totp/remove', { csrf_token: csrfOf(home), proof: codeAt(secret) });
    expect(removed.status).toBe(200);
    expect(await removed.text()).toContain('Two-step verification is off.');
    expect(await h.services.mfa.hasSecondFactor(seed.tenantId, seed.alice.id)).toBe(false);
  });

  it('proofs on the account page are throttled: after the free failures even the right password waits (429)', async () => {
    const d = driver();
    const { page } = await signIn(d);
    await enrol(d, page);
    const csrf = csrfOf(page);
    for (let i = 0; i < 5; i++) expect((await d.post('/t/acme/account/totp/remove', { csrf_token: csrf, proof: `wrong ${i}` })).status).toBe(400);
    const locked = await d.post('/t/acme/account/totp/remove', { csrf_token: csrf, proof: PASSWORD });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await h.services.mfa.hasSecondFactor(seed.tenantId, seed.alice.id)).toBe(true);
  });

  it('changes the password: the current one is required and the tenant policy applies', async () => {
    const d = driver();
    const { page } = await signIn(d);
    const csrf = csrfOf(page);
    const wrong = await d.post('/t/acme/account/password', { csrf_token: csrf, current_password: 'nope nope', new_password: 'a brand new secret' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('The current password is incorrect.');
    const weak = await d.post('/t/acme/account/password', { csrf_token: csrf, current_password: PASSWORD, new_password: 'short' });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('at least 8 characters');
    const ok = await d.post('/t/acme/account/password', { csrf_token: csrf, current_password: PASSWORD, new_password: 'a brand new secret' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Your password was changed.');
    expect(await h.services.users.verifyPassword(seed.tenantId, 'alice@example.com', 'a brand new secret')).toBeDefined();
    expect(await h.services.users.verifyPassword(seed.tenantId, 'alice@example.com', PASSWORD)).toBeUndefined();
  });

  /** Another browser signs alice in to the native app by the authorization pages: its session and a refresh token. */
  async function otherBrowserWithRefreshToken(): Promise<{ browser: FormDriver; refreshToken: string }> {
    const browser = driver();
    const { verifier, challenge } = pkce();
    const res = await browser.signIn(authorizeUrl('acme', { scope: 'openid offline_access', code_challenge: challenge }, 'app'), 'alice@example.com', PASSWORD);
    expect(res.status).toBe(302);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await h.app.request('/t/acme/oauth2/token', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'app', code, redirect_uri: APP_CALLBACK, code_verifier: verifier }).toString(),
    });
    expect(token.status).toBe(200);
    return { browser, refreshToken: ((await token.json()) as { refresh_token: string }).refresh_token };
  }
  const refresh = (refreshToken: string) =>
    h.app.request('/t/acme/oauth2/token', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: refreshToken }).toString(),
    });

  it('offers "Sign out other sessions", checked by default, with an accessible label', async () => {
    const { page } = await signIn(driver());
    expect(page).toContain('<input id="sign_out_others" name="sign_out_others" type="checkbox" value="yes" checked aria-describedby="sign_out_others-hint">');
    expect(page).toContain('<label for="sign_out_others">Sign out other sessions</label>');
  });

  it('a password change with "Sign out other sessions" ends refresh tokens and other sessions, not this one (issue 21)', async () => {
    const other = await otherBrowserWithRefreshToken();
    const d = driver();
    const { page } = await signIn(d);
    const ok = await d.post('/t/acme/account/password', { csrf_token: csrfOf(page), current_password: PASSWORD, new_password: 'a brand new secret', sign_out_others: 'yes' });
    expect(ok.status).toBe(200);
    // The refresh token issued before the change: invalid_grant.
    const refused = await refresh(other.refreshToken);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await ok.text()).toContain('Your password was changed. Your other sessions were signed out.');
    // The other browser is signed out; this one is still signed in and can use its session.
    expect(await (await other.browser.get('/t/acme/account')).text()).toContain('<h1>Sign in</h1>');
    const home = await (await d.get('/t/acme/account')).text();
    expect(home).toContain('Signed in as <strong>alice@example.com</strong>');
    const enrol = await d.post('/t/acme/account/totp/enrol', { csrf_token: csrfOf(home) });
    expect(enrol.status).toBe(200);
    expect(await h.services.users.verifyPassword(seed.tenantId, 'alice@example.com', 'a brand new secret')).toBeDefined();
  });

  it('a password change with the box unchecked keeps refresh tokens and other sessions', async () => {
    const other = await otherBrowserWithRefreshToken();
    const d = driver();
    const { page } = await signIn(d);
    const ok = await d.post('/t/acme/account/password', { csrf_token: csrfOf(page), current_password: PASSWORD, new_password: 'a brand new secret' });
    expect(ok.status).toBe(200);
    const body = await ok.text();
    expect(body).toContain('Your password was changed.');
    expect(body).not.toContain('other sessions were signed out');
    expect((await refresh(other.refreshToken)).status).toBe(200);
    expect(await (await other.browser.get('/t/acme/account')).text()).toContain('Signed in as <strong>alice@example.com</strong>');
  });

  it('refuses a form with a wrong CSRF token, and a signed-out post gets the sign-in form', async () => {
    const d = driver();
    await signIn(d);
    const forged = await d.post('/t/acme/account/totp/enrol', { csrf_token: 'forged' });
    expect(forged.status).toBe(403);
    expect(await h.services.mfa.status(seed.tenantId, seed.alice.id)).toMatchObject({ pending: false });
    const stranger = await driver().post('/t/acme/account/password', { csrf_token: 'x', current_password: PASSWORD, new_password: 'another long one' });
    expect(await stranger.text()).toContain('<h1>Sign in</h1>');
    expect(await h.services.users.verifyPassword(seed.tenantId, 'alice@example.com', PASSWORD)).toBeDefined();
  });

  it('an account sign-in interaction cannot be used at the authorization pages, nor the reverse', async () => {
    const d = driver();
    const login = await (await d.get('/t/acme/account')).text();
    const { hidden } = parseForm(login);
    const r = await d.post('/t/acme/oauth2/authorize/login', { ...hidden, email: 'alice@example.com', password: PASSWORD });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('This application is not available');
  });
});
