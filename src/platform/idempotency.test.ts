import { describe, expect, it } from 'vitest';
import { canonicalJson, checkReplay, requestDigest } from './idempotency';

/** The recursive form the send and transfer ledgers used before (their stored digests must still match). */
function recursiveSorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(recursiveSorted).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${recursiveSorted((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

describe('one idempotency ledger rule and one canonical digest (issue 22 point 5)', () => {
  const samples: unknown[] = [
    null, true, 0, -1.5, 1e21, 'a"b\\c\u2028', [], {}, [1, [2, [3]]],
    { templateKey: 'order', recipient: { value: 'u-1', type: 'EXTERNAL_ID' }, locale: null, variables: { z: 1, a: [true, { y: 'x', b: null }] } },
    { b: undefined, a: [undefined] },
  ];

  it('writes what the recursive sorted form wrote, so digests stored before still match', () => {
    for (const v of samples) expect(canonicalJson(v)).toBe(recursiveSorted(v));
    // The binding ledger hashed JSON.stringify of an object already in key order.
    for (const target of [null, { externalId: 'user-1' }]) {
      const request = { bindingCode: 'ABCD-EFGH', target };
      expect(canonicalJson(request)).toBe(JSON.stringify(request));
    }
  });

  it('ignores key order and whitespace, not values, order of elements or types', () => {
    expect(requestDigest({ a: 1, b: { c: [1, 2] } })).toBe(requestDigest(JSON.parse('{ "b": {"c":[1,2]}, "a": 1 }')));
    expect(requestDigest({ a: 1 })).not.toBe(requestDigest({ a: '1' }));
    expect(requestDigest([1, 2])).not.toBe(requestDigest([2, 1]));
    expect(requestDigest({ a: null })).not.toBe(requestDigest({}));
    expect(requestDigest('x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never recurses: a value nested 100,000 deep is written', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const text = canonicalJson(deep);
    expect(text.length).toBeGreaterThan(400_000);
    expect(text).toContain('"leaf"');
  });

  it('replays the same request, refuses another under a used key, and replays an entry stored before digests', () => {
    const reused = () => new Error('idempotency key reused');
    expect(() => checkReplay(requestDigest({ a: 1 }), requestDigest({ a: 1 }), reused)).not.toThrow();
    expect(() => checkReplay(requestDigest({ a: 1 }), requestDigest({ a: 2 }), reused)).toThrow('idempotency key reused');
    expect(() => checkReplay(null, requestDigest({ a: 2 }), reused)).not.toThrow();
  });
});
