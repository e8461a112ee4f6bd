/**
 * Issue 21 points 10 and 14: a send is answered only to the access key that made it, and its
 * answer speaks only of the apps that key may use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json } from '../../../test/fixtures/engage';
import { createPushWorld, deliveryRows, device, send, sendBody, type PushWorld } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

interface Answer {
  accepted: boolean;
  requestId: string;
  targetAppIds: string[];
  diagnostics: { installationId: string; appId: string; code: string; deliveryId: string | null }[];
}

const problem = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { code: string; message: string } });
const sendsWithKey = async (w: PushWorld, key: string) =>
  Number((await w.h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM push_sends WHERE idempotency_key = ?', [key]))!.n);

describe('transactional send: access key scope (issue 21 points 10 and 14)', () => {
  let w: PushWorld;
  /** Two keys of the same environment with disjoint apps: A the iOS app only, B the Android app only. */
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    w = await createPushWorld();
    const env = w.h.services.engage.environments;
    keyA = (await env.createAccessKey({ environment: w.envId, apps: [w.ios.id] }, ACTOR)).key;
    keyB = (await env.createAccessKey({ environment: w.envId, apps: [w.android.id] }, ACTOR)).key;
  });
  afterAll(() => w.close());

  it('point 10: key B reusing key A’s idempotencyKey with the identical body gets 409, never A’s answer, and nothing of B’s is recorded', async () => {
    await device(w, { externalId: 'user-xkey' });
    const androidB = await device(w, { platform: 'ANDROID', externalId: 'user-xkey' });
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-xkey' }, { idempotencyKey: 'xkey-1' });
    const first = await send(w, body, { key: keyA });
    expect(first.status).toBe(202);
    const a = (await first.json()) as Answer;
    expect(a.targetAppIds).toEqual([w.ios.id]);

    const fromB = await send(w, body, { key: keyB });
    const p = await problem(fromB);
    expect(p).toEqual({
      status: 409,
      type: 'application/problem+json',
      body: { code: 'idempotency_key_reused', message: 'idempotencyKey: already used by another access key' },
    });
    expect(JSON.stringify(p.body)).not.toContain(a.requestId);
    // No second send, and nothing admitted for app B's installation under A's send either.
    expect(await sendsWithKey(w, 'xkey-1')).toBe(1);
    expect(await deliveryRows(w, 'installation_id = ?', [androidB.installationId])).toEqual([]);

    // Key A's own retry is still the replay of its send.
    const again = await send(w, body, { key: keyA });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(a);
  });

  it('point 10: the key that first admits an idempotencyKey keeps it under concurrent sends by both keys through two processes', async () => {
    await device(w, { externalId: 'user-xrace' });
    await device(w, { platform: 'ANDROID', externalId: 'user-xrace' });
    const other = await w.h.otherProcess();
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-xrace' });
    const path = `/api/v1/environments/${w.envId}/transactional/order.shipped/send`;
    const keys = Array.from({ length: 20 }, (_, i) => (i % 4 < 2 ? keyA : keyB));
    const answers = await Promise.all(keys.map((k, i) => (i % 2 ? send(w, body, { key: k }) : other.request(path, json(body, bearer(k))))));
    const outcomes = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as Answer & { code?: string } })));
    const winner = keys[outcomes.findIndex((o) => o.status === 202)];
    outcomes.forEach((o, i) => {
      if (keys[i] === winner) expect(o.status).toBe(202);
      else expect([o.status, o.body.code]).toEqual([409, 'idempotency_key_reused']);
    });
    const admitted = outcomes.filter((o) => o.status === 202);
    expect(new Set(admitted.map((o) => o.body.requestId)).size).toBe(1);
    expect(await sendsWithKey(w, body.idempotencyKey)).toBe(1);
    expect(await deliveryRows(w, 'send_id = ?', [admitted[0].body.requestId])).toHaveLength(1);
  });

  it('point 14: a key limited to one app sees nothing of the recipient’s installations in other apps', async () => {
    const ios = await device(w, { externalId: 'user-scope' });
    const android = await device(w, { platform: 'ANDROID', externalId: 'user-scope' });
    const req = sendBody({ type: 'EXTERNAL_ID', value: 'user-scope' });
    const res = await send(w, req, { key: keyA });
    expect(res.status).toBe(202);
    const text = await res.text();
    const body = JSON.parse(text) as Answer;
    expect(body.targetAppIds).toEqual([w.ios.id]);
    expect(body.diagnostics).toEqual([{ installationId: ios.installationId, appId: w.ios.id, platform: 'IOS', code: 'TARGETED', deliveryId: expect.any(String) as string }]);
    // Neither the other app's installation, nor that app, nor the code that named them.
    expect(text).not.toContain(android.installationId);
    expect(text).not.toContain(w.android.id);
    expect(text).not.toContain('APP_NOT_ALLOWED');
    expect(await deliveryRows(w, 'installation_id = ?', [android.installationId])).toEqual([]);
    // The replay answers the same, no more.
    expect(await (await send(w, req, { key: keyA })).text()).toBe(text);
  });

  it('point 14: a recipient whose installations are all in other apps is answered as one without installations', async () => {
    const android = await device(w, { platform: 'ANDROID', externalId: 'user-elsewhere' });
    const body = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-elsewhere' }), { key: keyA })).json()) as Answer;
    expect(body).toMatchObject({ accepted: false, diagnostics: [] });
    expect(await deliveryRows(w, 'installation_id = ?', [android.installationId])).toEqual([]);
  });

  it('point 14: an INSTALLATION_ID of an app the key may not use is not found, and nothing is recorded', async () => {
    const android = await device(w, { platform: 'ANDROID' });
    const body = sendBody({ type: 'INSTALLATION_ID', value: android.installationId });
    expect(await problem(await send(w, body, { key: keyA }))).toMatchObject({ status: 404, body: { code: 'recipient_not_found' } });
    expect(await sendsWithKey(w, body.idempotencyKey)).toBe(0);
    // The same installation through a key for its app.
    expect((await send(w, sendBody({ type: 'INSTALLATION_ID', value: android.installationId }), { key: keyB })).status).toBe(202);
  });

  it('point 14: a replay answers only the diagnostics of the apps the key may use, whatever the stored answer holds', async () => {
    await device(w, { externalId: 'user-legacy' });
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-legacy' });
    const first = (await (await send(w, body, { key: keyA })).json()) as Answer;
    // A send recorded before this fix stored the other apps' installations too.
    const leaked = { installationId: crypto.randomUUID(), appId: w.android.id, platform: 'ANDROID', code: 'APP_NOT_ALLOWED', deliveryId: null };
    await w.h.sql.run('UPDATE push_sends SET response = ? WHERE id = ?', [JSON.stringify({ ...first, diagnostics: [...first.diagnostics, leaked] }), first.requestId]);
    const replay = await send(w, body, { key: keyA });
    expect(replay.status).toBe(202);
    expect(await replay.json()).toEqual(first);
  });
});
