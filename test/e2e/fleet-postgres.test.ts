/**
 * Three `dist/engage serve` processes on one PostgreSQL database, as behind a load balancer
 * (issue 9): a browser (Chromium) sign-in through one, its code exchanged at another, refreshes at the third;
 * refresh-token reuse replayed at a process other than the one that rotated; `keys rotate` seen
 * by all three within a second; last-writer-wins state under concurrent writes through all three; a SIGKILL of one under ingest load loses nothing acknowledged
 * and stores nothing twice. Runs with ENGAGE_TEST_ENGINE=postgres (npm test's second run).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, freePort, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser';

const ON_POSTGRES = process.env.ENGAGE_TEST_ENGINE === 'postgres';
/** A native app's loopback redirect (RFC 8252 §7.3: any port); the test listens on one. */
const CALLBACK = 'http://127.0.0.1/cb';
const PASSWORD = 'correct horse battery';

let sb: Sandbox;
let servers: RunningServer[] = [];

/**
 * Starts one more serving process on a port of its own and returns where it listens. Every
 * process has the sandbox's public URL, so all three serve one issuer, as behind a balancer.
 */
async function serveOne(): Promise<string> {
  const port = servers.length === 0 ? sb.port : await freePort();
  servers.push(await sb.serve({ port, env: { ENGAGE_REFRESH_REUSE_GRACE: '0' } }));
  return `http://127.0.0.1:${port}`;
}

describe.skipIf(!ON_POSTGRES)('three processes on one PostgreSQL database', () => {
  let tenantIssuer: string;
  const urls: string[] = [];

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-fleet-pg-' });
    const tenant = await sb.cliJson<{ issuer: string }>(['tenants', 'create', '--slug', 'acme']);
    tenantIssuer = tenant.issuer;
    await sb.cli([
      'clients', 'create', '--tenant', 'acme', '--client-id', 'app', '--name', 'App', '--type', 'NATIVE', '--auth', 'NONE',
      '--redirect-uri', CALLBACK, '--scope', 'openid email offline_access', '--consent', 'PRE_AUTHORIZED',
    ]);
    await sb.cli(['users', 'create', '--tenant', 'acme', '--email', 'alice@example.com', '--verified', '--password-stdin'], { stdin: PASSWORD });
    for (let i = 0; i < 3; i++) urls.push(await serveOne());
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    servers = [];
    await sb?.cleanup();
  });

  const token = (url: string, form: Record<string, string>) =>
    fetch(`${url}/t/acme/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

  it.skipIf(!HAS_CHROMIUM)('a browser sign-in through one process, its code exchanged at a second, refreshes at the third; reuse is detected across processes', async () => {
    // The app's loopback listener: where the browser lands with the code.
    const app: Server = createServer((_req, res) => res.end('signed in'));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const redirectUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/cb`;
    const browser = await launchChromium();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    let landed: URL;
    try {
      const page = await browser.newPage();
      await page.goto(`${urls[0]}/t/acme/oauth2/authorize?${new URLSearchParams({
        client_id: 'app', redirect_uri: redirectUri, response_type: 'code', scope: 'openid email offline_access', state: 's1', nonce: 'n1',
        code_challenge: challenge, code_challenge_method: 'S256',
      })}`);
      await page.getByLabel('Email').fill('alice@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${redirectUri}?**`);
      landed = new URL(page.url());
    } finally {
      await browser.close();
      app.close();
    }
    const code = landed.searchParams.get('code')!;
    expect([landed.searchParams.get('state'), landed.searchParams.get('iss')]).toEqual(['s1', tenantIssuer]);

    const exchanged = await token(urls[1], { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'app', code_verifier: verifier });
    expect(exchanged.status).toBe(200);
    const t0 = (await exchanged.json()) as { access_token: string; refresh_token: string; id_token: string };
    const refreshed = await token(urls[2], { grant_type: 'refresh_token', refresh_token: t0.refresh_token, client_id: 'app' });
    expect(refreshed.status).toBe(200);
    const t1 = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(t1.refresh_token).not.toBe(t0.refresh_token);
    const info = await fetch(`${urls[0]}/t/acme/oauth2/userinfo`, { headers: { authorization: `Bearer ${t1.access_token}` } });
    expect([info.status, ((await info.json()) as { email: string }).email]).toEqual([200, 'alice@example.com']);

    // The rotated token replayed at another process (no grace window here): reuse, the grant ends.
    const replay = await token(urls[0], { grant_type: 'refresh_token', refresh_token: t0.refresh_token, client_id: 'app' });
    expect([replay.status, ((await replay.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const successor = await token(urls[1], { grant_type: 'refresh_token', refresh_token: t1.refresh_token, client_id: 'app' });
    expect([successor.status, ((await successor.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const revoked = await fetch(`${urls[2]}/t/acme/oauth2/userinfo`, { headers: { authorization: `Bearer ${t1.access_token}` } });
    expect(revoked.status).toBe(401);
    // The code is spent for every process.
    const again = await token(urls[2], { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'app', code_verifier: verifier });
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
  });

  it('`engage keys rotate` is seen by all three processes within a second', async () => {
    const kids = async (url: string) => ((await (await fetch(`${url}/t/acme/oauth2/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = await kids(urls[0]);
    expect(before).toHaveLength(1);
    await sb.cli(['keys', 'rotate', '--tenant', 'acme']);
    const rotatedAt = Date.now();
    for (const url of urls) {
      let seen = await kids(url);
      while (seen.length < 2 && Date.now() - rotatedAt < 1_000) {
        await new Promise((r) => setTimeout(r, 20));
        seen = await kids(url);
      }
      expect(seen, url).toHaveLength(2);
    }
    expect(Date.now() - rotatedAt).toBeLessThan(1_000 + 500); // the last look itself takes a moment
  });

  it('last-writer-wins holds across processes: concurrent writes of one installation through all three end at the newest occurredAt', async () => {
    const env = await sb.cliJson<{ id: string }>(['environments', 'create', '--name', 'lww']);
    const app = await sb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'lww']);
    const res = await fetch(`${urls[0]}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': app.appKey },
      body: JSON.stringify({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
    });
    const device = (await res.json()) as { installationId: string; credential: string };
    const base = Date.parse('2026-06-01T00:00:00Z');
    // 90 writes of the same cells, occurredAt a shuffled 0..89 seconds, each batch to one of the three processes, all at once.
    const order = Array.from({ length: 90 }, (_, i) => i).sort(() => Math.random() - 0.5);
    const answers = await Promise.all(order.map((i, n) =>
      fetch(`${urls[n % 3]}/v1/sdk/operations:batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${device.credential}` },
        body: JSON.stringify({
          batchId: randomUUID(),
          operations: [
            { operationId: randomUUID(), generation: 0, type: 'INSTALLATION_ATTRIBUTES_EDITED', occurredAt: new Date(base + i * 1000).toISOString(), payload: { set: { color: `c${i}`, [`k${i % 5}`]: i } } },
            { operationId: randomUUID(), generation: 0, type: 'PUSH_SUBSCRIPTION_SET', occurredAt: new Date(base + i * 1000).toISOString(), payload: { state: i % 2 ? 'OPTED_IN' : 'OPTED_OUT' } },
          ],
        }),
      }).then((r) => r.status)));
    expect(answers.every((s) => s === 202)).toBe(true);
    const shown = await sb.cliJson<{ attributes: Record<string, unknown>; pushSubscription: string }>(['installations', 'show', device.installationId]);
    // The newest write of each cell, whichever process took it and in whatever order they committed.
    expect(shown.attributes).toEqual({ color: 'c89', k0: 85, k1: 86, k2: 87, k3: 88, k4: 89 });
    expect(shown.pushSubscription).toBe('OPTED_IN');
  }, 60_000);

  it('a SIGKILL of one process under ingest load loses nothing acknowledged and stores nothing twice', async () => {
    const env = await sb.cliJson<{ id: string }>(['environments', 'create', '--name', 'load']);
    const app = await sb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', env.id, '--platform', 'ANDROID', '--name', 'load']);
    const sessions: { installationId: string; credential: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${urls[i % 3]}/v1/sdk/installations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-App-Key': app.appKey },
        body: JSON.stringify({ platform: 'ANDROID', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
      });
      expect(res.status).toBe(201);
      sessions.push((await res.json()) as { installationId: string; credential: string });
    }
    const acked: { installationId: string; credential: string; batchId: string; operations: unknown[]; body: string }[] = [];
    let stop = false;
    let cut = 0;
    const worker = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const s = sessions[(w + n * 6) % sessions.length];
        const url = urls[(w + n) % 3];
        const operations = Array.from({ length: 50 }, (_, i) => ({
          operationId: randomUUID(), generation: 0, type: 'EVENT_TRACKED', occurredAt: new Date().toISOString(), payload: { name: 'load', properties: { i } },
        }));
        const batchId = randomUUID();
        try {
          const res = await fetch(`${url}/v1/sdk/operations:batch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${s.credential}` },
            body: JSON.stringify({ batchId, operations }),
          });
          const body = await res.text();
          if (res.status === 202) acked.push({ ...s, batchId, operations, body });
          else cut++;
        } catch {
          cut++; // cut by the kill: not acknowledged
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
    await new Promise((r) => setTimeout(r, 1_500));
    servers[1].process.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await load;
    expect(acked.length).toBeGreaterThan(10);
    expect(cut).toBeGreaterThan(0);

    // Each acknowledged batch, sent again to a surviving process, replays its first answer.
    for (const a of acked.slice(-10)) {
      const res = await fetch(`${urls[2]}/v1/sdk/operations:batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${a.credential}` },
        body: JSON.stringify({ batchId: a.batchId, operations: a.operations }),
      });
      expect([res.status, await res.text()]).toEqual([200, a.body]);
    }
    const db = new pg.Client({ connectionString: sb.database! });
    await db.connect();
    try {
      const ids = acked.flatMap((a) => (a.operations as { operationId: string }[]).map((o) => o.operationId));
      const stored = await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM operations WHERE operation_id = ANY($1::text[])', [ids]);
      expect(Number(stored.rows[0].n)).toBe(ids.length);
      const twice = await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM (SELECT 1 FROM operations GROUP BY installation_id, operation_id HAVING COUNT(*) > 1) d');
      expect(Number(twice.rows[0].n)).toBe(0);
    } finally {
      await db.end();
    }
  }, 60_000);
});
