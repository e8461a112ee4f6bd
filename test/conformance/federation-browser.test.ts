import type { Browser, Page } from 'playwright-core';
import { seriousAxeFindings } from '../helpers/axe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, seedThroughCli, startEngage, type Engage } from './engage-process';
import { startRelyingParty } from './relying-party';
import { HAS_CHROMIUM, launchChromium, pageProblems, TITLE } from '../helpers/browser';

/**
 * A real browser (Debian's chromium via playwright-core) on dist/engage (issue 11 point 3): a
 * relying party (openid-client) of the tenant `shop` signs in a user of the tenant `home`
 * through `engage federations create --source home --target shop`: shop's sign-in page offers
 * "Sign in with home", home's own sign-in page authenticates, and shop answers the relying party
 * with its linked account. After `engage federations delete`, shop no longer offers it.
 */

describe.skipIf(!HAS_CHROMIUM)('a real browser: sign-in at one tenant through a federated one', () => {
  let e: Engage;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;
  let browser: Browser;
  let shopIssuer = '';
  let secret = '';

  beforeAll(async () => {
    e = await startEngage();
    rp = await startRelyingParty(() => shopIssuer, () => secret);
    const shop = await seedThroughCli(e, rp.redirectUri, 'shop');
    shopIssuer = shop.issuer;
    secret = shop.webSecret;
    await e.cliJson(['tenants', 'create', '--slug', 'home']);
    await e.cliJson(['users', 'create', '--tenant', 'home', '--email', 'bob@home.example', '--verified', '--password-stdin'], PASSWORD);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await rp?.close();
    await e?.stop();
  });

  /** A fresh browser context whose page fails the test on any CSP violation or page error. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    const page = await context.newPage();
    return { page, problems: pageProblems(page) };
  }

  it('signs a home user in at shop through home, then stops once the federation is deleted', async () => {
    const created = await e.cliJson<{ sourceIssuer: string; targetIssuer: string; status: string }>(['federations', 'create', '--source', 'home', '--target', 'shop']);
    expect(created).toMatchObject({ sourceIssuer: `${e.url}/t/home`, targetIssuer: shopIssuer, status: 'ACTIVE' });

    const { page, problems } = await newPage();
    await page.goto(`${rp.base}/login`);
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Acme Web');
    await page.getByRole('button', { name: 'Sign in with home' }).click();
    // home's own sign-in page, for the federation's internal client.
    await page.waitForURL((u) => u.pathname === '/t/home/oauth2/authorize');
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – Sign-in at shop');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await page.getByLabel('Email').fill('bob@home.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // shop asks for consent to its EXPLICIT web client, as for any of its users.
    await expect.poll(() => page.title(), TITLE).toBe('Allow access – Acme Web');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.pathname === '/callback');
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as bob@home.example');
    await expect(page.locator('#iss').textContent()).resolves.toBe(shopIssuer);
    expect(problems).toEqual([]);

    // The person is now an account of shop, linked to (home issuer, home subject).
    const shopUsers = await e.cliJson<{ email: string; subject: string }[]>(['users', 'list', '--tenant', 'shop']);
    const bob = shopUsers.find((u) => u.email === 'bob@home.example')!;
    await expect(page.locator('#sub').textContent()).resolves.toBe(bob.subject);

    expect((await e.cliJson<{ items: unknown[] }>(['federations', 'list'])).items).toHaveLength(1);
    expect(await e.cliJson(['federations', 'delete', '--source', 'home', '--target', 'shop'])).toEqual({ source: 'home', target: 'shop', deleted: true });
    expect((await e.cliJson<{ items: unknown[] }>(['federations', 'list'])).items).toEqual([]);

    const after = await newPage();
    await after.page.goto(`${rp.base}/login`);
    await expect.poll(() => after.page.title(), TITLE).toBe('Sign in – Acme Web');
    await expect(after.page.getByRole('button', { name: 'Sign in with home' }).count()).resolves.toBe(0);
    expect(after.problems).toEqual([]);
  });

  it('a sign-in page opened before the deletion no longer goes through', async () => {
    await e.cliJson(['federations', 'create', '--source', 'home', '--target', 'shop']);
    const { page } = await newPage();
    await page.goto(`${rp.base}/login`);
    const button = page.getByRole('button', { name: 'Sign in with home' });
    await expect(button.count()).resolves.toBe(1);
    await e.cliJson(['federations', 'delete', '--source', 'home', '--target', 'shop']);
    await button.click();
    await expect.poll(() => page.title(), TITLE).toBe('This sign-in option is not available');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
  });
});
