import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../src/identity/audit';
import { createHarness, type Harness } from '../helpers/harness';
import { seriousAxeFindings } from '../helpers/axe';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { PASSWORD, WEB_CALLBACK, authorizeUrl, seedTenant } from './fixtures';
import { HAS_CHROMIUM, launchChromium, pageProblems, TITLE } from '../helpers/browser';

/**
 * The hosted registration and password recovery pages (issue 23 point 6) in a real browser
 * (Debian's chromium via playwright-core), served in process on a loopback port with a real SMTP
 * server: found by role and label, axe-clean, no CSP violation. The client's callback is answered
 * by the test (page.route), as a relying party would.
 */

describe.skipIf(!HAS_CHROMIUM)('a real browser: hosted registration and password recovery', () => {
  let h: Harness;
  let smtp: TestSmtp;
  let server: ServerType;
  let browser: Browser;
  let base = '';
  let tenantId = '';

  beforeAll(async () => {
    smtp = await startSmtp();
    // The port first: the issuer (and so every link and form) names it.
    let app: { fetch: (r: Request) => Response | Promise<Response> } | undefined;
    server = serve({ fetch: (r) => app!.fetch(r), port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await createHarness({ publicUrl: base, smtpUrl: smtp.url, mailFrom: 'auth@engage.test' });
    app = h.app;
    const seed = await seedTenant(h);
    tenantId = seed.tenantId;
    await h.services.tenants.update(tenantId, { slug: 'acme', issuer: seed.issuer, registrationMode: 'SELF_SERVICE' }, SYSTEM_ACTOR);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await h?.close();
    await smtp?.close();
  });

  /** A page that records CSP violations and page errors, whose client callback answers "signed in". */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    await context.route(`${WEB_CALLBACK}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Back at the client</title>' }));
    const page = await context.newPage();
    return { page, problems: pageProblems(page) };
  }
  const mailedCode = async (email: string) => {
    await h.services.mail.sendDue();
    return smtp.codeFor(email);
  };

  it('creates an account from the sign-in page: a mailed code and a password, consent, then back at the client', async () => {
    const { page, problems } = await newPage();
    await page.goto(base + authorizeUrl('acme'));
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByRole('link', { name: 'Create account' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Create an account – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Email').fill('carol@example.com');
    await page.getByRole('button', { name: 'Send code' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Confirm your email address – Acme Web');
    await expect(page.getByRole('status').textContent()).resolves.toContain('carol@example.com');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Code from the email').fill(await mailedCode('carol@example.com'));
    await page.getByLabel('Choose a password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The password must be at least 8 characters.');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Code from the email').fill(smtp.codeFor('carol@example.com'));
    await page.getByLabel('Choose a password').fill('carol has a long secret');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Allow access – Acme Web');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${WEB_CALLBACK}?**`);
    const back = new URL(page.url());
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('st-123');
    expect(await h.services.users.findByEmail(tenantId, 'carol@example.com')).toMatchObject({ emailVerified: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('recovers a password from "Forgot password?": the code, a new password, then signs in with it', async () => {
    const { page, problems } = await newPage();
    await page.goto(base + authorizeUrl('acme'));
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Reset your password');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByRole('button', { name: 'Send code' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Choose a new password');
    await expect(page.getByRole('status').textContent()).resolves.toBe('If an account exists for alice@example.com, we sent it a code. It is valid for 10 minutes.');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    const code = await mailedCode('alice@example.com');
    await page.getByLabel('Code from the email').fill(code === '000000' ? '111111' : '000000');
    await page.getByLabel('New password').fill('alice new long secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The code is incorrect or has expired. Check the email, or send a new code.');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Code from the email').fill(code);
    await page.getByLabel('New password').fill('alice new long secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Acme Web');
    await expect(page.getByRole('status').textContent()).resolves.toContain('Your password was changed');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Password').fill('alice new long secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Allow access – Acme Web');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('the link of a recovery mail opens the code form; the success page is signed out and axe-clean', async () => {
    const { page, problems } = await newPage();
    const token = { actor: SYSTEM_ACTOR };
    const tenant = await h.services.tenants.get('acme');
    await h.services.native.sendRecoveryMail({ tenant, issuer: h.services.tenants.issuerOf(tenant) }, (await h.services.users.findByEmail(tenantId, 'bob@example.com'))!.id, token);
    const code = await mailedCode('bob@example.com');
    const raw = smtp.to('bob@example.com').at(-1)!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    await page.goto(/You can also enter it on this page: (\S+)/.exec(raw)![1]);
    await expect.poll(() => page.title(), TITLE).toBe('Choose a new password');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Code from the email').fill(code);
    await page.getByLabel('New password').fill('bob has a new secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Your password was changed');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    expect((await h.services.users.verifyPassword(tenantId, 'bob@example.com', 'bob has a new secret'))).toBeTruthy();
    expect(await h.services.users.verifyPassword(tenantId, 'bob@example.com', PASSWORD)).toBeUndefined();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
