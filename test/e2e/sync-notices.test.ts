/**
 * The sync's change notices (issue 26 point 6) on the built executable: an installation's
 * stream (GET /v1/sdk/sync/events) hears a write within a second, through another `engage
 * serve` process on PostgreSQL (LISTEN/NOTIFY) and from a CLI command (NOTIFY only); it sends
 * heartbeats, closes after --sync-stream-idle, and /metrics counts it; it ends at once when
 * its app is disabled through another process's administration API (or, on PostgreSQL, by the
 * CLI). On SQLite one process serves: the write goes through it.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, freePort, type RunningServer, type Sandbox } from '../helpers/binary';
import { EventReader, SYNC_EVENT } from '../helpers/sse';
import { engageAdminToken } from '../helpers/engage-admin-token';

const ON_POSTGRES = process.env.ENGAGE_TEST_ENGINE === 'postgres';

let sb: Sandbox;
const servers: RunningServer[] = [];
let writer: string; // where writes go
let listener: string; // where the stream is (another process on PostgreSQL)
let appKey: string;
const readers: EventReader[] = [];
/** Apps the app-disable case turns off (the others keep `appKey`'s), and an operator's token of the engagement administration API. */
let spare: { api: { id: string; appKey: string }; cli: { id: string; appKey: string } };
let adminToken: string;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-sync-notices-' });
  await sb.cli(['environments', 'create', '--name', 'prod']);
  appKey = (await sb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'ios'])).appKey;
  const app = (name: string) => sb.cliJson<{ id: string; appKey: string }>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', name]);
  spare = { api: await app('ios-api'), cli: await app('ios-cli') };
  await sb.cli(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
  const args = ['--sync-stream-idle', '2'];
  const env = { ENGAGE_SYNC_STREAM_HEARTBEAT: '1' };
  servers.push(await sb.serve({ args, env }));
  writer = `http://127.0.0.1:${sb.port}`;
  if (ON_POSTGRES) {
    const port = await freePort();
    servers.push(await sb.serve({ port, args, env }));
    listener = `http://127.0.0.1:${port}`;
  } else listener = writer;
  adminToken = await engageAdminToken(writer, 'ops@example.com', PASSWORD);
}, 60_000);
afterAll(async () => {
  for (const r of readers) await r.cancel();
  for (const s of servers) await s.stop();
  await sb?.cleanup();
});

async function installation(key = appKey): Promise<{ installationId: string; credential: string }> {
  const res = await fetch(`${writer}/v1/sdk/installations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-app-key': key },
    body: JSON.stringify({ platform: 'IOS', sdkVersion: '1.0.0', appVersion: '1.0.0', osVersion: '17.0', deviceModel: 'iPhone', locale: 'en-US', timezone: 'Europe/Paris' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { installationId: string; credential: string };
}

/**
 * A stream read through node:http, not fetch: cancelling a fetch body leaves undici opening a
 * spare connection that has sent no request, which a server's graceful close waits for.
 */
async function stream(credential: string): Promise<EventReader> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${listener}/v1/sdk/sync/events`, { headers: { authorization: `Bearer ${credential}` }, agent: false }, resolve).on('error', reject),
  );
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-accel-buffering']).toBe('no');
  expect(res.headers['x-request-id']).toBeTruthy();
  const r = new EventReader(Readable.toWeb(res) as ReadableStream<Uint8Array>);
  readers.push(r);
  expect(await r.next()).toBe('retry: 5000\n:');
  return r;
}

const attributes = (credential: string) =>
  fetch(`${writer}/v1/sdk/operations:batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
    body: JSON.stringify({
      batchId: randomUUID(),
      operations: [{ operationId: randomUUID(), generation: 0, type: 'INSTALLATION_ATTRIBUTES_EDITED', occurredAt: new Date().toISOString(), payload: { set: { plan: 'pro' } } }],
    }),
  });

describe('GET /v1/sdk/sync/events on the executable', () => {
  it(`a write${ON_POSTGRES ? ' through another process' : ''} reaches the installation's stream within a second; another installation's stream hears nothing`, async () => {
    const a = await installation();
    const b = await installation();
    const [ra, rb] = [await stream(a.credential), await stream(b.credential)];
    const started = Date.now();
    expect((await attributes(a.credential)).status).toBe(202);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await rb.nextEvent(300)).toBe('timeout');
  });

  it(`a list created by the CLI ${ON_POSTGRES ? 'reaches the streams of its environment (NOTIFY)' : 'is heard at the next sync only (a command cannot reach the server)'}`, async () => {
    const a = await installation();
    const ra = await stream(a.credential);
    const file = path.join(sb.dir, 'news.json');
    await writeFile(file, JSON.stringify({ key: `news${Date.now()}`, displayName: 'News', channels: ['PUSH'] }));
    await sb.cli(['lists', 'create', '--environment', 'prod', '--file', file]);
    // On PostgreSQL the command's NOTIFY reaches the serving process; on SQLite a command
    // cannot reach a server: the SDK's periodic sync covers it (docs/sync.md).
    expect(await ra.nextEvent(ON_POSTGRES ? 1_000 : 500)).toBe(ON_POSTGRES ? SYNC_EVENT : 'timeout');
  });

  it(`disabling an app through the administration API${ON_POSTGRES ? ' of another process, or by the CLI (NOTIFY),' : ''} ends its installations' streams at once; a reconnection is refused; another app's stream stays`, async () => {
    const [a, b, other] = [await installation(spare.api.appKey), await installation(spare.cli.appKey), await installation()];
    const [ra, ro] = [await stream(a.credential), await stream(other.credential)];
    const refused = async (credential: string) => {
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        get(`${listener}/v1/sdk/sync/events`, { headers: { authorization: `Bearer ${credential}` }, agent: false }, resolve).on('error', reject),
      );
      res.resume();
      return res.statusCode === 401;
    };
    const started = Date.now();
    const res = await fetch(`${writer}/t/control/engage/admin/environments/prod/apps/${spare.api.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'DISABLED' }),
    });
    expect(res.status).toBe(200);
    expect(await ra.nextEvent(1_000)).toBe('closed');
    // Well before the idle end (2 s): the app's notice ended it.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await refused(a.credential)).toBe(true);
    // Another app's stream is open still, and told of its installation's writes.
    expect((await attributes(other.credential)).status).toBe(202);
    expect(await ro.nextEvent(1_000)).toBe(SYNC_EVENT);
    // The CLI's `engage apps disable`: on PostgreSQL its NOTIFY reaches the serving processes; on
    // SQLite a command cannot reach a server (the stream ends at its next notice or idle time).
    const rb = await stream(b.credential);
    const opened = Date.now();
    await sb.cli(['apps', 'disable', spare.cli.id]);
    if (ON_POSTGRES) {
      expect(await rb.nextEvent(1_000)).toBe('closed');
      expect(Date.now() - opened).toBeLessThan(1_900);
    }
    expect(await refused(b.credential)).toBe(true);
  });

  it('heartbeats while quiet, the end of the stream after --sync-stream-idle, and /metrics counts the open streams', async () => {
    const a = await installation();
    const metrics = async () => Number(/^engage_sync_streams_open (\d+)$/m.exec(await (await fetch(`${listener}/metrics`)).text())?.[1]);
    for (const r of readers.splice(0)) await r.cancel();
    for (let i = 0; i < 50 && (await metrics()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await metrics()).toBe(0);
    const ra = await stream(a.credential);
    expect(await metrics()).toBe(1);
    const opened = Date.now();
    expect(await ra.next(1_600)).toBe(':');
    expect(await ra.nextEvent(3_000)).toBe('closed');
    expect(Date.now() - opened).toBeGreaterThanOrEqual(1_900);
    expect(await metrics()).toBe(0);
  });

  it('SIGTERM ends the open streams at once: the server stops without waiting for them', async () => {
    const a = await installation();
    const ra = await stream(a.credential);
    const server = servers[servers.length - 1];
    const started = Date.now();
    const stopped = await server.stop(8_000);
    expect(stopped).toMatchObject({ code: 0, forced: false });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await ra.nextEvent(1_000)).toBe('closed');
    servers.pop();
  });
});

describe('serve --workers 2', () => {
  let wb: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    wb = await createSandbox({ prefix: 'engage-sync-notices-workers-' });
    await wb.cli(['environments', 'create', '--name', 'prod']);
    appKey = (await wb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'ios'])).appKey;
    server = await wb.serve({ args: ['--workers', '2'] });
    writer = listener = server.url;
    // A worker answers 503 until its services are built: ready when both are (connections alternate between them).
    // Up to 40 s: on a loaded machine a worker's services take a while to build (CI saw a 503 after the earlier 10 s).
    let ok = 0;
    for (let tries = 0; ok < 6 && tries < 800; tries++) {
      ok = (await fetch(`${server.url}/readyz`)).status === 200 ? ok + 1 : 0;
      if (ok === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ok, 'both workers ready').toBe(6);
  }, 90_000);
  afterAll(async () => {
    for (const r of readers.splice(0)) await r.cancel();
    await wb?.cleanup();
  });

  it(`a write through one worker reaches the installation's streams on both (${ON_POSTGRES ? 'each worker listens to the database' : 'through the primary'})`, async () => {
    const a = await installation();
    // Two connections: the primary hands them to the two workers in turn.
    const streams = [await stream(a.credential), await stream(a.credential)];
    for (let i = 0; i < 3; i++) {
      expect((await attributes(a.credential)).status).toBe(202);
      for (const r of streams) expect(await r.nextEvent(1_000)).toBe(SYNC_EVENT);
      await new Promise((r) => setTimeout(r, 150));
    }
  });
});
