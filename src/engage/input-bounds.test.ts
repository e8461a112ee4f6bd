import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushWorld, device, deliveryRows, pushToken, send, sendBody, type PushWorld } from '../../test/fixtures/messaging';
import { bearer, bootstrap, bootstrapBody, ingest, issueCode, json, op, sendBatch, type BatchResult } from '../../test/fixtures/engage';

/**
 * Issue 21, points 11 and 12, on the mobile edge and server messaging: JSON nested thousands of
 * levels deep and NUL characters (U+0000), which PostgreSQL's text cannot hold, are answered
 * the same on both engines: a 400 Problem naming the field, or an operation REJECTED, never a 500.
 */
let w: PushWorld;
beforeAll(async () => {
  w = await createPushWorld();
});
afterAll(() => w.close());

const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
const raw = (path: string, body: string, headers: Record<string, string>) =>
  w.h.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const sendText = (body: string) => raw(`/api/v1/environments/${w.envId}/transactional/order.shipped/send`, body, bearer(w.accessKey));
const count = async (table: string) => (await w.h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

async function problem(res: Response): Promise<string> {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const p = (await res.json()) as { code: string; message: string };
  expect(p.code).toBe('invalid_request');
  return p.message;
}

describe('JSON depth (point 12)', () => {
  it('a send whose variables nest 4,000 levels: 400 invalid_request naming variables, nothing sent', async () => {
    await device(w, { externalId: 'deep-1' });
    const sends = await count('push_sends');
    const body = JSON.stringify(sendBody({ type: 'EXTERNAL_ID', value: 'deep-1' })).replace('"orderId":"A-17"', `"orderId":${nested(4000)}`);
    expect(await problem(await sendText(body))).toBe('variables: nests arrays and objects more than 64 levels deep');
    expect(await count('push_sends')).toBe(sends);
    expect(await deliveryRows(w, 'installation_id IN (SELECT id FROM installations)')).toHaveLength(0);
  });

  it('a send whose variable value nests 33 levels: 400 naming that variable (the free-form bound, 32)', async () => {
    await device(w, { externalId: 'deep-2' });
    const sends = await count('push_sends');
    const body = JSON.stringify(sendBody({ type: 'EXTERNAL_ID', value: 'deep-2' })).replace('"orderId":"A-17"', `"orderId":${nested(33)}`);
    expect(await problem(await sendText(body))).toBe('variables.orderId: must not nest arrays and objects more than 32 levels deep');
    expect(await count('push_sends')).toBe(sends);
  });

  it('an edge route (bootstrap) with a body 5,000 levels deep: 400 naming the field, no installation', async () => {
    const before = await count('installations');
    const text = JSON.stringify(bootstrapBody()).replace('"locale":"en-US"', `"locale":${nested(5000)}`);
    expect(await problem(await raw('/v1/sdk/installations', text, { 'X-Service-App-Key': w.ios.appKey }))).toBe('locale: nests arrays and objects more than 64 levels deep');
    expect(await count('installations')).toBe(before);
  });

  it('a binding transition body 5,000 levels deep: 400 Problem', async () => {
    const s = await bootstrap(w.h, w.ios.appKey);
    const code = await issueCode(w.h, s);
    const text = `{"bindingCode":"${code}","target":{"externalId":${nested(5000, '"x"')}}}`;
    const res = await raw('/v1/installation-binding-transitions', text, { ...bearer(w.accessKey), 'Idempotency-Key': randomUUID() });
    expect(await problem(res)).toBe('target: nests arrays and objects more than 64 levels deep');
  });
});

describe('NUL characters (point 11)', () => {
  it('idempotencyKey with \\u0000: 400 naming it, nothing sent', async () => {
    await device(w, { externalId: 'nul-1' });
    const sends = await count('push_sends');
    const res = await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'nul-1' }, { idempotencyKey: 'order-\u0000-1' }));
    expect(await problem(res)).toMatch(/^idempotencyKey: holds a NUL character/);
    expect(await count('push_sends')).toBe(sends);
  });

  it('recipient.value with \\u0000: 400 naming it, nothing sent', async () => {
    const sends = await count('push_sends');
    const res = await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'nul\u0000user' }));
    expect(await problem(res)).toMatch(/^recipient\.value: holds a NUL character/);
    expect(await count('push_sends')).toBe(sends);
  });

  it('bootstrap deviceModel with \\u0000: 400 naming it, no installation', async () => {
    const before = await count('installations');
    const res = await w.h.request('/v1/sdk/installations', json(bootstrapBody({ platform: 'ANDROID', deviceModel: 'Pixel\u00008' }), { 'X-Service-App-Key': w.android.appKey }));
    expect(await problem(res)).toMatch(/^deviceModel: holds a NUL character/);
    expect(await count('installations')).toBe(before);
  });

  it('PUSH_TOKEN_SET with \\u0000: that operation REJECTED naming payload.token, the rest of the batch stored', async () => {
    const s = await bootstrap(w.h, w.ios.appKey);
    const bad = op('PUSH_TOKEN_SET', { token: 'abc\u0000def' });
    const tagged = op('PROFILE_TAGS_EDITED', { add: ['vip\u0000'] });
    const good = op('PUSH_TOKEN_SET', { token: 'abcdef' });
    const r: BatchResult = await ingest(w.h, s, [bad, tagged, good]);
    expect(r.results.map((x) => [x.status, x.errorCode])).toEqual([
      ['REJECTED', 'INVALID_VALUE'],
      ['REJECTED', 'INVALID_VALUE'],
      ['ACCEPTED', null],
    ]);
    expect(r.results[0].message).toMatch(/^payload\.token: holds a NUL character/);
    expect(r.results[1].message).toMatch(/^payload\.add\[0\]: holds a NUL character/);
    expect(await pushToken(w, s.installationId)).toBe('abcdef');
    // The same batch again is a replay of the first answer.
    const again = await sendBatch(w.h, s, [bad, tagged, good], r.batchId);
    expect(again.status).toBe(200);
  });

  it('a NUL in a path value (%00): 400 Problem, not a 500', async () => {
    const sends = await count('push_sends');
    const res = await w.h.request(`/api/v1/environments/${w.envId}%00/transactional/order.shipped/send`, json(sendBody({ type: 'EXTERNAL_ID', value: 'x' }), bearer(w.accessKey)));
    expect(await problem(res)).toBe('path: holds a NUL character (%00), which text values may not contain');
    const key = await w.h.request('/api/v1/environments/x/transactional/order%00shipped/send', json(sendBody({ type: 'EXTERNAL_ID', value: 'x' }), bearer(w.accessKey)));
    expect(key.status).toBe(400);
    expect(await count('push_sends')).toBe(sends);
  });
});
