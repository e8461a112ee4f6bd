import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../platform/logger';
import { createApnsClient } from './apns';
import { createDeliveryWorker } from './delivery';
import { createFcmClient } from './fcm';
import { createPushWorld, device, send, sendBody, templateFile, deliveryRows, testCa, type PushWorld } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

/**
 * Issue 22 point 3: deliveries never wait on each other, and each outcome is recorded as its
 * answer arrives. The fakes hold one device's answer (or send headers and then nothing); the
 * other device's push must reach its provider, and be recorded, meanwhile. Arrival times are
 * compared with the hold, not with a fixed budget, so a loaded machine does not make them flaky.
 */
const HOLD_MS = 5_000;

async function sendTo(w: PushWorld, platform: 'IOS' | 'ANDROID' = 'IOS', template = 'order.shipped') {
  const d = await device(w, { platform, externalId: `u-${crypto.randomUUID()}` });
  const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: d.installationId }), { template });
  expect(res.status).toBe(202);
  return { d, id: ((await res.json()) as { diagnostics: { deliveryId: string }[] }).diagnostics[0].deliveryId };
}
const row = async (w: PushWorld, id: string) => (await deliveryRows(w, 'id = ?', [id]))[0];
const until = async (what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('deliveries flow continuously (issue 22 point 3)', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  it('an answer held 5 s delays neither a push claimed with it nor one sent while it is held; each is recorded as it is answered', async () => {
    const slow = await sendTo(w);
    const together = await sendTo(w);
    w.apns.script(slow.d.token!, { status: 200, delayMs: HOLD_MS });
    const started = Date.now();
    const running = w.h.services.engage.messaging.deliveries.run();
    // Claimed in the same claim as the slow one: answered at once, recorded SENT while the slow one is held.
    await until('the push claimed with the slow one to be recorded', async () => (await row(w, together.id)).state === 'SENT');
    expect(Date.now() - started).toBeLessThan(HOLD_MS / 2);
    expect(w.apns.requests.some((r) => r.apnsId === slow.id)).toBe(false);
    // Sent while the slow answer is held: it reaches APNs at once, not after the hold.
    const later = await sendTo(w);
    const admitted = Date.now();
    await until('the later push at APNs', () => w.apns.arrivals.some((a) => a.apnsId === later.id));
    const arrived = w.apns.arrivals.find((a) => a.apnsId === later.id)!.receivedMs;
    expect(arrived - admitted).toBeLessThan(HOLD_MS / 5);
    await until('the later push to be recorded', async () => (await row(w, later.id)).state === 'SENT');
    expect(w.apns.requests.some((r) => r.apnsId === slow.id)).toBe(false);
    expect((await row(w, slow.id)).state).toBe('PENDING');
    await running;
    expect(await row(w, slow.id)).toMatchObject({ state: 'SENT', attempts: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(HOLD_MS - 50);
  }, 30_000);

  it('a half-open APNs stream (headers, then silence) times out as a transient failure and holds no FCM push', async () => {
    const ca = readFileSync(testCa().caFile);
    const apns = createApnsClient({ productionUrl: w.apns.url, sandboxUrl: w.apns.url, ca, clock: w.h.clock, requestTimeoutMs: 1_500 });
    const fcm = createFcmClient({ baseUrl: w.fcm.url, ca, clock: w.h.clock, requestTimeoutMs: 1_500 });
    const m = w.h.services.engage.messaging;
    const worker = createDeliveryWorker({ store: w.h.services.store, clock: w.h.clock, logger: silentLogger, credentials: m.credentials, apns, fcm });
    try {
      const stuck = await sendTo(w);
      w.apns.script(stuck.d.token!, { status: 200, halfOpen: true });
      const android = await sendTo(w, 'ANDROID');
      const started = Date.now();
      const running = worker.run();
      await until('the FCM push to be recorded', async () => (await row(w, android.id)).state === 'SENT');
      const fcmArrival = w.fcm.sends.find((s) => s.token === android.d.token)!.receivedMs;
      expect(fcmArrival - started).toBeLessThan(1_500 / 2);
      expect((await row(w, stuck.id)).state).toBe('PENDING');
      await running;
      const after = await row(w, stuck.id);
      expect(after).toMatchObject({ state: 'PENDING', attempts: 1, lastError: 'timed out after 1500 ms' });
      // A transient failure: retried after a backoff, not at once.
      expect(Number(after.nextAttemptMs)).toBeGreaterThan(w.h.clock.now().getTime());
      w.h.clock.advance(2);
      await worker.run();
      expect(await row(w, stuck.id)).toMatchObject({ state: 'SENT', attempts: 2 });
    } finally {
      apns.close();
      fcm.close();
    }
  }, 30_000);

  it("an app whose share of the worker is full is skipped by the claims: another app's push goes past its backlog", async () => {
    const m = w.h.services.engage.messaging;
    const worker = createDeliveryWorker({ store: w.h.services.store, clock: w.h.clock, logger: silentLogger, credentials: m.credentials, apns: createApnsClient({ productionUrl: w.apns.url, sandboxUrl: w.apns.url, ca: readFileSync(testCa().caFile), clock: w.h.clock }), fcm: createFcmClient({ baseUrl: w.fcm.url, ca: readFileSync(testCa().caFile), clock: w.h.clock }), flow: { perApp: 1, claimBatch: 2 } });
    const ios = [await sendTo(w), await sendTo(w), await sendTo(w)];
    const android = await sendTo(w, 'ANDROID');
    w.apns.script(ios[0].d.token!, { status: 200, delayMs: 2_000 });
    const started = Date.now();
    const running = worker.run();
    await until('the Android push to be recorded', async () => (await row(w, android.id)).state === 'SENT');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await row(w, ios[2].id)).state).toBe('PENDING');
    await running;
    for (const i of ios) expect(await row(w, i.id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('403 ExpiredProviderToken to thirty pushes at once renews the provider token once', async () => {
    await sendTo(w).then(() => w.h.services.engage.messaging.deliveries.run());
    w.apns.expireTokens();
    w.h.clock.advance(2);
    const burst = await Promise.all(Array.from({ length: 30 }, () => sendTo(w)));
    await w.h.services.engage.messaging.deliveries.run();
    const ids = new Set(burst.map((b) => b.id));
    const reqs = w.apns.requests.filter((r) => ids.has(r.apnsId));
    expect(reqs.filter((r) => r.status === 403).map((r) => r.reason)).toEqual(Array(30).fill('ExpiredProviderToken'));
    const renewed = new Set(reqs.filter((r) => r.status === 200).map((r) => r.headers.authorization));
    expect(reqs.filter((r) => r.status === 200)).toHaveLength(30);
    expect(renewed.size).toBe(1);
    for (const b of burst) expect(await row(w, b.id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('each notification carries a per-delivery collapse identifier unless the template sets its own', async () => {
    const m = w.h.services.engage.messaging.templates;
    await m.create({ environment: w.envId, file: templateFile({ key: 'no.collapse', collapseId: undefined }) }, ACTOR);
    await m.publish(w.envId, 'no.collapse', ACTOR);
    const ios = await sendTo(w, 'IOS', 'no.collapse');
    const android = await sendTo(w, 'ANDROID', 'no.collapse');
    const iosOwn = await sendTo(w, 'IOS');
    const androidOwn = await sendTo(w, 'ANDROID');
    await w.h.services.engage.messaging.deliveries.run();
    const apnsCollapse = (id: string) => w.apns.requests.find((r) => r.apnsId === id)!.headers['apns-collapse-id'];
    const fcmAndroid = (token: string) => w.fcm.sends.find((s) => s.token === token)!.message.android;
    expect(apnsCollapse(ios.id)).toBe(ios.id);
    expect(fcmAndroid(android.d.token!)).toEqual({ priority: 'HIGH', ttl: '3600s', notification: { tag: android.id } });
    expect(apnsCollapse(iosOwn.id)).toBe('order');
    expect(fcmAndroid(androidOwn.d.token!)).toEqual({ priority: 'HIGH', ttl: '3600s', collapse_key: 'order', notification: { tag: 'order' } });
  });
});
