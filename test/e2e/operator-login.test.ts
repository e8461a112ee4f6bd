/**
 * Operator sign-in for the CLI (issue 11 point 5) on dist/engage: `engage operators create` on
 * the database, then `engage login` driven through the real sign-in page in Chromium (PKCE, a
 * loopback redirect on an ephemeral port), `engage token` used against userinfo and against every
 * route of the management API (the served OpenAPI document's list), a refresh, `engage logout` revoking; the stored file's permissions.
 * `--api engage` (issue 24): a sign-in of its own bound to the engagement administration API
 * (RFC 8707 resource), through the browser and the device flow, stored beside the identity one.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, freePort, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser';

const PASSWORD = 'correct horse battery staple';
const ENGAGE_SCOPES = ['engage.admin.read', 'engage.admin.manage', 'engage.admin.send', 'engage.admin.privacy'];
const ADMIN_SCOPES = ['identity.admin.read', 'identity.admin.manage', 'identity.admin.users.manage', 'identity.admin.users.import', 'identity.admin.users.export'];

interface OperatorJson { id: string; subject: string; email: string; created: boolean; assigned: boolean; permissions: string[] }
interface StoredFile { version: number; signIns: Record<string, { refreshToken: string; accessToken: string; accessTokenExpiresAt: number }> }

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

describe.skipIf(!HAS_CHROMIUM)('engage operators create, login, token, logout', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let browser: Browser;
  let config: string;
  let operator: OperatorJson;
  /** Environment of the commands that talk HTTP: the operator's own configuration directory. */
  const env = () => ({ XDG_CONFIG_HOME: config });
  const file = () => path.join(config, 'engage', 'credentials.json');
  const stored = () => JSON.parse(readFileSync(file(), 'utf8')) as StoredFile;
  const http = (args: string[]) => sb.run(args, { noDataDir: true, env: env() });

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-login-' });
    config = path.join(sb.dir, 'config');
    server = await sb.serve();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sb?.cleanup();
  });

  it('creates the first operator on the database, idempotently, and refuses one without a password', async () => {
    operator = await sb.cliJson<OperatorJson>(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    expect(operator).toMatchObject({ email: 'ops@example.com', created: true, assigned: true, permissions: [...ADMIN_SCOPES, 'engage.admin.read', 'engage.admin.manage', 'engage.admin.send', 'engage.admin.privacy'] });
    const again = await sb.cliJson<OperatorJson>(['operators', 'create', '--email', 'OPS@example.com']);
    expect(again).toMatchObject({ subject: operator.subject, created: false, assigned: false });
    const r = await sb.run(['operators', 'create', '--email', 'new@example.com']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^engage: [^\n]*--password-stdin[^\n]*\n$/);
  });

  /** Starts `engage login`, returning the authorization URL it printed and its outcome. */
  async function startLogin(args: string[], stdin = '') {
    const child = spawn(sb.bin, ['login', '--url', server.url, '--json', '--timeout', '60', ...args], { cwd: sb.dir, env: { ...sb.env, ...env() }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(stdin);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const authorizeUrl = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr }).on('line', (line) => {
        const m = /^\s+(http\S+\/oauth2\/authorize\?\S+)$/.exec(line);
        if (m) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`engage login exited ${code} before printing the URL`)));
    });
    return { authorizeUrl, exited, stdout: () => stdout };
  }

  it('signs in through the browser with PKCE and a loopback redirect, and stores the tokens 0600', async () => {
    const { authorizeUrl, exited, stdout: out } = await startLogin([]);
    const params = new URL(authorizeUrl).searchParams;
    expect(authorizeUrl.startsWith(`${server.url}/t/control/oauth2/authorize?`)).toBe(true);
    expect(params.get('client_id')).toBe('engage-cli');
    expect(params.get('code_challenge_method')).toBe('S256');
    const redirect = new URL(params.get('redirect_uri')!);
    expect(redirect.hostname).toBe('127.0.0.1');
    expect(redirect.pathname).toBe('/callback');
    expect(Number(redirect.port)).toBeGreaterThan(0);

    // A stray answer with another state is refused and the CLI keeps waiting (RFC 6749 §10.12).
    const forged = await fetch(`${redirect.origin}/callback?code=x&state=forged`);
    expect(forged.status).toBe(400);

    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${redirect.origin}/callback?**`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Signed in');
    expect(await exited).toBe(0);
    const signedIn = JSON.parse(out()) as { url: string; subject: string; email: string; scope: string; clientId: string };
    // Issue 23 point 10: the operator is named by email (the ID token's, the `email` scope).
    expect(signedIn).toMatchObject({ url: server.url, subject: operator.subject, email: 'ops@example.com', clientId: 'engage-cli' });
    expect(signedIn.scope.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', ...ADMIN_SCOPES].sort());

    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file())).mode & 0o777).toBe(0o700);
    expect(Object.keys(stored().signIns)).toEqual([server.url]);
  }, 90_000);

  it('prints a token that the control issuer accepts, for the management API audience', async () => {
    const r = await http(['token']);
    expect(r.code).toBe(0);
    const token = r.stdout.trim();
    expect(claimsOf(token)).toMatchObject({ aud: 'identity-admin-api', sub: operator.subject, iss: `${server.url}/t/control`, client_id: 'engage-cli' });
    const info = await fetch(`${server.url}/t/control/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: operator.subject });
    // Still fresh: the same token again, no refresh.
    expect((await http(['token'])).stdout.trim()).toBe(token);
  });

  it('signs in to the engagement administration API (--api engage) beside the identity sign-in; each token is good at its API only', async () => {
    const { authorizeUrl, exited, stdout: out } = await startLogin(['--api', 'engage']);
    const params = new URL(authorizeUrl).searchParams;
    // RFC 8707 §2.1: the authorization request names the engagement API, with its scopes.
    expect(params.get('resource')).toBe(`${server.url}/t/control/engage/admin`);
    expect(params.get('scope')!.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', ...ENGAGE_SCOPES].sort());
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('http://127.0.0.1:*/callback?**');
    expect(await exited).toBe(0);
    const signedIn = JSON.parse(out()) as { url: string; api: string; subject: string; scope: string };
    expect(signedIn).toMatchObject({ url: server.url, api: 'engage', subject: operator.subject });
    expect(signedIn.scope.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', ...ENGAGE_SCOPES].sort());
    // Stored beside the identity sign-in, which is unchanged.
    expect(Object.keys(stored().signIns).sort()).toEqual([server.url, `${server.url}#engage`]);
    expect(statSync(file()).mode & 0o777).toBe(0o600);

    const engageToken = (await http(['token', '--api', 'engage'])).stdout.trim();
    const identityToken = (await http(['token'])).stdout.trim();
    expect(claimsOf(engageToken)).toMatchObject({ aud: 'engage-admin-api', sub: operator.subject, client_id: 'engage-cli' });
    expect(claimsOf(identityToken)).toMatchObject({ aud: 'identity-admin-api' });
    const environments = (token: string) => fetch(`${server.url}/t/control/engage/admin/environments`, { headers: { authorization: `Bearer ${token}` } });
    const engageRead = await environments(engageToken);
    expect(engageRead.status).toBe(200);
    expect(await engageRead.json()).toMatchObject({ items: expect.any(Array) });
    // A token of the identity API is not one of the engagement API, and the other way round.
    const refused = await environments(identityToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await fetch(`${server.url}/t/control/identity/admin/tenants`, { headers: { authorization: `Bearer ${engageToken}` } })).status).toBe(401);
  }, 90_000);

  it('refreshes the engagement sign-in with its own resource, leaving the identity one alone', async () => {
    const before = stored();
    const entry = before.signIns[`${server.url}#engage`];
    const identity = before.signIns[server.url];
    entry.accessTokenExpiresAt = Math.floor(Date.now() / 1000) + 10;
    writeFileSync(file(), JSON.stringify(before));
    const r = await http(['token', '--api', 'engage', '--url', server.url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { api: string; accessToken: string };
    expect(out.api).toBe('engage');
    expect(out.accessToken).not.toBe(entry.accessToken);
    expect(claimsOf(out.accessToken)).toMatchObject({ aud: 'engage-admin-api' });
    expect(stored().signIns[`${server.url}#engage`].refreshToken).not.toBe(entry.refreshToken);
    expect(stored().signIns[server.url]).toEqual(identity);
    expect((await fetch(`${server.url}/t/control/engage/admin/environments`, { headers: { authorization: `Bearer ${out.accessToken}` } })).status).toBe(200);
    // The grant is bound to its resource: a refresh naming the other API is invalid_grant (RFC 8707 §2.2).
    const other = await fetch(`${server.url}/t/control/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: stored().signIns[`${server.url}#engage`].refreshToken, client_id: 'engage-cli', resource: `${server.url}/t/control/identity/admin` }),
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('signs in to the engagement API with the device flow too, then logs out of it alone', async () => {
    const child = spawn(sb.bin, ['login', '--url', server.url, '--api', 'engage', '--device', '--json', '--timeout', '120'], { cwd: sb.dir, env: { ...sb.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const first = await new Promise<{ verificationUriComplete: string }>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (lines.length === 1) resolve(JSON.parse(line) as { verificationUriComplete: string });
      });
      void exited.then((code) => reject(new Error(`engage login --device exited ${code}`)));
    });
    const page = await (await browser.newContext()).newPage();
    await page.goto(first.verificationUriComplete);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Approve and sign in' }).click();
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Device connected');
    expect(await exited).toBe(0);
    expect(JSON.parse(lines.slice(1).join('\n'))).toMatchObject({ api: 'engage', subject: operator.subject });
    const token = (await http(['token', '--api', 'engage'])).stdout.trim();
    expect(claimsOf(token)).toMatchObject({ aud: 'engage-admin-api' });
    expect((await fetch(`${server.url}/t/control/engage/admin/environments`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const entry = stored().signIns[`${server.url}#engage`];
    const out = await http(['logout', '--api', 'engage', '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ url: server.url, api: 'engage', revoked: true });
    expect(Object.keys(stored().signIns)).toEqual([server.url]);
    const refresh = await fetch(`${server.url}/t/control/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: entry.refreshToken, client_id: 'engage-cli' }),
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const again = await http(['token', '--api', 'engage']);
    expect([again.code, again.stderr]).toEqual([1, `engage: not signed in for the engage API: run engage login --url <server URL> --api engage\n`]);
    // The identity sign-in still works.
    expect((await http(['token'])).code).toBe(0);
  }, 120_000);

  it('uses `engage token` against every route of the management API, each mutation leaving an audit event without secrets', async () => {
    const token = (await http(['token'])).stdout.trim();
    const root = `${server.url}/t/control/identity/admin`;
    const called = new Set<string>();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of many shapes, asserted by value below
    type Json = any;
    /** One call; `route` is the documented path (spec 03), `path` the concrete one. */
    async function call(method: string, route: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
      called.add(`${method} ${route}`);
      const res = await fetch(`${root}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    }
    const ok = async (status: number, r: Promise<{ status: number; json: Json }>) => {
      const got = await r;
      expect(got.status, JSON.stringify(got.json)).toBe(status);
      return got.json;
    };

    expect(await ok(200, call('GET', '/overview', '/overview'))).toMatchObject({ tenants: expect.any(Number) });
    const tenant = await ok(201, call('POST', '/tenants', '/tenants', { slug: 'shop', registrationMode: 'CONTROLLED' }));
    const t = `/tenants/${tenant.id}`;
    expect((await ok(200, call('GET', '/tenants', '/tenants?page=0&size=10'))).items.map((x: { slug: string }) => x.slug)).toContain('shop');
    expect(await ok(200, call('GET', '/tenants/{tenantId}', t))).toMatchObject({ slug: 'shop' });
    expect(await ok(200, call('PUT', '/tenants/{tenantId}', t, { slug: 'shop', issuer: tenant.issuer, registrationMode: 'SELF_SERVICE' }))).toMatchObject({ registrationMode: 'SELF_SERVICE' });

    const user = await ok(201, call('POST', '/tenants/{tenantId}/users', `${t}/users`, { email: 'bob@example.com' }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/users', `${t}/users`))).items).toHaveLength(1);
    expect(await ok(200, call('GET', '/tenants/{tenantId}/users/{userId}', `${t}/users/${user.id}`))).toMatchObject({ email: 'bob@example.com' });
    expect(await ok(200, call('PUT', '/tenants/{tenantId}/users/{userId}', `${t}/users/${user.id}`, { email: 'bob@example.com', emailVerified: true, status: 'DISABLED' }))).toMatchObject({ status: 'DISABLED' });
    await ok(204, call('POST', '/tenants/{tenantId}/users/{userId}/password', `${t}/users/${user.id}/password`, { password: 'a new password, set by an operator' }));
    // Issue 23 point 6: the recovery mail of a DISABLED user is refused (and audits nothing).
    expect(await ok(400, call('POST', '/tenants/{tenantId}/users/{userId}/recovery-mail', `${t}/users/${user.id}/recovery-mail`))).toMatchObject({ error: 'invalid_request' });
    await ok(204, call('DELETE', '/tenants/{tenantId}/users/{userId}', `${t}/users/${user.id}`));

    await ok(201, call('POST', '/tenants/{tenantId}/resources', `${t}/resources`, { uri: 'https://api.shop.example', audience: 'shop-api', scopes: ['orders.read'] }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/resources', `${t}/resources`))).items).toEqual([expect.objectContaining({ audience: 'shop-api' })]);
    const client = { clientId: 'shop-web', displayName: 'Shop', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT',
      redirectUris: ['https://shop.example/cb'], scopes: ['openid', 'orders.read'], defaultResource: 'https://api.shop.example', nativeAuthenticationEnabled: false };
    const issued = await ok(201, call('POST', '/tenants/{tenantId}/clients', `${t}/clients`, client));
    expect(issued.clientSecret).toEqual(expect.any(String));
    expect(await ok(200, call('PUT', '/tenants/{tenantId}/clients/{clientId}', `${t}/clients/shop-web`, { ...client, displayName: 'Shop Web' }))).toEqual({ clientId: 'shop-web', clientSecret: null });
    const clients = await ok(200, call('GET', '/tenants/{tenantId}/clients', `${t}/clients`));
    expect(clients.items).toEqual([expect.objectContaining({ clientId: 'shop-web', displayName: 'Shop Web' })]);
    const credential = await ok(201, call('POST', '/tenants/{tenantId}/credentials', `${t}/credentials`, { resourceUri: 'https://api.shop.example' }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/credentials', `${t}/credentials`))).items).toHaveLength(1);
    await ok(204, call('DELETE', '/tenants/{tenantId}/credentials/{credentialId}', `${t}/credentials/${credential.credentialId}`));

    const staged = await ok(201, call('POST', '/tenants/{tenantId}/signing-keys', `${t}/signing-keys`));
    await ok(204, call('POST', '/tenants/{tenantId}/signing-keys/{keyId}/activation', `${t}/signing-keys/${staged.keyId}/activation`));
    const another = await ok(201, call('POST', '/tenants/{tenantId}/signing-keys', `${t}/signing-keys`));
    await ok(204, call('POST', '/tenants/{tenantId}/signing-keys/{keyId}/retirement', `${t}/signing-keys/${another.keyId}/retirement`));
    const keys = (await ok(200, call('GET', '/tenants/{tenantId}/signing-keys', `${t}/signing-keys`))).items as { keyId: string; state: string }[];
    expect(keys.find((k) => k.keyId === staged.keyId)?.state).toBe('ACTIVE');
    expect(keys.find((k) => k.keyId === another.keyId)?.state).toBe('RETIRED');

    // The user transfer routes (issue 12), mounted on the same app behind the same guard.
    const imported = await ok(202, call('POST', '/tenants/{tenantId}/user-imports', `${t}/user-imports`, {
      schemaVersion: 1, source: 'legacy', mode: 'VALIDATE_ONLY', idempotencyKey: 'e2e-1', records: [{ externalId: 'x1', email: 'carol@example.com', emailVerified: true, active: true }],
    }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/user-imports', `${t}/user-imports`))).items.map((j: { id: string }) => j.id)).toContain(imported.id);
    expect(await ok(200, call('GET', '/tenants/{tenantId}/user-imports/{jobId}', `${t}/user-imports/${imported.id}`))).toMatchObject({ id: imported.id, kind: 'IMPORT' });
    await ok(200, call('GET', '/tenants/{tenantId}/user-imports/{jobId}/results', `${t}/user-imports/${imported.id}/results`));
    await ok(204, call('DELETE', '/tenants/{tenantId}/user-imports/{jobId}', `${t}/user-imports/${imported.id}`));
    const exported = await ok(202, call('POST', '/tenants/{tenantId}/user-exports', `${t}/user-exports`));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/user-exports', `${t}/user-exports`))).items.map((j: { id: string }) => j.id)).toContain(exported.id);
    expect(await ok(200, call('GET', '/tenants/{tenantId}/user-exports/{jobId}', `${t}/user-exports/${exported.id}`))).toMatchObject({ id: exported.id, kind: 'EXPORT' });
    await ok(200, call('GET', '/tenants/{tenantId}/user-exports/{jobId}/records', `${t}/user-exports/${exported.id}/records`));
    called.add('GET /tenants/{tenantId}/user-exports/{jobId}/download');
    const download = await fetch(`${root}${t}/user-exports/${exported.id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect([download.status, download.headers.get('content-type')]).toEqual([200, 'application/x-ndjson']);
    await download.text();
    await ok(204, call('DELETE', '/tenants/{tenantId}/user-exports/{jobId}', `${t}/user-exports/${exported.id}`));

    // Issue 25's routes for the console: a user's second factor, social providers, a key's revocation, the directory.
    const dora = await ok(201, call('POST', '/tenants/{tenantId}/users', `${t}/users`, { email: 'dora@example.com' }));
    expect(await ok(200, call('GET', '/tenants/{tenantId}/users/{userId}/second-factor', `${t}/users/${dora.id}/second-factor`))).toMatchObject({ enrolled: false });
    await ok(204, call('DELETE', '/tenants/{tenantId}/users/{userId}/second-factor', `${t}/users/${dora.id}/second-factor`));
    await ok(201, call('POST', '/tenants/{tenantId}/providers', `${t}/providers`, { name: 'google', issuer: 'https://accounts.google.com', audiences: ['web-client'] }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/providers', `${t}/providers`))).items).toEqual([expect.objectContaining({ name: 'google' })]);
    await ok(204, call('DELETE', '/tenants/{tenantId}/providers/{name}', `${t}/providers/google`));
    await ok(204, call('POST', '/tenants/{tenantId}/signing-keys/{keyId}/revocation', `${t}/signing-keys/${another.keyId}/revocation`));
    const d = `${t}/directory`;
    const org = await ok(201, call('POST', '/tenants/{tenantId}/directory/organizations', `${d}/organizations`, { slug: 'north', displayName: 'North' }));
    const team = await ok(201, call('POST', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams', `${d}/organizations/north/teams`, { slug: 'sales', displayName: 'Sales' }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/organizations', `${d}/organizations`))).items).toHaveLength(1);
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams', `${d}/organizations/north/teams`))).items).toHaveLength(1);
    await ok(204, call('POST', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/members', `${d}/organizations/north/members`, { subject: dora.subject }));
    await ok(204, call('POST', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams/{teamSlug}/members', `${d}/organizations/north/teams/sales/members`, { subject: dora.subject }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/members', `${d}/organizations/north/members`))).items).toHaveLength(1);
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams/{teamSlug}/members', `${d}/organizations/north/teams/sales/members`))).items).toHaveLength(1);
    await ok(201, call('POST', '/tenants/{tenantId}/directory/permissions', `${d}/permissions`, { key: 'orders.read', displayName: 'Read orders' }));
    await ok(201, call('POST', '/tenants/{tenantId}/directory/roles', `${d}/roles`, { key: 'clerk', displayName: 'Clerk', scope: 'TEAM' }));
    await ok(204, call('POST', '/tenants/{tenantId}/directory/roles/{roleKey}/permissions', `${d}/roles/clerk/permissions`, { key: 'orders.read' }));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/roles/{roleKey}/permissions', `${d}/roles/clerk/permissions`))).items).toHaveLength(1);
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/roles', `${d}/roles`))).items.map((r: { key: string }) => r.key)).toContain('clerk');
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/permissions', `${d}/permissions`))).items.map((p: { key: string }) => p.key)).toContain('orders.read');
    const assignment = { roleKey: 'clerk', subject: dora.subject, scope: 'TEAM', organizationId: org.id, teamId: team.id };
    await ok(204, call('POST', '/tenants/{tenantId}/directory/role-assignments', `${d}/role-assignments`, assignment));
    expect((await ok(200, call('GET', '/tenants/{tenantId}/directory/role-assignments', `${d}/role-assignments`))).items).toEqual([assignment]);
    await ok(204, call('POST', '/tenants/{tenantId}/directory/role-assignments/revocations', `${d}/role-assignments/revocations`, assignment));
    await ok(204, call('POST', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams/{teamSlug}/members/removals', `${d}/organizations/north/teams/sales/members/removals`, { subject: dora.subject }));
    await ok(204, call('POST', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/members/removals', `${d}/organizations/north/members/removals`, { subject: dora.subject }));
    await ok(204, call('DELETE', '/tenants/{tenantId}/directory/roles/{roleKey}/permissions/{permissionKey}', `${d}/roles/clerk/permissions/orders.read`));
    await ok(204, call('DELETE', '/tenants/{tenantId}/directory/roles/{roleKey}', `${d}/roles/clerk`));
    await ok(204, call('DELETE', '/tenants/{tenantId}/directory/permissions/{permissionKey}', `${d}/permissions/orders.read`));
    await ok(204, call('DELETE', '/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams/{teamSlug}', `${d}/organizations/north/teams/sales`));
    await ok(204, call('DELETE', '/tenants/{tenantId}/directory/organizations/{organizationSlug}', `${d}/organizations/north`));

    // Federations (h-directory): shop's users may sign in at the control tenant, then no longer.
    const controlId = ((await ok(200, call('GET', '/tenants', '/tenants?page=0&size=50'))).items as { id: string; slug: string }[]).find((x) => x.slug === 'control')!.id;
    // The control tenant may be a federation's source, never its target (docs/decisions.md).
    await ok(201, call('POST', '/federations', '/federations', { sourceTenantId: controlId, targetTenantId: tenant.id }));
    expect((await ok(200, call('GET', '/federations', '/federations'))).items).toEqual([expect.objectContaining({ sourceTenantId: controlId, targetTenantId: tenant.id, status: 'ACTIVE' })]);
    await ok(204, call('DELETE', '/federations/{sourceTenantId}/{targetTenantId}', `/federations/${controlId}/${tenant.id}`));
    for (const action of ['federation.created', 'federation.deleted']) {
      const federationEvents = (await ok(200, call('GET', '/audit-events', `/audit-events?action=${action}`))).items as { actorSubject: string; actorClientId: string }[];
      expect(federationEvents).toEqual([expect.objectContaining({ actorSubject: operator.subject, actorClientId: 'engage-cli' })]);
    }


    const events = (await ok(200, call('GET', '/audit-events', `/audit-events?tenant=${tenant.id}&size=200`))).items as { action: string; actorSubject: string; actorClientId: string }[];
    const ours = events.filter((e) => e.actorClientId === 'engage-cli');
    expect(ours.every((e) => e.actorSubject === operator.subject)).toBe(true);
    // A cancellation is recorded only when the job had not finished yet (the worker may be first).
    expect(new Set(ours.map((e) => e.action).filter((a) => !a.endsWith('.cancelled') && !a.startsWith('federation.')))).toEqual(new Set(['tenant.created', 'tenant.updated', 'user.created', 'user.updated',
      'user.password_set', 'user.deleted', 'resource.created', 'client.created', 'client.updated', 'credential.issued', 'credential.revoked', 'signing_key.staged', 'signing_key.activated',
      'signing_key.retired', 'user_import.created', 'user_export.created', 'user.mfa_reset', 'provider.added', 'provider.removed', 'signing_key.revoked',
      ...['organization.created', 'organization.deleted', 'organization_member.added', 'organization_member.removed', 'permission.created', 'permission.deleted',
        'role.created', 'role.deleted', 'role_assignment.created', 'role_assignment.revoked', 'role_permission.added', 'role_permission.removed', 'team.created',
        'team.deleted', 'team_member.added', 'team_member.removed'].map((a) => `directory.${a}`)]));
    const trail = JSON.stringify(events);
    for (const secret of [issued.clientSecret, credential.credentialSecret, token, 'a new password, set by an operator']) expect(trail).not.toContain(secret);

    // Every route of the management API in the served document was called above.
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).filter(([p]) => p.startsWith('/identity/admin/'))
      .flatMap(([p, ops]) => Object.keys(ops).filter((m) => ['get', 'post', 'put', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${p.slice('/identity/admin'.length)}`));
    expect([...called].sort()).toEqual(documented.sort());
  }, 60_000);

  it('refreshes a token that expires within a minute, rotating the refresh token', async () => {
    const before = stored();
    const entry = before.signIns[server.url];
    entry.accessTokenExpiresAt = Math.floor(Date.now() / 1000) + 30;
    writeFileSync(file(), JSON.stringify(before));
    const r = await http(['token', '--url', server.url, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { accessToken: string; expiresAt: string };
    expect(out.accessToken).not.toBe(entry.accessToken);
    const after = stored().signIns[server.url];
    expect(after.refreshToken).not.toBe(entry.refreshToken);
    expect(after.accessToken).toBe(out.accessToken);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    const info = await fetch(`${server.url}/t/control/oauth2/userinfo`, { headers: { authorization: `Bearer ${out.accessToken}` } });
    expect(info.status).toBe(200);
  });

  it('logs out: the refresh token is revoked and the stored tokens deleted', async () => {
    const entry = stored().signIns[server.url];
    const r = await http(['logout', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ url: server.url, revoked: true });
    expect(stored().signIns).toEqual({});
    const refresh = await fetch(`${server.url}/t/control/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: entry.refreshToken, client_id: 'engage-cli' }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const info = await fetch(`${server.url}/t/control/oauth2/userinfo`, { headers: { authorization: `Bearer ${entry.accessToken}` } });
    expect(info.status).toBe(401);

    const again = await http(['token']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^engage: not signed in[^\n]*\n$/);
  });

  it('unattended automation: a confidential client with one scope, declared by apply, signed in once, refreshed by engage token', async () => {
    const port = await freePort();
    const secret = 'c'.repeat(48);
    const engageJson = path.join(sb.dir, 'engage.json');
    writeFileSync(engageJson, JSON.stringify({
      version: 1,
      tenants: [{
        slug: 'control',
        clients: [{
          clientId: 'ci-reader', displayName: 'CI reader', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
          redirectUris: [`http://127.0.0.1:${port}/callback`], scopes: ['openid', 'offline_access', 'identity.admin.read'],
          defaultResource: `${server.url}/t/control/identity/admin`, secretEnv: 'CI_READER_SECRET',
        }],
      }],
    }));
    await sb.cli(['apply', '-f', engageJson], { env: { CI_READER_SECRET: secret } });
    const { authorizeUrl, exited } = await startLogin(['--client-id', 'ci-reader', '--client-secret-stdin', '--port', String(port), '--scope', 'openid offline_access identity.admin.read'], `${secret}\n`);
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`http://127.0.0.1:${port}/callback?**`);
    expect(await exited).toBe(0);
    const data = stored();
    data.signIns[server.url].accessTokenExpiresAt = 0;
    writeFileSync(file(), JSON.stringify(data));
    const r = await http(['token', '--url', server.url, '--json']);
    expect(r.code).toBe(0);
    const { accessToken, scope } = JSON.parse(r.stdout) as { accessToken: string; scope: string };
    expect(scope.split(' ').sort()).toEqual(['identity.admin.read', 'offline_access', 'openid']);
    expect(claimsOf(accessToken)).toMatchObject({ aud: 'identity-admin-api', client_id: 'ci-reader', sub: operator.subject });
    expect((await http(['logout'])).code).toBe(0);
  }, 90_000);

  it('gives up after its timeout with one line and a non-zero exit, opening nothing without a display', async () => {
    const r = await sb.run(['login', '--url', server.url, '--timeout', '1'], { noDataDir: true, env: { ...env(), DISPLAY: '' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('/t/control/oauth2/authorize?');
    expect(r.stderr).not.toContain('a browser was opened');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^engage: no sign-in within 1 s/);
  });

  it('fails in one line for a URL that is not an engage server', async () => {
    const r = await http(['login', '--url', 'http://127.0.0.1:9', '--timeout', '5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^engage: cannot reach http:\/\/127\.0\.0\.1:9[^\n]*\n$/);
  });
});
