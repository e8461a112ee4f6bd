import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { seriousAxeFindings } from './axe';
import { launchChromium } from './browser';
import type { RunningServer, Sandbox } from './binary';
import { ENDPOINTS } from '../../src/console/web/endpoints';

/**
 * What the console's browser tests share (issue 25): an operator signed in to the console of a
 * running `engage serve` in Debian's chromium, every API call the page makes recorded (so a test
 * can check it is a documented operation), axe-core on demand, and screenshots at laptop and
 * phone widths under CONSOLE_SCREENSHOTS (CI keeps them as artifacts; never committed).
 */
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const OPERATOR = { email: 'admin@example.com', password: 'correct-horse-battery-9' };

export interface ConsoleSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every request the page made to the server, as "METHOD /path" (query left out). */
  requests: string[];
  /** Page errors, console errors and CSP violations seen so far (a test expects none). */
  problems: string[];
  /** What the token endpoint handed the page (a sign-out test checks none is left alive). */
  tokens: { access_token: string; refresh_token?: string; resource: string }[];
  /** Opens a console path (`/identity/tenants`) and waits for its main heading. */
  open(consolePath: string): Promise<void>;
  /** axe-core on the current page (no serious or critical finding) and screenshots at both widths. */
  check(name: string): Promise<void>;
  close(): Promise<void>;
}

/** An operator with every permission (created with the CLI, as a user would). */
export async function createOperator(sb: Sandbox, who = OPERATOR): Promise<void> {
  await sb.cli(['operators', 'create', '--email', who.email, '--password-stdin'], { stdin: `${who.password}\n` });
}

/** Signs in through the control issuer's hosted page, as a person: the console then shows `landing`. */
export async function signInToConsole(server: RunningServer, who = OPERATOR, landing = '/identity'): Promise<ConsoleSession> {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: LAPTOP, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  const tokens: ConsoleSession['tokens'] = [];
  page.on('response', async (r) => {
    if (!r.url().endsWith('/oauth2/token') || r.status() !== 200) return;
    const body = (await r.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string };
    const resource = new URLSearchParams(r.request().postData() ?? '').get('resource') ?? '';
    if (body.access_token) tokens.push({ access_token: body.access_token, refresh_token: body.refresh_token, resource });
  });
  const base = new URL(server.url);
  page.on('request', (r: Request) => {
    const u = new URL(r.url());
    if (u.host === base.host) requests.push(`${r.method()} ${u.pathname}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${server.url}/console${landing}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/console${landing}`);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  const shots = process.env.CONSOLE_SCREENSHOTS;
  return {
    browser,
    context,
    page,
    requests,
    problems,
    tokens,
    async open(consolePath) {
      await page.goto(`${server.url}/console${consolePath}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    },
    async check(name) {
      expect(await seriousAxeFindings(page), `axe on ${name}`).toEqual([]);
      // Readable at a phone's width: the page itself never scrolls sideways (wide tables scroll in their own box).
      await page.setViewportSize(PHONE);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, `${name} at ${PHONE.width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
      if (shots) {
        const dir = path.join(shots, process.env.ENGAGE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite');
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: path.join(dir, `${name}-phone.png`), fullPage: true });
        await page.setViewportSize(LAPTOP);
        await page.screenshot({ path: path.join(dir, `${name}-laptop.png`), fullPage: true });
      }
      await page.setViewportSize(LAPTOP);
    },
    async close() {
      await browser.close();
    },
  };
}

/** The administration API calls among recorded requests ("METHOD /t/control/identity/admin/..."). */
export const apiCalls = (requests: string[]) => requests.filter((r) => /\/(identity|engage)\/admin(\/|$)/.test(r));

const documented = ENDPOINTS.map((e) => {
  const [method, p] = e.split(' ');
  return new RegExp(`^${method} /t/control${p.replace(/\{\w+\}/g, '[^/]+')}$`);
});

/** The administration calls the page made that are not an operation of endpoints.ts (a test expects none). */
export const undocumentedCalls = (requests: string[]) => apiCalls(requests).filter((c) => !documented.some((t) => t.test(c)));
