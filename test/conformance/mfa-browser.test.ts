import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { seriousAxeFindings } from '../helpers/axe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepAt, totpCode } from '../../src/identity/mfa/totp';
import { PASSWORD, seedThroughCli, startEngage, type Engage } from './engage-process';
import { startRelyingParty } from './relying-party';
import { HAS_CHROMIUM, launchChromium, pageProblems, TITLE } from '../helpers/browser';

/**
 * A real browser (Debian's chromium via playwright-core) on dist/engage (issue 10): the account
 * page enrols an authenticator, then a real relying party (openid-client) signs in through the
 * authorization code flow with the password and a TOTP code, and with a recovery code.
 * The password change signs out the other sessions (issue 21) and keeps this one.
 * CONFORMANCE_SCREENSHOTS=<dir> keeps screenshots.
 */
const SHOTS = process.env.CONFORMANCE_SCREENSHOTS;
const NEW_PASSWORD = 'a new and longer secret';
const NATIVE_CALLBACK = 'com.example.app:/oauth2/callback';

describe.skipIf(!HAS_CHROMIUM)('a real browser: account page and sign-in with a second factor', () => {
  let e: Engage;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;
  let browser: Browser;
  let issuer = '';
  let secret = '';
  let totpSecret = '';
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    e = await startEngage();
    rp = await startRelyingParty(() => issuer, () => secret);
    const seed = await seedThroughCli(e, rp.redirectUri);
    issuer = seed.issuer;
    secret = seed.webSecret;
    await e.cli([
      'clients', 'create', '--tenant', 'acme', '--client-id', 'native-app', '--name', 'Acme Native', '--type', 'NATIVE', '--auth', 'NONE',
      '--redirect-uri', NATIVE_CALLBACK, '--scope', 'openid email offline_access', '--consent', 'PRE_AUTHORIZED', '--native-auth',
    ]);
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await rp?.close();
    await e?.stop();
  });

  /** A page that fails the test on any CSP violation or page error. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    const page = await context.newPage();
    return { page, problems: pageProblems(page) };
  }
  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  /** The newest TOTP step the server has accepted: each step is accepted once, and only after the last one used. */
  let lastStep = 0;
  /** A code the server has not seen yet: the next step's (accepted within the ±1 window). */
  const nextCode = () => {
    lastStep = stepAt(Date.now()) + 1;
    return totpCode(totpSecret, lastStep);
  };

  it('the account page: sign in, enrol an authenticator from its QR page, see the recovery codes once, change the password', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${issuer}/account`);
    await expect.poll(() => page.title(), TITLE).toBe('Sign in – your account');
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Your account');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'account');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Set up an authenticator app');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await expect(page.getByRole('img', { name: 'QR code of the authenticator key' }).isVisible()).resolves.toBe(true);
    await shot(page, 'account-enrol');
    totpSecret = (await page.locator('#totp-secret').textContent())!;
    expect(totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The code is incorrect');
    lastStep = stepAt(Date.now());
    await page.getByLabel('Code from the app').fill(totpCode(totpSecret, lastStep));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Save your recovery codes');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    recoveryCodes = await page.locator('#recovery-codes code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await shot(page, 'account-recovery-codes');
    await page.getByRole('link', { name: 'Back to your account' }).click();
    await expect(page.locator('#codes-left').textContent()).resolves.toBe('10');
    expect(await page.content()).not.toContain(recoveryCodes[0]);

    await page.getByLabel('Current password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    // Issue 21: signing out the other sessions is offered, checked by default, named by its label.
    const signOutOthers = page.getByRole('checkbox', { name: 'Sign out other sessions' });
    await expect(signOutOthers.isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Your password was changed. Your other sessions were signed out.');
    await expect.poll(() => page.title(), TITLE).toBe('Your account');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('signs in to a relying party by the authorization code flow with the password and a TOTP code', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${rp.base}/login`);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Two-step verification – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    await shot(page, 'sign-in-totp');
    await page.getByLabel('Authentication code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The code is incorrect');
    await page.getByLabel('Authentication code').fill(nextCode());
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('Allow access – Acme Web');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${rp.base}/callback?**`);
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as alice@example.com');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('signs in with a recovery code instead, and is shown its replacement once', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${rp.base}/login`);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0].toUpperCase());
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.title(), TITLE).toBe('New recovery code – Acme Web');
    await expect(seriousAxeFindings(page)).resolves.toEqual([]);
    const replacement = (await page.locator('#replacement-code').textContent())!.trim();
    expect(replacement).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    expect(recoveryCodes).not.toContain(replacement);
    await shot(page, 'sign-in-recovery-replacement');
    await page.getByRole('button', { name: 'I saved it, continue' }).click();
    await page.waitForURL(`${rp.base}/callback?**`);
    await expect(page.locator('#who').textContent()).resolves.toBe('Signed in as alice@example.com');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  /** The native adapter (spec 02) with the factor enrolled above: password, then `/mfa`, then the token endpoint. */
  const post = (route: string, fields: Record<string, string>) =>
    fetch(`${issuer}/oauth2/native${route}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });

  async function nativeSignIn(second: (challenge: { interactionId: string; challengeToken: string }) => Promise<Response>) {
    const verifier = client.randomPKCECodeVerifier();
    const opened = await post('/interactions', {
      client_id: 'native-app', redirect_uri: NATIVE_CALLBACK, response_type: 'code', scope: 'openid email', state: 'st', nonce: 'nn',
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    expect(opened.status).toBe(201);
    const { interactionId } = (await opened.json()) as { interactionId: string };
    const first = await post('/password', { interaction_id: interactionId, email: 'alice@example.com', password: NEW_PASSWORD });
    expect(first.status).toBe(200);
    const proof = (await first.json()) as { status: string; challengeToken: string };
    expect(proof.status).toBe('mfa_required');
    const wrong = await post('/mfa', { interaction_id: interactionId, challenge_token: proof.challengeToken, method: 'totp', code: '000000' });
    expect([wrong.status, await wrong.json()]).toEqual([401, { error: 'invalid_code' }]);
    const res = await second({ interactionId, challengeToken: proof.challengeToken });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { code: string; replacementRecoveryCode: string | null };
    const token = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: result.code, redirect_uri: NATIVE_CALLBACK, client_id: 'native-app', code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { id_token?: string }).id_token).toBeTruthy();
    return result;
  }

  it('a native app signs in with the password and a recovery code, then a TOTP code, at /oauth2/native/mfa', async () => {
    const unused = recoveryCodes[2];
    const result = await nativeSignIn((c) => post('/mfa', { interaction_id: c.interactionId, challenge_token: c.challengeToken, method: 'recovery', code: unused }));
    expect(result.replacementRecoveryCode).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    // A TOTP step is accepted once, after the last one used: wait for one the server has not seen.
    while (stepAt(Date.now()) + 1 <= lastStep) await new Promise((r) => setTimeout(r, 1000));
    const totp = await nativeSignIn((c) => post('/mfa', { interaction_id: c.interactionId, challenge_token: c.challengeToken, method: 'totp', code: nextCode() }));
    expect(totp.replacementRecoveryCode).toBeNull();
    // The recovery code is spent.
    await nativeSignIn(async (c) => {
      const again = await post('/mfa', { interaction_id: c.interactionId, challenge_token: c.challengeToken, method: 'recovery', code: unused });
      expect([again.status, await again.json()]).toEqual([401, { error: 'invalid_code' }]);
      return post('/mfa', { interaction_id: c.interactionId, challenge_token: c.challengeToken, method: 'recovery', code: recoveryCodes[3] });
    });
  }, 90_000);
});
