import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';

/**
 * Issue 24 against the built executable: an environment names the identity tenant (CLI), an
 * installation bootstraps through the mobile edge, the app signs in through the native adapter
 * with the installation's binding code, and the code exchange binds the installation to the
 * user's subject; later operations land on that profile.
 */
const CALLBACK = 'com.example.app:/oauth2/callback';
const PASSWORD = 'correct horse battery';
const EMAIL = 'alice@example.com';

let sandbox: Sandbox;
let server: RunningServer;
let appKey: string;
let subject: string;

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-sign-in-binding-' });
  await sandbox.cli(['tenants', 'create', '--slug', 'acme', '--registration-mode', 'SELF_SERVICE']);
  await sandbox.cli([
    'clients', 'create', '--tenant', 'acme', '--client-id', 'app', '--name', 'Acme App', '--type', 'NATIVE', '--auth', 'NONE',
    '--redirect-uri', CALLBACK, '--scope', 'openid email offline_access', '--consent', 'PRE_AUTHORIZED', '--native-auth',
  ]);
  subject = (await sandbox.cliJson<{ subject: string }>(['users', 'create', '--tenant', 'acme', '--email', EMAIL, '--verified', '--password-stdin'], { stdin: PASSWORD })).subject;
  const env = await sandbox.cliJson<{ id: string; identityTenantId: string | null }>(['environments', 'create', '--name', 'prod', '--identity-tenant', 'acme']);
  expect(env.identityTenantId).toBeTruthy();
  expect(await sandbox.cliJson(['environments', 'show', 'prod'])).toMatchObject({ id: env.id, identityTenantId: env.identityTenantId });
  appKey = (await sandbox.cliJson<{ appKey: string }>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'ios'])).appKey;
  server = await sandbox.serve();
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
});

const post = (path: string, init: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> }) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json', ...init.headers },
    body: init.form ? new URLSearchParams(init.form) : JSON.stringify(init.json),
  });

describe('sign-in that binds the installation, against the executable', () => {
  it('bootstrap, native password sign-in with the binding code: the installation is BOUND to the subject', async () => {
    const boot = await post('/v1/sdk/installations', { json: { platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, headers: { 'X-Service-App-Key': appKey } });
    expect(boot.status).toBe(201);
    const s = (await boot.json()) as { installationId: string; credential: string };
    const auth = { authorization: `Bearer ${s.credential}` };
    const issued = await post('/v1/sdk/installation/binding-code', { headers: auth });
    const { code: bindingCode } = (await issued.json()) as { code: string };

    const verifier = client.randomPKCECodeVerifier();
    const interaction = await post('/t/acme/oauth2/native/interactions', {
      form: {
        client_id: 'app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state: 'st', nonce: 'n',
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', binding_code: bindingCode,
      },
    });
    expect(interaction.status).toBe(201);
    const { interactionId } = (await interaction.json()) as { interactionId: string };
    const proof = await post('/t/acme/oauth2/native/password', { form: { interaction_id: interactionId, email: EMAIL, password: PASSWORD } });
    expect(proof.status).toBe(200);
    const { code } = (await proof.json()) as { code: string };
    const token = await post('/t/acme/oauth2/token', { form: { grant_type: 'authorization_code', client_id: 'app', code, redirect_uri: CALLBACK, code_verifier: verifier } });
    expect(token.status).toBe(200);
    expect(((await token.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'BOUND', installation_id: s.installationId, generation: 1 });

    const state = (await (await fetch(`${server.url}/v1/sdk/installation`, { headers: auth })).json()) as { generation: number; bound: boolean };
    expect(state).toMatchObject({ generation: 1, bound: true });
    const op = { operationId: randomUUID(), generation: 1, type: 'PROFILE_ATTRIBUTES_EDITED', occurredAt: new Date().toISOString(), payload: { set: { plan: 'pro' } } };
    expect((await post('/v1/sdk/operations:batch', { json: { batchId: randomUUID(), operations: [op] }, headers: auth })).status).toBe(202);
    const deadline = Date.now() + 10_000;
    type Profile = { installations: { id: string }[]; attributes: Record<string, unknown> };
    const show = () => sandbox.cliJson<Profile>(['profiles', 'show', '--environment', 'prod', '--external-id', subject]);
    let profile = await show();
    while (profile.attributes.plan !== 'pro' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      profile = await show();
    }
    expect(profile.installations.map((i) => i.id)).toEqual([s.installationId]);
    expect(profile.attributes).toMatchObject({ plan: 'pro' });
  }, 60_000);

  it('environments update names another tenant, none, and refuses an unknown one or no choice', async () => {
    const before = await sandbox.cliJson<{ identityTenantId: string }>(['environments', 'show', 'prod']);
    expect((await sandbox.cliJson<{ identityTenantId: string | null }>(['environments', 'update', 'prod', '--no-identity-tenant'])).identityTenantId).toBeNull();
    const unknown = await sandbox.run(['environments', 'update', 'prod', '--identity-tenant', 'nope', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: 'unknown_tenant' });
    expect((await sandbox.run(['environments', 'update', 'prod'])).code).toBe(1);
    const listed = await sandbox.cliJson<{ name: string; identityTenantId: string | null }[]>(['environments', 'list']);
    expect(listed.map((e) => [e.name, e.identityTenantId])).toEqual([['prod', null]]);
    expect((await sandbox.cliJson<{ identityTenantId: string }>(['environments', 'update', 'prod', '--identity-tenant', 'acme'])).identityTenantId).toBe(before.identityTenantId);
  }, 60_000);
});
