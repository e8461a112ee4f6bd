import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, parseForm, redirectParams } from '../../../test/conformance/form-driver';
import { APP_CALLBACK, PASSWORD, authorizeUrl, pkce, seedTenant } from '../../../test/conformance/fixtures';
import { THROTTLE, throttleKey } from './throttle';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let seed: Awaited<ReturnType<typeof seedTenant>>;
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
const errorText = (page: string) => /<p class="error" id="form-error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];

async function loginPage(d: FormDriver, url = authorizeUrl('acme', {}, 'app')): Promise<string> {
  const res = await d.get(url);
  expect(res.status).toBe(200);
  return res.text();
}

/** Exchanges a code of the public client and returns the ID token's claims. */
async function idTokenClaims(code: string, verifier: string): Promise<Record<string, unknown>> {
  const body = new URLSearchParams({ grant_type: 'authorization_code', client_id: 'app', code, redirect_uri: APP_CALLBACK, code_verifier: verifier });
  const res = await h.request('/t/acme/oauth2/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  expect(res.status).toBe(200);
  const { id_token } = (await res.json()) as { id_token: string };
  return JSON.parse(Buffer.from(id_token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}

describe('pages and the session cookie', () => {
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedTenant(h);
  });
  afterEach(() => h.close());

  it('serves the sign-in page with strict security headers and accessible markup', async () => {
    const res = await driver().get(authorizeUrl('acme'));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("form-action 'self' https://web.example");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<title>Sign in – Acme Web</title>');
    expect(page).toContain('<label for="email">Email</label>');
    expect(page).toContain('<label for="password">Password</label>');
    expect(page).not.toMatch(/<script|src="http|href="http/);
    // The inline stylesheet is exactly what the hash allows.
    const css = /<style>([\s\S]*?)<\/style>/.exec(page)![1];
    expect(csp).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  });

  it('associates the error text with the fields (aria-describedby)', async () => {
    const d = driver();
    const res = await d.submit(await loginPage(d), { email: 'alice@example.com', password: 'wrong password' });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="form-error" role="alert"');
    expect(page).toMatch(/id="password"[^>]*aria-describedby="form-error"[^>]*aria-invalid="true"/);
  });

  it('sets a 256-bit HttpOnly SameSite=Lax cookie scoped to the issuer path, stored only as a digest, rotated at sign-in', async () => {
    const d = driver();
    const page = await loginPage(d);
    const first = d.jar[0];
    expect(first.attributes).toMatch(/^engage_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/t\/acme; HttpOnly; SameSite=Lax$/);
    const rows = await h.sql.all<{ tokenDigest: string }>('SELECT token_digest AS "tokenDigest" FROM browser_sessions');
    expect(rows.map((r) => r.tokenDigest)).toEqual([createHash('sha256').update(first.value).digest('hex')]);
    expect(JSON.stringify(rows)).not.toContain(first.value);
    await d.submit(page, { email: 'alice@example.com', password: PASSWORD });
    expect(d.jar).toHaveLength(1);
    expect(d.jar[0].value).not.toBe(first.value);
  });

  it('marks the cookie Secure under an https issuer', async () => {
    await h.close();
    h = await createHarness({ publicUrl: 'https://engage.test' });
    seed = await seedTenant(h);
    const d = driver();
    await loginPage(d);
    expect(d.jar[0].attributes).toMatch(/; Secure/);
  });

  it('under a host-only issuer, scopes the cookie to / of that host and posts forms there', async () => {
    await h.services.tenants.setCustomIssuer('acme', 'https://id.acme.example', SYSTEM_ACTOR);
    const d = new FormDriver(async (u, i) => h.app.request(u, { ...i, headers: { ...(i?.headers as Record<string, string>), host: 'id.acme.example' } }), 'https://id.acme.example');
    const res = await d.get(authorizeUrl('acme', {}, 'app').replace('/t/acme', ''));
    expect(res.status).toBe(200);
    expect(parseForm(await res.text()).action).toBe('/oauth2/authorize/login');
    expect(d.jar[0].attributes).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const done = await d.signIn(authorizeUrl('acme', {}, 'app').replace('/t/acme', ''), 'alice@example.com', PASSWORD);
    expect(redirectParams(done).iss).toBe('https://id.acme.example');
  });

  it('refuses an oversized form with a page', async () => {
    const d = driver();
    const form = parseForm(await loginPage(d));
    const res = await d.post(form.action, { ...form.hidden, email: 'a@example.com', password: 'x'.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('expires the session sessionTtl after the last sign-in', async () => {
    const d = driver();
    const silent = async () => redirectParams(await d.get(authorizeUrl('acme', { prompt: 'none' }, 'app')));
    expect((await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD)).status).toBe(302);
    h.clock.advance(h.config.sessionTtl - 10);
    expect((await silent()).code).toBeDefined();
    h.clock.advance(20);
    expect((await silent()).error).toBe('login_required');
    // A sign-in renews the lifetime: the cookie's Max-Age and the server agree.
    expect((await d.signIn(authorizeUrl('acme', { prompt: 'login' }, 'app'), 'alice@example.com', PASSWORD)).status).toBe(302);
    expect(d.jar[0].attributes).toContain(`Max-Age=${h.config.sessionTtl};`);
    h.clock.advance(h.config.sessionTtl - 10);
    expect((await silent()).code).toBeDefined();
    h.clock.advance(20);
    expect((await silent()).error).toBe('login_required');
  });
});

describe('form protections', () => {
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedTenant(h);
  });
  afterEach(() => h.close());

  it('rejects a wrong or missing CSRF token without signing in', async () => {
    const d = driver();
    const form = parseForm(await loginPage(d));
    for (const csrf of ['forged', undefined]) {
      const fields: Record<string, string> = { ...form.hidden, email: 'alice@example.com', password: PASSWORD };
      if (csrf) fields.csrf_token = csrf;
      else delete fields.csrf_token;
      const res = await d.post(form.action, fields);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This form could not be verified');
    }
    expect(Number((await h.sql.get<{ n: number }>('SELECT count(*) AS n FROM session_accounts'))!.n)).toBe(0);
  });

  it('rejects a post without the session cookie, and an interaction opened by another browser', async () => {
    const victim = driver();
    const form = parseForm(await loginPage(victim));
    const noCookie = await h.request(form.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...form.hidden, email: 'alice@example.com', password: PASSWORD }) });
    expect(noCookie.status).toBe(400);
    // An attacker with their own session and a valid CSRF token cannot use the victim's interaction.
    const attacker = driver();
    const own = parseForm(await loginPage(attacker));
    const res = await attacker.post(form.action, { interaction_id: form.hidden.interaction_id, csrf_token: own.hidden.csrf_token, email: 'alice@example.com', password: PASSWORD });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This sign-in request has expired');
  });

  it('rejects a post that is not form encoded, and an interaction used twice', async () => {
    const d = driver();
    const page = await loginPage(d, authorizeUrl('acme'));
    const form = parseForm(page);
    const json = await h.request(form.action, { method: 'POST', headers: { 'content-type': 'application/json', cookie: d.cookieHeader(new URL('http://engage.test/t/acme/'))! }, body: '{}' });
    expect(json.status).toBe(400);
    const consent = await (await d.submit(page, { email: 'alice@example.com', password: PASSWORD })).text();
    expect((await d.submit(consent, { decision: 'allow' })).status).toBe(302);
    const replay = await d.submit(consent, { decision: 'allow' });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
  });
});

describe('failed sign-in throttling', () => {
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedTenant(h);
  });
  afterEach(() => h.close());

  async function attempts(d: FormDriver, email: string, n: number, password = 'wrong password'): Promise<Response[]> {
    const out = [];
    let page = await loginPage(d);
    for (let i = 0; i < n; i++) {
      const res = await d.submit(page, { email, password });
      out.push(res);
      page = await res.clone().text();
    }
    return out;
  }

  it(`answers 429 after ${THROTTLE.emailFreeFailures} failures, identically for unknown accounts, until the lock ends`, async () => {
    const known = await attempts(driver(), 'alice@example.com', THROTTLE.emailFreeFailures + 1);
    const unknown = await attempts(driver(), 'nobody@example.com', THROTTLE.emailFreeFailures + 1);
    for (const series of [known, unknown]) {
      expect(series.map((r) => r.status)).toEqual([...Array(THROTTLE.emailFreeFailures).fill(400), 429]);
      expect(series.at(-1)!.headers.get('retry-after')).toBe(String(THROTTLE.baseLockSeconds));
    }
    const texts = async (rs: Response[]) => Promise.all(rs.map(async (r) => errorText(await r.text())));
    expect(await texts(known)).toEqual(await texts(unknown));
    // Even the right password waits for the lock to end, then works and clears the counter.
    const d = driver();
    const locked = await d.submit(await loginPage(d), { email: 'alice@example.com', password: PASSWORD });
    expect(locked.status).toBe(429);
    h.clock.advance(THROTTLE.baseLockSeconds);
    const ok = await d.submit(await locked.text(), { email: 'alice@example.com', password: PASSWORD });
    expect(ok.status).toBe(302);
  });

  it('doubles the lock with each further failure', async () => {
    const d = driver();
    const series = await attempts(d, 'bob@example.com', THROTTLE.emailFreeFailures);
    h.clock.advance(THROTTLE.baseLockSeconds);
    const next = await d.submit(await series.at(-1)!.text(), { email: 'bob@example.com', password: 'still wrong' });
    expect(next.status).toBe(400);
    const locked = await d.submit(await next.text(), { email: 'bob@example.com', password: 'still wrong' });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe(String(THROTTLE.baseLockSeconds * 2));
  });

  const throttleRow = (kind: 'email' | 'ip', value: string) =>
    h.sql.get('SELECT failures, locked_until AS "lockedUntil" FROM login_throttle WHERE key = ?', [throttleKey(seed.tenantId, kind, value)]);

  it('20 parallel wrong passwords for one email: only the free attempts are verified, the others wait', async () => {
    const verify = vi.spyOn(h.services.users, 'verifyPassword');
    const d = driver();
    const page = await loginPage(d);
    const results = await Promise.all(Array.from({ length: 20 }, () => d.submit(page, { email: 'alice@example.com', password: 'wrong password' })));
    expect(verify).toHaveBeenCalledTimes(THROTTLE.emailFreeFailures);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(THROTTLE.emailFreeFailures).fill(400), ...Array(20 - THROTTLE.emailFreeFailures).fill(429)]);
    for (const r of results.filter((x) => x.status === 429)) expect(r.headers.get('retry-after')).toBe(String(THROTTLE.baseLockSeconds));
    expect(await throttleRow('email', 'alice@example.com')).toEqual({ failures: THROTTLE.emailFreeFailures, lockedUntil: h.clock.nowSeconds() + THROTTLE.baseLockSeconds });
  });

  it('an attempt is counted before verification; a correct password gives the address its attempt back', async () => {
    const s = h.services.sessions;
    const ip = '203.0.113.9';
    for (let i = 0; i < THROTTLE.ipFreeFailures - 1; i++) expect((await s.beginAttempt(seed.tenantId, `u${i}@example.com`, ip)).wait).toBe(0);
    const last = await s.beginAttempt(seed.tenantId, 'alice@example.com', ip);
    expect(last.ticket).toBeDefined();
    expect(await throttleRow('ip', ip)).toEqual({ failures: THROTTLE.ipFreeFailures, lockedUntil: h.clock.nowSeconds() + THROTTLE.baseLockSeconds });
    expect(await s.beginAttempt(seed.tenantId, 'other@example.com', ip)).toEqual({ wait: THROTTLE.baseLockSeconds });
    await s.attemptSucceeded(last.ticket!);
    expect(await throttleRow('ip', ip)).toEqual({ failures: THROTTLE.ipFreeFailures - 1, lockedUntil: 0 });
    expect(await throttleRow('email', 'alice@example.com')).toBeUndefined();
    expect((await s.beginAttempt(seed.tenantId, 'other@example.com', ip)).wait).toBe(0);
  });

  it(`limits one client address to ${THROTTLE.ipFreeFailures} failures across accounts`, async () => {
    const d = driver();
    let page = await loginPage(d);
    for (let i = 0; i < THROTTLE.ipFreeFailures; i++) {
      const res = await d.submit(page, { email: `user${i}@example.com`, password: 'wrong password' });
      expect(res.status).toBe(400);
      page = await res.text();
    }
    const res = await d.submit(page, { email: 'fresh@example.com', password: 'wrong password' });
    expect(res.status).toBe(429);
  }, 60_000);
});

describe('accounts and tenants', () => {
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedTenant(h);
  });
  afterEach(() => h.close());

  it('prompt=select_account lists the accounts signed in to this browser and signs in the one chosen', async () => {
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    const relogin = await d.get(authorizeUrl('acme', { prompt: 'login' }, 'app'));
    expect((await d.submit(await relogin.text(), { email: 'bob@example.com', password: PASSWORD })).status).toBe(302);

    const { verifier, challenge } = pkce();
    const chooser = await d.get(authorizeUrl('acme', { prompt: 'select_account', code_challenge: challenge }, 'app'));
    expect(chooser.status).toBe(200);
    const page = await chooser.text();
    expect(page).toContain('Choose an account');
    expect(page).toContain('alice@example.com');
    expect(page).toContain('bob@example.com');
    expect(page).toContain('Use another account');
    const res = await d.submit(page, { account: seed.alice.id });
    expect(res.status).toBe(302);
    const claims = await idTokenClaims(redirectParams(res).code, verifier);
    expect(claims.sub).toBe(seed.alice.subject);
    // The chosen account is now the active one for silent requests.
    const { verifier: v2, challenge: c2 } = pkce();
    const silent = redirectParams(await d.get(authorizeUrl('acme', { prompt: 'none', code_challenge: c2 }, 'app')));
    expect((await idTokenClaims(silent.code, v2)).sub).toBe(seed.alice.subject);
  });

  it('"use another account" shows the sign-in form; an account not in the session is refused', async () => {
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    const page = await (await d.get(authorizeUrl('acme', { prompt: 'select_account' }, 'app'))).text();
    const other = await d.submit(page, { account: '' });
    expect(other.status).toBe(200);
    expect(await other.text()).toContain('<h1>Sign in</h1>');
    const forged = await d.submit(page, { account: seed.bob.id });
    expect(forged.status).toBe(400);
  });

  it('prompt=select_account without a session shows the sign-in form', async () => {
    const res = await driver().get(authorizeUrl('acme', { prompt: 'select_account' }, 'app'));
    expect(await res.text()).toContain('<h1>Sign in</h1>');
  });

  it('a session at one tenant does not sign anyone in at another', async () => {
    const globex = await seedTenant(h, 'globex');
    const d = driver();
    await d.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD);
    const acmeCookie = d.cookieHeader(new URL('http://engage.test/t/acme/oauth2/authorize'))!;
    // The browser does not send it (Path), and the server does not accept it if sent anyway.
    expect(d.cookieHeader(new URL('http://engage.test/t/globex/oauth2/authorize'))).toBeUndefined();
    const res = await h.request(authorizeUrl('globex', { prompt: 'none' }, 'app'), { headers: { cookie: acmeCookie } });
    const p = redirectParams(res);
    expect(p).toMatchObject({ error: 'login_required', iss: globex.issuer });
    // And a form posted to the other tenant with this tenant's cookie and token is refused.
    const acmePage = parseForm(await (await d.get(authorizeUrl('acme', { prompt: 'login' }, 'app'))).text());
    const cross = await h.request('/t/globex/oauth2/authorize/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: d.cookieHeader(new URL('http://engage.test/t/acme/x'))! },
      body: new URLSearchParams({ ...acmePage.hidden, email: 'alice@example.com', password: PASSWORD }),
    });
    expect(cross.status).toBe(400);
    expect(cross.headers.get('set-cookie')).toBeNull();
  });
});
