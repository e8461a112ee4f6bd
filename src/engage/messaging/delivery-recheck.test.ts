import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, op } from '../../../test/fixtures/engage';
import { apnsToken, createPushWorld, deliveryRows, device, send, sendBody, type PushWorld } from '../../../test/fixtures/messaging';

/**
 * Issue 21 point 15: a delivery waiting for its retry is checked again against the installation
 * as it stands before every attempt (privacy, push subscription, permission, token). The state
 * operations are stamped after the device's setup (last-writer-wins by occurredAt).
 */
const LATER = '2026-01-01T00:00:10.000Z';
const run = (w: PushWorld) => w.h.services.engage.messaging.deliveries.run();
const row = async (w: PushWorld, id: string) => (await deliveryRows(w, 'id = ?', [id]))[0];

async function sendTo(w: PushWorld, platform: 'IOS' | 'ANDROID') {
  const d = await device(w, { platform, externalId: `u-${crypto.randomUUID()}` });
  const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: d.installationId }));
  expect(res.status).toBe(202);
  return { d, id: ((await res.json()) as { diagnostics: { deliveryId: string }[] }).diagnostics[0].deliveryId };
}

/** Requests that reached the fake for this delivery (APNs: by apns-id; FCM: by the deliveryId in data). */
function requestsFor(w: PushWorld, platform: 'IOS' | 'ANDROID', id: string) {
  return platform === 'IOS'
    ? w.apns.requests.filter((r) => r.apnsId === id).map((r) => ({ token: r.token, status: r.status }))
    : w.fcm.sends.filter((s) => (s.message.data as { deliveryId?: string } | undefined)?.deliveryId === id).map((s) => ({ token: s.token, status: s.status }));
}

/** The first attempt answered 503 with Retry-After: 4; the delivery waits for its retry. */
async function waitingForRetry(w: PushWorld, platform: 'IOS' | 'ANDROID') {
  const sent = await sendTo(w, platform);
  if (platform === 'IOS') w.apns.script(sent.d.token!, { status: 503, reason: 'ServiceUnavailable', retryAfter: '4' });
  else w.fcm.script(sent.d.token!, { status: 503, rpcStatus: 'UNAVAILABLE', retryAfter: '4' });
  await run(w);
  expect(await row(w, sent.id)).toMatchObject({ state: 'PENDING', attempts: 1 });
  expect(requestsFor(w, platform, sent.id).map((r) => r.status)).toEqual([503]);
  return sent;
}

describe('a pending retry is checked again before the attempt (issue 21 point 15)', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  const cases = [
    { name: 'PUSH_SUBSCRIPTION_SET OPTED_OUT', op: () => op('PUSH_SUBSCRIPTION_SET', { state: 'OPTED_OUT' }, { occurredAt: LATER }), reason: 'PUSH_UNSUBSCRIBED' },
    { name: 'PRIVACY_STATE_SET OPTED_OUT', op: () => op('PRIVACY_STATE_SET', { state: 'OPTED_OUT' }, { occurredAt: LATER }), reason: 'PRIVACY_OPTED_OUT' },
    { name: 'PUSH_PERMISSION_SET DENIED', op: () => op('PUSH_PERMISSION_SET', { state: 'DENIED' }, { occurredAt: LATER }), reason: 'PUSH_PERMISSION_DENIED' },
    { name: 'PUSH_TOKEN_SET null (token cleared)', op: () => op('PUSH_TOKEN_SET', { token: null }, { occurredAt: LATER }), reason: 'NO_PUSH_TOKEN' },
  ];
  for (const platform of ['IOS', 'ANDROID'] as const)
    for (const c of cases)
      it(`${platform}: 503, then ${c.name} accepted, then the retry: no second request, FAILED ${c.reason}`, async () => {
        const { d, id } = await waitingForRetry(w, platform);
        const accepted = await ingest(w.h, d, [{ ...c.op(), generation: d.generation }]);
        expect(accepted.results.map((r) => r.status)).toEqual(['ACCEPTED']);
        w.h.clock.advance(5);
        await run(w);
        expect(requestsFor(w, platform, id).map((r) => r.status)).toEqual([503]);
        expect(await row(w, id)).toMatchObject({ state: 'FAILED', attempts: 1, lastError: c.reason });
        // Terminal: a later run makes no request either.
        w.h.clock.advance(60);
        await run(w);
        expect(requestsFor(w, platform, id)).toHaveLength(1);
      });

  it('an opt-out accepted before the first attempt: no request at all', async () => {
    const { d, id } = await sendTo(w, 'IOS');
    await ingest(w.h, d, [op('PUSH_SUBSCRIPTION_SET', { state: 'OPTED_OUT' }, { occurredAt: LATER, generation: d.generation })]);
    await run(w);
    expect(requestsFor(w, 'IOS', id)).toEqual([]);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', attempts: 0, lastError: 'PUSH_UNSUBSCRIBED' });
    expect(await w.h.services.metrics.registry.render()).toMatch(/engage_push_delivery_attempts_total\{provider="APNS",outcome="skipped"\} \d+/);
  });

  it('a token changed since admission: the retry goes to the current token', async () => {
    const { d, id } = await waitingForRetry(w, 'IOS');
    const fresh = apnsToken();
    await ingest(w.h, d, [op('PUSH_TOKEN_SET', { token: fresh }, { occurredAt: LATER, generation: d.generation })]);
    w.h.clock.advance(5);
    await run(w);
    expect(requestsFor(w, 'IOS', id)).toEqual([
      { token: d.token, status: 503 },
      { token: fresh, status: 200 },
    ]);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 2 });
    const stored = await w.h.sql.get<{ token: string }>('SELECT token FROM push_deliveries WHERE id = ?', [id]);
    expect(stored!.token).toBe(fresh);
  });

  it('an installation still push-ready is retried as before', async () => {
    const { id } = await waitingForRetry(w, 'ANDROID');
    w.h.clock.advance(5);
    await run(w);
    expect(requestsFor(w, 'ANDROID', id).map((r) => r.status)).toEqual([503, 200]);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 2 });
  });
});
