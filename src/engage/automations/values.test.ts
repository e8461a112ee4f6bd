import { describe, expect, it } from 'vitest';
import { mapResponse, placeholderValue } from './values';

describe("a webhook answer's mapped values (responseMapping): only what a trigger's context could hold", () => {
  const nest = (levels: number): unknown => (levels === 0 ? 1 : { a: nest(levels - 1) });

  it('maps plain values, own properties only', () => {
    const answer = JSON.parse('{"shipment":{"carrier":"ups","eta":3,"parts":["a","b"],"emoji":"😀"},"__proto__":{"x":1}}') as unknown;
    expect(placeholderValue(answer, 'shipment.carrier')).toBe('ups');
    expect(placeholderValue(answer, 'shipment.parts')).toEqual(['a', 'b']);
    expect(placeholderValue(answer, 'shipment.emoji')).toBe('😀');
    expect(placeholderValue(answer, '__proto__.x')).toBe(1); // the answer's own key, plain data
    expect(placeholderValue({}, 'constructor.prototype')).toBeUndefined();
    expect(placeholderValue(answer, 'shipment.missing')).toBeUndefined();
  });

  it('leaves out a NUL or a lone surrogate (in a string or a key), a value nested past 8 levels or over 16 KB', () => {
    // As JSON.parse reads a receiver's answer: the escapes become the characters.
    const answer = JSON.parse(
      `{"nul":"a\\u0000b","key":{"k\\u0000":1},"lone":"\\ud800x","pair":"\\ud83d\\ude00","deep":${JSON.stringify(nest(8))},"deeper":${JSON.stringify(nest(9))},"big":"${'x'.repeat(16 * 1024)}","ok":"${'x'.repeat(1000)}"}`,
    ) as unknown;
    expect(placeholderValue(answer, 'nul')).toBeUndefined();
    expect(placeholderValue(answer, 'key')).toBeUndefined();
    expect(placeholderValue(answer, 'lone')).toBeUndefined();
    expect(placeholderValue(answer, 'pair')).toBe('😀');
    expect(placeholderValue(answer, 'deep')).toEqual(nest(8));
    expect(placeholderValue(answer, 'deeper')).toBeUndefined();
    expect(placeholderValue(answer, 'big')).toBeUndefined();
    expect(placeholderValue(answer, 'ok')).toHaveLength(1000);
  });

  it("keeps the run's context within a trigger's bounds as a whole: a value that would pass 16 KB or 8 levels is left out", () => {
    const context = { order: 'o-1', filler: 'x'.repeat(15_000) };
    const answer = { small: 'fits', large: 'y'.repeat(2_000), deep: nest(8), shallow: nest(7) };
    const out = mapResponse(context, answer, { a: 'small', b: 'large', c: 'deep', d: 'shallow', e: 'missing', order: 'missing' });
    expect(Object.keys(JSON.parse(JSON.stringify(out)) as object).sort()).toEqual(['a', 'd', 'filler']);
    expect([out.a, out.d]).toEqual(['fits', nest(7)]);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(16 * 1024);
  });
});
