import { describe, expect, it } from 'vitest';
import { bucketerFor, bucketV2, chooseVariant, fnv1a32, hashUnit, hashV1, hashV2 } from './bucketing';
import { uuidStream } from '../../../test/helpers/uuid-stream';

/**
 * An independent FNV-1a 32 in BigInt arithmetic, written from the definition (XOR the code unit,
 * multiply by the prime modulo 2^32), and hash v2 with the concatenation and String() GrowthBook
 * uses: the production code takes shortcuts (Math.imul, a continued seed state, digits without a
 * string), this does not.
 */
function referenceFnv(s: string): bigint {
  let h = 0x811c9dc5n;
  for (let i = 0; i < s.length; i++) h = ((h ^ BigInt(s.charCodeAt(i))) * 0x01000193n) % 2n ** 32n;
  return h;
}
const referenceV2 = (seed: string, value: string) => Number(referenceFnv(String(referenceFnv(seed + value))) % 10000n) / 10000;

/** The test's population of installation ids (seed 1 unless told). */
const ids = (n: number, seed = 1) => uuidStream(n, seed);

describe('GrowthBook hash (bucketing.ts)', () => {
  it('FNV-1a 32 gives the published FNV test vectors (offset basis, "a", "foobar")', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hash v1 with seed "" gives GrowthBook\'s published vectors (cases.json `hash`, as the notes list them)', () => {
    expect(hashV1('', 'a')).toBe(0.22);
    expect(hashV1('', 'b')).toBe(0.077);
    expect(hashV1('', 'ab')).toBe(0.946);
    expect(hashV1('', '123')).toBe(0.011);
  });

  it('hash v2 ("seed", "a") is 0.0505 (published)', () => {
    expect(hashV2('seed', 'a')).toBe(0.0505);
    expect(bucketV2('seed', 'a')).toBe(505);
  });

  it('computed v2 vectors, checked by hand: fnv("seeda") = 717764279, fnv("717764279") mod 10000 = 505', () => {
    // The inner hash of the published vector, then more vectors the reference implementation agrees on.
    expect(fnv1a32('seeda')).toBe(717764279);
    const vectors: [string, string, number][] = [
      ['seed', 'b', 0.2696],
      ['seed', 'ab', 0.9316],
      ['', '123', 0.4547],
      ['', '', 0.2305],
      ['exp1', '00000000-0000-4000-8000-000000000000', 0.1923],
      ['flag.key', 'abc', 0.1066],
    ];
    for (const [seed, value, expected] of vectors) {
      expect(hashV2(seed, value), `${seed}|${value}`).toBe(expected);
      expect(referenceV2(seed, value), `${seed}|${value} (reference)`).toBe(expected);
    }
  });

  it('the fast forms equal the reference on 10,000 ids and seeds (Math.imul, continued seed state, digits without String)', () => {
    for (const [i, id] of ids(10_000).entries()) {
      const seed = `flag-${i % 37}`;
      const expected = referenceV2(seed, id);
      if (hashV2(seed, id) !== expected || bucketerFor(seed)(id) / 10000 !== expected) throw new Error(`${seed} ${id}`);
    }
  });

  it('hashes only ASCII identifiers: upper-case UUIDs are lowered, non-ASCII, controls, spaces and empty ids are refused', () => {
    expect(hashUnit('0A1B2C3D-0000-4000-8000-00000000000F')).toBe('0a1b2c3d-0000-4000-8000-00000000000f');
    expect(hashUnit('0a1b2c3d-0000-4000-8000-00000000000f')).toBe('0a1b2c3d-0000-4000-8000-00000000000f');
    expect(hashUnit('café')).toBeUndefined();
    expect(hashUnit('🦎')).toBeUndefined();
    expect(hashUnit('a b')).toBeUndefined();
    expect(hashUnit('a\u0000')).toBeUndefined();
    expect(hashUnit('')).toBeUndefined();
    expect(hashUnit('x'.repeat(256))).toBeUndefined();
  });

  it('cumulative ranges with coverage: variant i owns [start, start + coverage × w) in parts of 10,000', () => {
    expect(chooseVariant(0, [5000, 5000])).toBe(0);
    expect(chooseVariant(4999, [5000, 5000])).toBe(0);
    expect(chooseVariant(5000, [5000, 5000])).toBe(1);
    expect(chooseVariant(9999, [5000, 5000])).toBe(1);
    // Half coverage: [0, 2500) and [5000, 7500), as GrowthBook's getBucketRanges.
    expect(chooseVariant(2499, [5000, 5000], 5000)).toBe(0);
    expect(chooseVariant(2500, [5000, 5000], 5000)).toBe(-1);
    expect(chooseVariant(5000, [5000, 5000], 5000)).toBe(1);
    expect(chooseVariant(7499, [5000, 5000], 5000)).toBe(1);
    expect(chooseVariant(7500, [5000, 5000], 5000)).toBe(-1);
    // A boundary that is not a whole bucket: 3333 × 5000 / 10000 = 1666.5, compared exactly.
    expect(chooseVariant(1666, [5000, 5000], 3333)).toBe(0);
    expect(chooseVariant(1667, [5000, 5000], 3333)).toBe(-1);
    // A weight of 0 owns nothing; coverage 0 holds nobody.
    expect(chooseVariant(0, [0, 10000])).toBe(1);
    expect(chooseVariant(0, [5000, 5000], 0)).toBe(-1);
  });
});
