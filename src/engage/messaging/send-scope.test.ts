/**
 * Issue 21 points 10 and 14: a send is answered only to the access key that made it, and its
 * answer speaks only of the apps that key may use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json } from '../testing';
import { createPushWorld, deliveryRows, device, send, sendBody, type PushWorld } from './testing';

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
    keyA = (await env.createAccessKey({ environment: w.envId, apps: [w.ios.id] })).key;
    keyB = (await env.createAccessKey({ environment: w.envId, apps: [w.android.id] })).key;
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
});
