import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, op, setupEnvironment, type BatchResult, type Session } from '../../../test/fixtures/engage';

/**
 * Issue 8 (mobile edge): bodies that passed validation and then broke storage, altered text,
 * or were refused with the wrong status. Each case checks the answer and what is stored after.
 */
let h: Harness;
let appKey: string;
let s: Session;
beforeEach(async () => {
  h = await createHarness();
  appKey = (await setupEnvironment(h)).app.appKey;
  s = await bootstrap(h, appKey);
});
afterEach(() => h.close());

/** POSTs a batch written as text (or bytes), so it can hold what JSON.stringify cannot write. */
const post = (body: string | Uint8Array, session: Session = s, contentType = 'application/json') =>
  h.request('/v1/sdk/operations:batch', { method: 'POST', headers: { 'content-type': contentType, ...bearer(session.credential) }, body });
/** A batch whose operation i has its payload replaced by `payloads[i]` (raw JSON text) when given. */
function batchText(ops: ReturnType<typeof op>[], payloads: (string | undefined)[] = [], batchId = randomUUID()): string {
  const parts = ops.map((o, i) => (payloads[i] === undefined ? JSON.stringify(o) : JSON.stringify({ ...o, payload: '@@' }).replace('"@@"', payloads[i]!)));
  return `{"batchId":"${batchId}","operations":[${parts.join(',')}]}`;
}
const ledger = (installationId = s.installationId) =>
  h.sql.all<{ id: string; type: string; status: string; payload: string | null }>(
    'SELECT operation_id AS id, type, status, payload FROM operations WHERE installation_id = ? ORDER BY seq',
    [installationId],
  );
const attributes = () => h.sql.all('SELECT key, value FROM installation_attributes WHERE installation_id = ? ORDER BY key', [s.installationId]);
const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
const event = () => op('EVENT_TRACKED', { name: 'ok', properties: {} });

async function results(res: Response) {
  expect(res.status).toBe(202);
  return ((await res.json()) as BatchResult).results;
}

describe('free-form values are bounded (depth, finite numbers, size)', () => {
  it('10,000 levels in event properties: that operation REJECTED, the rest and a concurrent batch of another installation stored', async () => {
    const other = await bootstrap(h, appKey);
    const deep = op('EVENT_TRACKED', {});
    const ok = [event(), event()];
    const [mine, theirs] = await Promise.all([
      post(batchText([ok[0], deep, ok[1]], [undefined, `{"name":"deep","properties":{"x":${nested(10_000)}}}`])),
      post(batchText([event()]), other),
    ]);
    const r = await results(mine);
    expect(r.map((x) => x.status)).toEqual(['ACCEPTED', 'REJECTED', 'ACCEPTED']);
    expect(r[1]).toEqual({
      operationId: deep.operationId,
      status: 'REJECTED',
      errorCode: 'NESTING_TOO_DEEP',
      message: 'payload.properties.x: must not nest arrays and objects more than 32 levels deep',
    });
    expect((await results(theirs)).map((x) => x.status)).toEqual(['ACCEPTED']);
    expect((await ledger()).map((x) => [x.status, x.payload === null])).toEqual([
      ['ACCEPTED', false],
      ['REJECTED', true],
      ['ACCEPTED', false],
    ]);
    expect(await ledger(other.installationId)).toHaveLength(1);
  });

  it('attribute values: 32 levels are stored, 33 are REJECTED; a deep value elsewhere in a rejected operation is no 500', async () => {
    const at32 = op('INSTALLATION_ATTRIBUTES_EDITED', {});
    const at33 = op('INSTALLATION_ATTRIBUTES_EDITED', {});
    const wrongPlace = op('SCREEN_VIEWED', {});
    const text = batchText([at32, at33, wrongPlace], [`{"set":{"ok":${nested(32)}}}`, `{"set":{"no":${nested(33)}}}`, `{"screen_key":${nested(10_000)}}`]);
    const r = await results(await post(text));
    expect(r.map((x) => [x.status, x.errorCode])).toEqual([
      ['ACCEPTED', null],
      ['REJECTED', 'NESTING_TOO_DEEP'],
      ['REJECTED', 'INVALID_TYPE'],
    ]);
    expect(r[1].message).toMatch(/^payload\.set\.no: /);
    expect(await attributes()).toEqual([{ key: 'ok', value: nested(32) }]);
    // The same body again is a replay, though it cannot be re-serialized by JSON.stringify.
    const again = await post(text);
    expect(again.status).toBe(200);
  });

  it('non-finite numbers (1e400 parses to Infinity) are REJECTED, typed or free-form, never stored as null', async () => {
    const ops = [op('EVENT_TRACKED', {}), op('EVENT_TRACKED', {}), op('INSTALLATION_ATTRIBUTES_EDITED', {}), op('SCREEN_CLEARED', {})];
    const r = await results(
      await post(
        batchText(ops, [
          '{"name":"buy","properties":{},"value":1e400}',
          '{"name":"buy","properties":{"price":{"amount":-1e400}}}',
          '{"set":{"n":[1,2,1e400]}}',
          '{"screen_key":"home","visible_duration_millis":1e400}',
        ]),
      ),
    );
    expect(r.map((x) => [x.errorCode, x.message?.split(':')[0]])).toEqual([
      ['INVALID_TYPE', 'payload.value'],
      ['INVALID_VALUE', 'payload.properties.price'],
      ['INVALID_VALUE', 'payload.set.n'],
      ['INVALID_TYPE', 'payload.visible_duration_millis'],
    ]);
    expect((await ledger()).every((x) => x.status === 'REJECTED' && x.payload === null)).toBe(true);
    expect(await attributes()).toEqual([]);
  });

  it('a payload over 64 KiB of JSON is REJECTED PAYLOAD_TOO_LARGE', async () => {
    const big = op('PROFILE_ATTRIBUTES_EDITED', { set: { bio: 'é'.repeat(33_000) } });
    const r = await results(await post(batchText([big, event()])));
    expect(r.map((x) => [x.status, x.errorCode])).toEqual([
      ['REJECTED', 'PAYLOAD_TOO_LARGE'],
      ['ACCEPTED', null],
    ]);
    expect(r[0].message).toBe('payload: must be at most 65536 bytes as JSON');
  });
});

describe('dates and types', () => {
  it.each(['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T12:60:00Z', '2026-01-01T00:00:00+24:00', '2026-01-01T12:00:60Z'])(
    'occurredAt %s is REJECTED INVALID_FORMAT, not shifted',
    async (occurredAt) => {
      const r = await results(await post(batchText([op('EVENT_TRACKED', { name: 'ab', properties: {} }, { occurredAt })])));
      expect(r[0]).toMatchObject({ status: 'REJECTED', errorCode: 'INVALID_FORMAT', message: 'occurredAt: must be an RFC 3339 date-time' });
      expect((await ledger())[0].payload).toBeNull();
    },
  );

  it('an unknown type leaves no client text in the ledger or the answer', async () => {
    const secret = 'ALICE_PHONE_5551234';
    const o = op(secret, { name: 'x' });
    const r = await results(await post(batchText([o])));
    expect(r[0]).toMatchObject({ status: 'REJECTED', errorCode: 'INVALID_VALUE' });
    expect(r[0].message).toMatch(/^type: must be one of EVENT_TRACKED, /);
    expect(JSON.stringify(r)).not.toContain(secret);
    expect(await ledger()).toEqual([{ id: o.operationId, type: 'UNKNOWN', status: 'REJECTED', payload: null }]);
    const stored = await h.sql.all<{ result: string }>('SELECT result FROM operation_batches');
    expect(JSON.stringify(stored)).not.toContain(secret);
  });
});

describe('request bodies: size and text', () => {
  it('a batch at every bound of spec 01 (100 × 200 attributes with 128-character keys, ~2.7 MB) is accepted under the default cap', async () => {
    const key = (i: number) => `k${String(i).padStart(3, '0')}`.padEnd(128, 'x');
    const set = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [key(i), 'value-' + i]));
    const ops = Array.from({ length: 100 }, () => op('INSTALLATION_ATTRIBUTES_EDITED', { set }));
    const text = batchText(ops);
    expect(text.length).toBeGreaterThan(2_700_000);
    const r = await results(await post(text));
    expect(r.every((x) => x.status === 'ACCEPTED')).toBe(true);
    expect(await attributes()).toHaveLength(200);
  });

  it('over maxRequestBytes: 413 payload_too_large (not a 400 the SDK would drop), nothing stored', async () => {
    const small = await createHarness({ maxRequestBytes: 64 * 1024 });
    try {
      const { app } = await setupEnvironment(small);
      const session = await bootstrap(small, app.appKey);
      const ops = Array.from({ length: 100 }, () => op('EVENT_TRACKED', { name: 'ab', properties: { pad: 'x'.repeat(1000) } }));
      const res = await small.request('/v1/sdk/operations:batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(session.credential) },
        body: batchText(ops),
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toEqual({ code: 'payload_too_large', message: 'body: must be at most 65536 bytes (maxRequestBytes)' });
      expect(await small.sql.get('SELECT COUNT(*) AS n FROM operations')).toEqual({ n: 0 });
    } finally {
      await small.close();
    }
  });

  const problem = async (res: Response) => {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = (await res.json()) as { code: string; message: string };
    expect(p.code).toBe('invalid_request');
    return p.message;
  };

  it('invalid UTF-8: 400 naming the field that holds the bad bytes, nothing stored', async () => {
    const text = batchText([event(), op('EVENT_TRACKED', { name: 'buy', properties: { city: 'S@@o Paulo' } })]);
    const [before, after] = text.split('@@');
    const body = Buffer.concat([Buffer.from(before), Buffer.from([0xe3, 0x28]), Buffer.from(after)]);
    expect(await problem(await post(body))).toBe('operations[1].payload.properties.city: is not valid UTF-8');
    expect(await ledger()).toEqual([]);
    // Outside any string, the body as a whole is named.
    expect(await problem(await post(Buffer.concat([Buffer.from(text), Buffer.from([0xff])])))).toBe('body: is not valid UTF-8');
  });

  it('a lone surrogate escape (\\ud800): 400 naming the field, nothing stored; a pair is fine', async () => {
    const bad = batchText([op('EVENT_TRACKED', {})], ['{"name":"buy","properties":{"emoji":"x\\ud800"}}']);
    expect(await problem(await post(bad))).toMatch(/^operations\[0\]\.payload\.properties\.emoji: holds a lone surrogate/);
    const badKey = batchText([op('INSTALLATION_ATTRIBUTES_EDITED', {})], ['{"set":{"\\udc00":1}}']);
    expect(await problem(await post(badKey))).toMatch(/^operations\[0\]\.payload\.set\.\udc00: holds a lone surrogate/);
    expect(await ledger()).toEqual([]);
    const pair = batchText([op('EVENT_TRACKED', {})], ['{"name":"buy","properties":{"emoji":"\\ud83d\\ude00"}}']);
    expect((await results(await post(pair)))[0].status).toBe('ACCEPTED');
    expect(JSON.parse((await ledger())[0].payload!).properties.emoji).toBe('😀');
  });

  it('a charset other than UTF-8: 400 naming Content-Type; utf-8 in any spelling is fine', async () => {
    const text = batchText([event()]);
    expect(await problem(await post(text, s, 'application/json; charset=iso-8859-1'))).toBe('Content-Type: charset must be utf-8');
    expect(await ledger()).toEqual([]);
    expect((await post(batchText([event()]), s, 'application/json; charset="UTF-8"')).status).toBe(202);
  });

  it('bootstrap: a lone surrogate is refused there too', async () => {
    const post = (body: string | Uint8Array) =>
      h.request('/v1/sdk/installations', { method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey }, body });
    const text = '{"platform":"IOS","locale":"en-US","timezone":"Europe/Paris","sdkVersion":"1.0.0","appVersion":"2\\udfff"}';
    expect(await problem(await post(text))).toMatch(/^appVersion: holds a lone surrogate/);
    const count = async () => (await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM installations'))!.n;
    expect(await count()).toBe(1);
  });
});
