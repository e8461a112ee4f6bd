/**
 * The management API on dist/engage over real HTTP: an operator signs in through the sign-in
 * pages (no browser: form posts), gets an access token for `identity-admin-api`, is refused
 * (403 access_denied) until a second process on the database grants the administration
 * permissions, then runs every route of the management table this branch serves; the CLI sees
 * the result and the audit trail names the operator and the client.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormDriver, redirectParams } from '../conformance/form-driver';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { openAppStore } from '../../src/open-store';
import { loadConfig } from '../../src/platform/config';
import { systemClock } from '../../src/platform/clock';
import { silentLogger } from '../../src/platform/logger';
import { createServices } from '../../src/services';
import { s256 } from '../../src/platform/crypto';
import { cliActor } from '../../src/identity/audit';

const SCOPES = ['identity.admin.read', 'identity.admin.manage', 'identity.admin.users.manage', 'identity.admin.users.import', 'identity.admin.users.export'];
const CALLBACK = 'com.example.ops:/callback';
const PASSWORD = 'correct horse battery staple';

let sb: Sandbox;
let server: RunningServer;
let uri: string;
let token: string;
let subject: string;

beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-admin-' });
  uri = `${sb.publicUrl}/t/control/identity/admin`;
  // The control tenant's initialisation created the `identity-admin-api` resource with the five scopes.
  expect((await sb.cliJson<{ uri: string; audience: string; scopes: string[] }[]>(['resources', 'list', '--tenant', 'control'])).find((r) => r.uri === uri))
    .toMatchObject({ audience: 'identity-admin-api', scopes: SCOPES });
  await sb.cli(['clients', 'create', '--tenant', 'control', '--client-id', 'ops', '--name', 'Ops', '--type', 'NATIVE', '--auth', 'NONE', '--consent', 'PRE_AUTHORIZED',
    '--redirect-uri', CALLBACK, '--scope', 'openid', ...SCOPES, '--default-resource', uri]);
  subject = (await sb.cliJson<{ subject: string }>(['users', 'create', '--tenant', 'control', '--email', 'ops@example.com', '--verified', '--password-stdin'], { stdin: PASSWORD })).subject;
  server = await sb.serve();

  const verifier = randomBytes(32).toString('base64url');
  const d = new FormDriver(fetch, server.url);
  const q = new URLSearchParams({
    client_id: 'ops', redirect_uri: CALLBACK, response_type: 'code', scope: ['openid', ...SCOPES].join(' '), state: 's', resource: uri,
    code_challenge: s256(verifier), code_challenge_method: 'S256',
  });
  const signedIn = await d.signIn(`/t/control/oauth2/authorize?${q}`, 'ops@example.com', PASSWORD);
  const { code } = redirectParams(signedIn);
  const res = await fetch(`${server.url}/t/control/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CALLBACK, client_id: 'ops' }).toString(),
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
}, 120_000);
afterAll(() => sb?.cleanup());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field in the assertions
type Json = any;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(uri + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Another process on the sandbox's database grants the operator every administration permission. */
async function grantFromAnotherProcess(): Promise<void> {
  const config = loadConfig({ flags: { dataDir: sb.dataDir, publicUrl: sb.publicUrl, databaseUrl: sb.database } });
  const { store } = await openAppStore(config, { logger: silentLogger, poolSize: 1 });
  try {
    const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey: randomBytes(32) });
    const control = (await services.tenants.control())!;
    await services.directory.grantAdministrator(control.id, subject, SCOPES, cliActor());
  } finally {
    await store.close();
  }
}

describe('the management API on dist/engage', () => {
  it('refuses the operator without the permission, then serves every route once it is granted', async () => {
    expect(await call('GET', '/tenants')).toEqual({ status: 403, body: { error: 'access_denied' } });
    await grantFromAnotherProcess();
    // The serving process sees the permission on its next request (the directory's version moved).
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await call('GET', '/tenants')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);

    const tenant = (await call('POST', '/tenants', { slug: 'shop' })).body;
    expect(tenant).toMatchObject({ slug: 'shop', issuer: `${sb.publicUrl}/t/shop` });
    const t = `/tenants/${tenant.id}`;
    expect((await call('PUT', t, { slug: 'shop', issuer: tenant.issuer, registrationMode: 'SELF_SERVICE' })).body.registrationMode).toBe('SELF_SERVICE');
    expect((await call('GET', t)).status).toBe(200);
    const user = await call('POST', `${t}/users`, { email: 'ann@shop.test', emailVerified: true });
    expect(user.status).toBe(201);
    expect((await call('PUT', `${t}/users/${user.body.id}`, { email: 'ann@shop.test', emailVerified: true, status: 'DISABLED' })).body.status).toBe('DISABLED');
    expect((await call('GET', `${t}/users`)).body.items).toHaveLength(1);
    expect((await call('DELETE', `${t}/users/${user.body.id}`)).status).toBe(204);
    expect((await call('POST', `${t}/resources`, { uri: 'https://api.shop.test', audience: 'shop-api', scopes: ['orders.read'] })).status).toBe(201);
    const client = { clientId: 'web', displayName: 'Web', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT', redirectUris: ['https://shop.test/cb'], scopes: ['openid'] };
    const issued = (await call('POST', `${t}/clients`, client)).body;
    expect(issued.clientSecret).toEqual(expect.any(String));
    expect(await call('PUT', `${t}/clients/web`, { ...client, defaultResource: 'https://api.shop.test' })).toEqual({ status: 200, body: { clientId: 'web', clientSecret: null } });
    const cred = (await call('POST', `${t}/credentials`, { resourceUri: 'https://api.shop.test' })).body;
    expect((await call('DELETE', `${t}/credentials/${cred.credentialId}`)).status).toBe(204);
    const kid = (await call('POST', `${t}/signing-keys`)).body.keyId;
    expect((await call('POST', `${t}/signing-keys/${kid}/activation`)).status).toBe(204);
    const keys = (await call('GET', `${t}/signing-keys`)).body.items as { keyId: string; state: string }[];
    const old = keys.find((k) => k.state === 'RETIRING')!.keyId;
    expect((await call('POST', `${t}/signing-keys/${old}/retirement`)).status).toBe(204);
    // Resources: the shop API and the control tenant's two (the management API's and the engagement administration API's);
    // clients: shop's and the control tenant's engage-cli and engage-console.
    expect((await call('GET', '/overview')).body).toMatchObject({ tenants: 2, clients: 4, resources: 3, activeFederations: 0 });

    // The CLI on the same database sees the same state, and the trail names the operator and the client.
    expect(await sb.cliJson(['tenants', 'show', 'shop'])).toMatchObject({ id: tenant.id, registrationMode: 'SELF_SERVICE', clientCount: 1, resourceCount: 1 });
    const trail = (await call('GET', `/audit-events?actor=${subject}&size=200`)).body.items as { action: string; actorClientId: string }[];
    expect(trail.map((e) => e.action).sort()).toEqual([
      'client.created', 'client.updated', 'credential.issued', 'credential.revoked', 'resource.created', 'signing_key.activated', 'signing_key.retired',
      'signing_key.staged', 'tenant.created', 'tenant.updated', 'user.created', 'user.deleted', 'user.updated',
    ]);
    expect(trail.every((e) => e.actorClientId === 'ops')).toBe(true);
    expect(JSON.stringify(await sb.cliJson(['audit', 'list', '--size', '200']))).not.toContain(issued.clientSecret);
    expect(JSON.stringify(await sb.cliJson(['audit', 'list', '--size', '200']))).not.toContain(cred.credentialSecret);
  }, 120_000);
});
