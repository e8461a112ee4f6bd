import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, op } from '../../../test/fixtures/engage';
import { createPushWorld, device, send, sendBody, templateFile, deliveryRows, pushToken, TOPIC, type PushWorld } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

/** One send to a fresh iOS device; returns its delivery id and the device. */
async function sendTo(w: PushWorld, opts: Parameters<typeof device>[1] = {}, template = 'order.shipped') {
  const d = await device(w, { externalId: `u-${crypto.randomUUID()}`, ...opts });
  const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: d.installationId }), { template });
  expect(res.status).toBe(202);
  const body = (await res.json()) as { diagnostics: { deliveryId: string }[] };
  return { d, id: body.diagnostics[0].deliveryId };
}

const row = async (w: PushWorld, id: string) => (await deliveryRows(w, 'id = ?', [id]))[0];
const run = (w: PushWorld) => w.h.services.engage.messaging.deliveries.run();

describe('APNs delivery (HTTP/2, ES256 provider token)', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  it('sends with the headers and payload APNs checks, and records SENT', async () => {
    const { d, id } = await sendTo(w);
    await run(w);
    const reqs = w.apns.requests.filter((r) => r.apnsId === id);
    expect(reqs.map((r) => r.status)).toEqual([200]);
    const h = reqs[0].headers;
    expect(reqs[0].token).toBe(d.token);
    expect({ topic: h['apns-topic'], type: h['apns-push-type'], priority: h['apns-priority'], collapse: h['apns-collapse-id'], expiration: h['apns-expiration'] }).toEqual({
      topic: TOPIC,
      type: 'alert',
      priority: '10',
      collapse: 'order',
      expiration: String(Math.floor(w.h.clock.now().getTime() / 1000) + 3600),
    });
    expect(reqs[0].payload).toMatchObject({ aps: { alert: { title: 'Order A-17 shipped' } }, deliveryId: id, deepLink: 'shop://orders/A-17', data: { orderId: 'A-17' } });
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 1, lastError: null });
    expect(await w.h.services.metrics.registry.render()).toMatch(/engage_push_delivery_attempts_total\{provider="APNS",outcome="sent"\} \d+/);
  });

  it('410 Unregistered clears the token and fails the delivery', async () => {
    const { d, id } = await sendTo(w);
    w.apns.script(d.token!, { status: 410, reason: 'Unregistered', timestamp: w.h.clock.now().getTime() });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'apns 410 Unregistered' });
    expect(await pushToken(w, d.installationId)).toBeNull();
  });

  it('410 keeps a token registered again after the time APNs gives', async () => {
    const { d, id } = await sendTo(w);
    // The token was set at 2026-01-01T00:00:00Z (the fixtures' occurredAt): APNs says it went stale before.
    w.apns.script(d.token!, { status: 410, reason: 'Unregistered', timestamp: Date.parse('2025-12-31T00:00:00Z') });
    await run(w);
    expect((await row(w, id)).state).toBe('FAILED');
    expect(await pushToken(w, d.installationId)).toBe(d.token);
  });

  it('400 BadDeviceToken clears the token (the fake refuses what is not a device token)', async () => {
    const { d, id } = await sendTo(w, { token: 'not-a-device-token' });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'apns 400 BadDeviceToken' });
    expect(await pushToken(w, d.installationId)).toBeNull();
  });

  it('other 400s (DeviceTokenNotForTopic) fail the delivery and keep the token', async () => {
    const { d, id } = await sendTo(w);
    w.apns.script(d.token!, { status: 400, reason: 'DeviceTokenNotForTopic' });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'apns 400 DeviceTokenNotForTopic' });
    expect(await pushToken(w, d.installationId)).toBe(d.token);
  });

  it('other 403s (InvalidProviderToken) fail the delivery: a configuration error, no retry', async () => {
    const { d, id } = await sendTo(w);
    w.apns.script(d.token!, { status: 403, reason: 'InvalidProviderToken' });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'apns 403 InvalidProviderToken' });
    expect(await pushToken(w, d.installationId)).toBe(d.token);
  });

  it('429 is retried no sooner than Retry-After, then sent', async () => {
    const { d, id } = await sendTo(w);
    w.apns.script(d.token!, { status: 429, reason: 'TooManyRequests', retryAfter: '120' });
    await run(w);
    const waiting = await row(w, id);
    expect(waiting).toMatchObject({ state: 'PENDING', attempts: 1, lastError: 'apns 429 TooManyRequests' });
    expect(Number(waiting.nextAttemptMs)).toBeGreaterThanOrEqual(w.h.clock.now().getTime() + 120_000);
    w.h.clock.advance(60);
    await run(w);
    expect((await row(w, id)).attempts).toBe(1);
    w.h.clock.advance(61);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 2, lastError: null });
  });

  it('500 and 503 are retried with exponential backoff', async () => {
    const { d, id } = await sendTo(w);
    w.apns.script(d.token!, { status: 500, reason: 'InternalServerError' }, { status: 503, reason: 'ServiceUnavailable' });
    await run(w);
    const first = await row(w, id);
    const delay1 = Number(first.nextAttemptMs) - w.h.clock.now().getTime();
    expect(delay1).toBeGreaterThanOrEqual(500);
    expect(delay1).toBeLessThanOrEqual(1_000);
    w.h.clock.advance(1);
    await run(w);
    const second = await row(w, id);
    expect(second).toMatchObject({ state: 'PENDING', attempts: 2, lastError: 'apns 503 ServiceUnavailable' });
    const delay2 = Number(second.nextAttemptMs) - w.h.clock.now().getTime();
    expect(delay2).toBeGreaterThanOrEqual(1_000);
    expect(delay2).toBeLessThanOrEqual(2_000);
    w.h.clock.advance(2);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 3 });
  });

  it('403 ExpiredProviderToken: a new provider token, the same request again at once', async () => {
    await sendTo(w).then(() => run(w));
    w.apns.expireTokens();
    w.h.clock.advance(2);
    const { id } = await sendTo(w);
    await run(w);
    const reqs = w.apns.requests.filter((r) => r.apnsId === id);
    expect(reqs.map((r) => [r.status, r.reason])).toEqual([[403, 'ExpiredProviderToken'], [200, undefined]]);
    expect(reqs[0].headers.authorization).not.toBe(reqs[1].headers.authorization);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('reuses one provider token across deliveries, renewed after 40 minutes', async () => {
    const a = await sendTo(w);
    const b = await sendTo(w);
    await run(w);
    const auth = (id: string) => w.apns.requests.find((r) => r.apnsId === id)!.headers.authorization;
    expect(auth(a.id)).toBe(auth(b.id));
    w.h.clock.advance(41 * 60);
    const c = await sendTo(w);
    await run(w);
    expect(auth(c.id)).not.toBe(auth(a.id));
  });

  it('a lost connection is retried; GOAWAY moves to a new connection', async () => {
    const { id } = await sendTo(w);
    w.apns.hold();
    const running = run(w);
    while (w.apns.pending() === 0) await new Promise((r) => setTimeout(r, 5));
    w.apns.dropConnections();
    await running;
    w.apns.release();
    expect(await row(w, id)).toMatchObject({ state: 'PENDING', attempts: 1 });
    expect((await row(w, id)).lastError).toMatch(/^connection|^stream/);
    expect(await w.h.services.metrics.registry.render()).toContain('engage_push_deliveries_pending{provider="APNS"} 1');
    w.h.clock.advance(2);
    await run(w);
    expect((await row(w, id)).state).toBe('SENT');
    w.apns.goaway();
    const after = await sendTo(w);
    await run(w);
    expect((await row(w, after.id)).state).toBe('SENT');
  });

  it('a TTL of 0 is apns-expiration 0; normal priority is apns-priority 5', async () => {
    const m = w.h.services.engage.messaging.templates;
    await m.create({ environment: w.envId, file: templateFile({ key: 'now.or.never', ttlSeconds: 0, priority: 'normal' }) }, ACTOR);
    await m.publish(w.envId, 'now.or.never', ACTOR);
    const { id } = await sendTo(w, {}, 'now.or.never');
    await run(w);
    const h = w.apns.requests.find((r) => r.apnsId === id)!.headers;
    expect([h['apns-expiration'], h['apns-priority']]).toEqual(['0', '5']);
  });

  it('refuses at send time a message larger than the 4 KB APNs accepts', async () => {
    const m = w.h.services.engage.messaging.templates;
    const big = 'x'.repeat(1000);
    await m.create({
      environment: w.envId,
      file: templateFile({ key: 'too.big', localizations: { en: { title: 't', body: 'b'.repeat(2000), customData: { a: big, b: big, c: big } } } }),
    }, ACTOR);
    await m.publish(w.envId, 'too.big', ACTOR);
    const d = await device(w, { externalId: 'big' });
    const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: d.installationId }), { template: 'too.big' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('message_too_large');
  });

  it('PUSH_RECEIPT_RECORDED links back to its delivery: DELIVERED then OPENED, only from its installation', async () => {
    const { d, id } = await sendTo(w);
    await run(w);
    const stranger = await device(w);
    await ingest(w.h, stranger, [op('PUSH_RECEIPT_RECORDED', { deliveryId: id, type: 'OPENED' })]);
    expect((await row(w, id)).state).toBe('SENT');
    await ingest(w.h, d, [op('PUSH_RECEIPT_RECORDED', { deliveryId: id, type: 'DELIVERED' }, { generation: d.generation, occurredAt: '2026-01-01T00:00:05.000Z' })]);
    expect((await row(w, id)).state).toBe('DELIVERED');
    await ingest(w.h, d, [op('PUSH_RECEIPT_RECORDED', { deliveryId: id, type: 'OPENED' }, { generation: d.generation, occurredAt: '2026-01-01T00:00:09.000Z' })]);
    // A late DELIVERED does not move it back.
    await ingest(w.h, d, [op('PUSH_RECEIPT_RECORDED', { deliveryId: id, type: 'DELIVERED' }, { generation: d.generation, occurredAt: '2026-01-01T00:00:10.000Z' })]);
    const r = await w.h.sql.get<{ state: string; deliveredAt: string; openedAt: string }>(
      'SELECT state, delivered_at AS "deliveredAt", opened_at AS "openedAt" FROM push_deliveries WHERE id = ?',
      [id],
    );
    expect(r).toEqual({ state: 'OPENED', deliveredAt: '2026-01-01T00:00:05.000Z', openedAt: '2026-01-01T00:00:09.000Z' });
  });
});
