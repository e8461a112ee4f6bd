/**
 * `engage login --device` (issue 23 point 7, RFC 8628) on the executable: the CLI prints the
 * verification URI and the user code (a JSON line under --json), a person approves in Chromium
 * on the verification page (axe-clean, under the pages' strict CSP) and signs in, the CLI's
 * polling gets the tokens and stores them as `engage login` does; `engage token` then works.
 * A denial ends the CLI with one error line.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser';

const PASSWORD = 'correct horse battery staple';

interface DeviceLine { verificationUri: string; verificationUriComplete: string; userCode: string; expiresIn: number }

describe.skipIf(!HAS_CHROMIUM)('engage login --device', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let browser: Browser;
  let config: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-device-' });
    config = path.join(sb.dir, 'config');
    server = await sb.serve();
    browser = await launchChromium();
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sb?.cleanup();
  });

  /** Starts `engage login --device --json`: its first stdout line, then its outcome. */
  async function startDeviceLogin() {
    const child = spawn(sb.bin, ['login', '--url', server.url, '--device', '--json', '--timeout', '120'], { cwd: sb.dir, env: { ...sb.env, XDG_CONFIG_HOME: config }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const first = await new Promise<DeviceLine>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (lines.length === 1) resolve(JSON.parse(line) as DeviceLine);
      });
      void exited.then((code) => reject(new Error(`engage login --device exited ${code}: ${stderr}`)));
    });
    return { first, exited, rest: () => lines.slice(1).join('\n'), stderr: () => stderr };
  }

  async function expectAxeClean(page: Page) {
    expect(await seriousAxeFindings(page)).toEqual([]);
    const csp = (await page.context().request.get(page.url())).headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
  }

  it('discovery of the control issuer names the device endpoint (engage-cli is registered for the grant)', async () => {
    const doc = (await (await fetch(`${server.url}/t/control/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.device_authorization_endpoint).toBe(`${server.url}/t/control/oauth2/device_authorization`);
    expect(doc.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
  });

  it('prints the URI and code, is approved in the browser, and stores the sign-in', async () => {
    const login = await startDeviceLogin();
    expect(login.first.verificationUri).toBe(`${server.url}/t/control/oauth2/device`);
    expect(login.first.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    const page = await (await browser.newContext()).newPage();
    await page.goto(login.first.verificationUri);
    await expectAxeClean(page);
    await page.getByLabel('Code').fill(login.first.userCode.toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Connect engage CLI?');
    await expectAxeClean(page);
    await page.getByRole('button', { name: 'Approve and sign in' }).click();
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Device connected');
    await expectAxeClean(page);

    expect(await login.exited).toBe(0);
    const summary = JSON.parse(login.rest()) as { url: string; email: string; clientId: string; scope: string };
    expect(summary).toMatchObject({ url: server.url, email: 'ops@example.com', clientId: 'engage-cli' });
    expect(summary.scope.split(' ')).toContain('offline_access');
    const stored = JSON.parse(readFileSync(path.join(config, 'engage', 'credentials.json'), 'utf8')) as { signIns: Record<string, { refreshToken: string }> };
    expect(stored.signIns[server.url].refreshToken).toBeTruthy();

    const token = await sb.run(['token'], { noDataDir: true, env: { XDG_CONFIG_HOME: config } });
    expect(token.code).toBe(0);
    const tenants = await fetch(`${server.url}/t/control/identity/admin/tenants`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    expect(tenants.status).toBe(200);
  }, 120_000);

  it('a denial in the browser ends the CLI with one error line', async () => {
    const login = await startDeviceLogin();
    const page = await (await browser.newContext()).newPage();
    await page.goto(login.first.verificationUriComplete);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Request denied');
    expect(await login.exited).toBe(1);
    expect(login.stderr()).toMatch(/denied/);
    expect(login.stderr().trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('a wrong code shows an error on the page, axe-clean', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/t/control/oauth2/device`);
    await page.getByLabel('Code').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not valid');
    await expectAxeClean(page);
  });
});
