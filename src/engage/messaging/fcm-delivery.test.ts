import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ingest, op } from '../../../test/fixtures/engage';
import { createPushWorld, device, send, sendBody, deliveryRows, pushToken, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

async function sendTo(w: PushWorld) {
  const d = await device(w, { platform: 'ANDROID', externalId: `a-${crypto.randomUUID()}` });
  const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: d.installationId }));
  expect(res.status).toBe(202);
  return { d, id: ((await res.json()) as { diagnostics: { deliveryId: string }[] }).diagnostics[0].deliveryId };
}
const row = async (w: PushWorld, id: string) => (await deliveryRows(w, 'id = ?', [id]))[0];
const run = (w: PushWorld) => w.h.services.engage.messaging.deliveries.run();

describe('FCM HTTP v1 delivery (service-account OAuth token)', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  it('gets an access token with the service-account assertion, sends the v1 message, records SENT', async () => {
    const { d, id } = await sendTo(w);
    await run(w);
    const sent = w.fcm.sends.filter((s) => s.token === d.token);
    expect(sent.map((s) => s.status)).toEqual([200]);
    expect(sent[0].message).toEqual({
      token: d.token,
      notification: { title: 'Order A-17 shipped', body: 'Total 1,234.5, shipped March 4, 2026' },
      data: { deliveryId: id, deepLink: 'shop://orders/A-17', data: JSON.stringify({ orderId: 'A-17', gift: 'false' }) },
      android: { priority: 'HIGH', ttl: '3600s', collapse_key: 'order', notification: { tag: 'order' } },
    });
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 1 });
    expect(w.fcm.tokenRequests()).toBe(1);
    // The access token is reused.
    await sendTo(w).then(() => run(w));
    expect(w.fcm.tokenRequests()).toBe(1);
  });

  it('401: the access token is renewed once and the message sent', async () => {
    w.fcm.revokeAccessTokens();
    const before = w.fcm.tokenRequests();
    const { id } = await sendTo(w);
    await run(w);
    expect(w.fcm.tokenRequests()).toBe(before + 1);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('thirty sends refused with 401 at once renew the access token once, and all are sent (issue 22 point 3)', async () => {
    const sent: Awaited<ReturnType<typeof sendTo>>[] = [];
    for (let i = 0; i < 30; i++) sent.push(await sendTo(w));
    w.fcm.revokeAccessTokens();
    const before = w.fcm.tokenRequests();
    await run(w);
    expect(w.fcm.tokenRequests()).toBe(before + 1);
    for (const { id } of sent) expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 1 });
    // Each reached the device once, with the renewed token (a 401 is refused before the message is read).
    const accepted = w.fcm.sends.filter((s) => sent.some(({ d }) => d.token === s.token));
    expect(accepted.map((s) => s.status)).toEqual(Array(30).fill(200));
  });

  it('a service account the token endpoint refuses (invalid_grant) fails the delivery', async () => {
    const stray = await w.h.services.engage.environments.createApp({ environment: w.envId, platform: 'ANDROID', name: 'stray-android' }, ACTOR);
    const sa = w.fcm.serviceAccount('stray@test-project.iam.gserviceaccount.com');
    // Signed with another key than the one the account has: the endpoint cannot verify the assertion.
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await w.h.services.engage.messaging.credentials.setFcm({ app: stray.id, serviceAccount: { ...sa, private_key: other } }, ACTOR);
    const key = await w.h.services.engage.environments.createAccessKey({ environment: w.envId, apps: [stray.id] }, ACTOR);
    await w.h.services.engage.messaging.templates.create({ environment: w.envId, file: templateFile({ key: 'stray', apps: ['stray-android'] }) }, ACTOR);
    await w.h.services.engage.messaging.templates.publish(w.envId, 'stray', ACTOR);
    const s = await bootstrap(w.h, stray.appKey, { platform: 'ANDROID' });
    await ingest(w.h, s, [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token: 'fcm-stray' })]);
    const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: s.installationId }), { key: key.key, template: 'stray' });
    const id = ((await res.json()) as { diagnostics: { deliveryId: string }[] }).diagnostics[0].deliveryId;
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'fcm token endpoint 400 invalid_grant' });
  });

  it('404 UNREGISTERED clears the token', async () => {
    const { d, id } = await sendTo(w);
    w.fcm.script(d.token!, { status: 404, rpcStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'fcm 404 UNREGISTERED' });
    expect(await pushToken(w, d.installationId)).toBeNull();
  });

  it('400 INVALID_ARGUMENT clears the token only when it names the registration token', async () => {
    const a = await sendTo(w);
    w.fcm.script(a.d.token!, { status: 400, rpcStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token' });
    const b = await sendTo(w);
    w.fcm.script(b.d.token!, { status: 400, rpcStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', message: 'Invalid value at message.android.ttl' });
    await run(w);
    expect((await row(w, a.id)).state).toBe('FAILED');
    expect(await pushToken(w, a.d.installationId)).toBeNull();
    expect(await row(w, b.id)).toMatchObject({ state: 'FAILED', lastError: 'fcm 400 INVALID_ARGUMENT' });
    expect(await pushToken(w, b.d.installationId)).toBe(b.d.token);
  });

  it('403 SENDER_ID_MISMATCH: the token belongs to another project and is cleared', async () => {
    const { d, id } = await sendTo(w);
    w.fcm.script(d.token!, { status: 403, rpcStatus: 'PERMISSION_DENIED', errorCode: 'SENDER_ID_MISMATCH' });
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: 'fcm 403 SENDER_ID_MISMATCH' });
    expect(await pushToken(w, d.installationId)).toBeNull();
  });

  it('429 QUOTA_EXCEEDED honours Retry-After; 503 and 500 back off; then sent', async () => {
    const { d, id } = await sendTo(w);
    w.fcm.script(
      d.token!,
      { status: 429, rpcStatus: 'RESOURCE_EXHAUSTED', errorCode: 'QUOTA_EXCEEDED', retryAfter: '30' },
      { status: 503, rpcStatus: 'UNAVAILABLE', errorCode: 'UNAVAILABLE' },
      { status: 500, rpcStatus: 'INTERNAL', errorCode: 'INTERNAL' },
    );
    await run(w);
    const r1 = await row(w, id);
    expect(r1).toMatchObject({ state: 'PENDING', lastError: 'fcm 429 QUOTA_EXCEEDED' });
    expect(Number(r1.nextAttemptMs)).toBeGreaterThanOrEqual(w.h.clock.now().getTime() + 30_000);
    w.h.clock.advance(31);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'PENDING', lastError: 'fcm 503 UNAVAILABLE', attempts: 2 });
    w.h.clock.advance(3);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'PENDING', lastError: 'fcm 500 INTERNAL', attempts: 3 });
    w.h.clock.advance(5);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'SENT', attempts: 4 });
  });

  it('a delivery still failing past its TTL expires', async () => {
    const { d, id } = await sendTo(w);
    w.fcm.script(d.token!, { status: 503, rpcStatus: 'UNAVAILABLE', retryAfter: '4000' });
    await run(w);
    w.h.clock.advance(4001);
    await run(w);
    expect(await row(w, id)).toMatchObject({ state: 'EXPIRED', lastError: 'expired' });
  });

  it("a file naming another app's service account with a key of its own never gets that account's cached token (an outside review)", async () => {
    // The world's account has a token cached by the sends above.
    await sendTo(w).then(() => run(w));
    const android = w.android;
    const real = w.fcm.serviceAccount();
    const forged = { ...real, private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    await w.h.services.engage.messaging.credentials.setFcm({ app: android.id, serviceAccount: forged }, ACTOR);
    const { d, id } = await sendTo(w);
    await run(w);
    expect(w.fcm.sends.filter((s) => s.token === d.token)).toEqual([]);
    expect(await row(w, id)).toMatchObject({ state: 'FAILED', lastError: expect.stringContaining('invalid_grant') });
    await w.h.services.engage.messaging.credentials.setFcm({ app: android.id, serviceAccount: real }, ACTOR);
  });
});
