import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { FormDriver, parseForm, redirectParams } from '../../../test/conformance/form-driver';
import { APP_CALLBACK, PASSWORD, authorizeUrl, seedTenant } from '../../../test/conformance/fixtures';
import { SYSTEM_ACTOR } from '../audit';

/**
 * The hosted registration and password recovery pages (issue 23 point 6), in process against a
 * real SMTP server on loopback: the links of the sign-in page, the no-enumeration answers, the
 * throttles shared with the native adapter, and where each flow ends.
 */
let h: Harness;
let smtp: TestSmtp;
let seed: Awaited<ReturnType<typeof seedTenant>>;
const NEW_PASSWORD = 'a brand new secret';
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
const errorText = (page: string) => /<p class="error" id="form-error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
const statusText = (page: string) => /<p class="ok" role="status">([\s\S]*?)<\/p>/.exec(page)?.[1].replace(/<[^>]+>/g, '');
const title = (page: string) => /<title>([^<]*)<\/title>/.exec(page)?.[1];
const link = (page: string, text: string) => new RegExp(`<a href="([^"]+)">${text}</a>`).exec(page)?.[1].replace(/&amp;/g, '&');

async function mailedCode(email: string): Promise<string> {
  await h.services.mail.sendDue();
  return smtp.codeFor(email);
}

beforeEach(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test', trustedProxies: 1 });
  seed = await seedTenant(h);
});
afterEach(async () => {
  await h.close();
  await smtp.close();
});

async function selfService() {
  await h.services.tenants.update(seed.tenantId, { slug: 'acme', issuer: seed.issuer, registrationMode: 'SELF_SERVICE' }, SYSTEM_ACTOR);
}

/** The plain text of a mail's quoted-printable parts, soft line breaks joined. */
const mailText = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

/** The sign-in page of a fresh authorization request of the public client. */
async function signInPage(d: FormDriver, headers: Record<string, string> = {}): Promise<string> {
  const res = await d.get(authorizeUrl('acme', {}, 'app'), headers);
  expect(res.status).toBe(200);
  return res.text();
}

describe('hosted password recovery', () => {
  it('from the sign-in page: the same answer for any address, a mailed code, a new password, then sign-in continues the request', async () => {
    const d = driver();
    const other = driver();
    expect((await other.signIn(authorizeUrl('acme', {}, 'app'), 'alice@example.com', PASSWORD)).status).toBe(302);
    const signIn = await signInPage(d);
    expect(link(signIn, 'Create account')).toBeUndefined();
    const forgot = await d.get(link(signIn, 'Forgot password\\?')!);
    expect(forgot.status).toBe(200);
    expect(forgot.headers.get('content-security-policy')).toContain("default-src 'none'");
    const form = await forgot.text();
    expect(title(form)).toBe('Reset your password');
    expect(form).toContain('<label for="email">Email</label>');

    // An unknown address and a known one: the same page; only the known one gets mail.
    const unknown = await d.submit(form, { email: 'nobody@example.com' });
    const known = await d.submit(form, { email: 'alice@example.com' });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    const [unknownPage, knownPage] = [await unknown.text(), await known.text()];
    expect(statusText(unknownPage)).toBe('If an account exists for nobody@example.com, we sent it a code. It is valid for 10 minutes.');
    expect(statusText(knownPage)).toBe('If an account exists for alice@example.com, we sent it a code. It is valid for 10 minutes.');
    const code = await mailedCode('alice@example.com');
    expect(smtp.to('nobody@example.com')).toEqual([]);
    expect(mailText(smtp.to('alice@example.com')[0].raw)).toContain('You can also enter it on this page: http://engage.test/t/acme/oauth2/authorize/recover?email=alice%40example.com');

    // A wrong code, then a password outside the policy (the code is not spent by it), then the right one.
    const wrong = await d.submit(knownPage, { code: code === '000000' ? '111111' : '000000', password: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(errorText(await wrong.text())).toBe('The code is incorrect or has expired. Check the email, or send a new code.');
    const short = await d.submit(knownPage, { code, password: 'short' });
    expect(short.status).toBe(400);
    expect(errorText(await short.text())).toBe('The password must be at least 8 characters.');
    const done = await d.submit(knownPage, { code, password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    const again = await done.text();
    expect(title(again)).toBe('Sign in – Acme App');
    expect(statusText(again)).toBe('Your password was changed and you were signed out everywhere. Sign in with your new password.');

    // The other browser's session no longer signs alice in; the old password is refused, the new one continues the request.
    expect((await other.get(authorizeUrl('acme', { prompt: 'none' }, 'app'))).headers.get('location')).toContain('error=login_required');
    expect((await d.submit(again, { email: 'alice@example.com', password: PASSWORD })).status).toBe(400);
    const ok = await d.submit(again, { email: 'alice@example.com', password: NEW_PASSWORD });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')!.startsWith(APP_CALLBACK)).toBe(true);
    expect(redirectParams(ok)).toMatchObject({ state: 'st-123' });
    expect(redirectParams(ok).code).toBeTruthy();
  });

  it('an address no user could have gets the form again with its rule, and no mail is queued (outside review)', async () => {
    const d = driver();
    const form = await (await d.get('/t/acme/oauth2/authorize/recover')).text();
    for (const email of ['not an email', `${'a'.repeat(65)}@example.com`, 'a@b\r\nBcc: x@evil.test']) {
      const res = await d.submit(form, { email });
      expect(res.status, email).toBe(400);
      expect(await res.text()).toContain('such as name@example.com');
    }
    expect(await h.sql.all('SELECT id FROM mail_outbox')).toEqual([]);
  });

  it('a NUL character in a recovery form is a 400 page that changes nothing, never a 500 (outside review)', async () => {
    const d = driver();
    const form = await (await d.get('/t/acme/oauth2/authorize/recover')).text();
    const bad = await d.submit(form, { email: 'a\u0000b@example.com' });
    expect(bad.status).toBe(400);
    const codeForm = await (await d.get('/t/acme/oauth2/authorize/recover?email=alice%40example.com')).text();
    expect((await d.submit(codeForm, { code: '123456', password: NEW_PASSWORD, email: 'alice\u0000@example.com' })).status).toBe(400);
    expect(smtp.to('alice@example.com')).toHaveLength(0);
  });

  it('from a mail\u2019s link without a request: the code form, then a signed-out success page; a code works once', async () => {
    const d = driver();
    const start = await d.get('/t/acme/oauth2/authorize/recover');
    const form = await start.text();
    const sent = await d.submit(form, { email: 'bob@example.com' });
    expect(sent.status).toBe(200);
    const code = await mailedCode('bob@example.com');
    // Another browser opens the mail's link: the code form with the address filled in.
    const b = driver();
    const opened = await b.get('/t/acme/oauth2/authorize/recover?email=bob%40example.com');
    expect(opened.status).toBe(200);
    const codeForm = await opened.text();
    expect(parseForm(codeForm).hidden.email).toBe('bob@example.com');
    expect(codeForm).toContain('<label for="code">Code from the email</label>');
    expect(codeForm).toContain('<label for="password">New password</label>');
    const done = await b.submit(codeForm, { code, password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    const page = await done.text();
    expect(title(page)).toBe('Your password was changed');
    expect(await h.services.users.verifyPassword(seed.tenantId, 'bob@example.com', NEW_PASSWORD)).toBeTruthy();
    // Spent.
    const twice = await b.submit(codeForm, { code, password: 'yet another secret' });
    expect(twice.status).toBe(400);
    expect(await h.services.users.verifyPassword(seed.tenantId, 'bob@example.com', NEW_PASSWORD)).toBeTruthy();
  });

  it('throttles as the native adapter does: one code per address a minute, five wrong guesses per code, and a CSRF token on every post', async () => {
    const d = driver();
    const form = await (await d.get('/t/acme/oauth2/authorize/recover')).text();
    expect((await d.submit(form, { email: 'alice@example.com' })).status).toBe(200);
    const code = await mailedCode('alice@example.com');
    // The same address again within the resend wait: 429 with Retry-After, whether or not it has an account.
    const soon = await d.submit(form, { email: 'alice@example.com' });
    expect(soon.status).toBe(429);
    expect(soon.headers.get('retry-after')).toBe('60');
    expect(errorText(await soon.text())).toBe('Too many codes were asked for. Wait 60 seconds and try again.');
    expect((await d.submit(form, { email: 'nobody@example.com' })).status).toBe(200);
    expect((await d.submit(form, { email: 'nobody@example.com' })).status).toBe(429);
    // Five wrong guesses spend the code: the right one is refused after them.
    const codePage = await (await d.get('/t/acme/oauth2/authorize/recover?email=alice%40example.com')).text();
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await d.submit(codePage, { code: wrong, password: NEW_PASSWORD })).status).toBe(400);
    expect((await d.submit(codePage, { code, password: NEW_PASSWORD })).status).toBe(400);
    expect(await h.services.users.verifyPassword(seed.tenantId, 'alice@example.com', PASSWORD)).toBeTruthy();
    // A post without the session's CSRF token is refused and sends nothing.
    h.clock.advance(61);
    const forged = await d.post('/t/acme/oauth2/authorize/recover', { email: 'alice@example.com', csrf_token: 'forged' });
    expect(forged.status).toBe(403);
    await h.services.mail.sendDue();
    expect(smtp.to('alice@example.com')).toHaveLength(1);
  });

  it('is not offered without an SMTP server', async () => {
    const bare = await createHarness();
    try {
      await seedTenant(bare);
      const d = new FormDriver(async (u, i) => bare.app.request(u, i), 'http://engage.test');
      const page = await (await d.get(authorizeUrl('acme', {}, 'app'))).text();
      expect(link(page, 'Forgot password\\?')).toBeUndefined();
      expect((await d.get('/t/acme/oauth2/authorize/recover')).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

describe('hosted registration', () => {
  it('is neither linked nor served on a CONTROLLED tenant', async () => {
    const d = driver();
    const page = await signInPage(d);
    expect(link(page, 'Create account')).toBeUndefined();
    const id = parseForm(page).hidden.interaction_id;
    expect((await d.get(`/t/acme/oauth2/authorize/register?interaction_id=${id}`)).status).toBe(404);
    const post = await d.post('/t/acme/oauth2/authorize/register', { ...parseForm(page).hidden, email: 'new@example.com' });
    expect(post.status).toBe(404);
    await h.services.mail.sendDue();
    expect(smtp.to('new@example.com')).toEqual([]);
  });

  it('on a SELF_SERVICE tenant: a mailed code and a password create a verified account, signed in, and the request continues to the client', async () => {
    await selfService();
    const d = driver();
    const signIn = await signInPage(d);
    const open = await d.get(link(signIn, 'Create account')!);
    expect(open.status).toBe(200);
    const form = await open.text();
    expect(title(form)).toBe('Create an account – Acme App');
    const sent = await d.submit(form, { email: 'New@Example.com' });
    expect(sent.status).toBe(200);
    const codePage = await sent.text();
    const code = await mailedCode('new@example.com');
    const short = await d.submit(codePage, { code, password: 'short' });
    expect(short.status).toBe(400);
    const done = await d.submit(codePage, { code, password: NEW_PASSWORD });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')!.startsWith(APP_CALLBACK)).toBe(true);
    expect(redirectParams(done).code).toBeTruthy();
    const user = await h.services.users.findByEmail(seed.tenantId, 'new@example.com');
    expect(user).toMatchObject({ emailVerified: true, status: 'ACTIVE' });
    // Signed in: the next request of this browser needs no page.
    expect((await d.get(authorizeUrl('acme', { prompt: 'none' }, 'app'))).headers.get('location')).toContain('code=');
  });

  it('a taken address gets a notice, not a code, and the page says the same; the resend wait applies', async () => {
    await selfService();
    const d = driver();
    const form = await (await d.get(link(await signInPage(d), 'Create account')!)).text();
    const taken = await d.submit(form, { email: 'alice@example.com' });
    const free = await d.submit(form, { email: 'fresh@example.com' });
    expect(taken.status).toBe(200);
    expect(free.status).toBe(200);
    expect(statusText(await taken.text())).toBe('We sent a message to alice@example.com. Enter the code it holds; it is valid for 10 minutes.');
    await h.services.mail.sendDue();
    expect(smtp.to('alice@example.com')[0].raw).toContain('Someone tried to create');
    expect((await d.submit(form, { email: 'fresh@example.com' })).status).toBe(429);
  });
});
