import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { PASSWORD, authorizeUrl, seedTenant } from '../../../test/conformance/fixtures';
import { stepAt, totpCode } from '../mfa/totp';
import { THROTTLE } from './throttle';

/** The browser sign-in's second step (issue 10): after the password, a user with a factor gives a code. */
let h: Harness;
let seed: Awaited<ReturnType<typeof seedTenant>>;
let secret: string;
let recovery: string[];
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
const code = (d = 0) => totpCode(secret, stepAt(h.clock.now().getTime()) + d);
const APP = (o: Record<string, string | null> = {}) => authorizeUrl('acme', o, 'app');

beforeEach(async () => {
  h = await createHarness();
  seed = await seedTenant(h);
  const e = await h.services.mfa.beginEnrolment(seed.tenantId, seed.alice.id, 'acme', 'alice@example.com');
  recovery = await h.services.mfa.confirmEnrolment(seed.tenantId, seed.alice.id, totpCode(e.secret, stepAt(h.clock.now().getTime())));
  secret = e.secret;
  h.clock.advance(90);
});
afterEach(() => h.close());

async function passwordStep(d: FormDriver, url = APP()) {
  const res = await d.signIn(url, 'alice@example.com', PASSWORD);
  expect(res.status).toBe(200);
  const page = await res.text();
  expect(page).toContain('<h1>Two-step verification</h1>');
  return page;
}

describe('browser sign-in with a second factor', () => {
  it('asks for the authenticator code after the password; the session is signed in only after it', async () => {
    const d = driver();
    const page = await passwordStep(d);
    // Not signed in yet: a silent request still needs a login.
    expect(redirectParams(await d.get(APP({ prompt: 'none' }))).error).toBe('login_required');
    const wrong = await d.submit(page, { method: 'totp', code: '000000' });
    expect(wrong.status).toBe(400);
    const again = await wrong.text();
    expect(again).toContain('The code is incorrect or was already used.');
    const done = await d.submit(again, { method: 'totp', code: code() });
    expect(done.status).toBe(302);
    expect(redirectParams(done)).toMatchObject({ state: 'st-123', iss: seed.issuer });
    expect(redirectParams(done).code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Signed in now: single sign-on without asking again.
    expect(redirectParams(await d.get(APP({ prompt: 'none' }))).code).toBeDefined();
  });

  it('a code accepted once is refused in another sign-in', async () => {
    const c = code();
    const first = driver();
    expect((await first.submit(await passwordStep(first), { method: 'totp', code: c })).status).toBe(302);
    const second = driver();
    const res = await second.submit(await passwordStep(second), { method: 'totp', code: c });
    expect(res.status).toBe(400);
  });

  it('takes a recovery code instead, shows its replacement once, then goes on to the client', async () => {
    const d = driver();
    const page = await passwordStep(d);
    const switched = await d.submit(page, { method: 'recovery' });
    expect(switched.status).toBe(200);
    const form = await switched.text();
    expect(form).toContain('Enter one of your recovery codes.');
    const shown = await d.submit(form, { method: 'recovery', code: recovery[0] });
    expect(shown.status).toBe(200);
    const html = await shown.text();
    const replacement = /<code>([^<]+)<\/code>/.exec(html)?.[1] ?? '';
    expect(replacement).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const done = await d.submit(html, {});
    expect(done.status).toBe(302);
    expect(redirectParams(done).code).toBeDefined();
    // The used code is gone; the replacement works.
    const d2 = driver();
    expect((await d2.submit(await passwordStep(d2), { method: 'recovery', code: recovery[0] })).status).toBe(400);
    const d3 = driver();
    expect((await d3.submit(await passwordStep(d3), { method: 'recovery', code: replacement })).status).toBe(200);
  });

  it('is throttled like the password: after the free failures, 429 with Retry-After, even for the right code', async () => {
    const d = driver();
    let page = await passwordStep(d);
    for (let i = 0; i < THROTTLE.emailFreeFailures; i++) {
      const r = await d.submit(page, { method: 'totp', code: '000000' });
      expect(r.status).toBe(400);
      page = await r.text();
    }
    const locked = await d.submit(page, { method: 'totp', code: code() });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a second-step post without a proven password, or with a bad CSRF token, is refused', async () => {
    const d = driver();
    const login = await d.get(APP());
    const html = await login.text();
    const interaction = /name="interaction_id" value="([^"]+)"/.exec(html)![1];
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1];
    const r = await d.post('/t/acme/oauth2/authorize/mfa', { interaction_id: interaction, csrf_token: csrf, method: 'totp', code: code() });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('This sign-in request has expired');
    const page = await passwordStep(d);
    const bad = await d.post('/t/acme/oauth2/authorize/mfa', { interaction_id: /name="interaction_id" value="([^"]+)"/.exec(page)![1], csrf_token: 'x', method: 'totp', code: code() });
    expect(bad.status).toBe(403);
  });

  it('a user without a factor signs in with the password alone', async () => {
    const res = await driver().signIn(APP(), 'bob@example.com', PASSWORD);
    expect(res.status).toBe(302);
  });
});
