import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryPath, freePort, type RunningServer } from '../helpers/binary';
import { createPushSandbox, iosAppWithTemplate, until, type PushSandbox } from '../helpers/push-e2e';
import { EventReader } from '../helpers/sse';

/**
 * Issue 27 on the built executable: a template with push and inbox, sent to an external id with
 * two installations; the push reaches the loopback APNs with the entry's id, both installations
 * list the entry, one marks it read and the other's unread count drops, and the other's live badge
 * (GET /v1/sdk/inbox/events) says so within a second; a replay writes nothing. On PostgreSQL the
 * badge's stream is held on a second `engage serve` of the same database: the send and the read go
 * through the first process, the count crosses processes (LISTEN/NOTIFY).
 */
const TOPIC = 'com.example.inbox';
const ON_POSTGRES = process.env.ENGAGE_TEST_ENGINE === 'postgres';
let p: PushSandbox;
let server: RunningServer | undefined;
let second: RunningServer | undefined;
let badge: EventReader | undefined;
beforeAll(async () => {
  p = await createPushSandbox({ prefix: 'engage-inbox-', topic: TOPIC });
});
afterAll(async () => {
  await badge?.cancel();
  await second?.stop();
  await server?.stop();
  await p?.close();
});

/** An installation's live badge stream, read through node:http (as test/e2e/sync-notices.test.ts does, for a clean stop). */
async function badgeStream(base: string, credential: string): Promise<EventReader> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${base}/v1/sdk/inbox/events`, { headers: { authorization: `Bearer ${credential}` }, agent: false }, resolve).on('error', reject),
  );
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  const r = new EventReader(Readable.toWeb(res) as ReadableStream<Uint8Array>);
  expect(await r.next()).toBe('retry: 5000\n:');
  return r;
}
const unread = (n: number) => `event: inbox\ndata: {"unreadCount":${n}}`;

interface Device {
  installationId: string;
  credential: string;
  generation: number;
  token: string;
}

describe.skipIf(!existsSync(process.env.ENGAGE_BIN ?? path.resolve(__dirname, '../../dist/engage')))('inbox entries written by sends (dist/engage)', () => {
  it('push + inbox to an external id with two installations: the entry id in the push, both list it, one reads it, the other’s count drops', async () => {
    binaryPath();
    const { environment, app, key } = await iosAppWithTemplate(p, {
      environment: 'inbox',
      topic: TOPIC,
      template: {
        key: 'order.shipped',
        variables: { orderId: { type: 'string' } },
        localizations: { en: { title: 'Order {{orderId}} shipped', body: 'On its way' } },
        inbox: {
          key: 'order.shipped',
          localizations: { en: { payload: { orderId: '{{orderId}}' }, layout: { SUMMARY: { title: 'Order {{orderId}}' }, DETAIL: { body: 'Shipped' } } } },
        },
      },
    });
    server = await p.sandbox.serve({ env: p.env });
    const url = server.url;
    // Where b's badge stream is held: another process on the same database (PostgreSQL), else the one server.
    if (ON_POSTGRES) second = await p.sandbox.serve({ env: p.env, port: await freePort() });
    const streamUrl = second?.url ?? url;
    const post = (route: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const device = async (): Promise<Device> => {
      const s = (await (await post('/v1/sdk/installations', { platform: 'IOS', locale: 'en-US', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'X-Service-App-Key': app.appKey })).json()) as Device;
      const token = randomBytes(32).toString('hex');
      const op = (type: string, payload: unknown) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
      const ops = [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token })];
      expect((await post('/v1/sdk/operations:batch', { batchId: randomUUID(), operations: ops }, { authorization: `Bearer ${s.credential}` })).status).toBe(202);
      const code = ((await (await post('/v1/sdk/installation/binding-code', {}, { authorization: `Bearer ${s.credential}` })).json()) as { code: string }).code;
      const bound = await post('/v1/installation-binding-transitions', { bindingCode: code, target: { externalId: 'user-42' } }, { authorization: `Bearer ${key.key}`, 'Idempotency-Key': randomUUID() });
      expect(bound.status).toBe(201);
      return { ...s, token, generation: ((await bound.json()) as { generation: number }).generation };
    };
    const [a, b] = [await device(), await device()];
    badge = await badgeStream(streamUrl, b.credential);
    expect(await badge.nextEvent()).toBe(unread(0));
    const inbox = async (d: Device) => {
      const res = await fetch(`${url}/v1/sdk/inbox`, { headers: { authorization: `Bearer ${d.credential}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as { entries: { id: string; key: string; payload: unknown; scope: string; readAt: string | null }[]; unreadCount: number };
    };

    const body = { recipient: { type: 'EXTERNAL_ID', value: 'user-42' }, variables: { orderId: 'A-17' }, idempotencyKey: 'order-A-17-shipped' };
    const sent = await post(`/api/v1/environments/${environment.id}/transactional/order.shipped/send`, body, { authorization: `Bearer ${key.key}` });
    expect(sent.status).toBe(202);
    const answer = (await sent.json()) as { inboxEntryId: string; diagnostics: { code: string; deliveryId: string }[] };
    expect(answer.diagnostics.map((d) => d.code)).toEqual(['TARGETED', 'TARGETED']);
    const entryId = answer.inboxEntryId;
    expect(entryId).toMatch(/^[0-9a-f-]{36}$/);
    // The new entry reaches b's badge.
    expect(await badge.nextEvent(1_000)).toBe(unread(1));

    // Both pushes at the loopback APNs, each carrying the entry's id.
    await until('both pushes at APNs', () => answer.diagnostics.every((d) => p.apns.delivered.has(d.deliveryId)), 30_000);
    for (const d of [a, b]) expect(p.apns.requests.find((r) => r.token === d.token)?.payload).toMatchObject({ inboxEntryId: entryId });

    // Both installations list it; a replay answers the same entry and writes none.
    for (const d of [a, b]) {
      const page = await inbox(d);
      expect(page.entries).toEqual([expect.objectContaining({ id: entryId, key: 'order.shipped', payload: { orderId: 'A-17' }, scope: 'PROFILE', readAt: null })]);
      expect(page.unreadCount).toBe(1);
    }
    const replay = await post(`/api/v1/environments/${environment.id}/transactional/order.shipped/send`, body, { authorization: `Bearer ${key.key}` });
    expect(((await replay.json()) as { inboxEntryId: string }).inboxEntryId).toBe(entryId);
    expect((await inbox(b)).entries).toHaveLength(1);

    // A tap on b opens it: its rendering resolves. a reads it: b's badge drops.
    const r = await post('/v1/sdk/inbox/renderings:resolve', { entryIds: [entryId] }, { authorization: `Bearer ${b.credential}` });
    expect(((await r.json()) as { renderings: { surfaces: unknown }[] }).renderings[0].surfaces).toEqual({ SUMMARY: { title: 'Order A-17' }, DETAIL: { body: 'Shipped' } });
    const started = Date.now();
    const ops = await post('/v1/sdk/inbox/operations:batch', { batchId: randomUUID(), generation: a.generation, operations: [{ operationId: randomUUID(), type: 'MARK_READ', entryId }] }, { authorization: `Bearer ${a.credential}` });
    expect(ops.status).toBe(202);
    // b's badge drops over SSE within a second of the read (through the other process on PostgreSQL).
    expect(await badge.nextEvent(1_000)).toBe(unread(0));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await inbox(b)).unreadCount).toBe(0);
  });
});
