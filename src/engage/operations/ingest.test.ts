import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, ingest, json, op, sendBatch, setupEnvironment, type BatchResult, type Session } from '../../../test/fixtures/engage';

let h: Harness;
let accessKey: string;
let s: Session;
beforeEach(async () => {
  h = await createHarness();
  const env = await setupEnvironment(h);
  accessKey = env.accessKey;
  s = await bootstrap(h, env.app.appKey);
});
afterEach(() => h.close());

const at = (sec: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, sec)).toISOString();
const event = (name: string, over = {}) => op('EVENT_TRACKED', { name, properties: {} }, over);
const statuses = (r: BatchResult) => r.results.map((x) => x.status);
const inspect = () => h.services.engage.inspection.installation(s.installationId);
const countOps = async () => (await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM operations WHERE installation_id = ?', [s.installationId]))!.n;

describe('POST /v1/sdk/operations:batch envelope', () => {
  it.each([
    ['batchId', { operations: [event('aa')] }],
    ['batchId', { batchId: 'b-1', operations: [event('aa')] }],
    ['operations', { batchId: randomUUID() }],
    ['operations', { batchId: randomUUID(), operations: [] }],
    ['operations', { batchId: randomUUID(), operations: Array.from({ length: 101 }, () => event('aa')) }],
    ['operations[0]', { batchId: randomUUID(), operations: ['x'] }],
    ['operations[1].operationId', { batchId: randomUUID(), operations: [event('aa'), { ...event('aa'), operationId: 'nope' }] }],
    ['operations[0].operationId', { batchId: randomUUID(), operations: [{ type: 'EVENT_TRACKED' }] }],
    ['cursor', { batchId: randomUUID(), operations: [event('aa')], cursor: 'x' }],
  ])('400 Problem naming %s, nothing stored', async (field, body) => {
    const res = await h.request('/v1/sdk/operations:batch', json(body, bearer(s.credential)));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = (await res.json()) as { code: string; message: string };
    expect(p.code).toBe('invalid_request');
    expect(p.message.startsWith(`${field}: `)).toBe(true);
    expect(await countOps()).toBe(0);
  });

  it('401 with the revocation credential or none', async () => {
    for (const headers of [bearer(s.revocationCredential), {}]) {
      const res = await h.request('/v1/sdk/operations:batch', json({ batchId: randomUUID(), operations: [event('aa')] }, headers));
      expect(res.status).toBe(401);
    }
  });
});

describe('ingest', () => {
  it('processes valid operations and rejects only the malformed one (202)', async () => {
    const ops = [event('first'), event('Bad'), event('third')];
    const res = await sendBatch(h, s, ops);
    expect(res.status).toBe(202);
    const body = (await res.json()) as BatchResult;
    expect(Object.keys(body).sort()).toEqual(['batchId', 'results', 'serverTime']);
    expect(body.results.map((r) => r.operationId)).toEqual(ops.map((o) => o.operationId));
    expect(statuses(body)).toEqual(['ACCEPTED', 'REJECTED', 'ACCEPTED']);
    expect(body.results[1]).toMatchObject({ errorCode: 'INVALID_FORMAT', message: expect.stringMatching(/^payload\.name: /) });
  });

  it('a seen operationId is DUPLICATE (also within one batch and after a rejection); effects happen once', async () => {
    const e = event('once');
    const bad = event('Bad');
    expect(statuses(await ingest(h, s, [e, bad, e]))).toEqual(['ACCEPTED', 'REJECTED', 'DUPLICATE']);
    expect(statuses(await ingest(h, s, [e, bad]))).toEqual(['DUPLICATE', 'DUPLICATE']);
    expect(await countOps()).toBe(2);
  });

  it('a repeated batchId with the same operations returns 200 and the first answer byte for byte', async () => {
    const batchId = randomUUID();
    const ops = [event('aa'), event('Bad')];
    const first = await sendBatch(h, s, ops, batchId);
    expect(first.status).toBe(202);
    const text = await first.text();
    h.clock.advance(60);
    // Re-serialized differently (whitespace): the same request.
    const again = await h.request('/v1/sdk/operations:batch', { ...json({}, bearer(s.credential)), body: JSON.stringify({ batchId, operations: ops }, null, 2) });
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toBe('application/json');
    expect(await again.text()).toBe(text);
    expect(await countOps()).toBe(2);
  });

  it('a repeated batchId with other operations is a 409 batch_conflict and stores nothing', async () => {
    const batchId = randomUUID();
    const first = await sendBatch(h, s, [event('aa')], batchId);
    expect(first.status).toBe(202);
    const text = await first.text();
    for (const other of [[event('bb'), event('cc')], [{ ...event('aa'), operationId: randomUUID() }], [event('aa', { occurredAt: at(1) })]]) {
      const res = await sendBatch(h, s, other, batchId);
      expect(res.status).toBe(409);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toEqual({ code: 'batch_conflict', message: expect.stringMatching(/^batchId: /) });
    }
    expect(await countOps()).toBe(1);
    // The first answer is still what a true retry gets.
    const stored = (await h.sql.get<{ result: string }>('SELECT result FROM operation_batches WHERE batch_id = ?', [batchId]))!;
    expect(stored.result.endsWith(text)).toBe(true);
  });

  it('a batch stored before request digests existed replays whatever the body (docs/decisions.md)', async () => {
    const batchId = randomUUID();
    const legacy = JSON.stringify({ batchId, results: [], serverTime: '2025-12-31T00:00:00.000Z' });
    await h.sql.run('INSERT INTO operation_batches (installation_id, batch_id, result, created_at) VALUES (?, ?, ?, ?)', [
      s.installationId,
      batchId,
      legacy,
      '2025-12-31T00:00:00.000Z',
    ]);
    const res = await sendBatch(h, s, [event('aa')], batchId);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(legacy);
    expect(await countOps()).toBe(0);
  });

  it('state is last-writer-wins by occurredAt: a late retry never overwrites newer state', async () => {
    await ingest(h, s, [
      op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }, { occurredAt: at(20) }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'gold', color: 'red' } }, { occurredAt: at(20) }),
      op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: true }] }, { occurredAt: at(20) }),
      op('PUSH_TOKEN_SET', { token: 'apns-token-0123456789abcdef' }, { occurredAt: at(20) }),
    ]);
    await ingest(h, s, [
      op('PUSH_PERMISSION_SET', { state: 'DENIED' }, { occurredAt: at(10) }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'free' }, remove: ['color'] }, { occurredAt: at(10) }),
      op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: false }] }, { occurredAt: at(10) }),
      op('PUSH_TOKEN_SET', { token: null }, { occurredAt: at(10) }),
    ]);
    let view = await inspect();
    expect(view).toMatchObject({ pushPermission: 'AUTHORIZED', pushToken: '…89abcdef', attributes: { plan: 'gold', color: 'red' }, subscriptions: { news: true } });
    // A newer removal wins, and a later-arriving older set cannot resurrect it.
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { remove: ['color'] }, { occurredAt: at(30) })]);
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { color: 'blue' } }, { occurredAt: at(25) })]);
    view = await inspect();
    expect(view.attributes).toEqual({ plan: 'gold' });
  });

  it('equal occurredAt: the greater operationId wins, whatever the arrival order', async () => {
    const lo = op('PUSH_SUBSCRIPTION_SET', { state: 'OPTED_OUT' }, { operationId: '00000000-0000-4000-8000-000000000001', occurredAt: at(5) });
    const hi = op('PUSH_SUBSCRIPTION_SET', { state: 'OPTED_IN' }, { operationId: 'ffffffff-0000-4000-8000-000000000001', occurredAt: at(5) });
    await ingest(h, s, [hi]);
    await ingest(h, s, [lo]);
    expect((await inspect()).pushSubscription).toBe('OPTED_IN');
  });

  it('one batch writing a key several times ends as if its operations were applied one after the other', async () => {
    const lo = '00000000-0000-4000-8000-000000000002';
    const hi = 'ffffffff-0000-4000-8000-000000000002';
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { stored: 'old', kept: 'stored' } }, { occurredAt: at(10) })]);
    const r = await ingest(h, s, [
      // Newer first, then an older write of the same key: the newer stays.
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 'new' } }, { occurredAt: at(20) }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 'old', kept: 'older than stored' } }, { occurredAt: at(5) }),
      // Equal occurredAt: the greater operationId wins, in either order.
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { b: 'hi' } }, { operationId: hi, occurredAt: at(20) }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { b: 'lo' } }, { operationId: lo, occurredAt: at(20) }),
      // Set and removal of one key in one operation: removed; a newer set of a stored key lands.
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { c: 1, stored: 'new' }, remove: ['c'] }, { occurredAt: at(20) }),
      op('PROFILE_TAGS_EDITED', { add: ['t', 'u'] }, { occurredAt: at(20) }),
      op('PROFILE_TAGS_EDITED', { remove: ['t'] }, { occurredAt: at(21) }),
      op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }, { occurredAt: at(30) }),
      op('PUSH_PERMISSION_SET', { state: 'DENIED' }, { occurredAt: at(25) }),
    ]);
    expect(new Set(statuses(r))).toEqual(new Set(['ACCEPTED']));
    const view = await inspect();
    expect(view.attributes).toEqual({ a: 'new', b: 'hi', stored: 'new', kept: 'stored' });
    expect(view.pushPermission).toBe('AUTHORIZED');
    const tags = await h.sql.all<{ tag: string; present: number }>(
      'SELECT t.tag, t.present FROM profile_tags t JOIN installations i ON i.profile_id = t.profile_id WHERE i.id = ? ORDER BY t.tag',
      [s.installationId],
    );
    expect(tags).toEqual([
      { tag: 't', present: 0 },
      { tag: 'u', present: 1 },
    ]);
  });

  it('while privacy is OPTED_OUT tracking operations are rejected and nothing of them is stored', async () => {
    const r = await ingest(h, s, [
      event('before'),
      op('PRIVACY_STATE_SET', { state: 'OPTED_OUT' }, { occurredAt: at(1) }),
      event('during'),
      op('SCREEN_VIEWED', { screen_key: 'home' }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 1 } }),
    ]);
    expect(statuses(r)).toEqual(['ACCEPTED', 'ACCEPTED', 'REJECTED', 'REJECTED', 'ACCEPTED']);
    expect(r.results[2]).toMatchObject({ errorCode: 'PRIVACY_OPTED_OUT', message: expect.stringMatching(/^type: /) });
    const stored = await h.sql.all<Record<string, unknown>>("SELECT type, status, payload, occurred_ms FROM operations WHERE status = 'REJECTED' ORDER BY seq");
    expect(stored).toEqual([
      { type: 'EVENT_TRACKED', status: 'REJECTED', payload: null, occurred_ms: null },
      { type: 'SCREEN_VIEWED', status: 'REJECTED', payload: null, occurred_ms: null },
    ]);
    const state = await (await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).json();
    expect(state).toMatchObject({ privacy: 'OPTED_OUT' });
    await ingest(h, s, [op('PRIVACY_STATE_SET', { state: 'OPTED_IN' }, { occurredAt: at(2) })]);
    expect(statuses(await ingest(h, s, [event('after')]))).toEqual(['ACCEPTED']);
  });

  it('rejects a generation the installation has not reached', async () => {
    const r = await ingest(h, s, [event('aa', { generation: 1 })]);
    expect(r.results[0]).toMatchObject({ status: 'REJECTED', errorCode: 'GENERATION_NOT_REACHED', message: expect.stringMatching(/^generation: /) });
  });

  it('50 concurrent copies of one batch: one effect; every answer is the first result or its replay', async () => {
    const batchId = randomUUID();
    const ops = [event('aa'), op('PROFILE_TAGS_EDITED', { add: ['vip'] }), op('INSTALLATION_ATTRIBUTES_EDITED', { set: { n: 1 } })];
    const answers = await Promise.all(Array.from({ length: 50 }, () => sendBatch(h, s, ops, batchId)));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(49);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(statuses(JSON.parse(bodies[0]) as BatchResult)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED']);
    expect(await countOps()).toBe(3);
  });

  it('50 concurrent batches carrying the same operations (different batchIds): each operation is accepted once', async () => {
    const ops = [event('aa'), event('bb')];
    const answers = await Promise.all(Array.from({ length: 50 }, () => ingest(h, s, ops)));
    const accepted = answers.flatMap((a) => a.results).filter((r) => r.status === 'ACCEPTED');
    expect(accepted).toHaveLength(2);
    expect(await countOps()).toBe(2);
  });
});

describe('generation fencing', () => {
  it('late operations of A land on A’s profile, never on B’s', async () => {
    const genA = await bind(h, accessKey, s, 'alice');
    const queued = [
      event('alice_event', { generation: genA }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { name: 'Alice' } }, { generation: genA }),
      op('PROFILE_TAGS_EDITED', { add: ['a-tag'] }, { generation: genA }),
      op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'EMAIL', subscribed: true }] }, { generation: genA }),
    ];
    const genB = await bind(h, accessKey, s, 'bob');
    expect(genB).toBe(genA + 1);
    await ingest(h, s, [event('bob_event', { generation: genB })]);
    expect(statuses(await ingest(h, s, queued))).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'ACCEPTED']);

    const bob = (await h.services.engage.inspection.profile('prod', 'bob'));
    expect(bob.attributes).toEqual({});
    expect(bob.tags).toEqual([]);
    expect(bob.subscriptions).toEqual([]);
    expect(bob.recentEvents.map((e) => (e.payload as { name: string }).name)).toEqual(['bob_event']);

    const alice = (await h.services.engage.inspection.profile('prod', 'alice'));
    expect(alice.attributes).toEqual({ name: 'Alice' });
    expect(alice.tags).toEqual(['a-tag']);
    expect(alice.subscriptions).toEqual([{ list: 'news', channel: 'EMAIL', subscribed: true }]);
    expect(alice.recentEvents).toMatchObject([{ generation: genA, installationId: s.installationId, payload: { name: 'alice_event' } }]);
    expect(alice.state).toBe('UNBOUND');
    expect(bob.state).toBe('BOUND');
  });
});
