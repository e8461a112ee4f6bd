import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { seriousAxeFindings } from '../helpers/axe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, seedThroughCli, startEngage, type Engage } from './engage-process';
import { startRelyingParty } from './relying-party';
import { HAS_CHROMIUM, launchChromium, pageProblems, TITLE } from '../helpers/browser';

/**
 * A real browser (Debian's chromium via playwright-core) signs in to a real relying party
 * (openid-client in a tiny loopback web app, relying-party.ts; no prompt unless the test asks)
 * through engage's sign-in, consent and account-selection pages. Set CONFORMANCE_SCREENSHOTS=<dir> to keep screenshots.
 */
const SHOTS = process.env.CONFORMANCE_SCREENSHOTS;

describe.skipIf(!HAS_CHROMIUM)('a real browser signs in through the pages', () => {
  let e: Engage;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;
  let browser: Browser;
  let issuer = '';
  let secret = '';

  beforeAll(async () => {
    e = await startEngage();
    rp = await startRelyingParty(() => issuer, () => secret, {});
    const seed = await seedThroughCli(e, rp.redirectUri);
    issuer = seed.issuer;
    secret = seed.webSecret;
    await e.cli(['users', 'create', '--tenant', 'acme', '--email', 'bob@example.com', '--verified', '--password-stdin'], PASSWORD);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await rp?.close();
    await e?.stop();
  });

  /** A page that fails the test on any CSP violation or page error. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 800 } });
    const page = await context.newPage();
    return { page, problems: pageProblems(page) };
  }

  /** Consent is remembered per subject and client, so it is asked only the first time. */
  async function signIn(page: Page, email: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    if ((await page.title()).startsWith('Allow access')) await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${rp.base}/callback?**`);
  }

  async function shot(page: Page, name: string) {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  it('signs in, consents, and lands at the relying party signed in', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${rp.base}/login`);
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'sign-in');
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('email address or password is incorrect');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'sign-in-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Allow access – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${rp.base}/callback?**`);
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as alice@example.com');
    expect(problems).toEqual([]);

    // Single sign-on: a second visit goes straight through.
    await page.goto(`${rp.base}/login`);
    await page.waitForURL(`${rp.base}/callback?**`);
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as alice@example.com');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'engage_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/t/acme' });
    await page.context().close();
  }, 60_000);

  it('selects between two accounts signed in to the same browser', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${rp.base}/login`);
    await signIn(page, 'alice@example.com');
    await page.goto(`${rp.base}/login?prompt=login`);
    await signIn(page, 'bob@example.com');
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as bob@example.com');

    await page.goto(`${rp.base}/login?prompt=select_account`);
    await expect.poll(() => page.title(), TITLE).toBe('Choose an account – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'select-account');
    await page.getByRole('button', { name: 'alice@example.com' }).click();
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as alice@example.com');

    await page.goto(`${rp.base}/login?prompt=select_account`);
    await page.getByRole('button', { name: 'Use another account' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Acme Web');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
