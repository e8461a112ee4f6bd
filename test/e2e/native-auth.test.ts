import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * The native adapter as a mobile app uses it, against the built executable on loopback: the CLI
 * sets up a SELF_SERVICE tenant with a native client, `engage serve` sends its mail to a real
 * SMTP server in this process, and openid-client redeems every code and validates the ID token.
 */
const CALLBACK = 'com.example.app:/oauth2/callback';
const PASSWORD = 'correct horse battery';
const EMAIL = 'alice@example.com';

let sandbox: Sandbox;
let server: RunningServer;
let smtp: TestSmtp;
let issuer: string;
let config: client.Configuration;

beforeAll(async () => {
  smtp = await startSmtp();
  sandbox = await createSandbox({ prefix: 'engage-native-' });
  await sandbox.cli(['tenants', 'create', '--slug', 'acme', '--registration-mode', 'SELF_SERVICE']);
  await sandbox.cli([
    'clients', 'create', '--tenant', 'acme', '--client-id', 'app', '--name', 'Acme App', '--type', 'NATIVE', '--auth', 'NONE',
    '--redirect-uri', CALLBACK, '--scope', 'openid email offline_access', '--consent', 'PRE_AUTHORIZED', '--native-auth',
  ]);
  await sandbox.cli(['users', 'create', '--tenant', 'acme', '--email', EMAIL, '--verified', '--password-stdin'], { stdin: PASSWORD });
  issuer = `${sandbox.publicUrl}/t/acme`;
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
  await smtp?.close();
});

async function native(route: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${issuer}/oauth2/native${route}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
}

/** A new interaction with fresh PKCE, state and nonce, as an app starts one. */
async function start() {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const res = await native('/interactions', {
    client_id: 'app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email offline_access', state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  expect(res.status).toBe(201);
  const { interactionId } = (await res.json()) as { interactionId: string };
  return { interactionId, verifier, state, nonce };
}

/** The code result as the callback URL an app would build, redeemed by openid-client (ID token validated). */
async function redeem(flow: Awaited<ReturnType<typeof start>>, res: Response) {
  expect(res.status).toBe(200);
  const result = (await res.json()) as { code: string; state: string; issuer: string; redirectUri: string; replacementRecoveryCode: string | null };
  expect(result).toMatchObject({ state: flow.state, issuer, redirectUri: CALLBACK, replacementRecoveryCode: null });
  const callback = new URL(result.redirectUri);
  callback.searchParams.set('code', result.code);
  callback.searchParams.set('state', result.state);
  callback.searchParams.set('iss', result.issuer);
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true });
}

/** Waits for the mail job to deliver a new message to `address` and returns its code. */
async function nextCode(address: string, seen: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (smtp.to(address).length <= seen) {
    if (Date.now() > deadline) throw new Error(`no mail to ${address}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return smtp.codeFor(address);
}

describe('native authentication against dist/engage', () => {
  it('without SMTP, serve warns at start and mail flows answer 503', async () => {
    const bare = await sandbox.serve();
    try {
      expect(bare.output()).toMatch(/no SMTP server configured/);
      const flow = await start();
      const res = await native('/email/request', { interaction_id: flow.interactionId, email: EMAIL });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: 'temporarily_unavailable' });
    } finally {
      await bare.stop();
    }
  }, 30_000);

  it('signs in with a password; openid-client redeems the code and validates the ID token', async () => {
    server = await sandbox.serve({ args: ['--smtp-url', smtp.url, '--mail-from', 'auth@acme.example'] });
    config = await client.discovery(new URL(issuer), 'app', undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const flow = await start();
    const tokens = await redeem(flow, await native('/password', { interaction_id: flow.interactionId, email: EMAIL, password: PASSWORD }));
    expect(tokens.claims()).toMatchObject({ iss: issuer, aud: 'app', nonce: flow.nonce });
    expect(tokens.refresh_token).toBeTruthy();
    expect(server.output()).not.toContain(PASSWORD);
  }, 30_000);

  it('signs in with an emailed code', async () => {
    const flow = await start();
    const seen = smtp.to(EMAIL).length;
    const req = await native('/email/request', { interaction_id: flow.interactionId, email: EMAIL });
    expect(req.status).toBe(202);
    const code = await nextCode(EMAIL, seen);
    expect(smtp.to(EMAIL).at(-1)!.from).toBe('auth@acme.example');
    const tokens = await redeem(flow, await native('/email/verify', { interaction_id: flow.interactionId, email: EMAIL, code }));
    expect(tokens.claims()!.email).toBe(EMAIL);
    // Codes never reach the logs.
    expect(server.output()).not.toContain(code);
  }, 30_000);

  it('registers an account, then signs in with it', async () => {
    const email = 'bob@example.com';
    const flow = await start();
    expect((await native('/registration/request', { interaction_id: flow.interactionId, email })).status).toBe(202);
    const code = await nextCode(email, 0);
    const verify = await native('/registration/verify', { interaction_id: flow.interactionId, email, code });
    expect(verify.status).toBe(200);
    const { registrationGrant } = (await verify.json()) as { registrationGrant: string };
    const done = await native('/registration/complete', { interaction_id: flow.interactionId, registration_grant: registrationGrant, password: 'bob’s long password' });
    expect(done.status).toBe(201);
    const users = await sandbox.cliJson<{ email: string; emailVerified: boolean; status: string }[]>(['users', 'list', '--tenant', 'acme']);
    expect(users.find((u) => u.email === email)).toMatchObject({ emailVerified: true, status: 'ACTIVE' });
    const again = await start();
    const tokens = await redeem(again, await native('/password', { interaction_id: again.interactionId, email, password: 'bob’s long password' }));
    expect(tokens.claims()!.email).toBe(email);
  }, 30_000);

  it('recovers a password, then signs in with the new one; the old refresh token is dead', async () => {
    const before = await start();
    const old = await redeem(before, await native('/password', { interaction_id: before.interactionId, email: EMAIL, password: PASSWORD }));
    const flow = await start();
    const seen = smtp.to(EMAIL).length;
    expect((await native('/password/recovery/request', { interaction_id: flow.interactionId, email: EMAIL })).status).toBe(202);
    const code = await nextCode(EMAIL, seen);
    const verify = await native('/password/recovery/verify', { interaction_id: flow.interactionId, email: EMAIL, code });
    const { resetGrant } = (await verify.json()) as { resetGrant: string };
    expect((await native('/password/recovery/complete', { interaction_id: flow.interactionId, reset_grant: resetGrant, new_password: 'a brand new password' })).status).toBe(204);
    await expect(client.refreshTokenGrant(config, old.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const tokens = await redeem(flow, await native('/password', { interaction_id: flow.interactionId, email: EMAIL, password: 'a brand new password' }));
    expect(tokens.access_token).toBeTruthy();
  }, 30_000);

  it('signs in with an ID token of another OpenID Connect issuer (social), creating the account once; removing the provider stops it', async () => {
    // The upstream is another tenant of this server, a real OpenID Connect issuer on loopback.
    await sandbox.cli(['tenants', 'create', '--slug', 'upstream']);
    await sandbox.cli([
      'clients', 'create', '--tenant', 'upstream', '--client-id', 'up-app', '--name', 'Upstream App', '--type', 'NATIVE', '--auth', 'NONE',
      '--redirect-uri', CALLBACK, '--scope', 'openid email', '--consent', 'PRE_AUTHORIZED', '--native-auth',
    ]);
    await sandbox.cli(['users', 'create', '--tenant', 'upstream', '--email', 'carol@example.com', '--verified', '--password-stdin'], { stdin: PASSWORD });
    const upstream = `${sandbox.publicUrl}/t/upstream`;
    await sandbox.cli(['providers', 'add', '--tenant', 'acme', '--name', 'upstream', '--issuer', upstream, '--audience', 'up-app']);

    /** An ID token of carol's for up-app, with `nonce`, from the upstream's own native sign-in and token endpoint. */
    async function upstreamIdToken(nonce: string): Promise<string> {
      const verifier = client.randomPKCECodeVerifier();
      const post = (route: string, fields: Record<string, string>) =>
        fetch(`${upstream}${route}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
      const opened = await post('/oauth2/native/interactions', {
        client_id: 'up-app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state: 's', nonce,
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      const { interactionId } = (await opened.json()) as { interactionId: string };
      const proof = await post('/oauth2/native/password', { interaction_id: interactionId, email: 'carol@example.com', password: PASSWORD });
      const { code } = (await proof.json()) as { code: string };
      const token = await post('/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: 'up-app', code_verifier: verifier });
      expect(token.status).toBe(200);
      return ((await token.json()) as { id_token: string }).id_token;
    }
    const social = async (flow: Awaited<ReturnType<typeof start>>, idToken: string, nonce: string) =>
      native('/social', { interaction_id: flow.interactionId, provider: 'upstream', id_token: idToken, nonce, audience: 'up-app' });

    const first = await start();
    const tokens = await redeem(first, await social(first, await upstreamIdToken('n-1'), 'n-1'));
    const subject = tokens.claims()!.sub;
    expect(tokens.claims()).toMatchObject({ iss: issuer, email: 'carol@example.com' });
    const users = await sandbox.cliJson<{ email: string; subject: string; emailVerified: boolean }[]>(['users', 'list', '--tenant', 'acme']);
    expect(users.filter((u) => u.email === 'carol@example.com')).toEqual([expect.objectContaining({ subject, emailVerified: true })]);

    // The same person again: the linked account, not a second one.
    const second = await start();
    expect((await redeem(second, await social(second, await upstreamIdToken('n-2'), 'n-2'))).claims()!.sub).toBe(subject);
    // A token replayed with another nonce is refused.
    const replay = await start();
    const replayed = await social(replay, await upstreamIdToken('n-3'), 'n-other');
    expect([replayed.status, await replayed.json()]).toEqual([401, { error: 'invalid_credentials' }]);

    await sandbox.cli(['providers', 'remove', '--tenant', 'acme', '--name', 'upstream']);
    const after = await start();
    const refused = await social(after, await upstreamIdToken('n-4'), 'n-4');
    expect([refused.status, await refused.json()]).toEqual([403, { error: 'provider_unavailable' }]);
  }, 60_000);
});
