import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../platform/logger';
import { createApnsClient, type ApnsCredentials } from './apns';
import { createFcmClient, type FcmCredentials } from './fcm';
import { withFailureLog } from './provider-log';
import type { DeliveryMessage } from './message';
import { apnsToken, createPushWorld, testCa, type PushWorld } from '../../../test/fixtures/messaging';

/** Issue 23 point 5: APNs and FCM failures at warn, with the delivery id and never the token. */
const MESSAGE: DeliveryMessage = { title: 'Order shipped', body: 'Your parcel is on its way', deepLink: 'shop://orders/A-17', data: { orderId: 'A-17' }, priority: 'high' };

let w: PushWorld;
let lines: string[];
const logger = createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) });
const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  w = await createPushWorld();
});
afterAll(() => w.close());

function clients(over: { apnsUrl?: string; fcmUrl?: string } = {}) {
  const ca = testCa().ca;
  const apns = createApnsClient({ productionUrl: over.apnsUrl ?? w.apns.url, sandboxUrl: over.apnsUrl ?? w.apns.url, ca, clock: w.h.clock });
  const fcm = createFcmClient({ baseUrl: over.fcmUrl ?? w.fcm.url, ca, clock: w.h.clock });
  return { apns: withFailureLog('APNS', apns, logger), fcm: withFailureLog('FCM', fcm, logger), close: () => (apns.close(), fcm.close()) };
}

const delivery = (token: string) => ({ id: crypto.randomUUID(), token, message: MESSAGE, expiresMs: w.h.clock.now().getTime() + 3_600_000, createdMs: w.h.clock.now().getTime() });

async function credentials() {
  const m = w.h.services.engage.messaging.credentials;
  return { apns: (await m.open(w.ios.id, 'APNS'))! as ApnsCredentials, fcm: (await m.open(w.android.id, 'FCM'))! as FcmCredentials };
}

describe('provider failures in the log', () => {
  it('an APNs 500 and an FCM 503 are each one warn line: delivery id, provider, status, reason; no token, message or key', async () => {
    lines = [];
    const c = clients();
    const creds = await credentials();
    const iosToken = apnsToken();
    const androidToken = `fcm-${crypto.randomUUID()}`;
    w.apns.script(iosToken, { status: 500, reason: 'InternalServerError' });
    w.fcm.script(androidToken, { status: 503, rpcStatus: 'UNAVAILABLE', message: 'The service is currently unavailable.' });
    const a = delivery(iosToken);
    const f = delivery(androidToken);
    expect(await c.apns.send(creds.apns as never, a)).toMatchObject({ kind: 'retry' });
    expect(await c.fcm.send(creds.fcm as never, f)).toMatchObject({ kind: 'retry' });
    c.close();
    expect(parsed()).toEqual([
      { time: expect.any(String), level: 'warn', msg: 'push delivery attempt failed', deliveryId: a.id, provider: 'APNS', outcome: 'retry', status: 500, reason: 'InternalServerError' },
      { time: expect.any(String), level: 'warn', msg: 'push delivery attempt failed', deliveryId: f.id, provider: 'FCM', outcome: 'retry', status: 503, reason: 'UNAVAILABLE' },
    ]);
    const all = lines.join('\n');
    for (const secret of [iosToken, androidToken, MESSAGE.title, MESSAGE.body, 'A-17', creds.apns.keyId, creds.fcm.clientEmail]) expect(all).not.toContain(secret);
  });

  it('a 4xx that clears the token (APNs 410) is a warn line too; an accepted push writes nothing', async () => {
    lines = [];
    const c = clients();
    const creds = await credentials();
    const gone = apnsToken();
    w.apns.script(gone, { status: 410, reason: 'Unregistered', timestamp: w.h.clock.now().getTime() });
    const d = delivery(gone);
    expect(await c.apns.send(creds.apns as never, d)).toMatchObject({ kind: 'unregistered' });
    expect(await c.apns.send(creds.apns as never, delivery(apnsToken()))).toEqual({ kind: 'sent' });
    c.close();
    expect(parsed()).toEqual([expect.objectContaining({ level: 'warn', deliveryId: d.id, provider: 'APNS', outcome: 'unregistered', status: 410, reason: 'Unregistered' })]);
    expect(lines.join('\n')).not.toContain(gone);
  });

  it('a transport error (nothing listens) is a warn line with the error and no status', async () => {
    lines = [];
    const c = clients({ apnsUrl: 'https://127.0.0.1:1', fcmUrl: 'https://127.0.0.1:1' });
    const creds = await credentials();
    const token = apnsToken();
    const d = delivery(token);
    expect(await c.apns.send(creds.apns as never, d)).toMatchObject({ kind: 'retry' });
    c.close();
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'warn', deliveryId: d.id, provider: 'APNS', outcome: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(line.status).toBeUndefined();
    expect(lines.join('\n')).not.toContain(token);
  });
});
