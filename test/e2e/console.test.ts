import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { apiCalls, createOperator, signInToConsole, undocumentedCalls, type ConsoleSession } from '../helpers/console';

/**
 * The web console (issue 25) in Debian's chromium on the built executable, as an operator uses
 * it. Each page set has its own file (console-*.test.ts); this one covers sign-in, reload,
 * sign-out and the contract (only documented operations).
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

describeBrowser('console: sign-in and the shell', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-console-' });
    await createOperator(sb);
    server = await sb.serve();
    s = await signInToConsole(server);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sb?.cleanup();
  });

  it('signs an operator in through the control issuer and shows the identity overview, accessible', async () => {
    await s.page.getByRole('heading', { level: 1, name: 'Identity overview' }).waitFor();
    await s.page.getByText('admin@example.com').waitFor();
    await s.check('identity-overview');
  });

  it('keeps no token in storage or in a URL', async () => {
    const stored = await s.page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(stored).not.toMatch(/eyJ|access_token|refresh_token/);
    expect(s.requests.join('\n')).not.toMatch(/access_token|refresh_token/);
  });

  it('survives a reload without asking to sign in again (a silent authorization in a hidden frame)', async () => {
    await s.open('/identity/tenants');
    await s.page.reload();
    await s.page.getByRole('heading', { level: 1, name: 'Tenants' }).waitFor();
    await s.page.getByRole('link', { name: 'control' }).waitFor();
    expect(s.page.url()).toBe(`${server.url}/console/identity/tenants`);
  });

  it('navigates with the keyboard and marks the current page', async () => {
    await s.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Environments' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    expect(await s.page.getByRole('link', { name: 'Environments', exact: true }).getAttribute('aria-current')).toBe('page');
    await s.check('environments');
  });

  it('is usable with the keyboard alone: the skip link, then the navigation', async () => {
    await s.open('/identity');
    await s.page.keyboard.press('Tab');
    expect(await s.page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Skip to content');
    await s.page.keyboard.press('Enter');
    expect(await s.page.evaluate<string | undefined>('document.activeElement?.id')).toBe('main');
    // Through the header and the menu to the Tenants link, then Enter.
    for (let i = 0; i < 12; i++) {
      if ((await s.page.evaluate<string | undefined>('document.activeElement?.textContent')) === 'Tenants') break;
      await s.page.keyboard.press('Tab');
    }
    await s.page.keyboard.press('Enter');
    await s.page.getByRole('heading', { level: 1, name: 'Tenants' }).waitFor();
  });

  it('follows a dark system theme, still accessible', async () => {
    await s.page.emulateMedia({ colorScheme: 'dark' });
    await s.open('/identity/tenants');
    const background = await s.page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(18, 19, 22)');
    await s.check('tenants-dark');
    await s.page.emulateMedia({ colorScheme: 'light' });
  });

  it('calls only operations of the OpenAPI document', () => {
    expect(apiCalls(s.requests).length).toBeGreaterThan(0);
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });

  it('answers a malformed address with its Not found page, not a broken console', async () => {
    await s.page.goto(`${server.url}/console/identity/tenants/%E0`);
    await s.page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    expect(s.problems).toEqual([]);
  });

  it('takes a stale or replayed callback address out of the address bar, and says the sign-in did not complete', async () => {
    await s.page.goto(`${server.url}/console/callback?code=replayed-code&state=stale-state`);
    await s.page.getByRole('heading', { level: 1, name: 'The sign-in did not complete' }).waitFor();
    expect(s.page.url()).toBe(`${server.url}/console/`);
    // A reload from there signs in again silently (the session at the issuer lives).
    await s.page.reload();
    await s.page.getByRole('heading', { level: 1, name: 'Identity overview' }).waitFor();
  });

  it('signs out: tokens revoked, the issuer session ended, and a sign-in is asked again', async () => {
    // Every address the browser goes to while signing out: the ID token (the logout hint) is in none.
    await s.open('/identity');
    const urls: string[] = [];
    s.page.on('request', (r) => urls.push(r.url()));
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    expect(urls.some((u) => u.includes('/oauth2/logout'))).toBe(true);
    expect(urls.join('\n')).not.toMatch(/eyJ|id_token_hint/);
    await s.check('signed-out');
    // No refresh token was ever handed out; the access tokens the page held are refused now (those
    // a reload dropped from memory were not revocable by it: they expire within the access token lifetime).
    expect(s.tokens.length).toBeGreaterThanOrEqual(4);
    expect(s.tokens.filter((t) => t.refresh_token)).toEqual([]);
    const held = [...new Map(s.tokens.map((t) => [t.resource, t])).values()];
    expect(held).toHaveLength(2);
    for (const t of held) {
      const res = await fetch(`${t.resource}/${t.resource.endsWith('/engage/admin') ? 'environments' : 'overview'}`, { headers: { Authorization: `Bearer ${t.access_token}` } });
      expect(res.status, t.resource).toBe(401);
    }
    await s.page.goto(`${server.url}/console/identity`);
    await s.page.getByLabel('Password').waitFor();
    // Nor did the server write a token or a code of the session into its log.
    const log = server.output();
    expect(log).toMatch(/"request"/);
    for (const t of s.tokens) expect(log).not.toContain(t.access_token);
    expect(log).not.toMatch(/eyJ|code=|replayed-code/);
  });
});

const LIMITED = { email: 'limited@example.com', password: 'correct-horse-battery-9' };

describeBrowser('console: a permission taken back', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-console-perm-' });
    // An operator with three single permissions (not the administrator role of operators create).
    await sb.cli(['users', 'create', '--tenant', 'control', '--email', LIMITED.email]);
    await sb.cli(['users', 'set-password', '--tenant', 'control', '--email', LIMITED.email, '--password-stdin'], { stdin: `${LIMITED.password}\n` });
    await sb.cli(['operators', 'grant', '--email', LIMITED.email, '--permission', 'identity.admin.read', 'identity.admin.manage', 'engage.admin.read']);
    server = await sb.serve();
    s = await signInToConsole(server, LIMITED, '/identity/tenants/new');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sb?.cleanup();
  });

  it('is refused at the next request, and the page says so in words instead of breaking', async () => {
    // Taken back while the operator is signed in: their token still carries the scope.
    await sb.cli(['operators', 'revoke', '--email', LIMITED.email, '--permission', 'identity.admin.manage']);
    await s.page.getByLabel('Slug').fill('shop');
    await s.page.getByRole('button', { name: 'Create tenant' }).click();
    const alert = s.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('You do not have the permission this needs');
    expect(await alert.innerText()).toContain('access_denied');
    await s.check('refused');
    // Nothing was created, and the rest of the console still works.
    expect(((await sb.cliJson<{ slug: string }[]>(['tenants', 'list'])) as { slug: string }[]).map((t) => t.slug)).toEqual(['control']);
    await s.open('/engage/environments');
    expect(await s.page.getByRole('heading', { level: 1 }).innerText()).toBe('Environments');
    expect(s.problems).toEqual([]);
  });
});
