/**
 * Bucketing reproducible across SDKs (issue 26): GrowthBook's hash v2, exactly as
 * ../shared/notes/engagement-anchors.md §2 writes it (growthbook/growthbook:
 * packages/sdk-js/src/util.ts), and its cumulative weight ranges with coverage.
 *
 *   fnv1a32(s): offset 0x811C9DC5, prime 0x01000193, XOR then multiply per UTF-16 code unit
 *   v2(seed, value) = (fnv1a32(decimal(fnv1a32(seed + value))) mod 10000) / 10000
 *
 * We keep the bucket as the integer `fnv … mod 10000` (0 to 9999) and compare integers: the
 * weights and the coverage are integers out of 10,000 too (basis points, the hash's own
 * resolution), so no float rounding in any SDK can move a boundary (docs/decisions.md).
 */

/** FNV-1a 32 offset basis and prime (the notes; RFC draft-eastlake-fnv). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** Every weight and coverage is out of this many parts; the hash v2 bucket is below it. */
export const BUCKETS = 10_000;

/** FNV-1a 32 over `s`'s UTF-16 code units, continuing from `h` (the offset basis by default). */
export function fnv1a32(s: string, h: number = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** FNV-1a 32 over the decimal digits of the unsigned integer `n` (as `String(n)` would write them). */
function fnvOfDecimal(n: number): number {
  // A uint32 has at most 10 digits: write them into a small buffer from the right.
  let h = FNV_OFFSET;
  if (n === 0) return Math.imul(h ^ 48, FNV_PRIME) >>> 0;
  let div = 1_000_000_000;
  while (div > n) div /= 10;
  for (; div >= 1; div /= 10) {
    const d = Math.floor(n / div) % 10;
    h = Math.imul(h ^ (48 + d), FNV_PRIME);
  }
  return h >>> 0;
}

/** GrowthBook's hash v1, `(fnv1a32(value + seed) mod 1000) / 1000`: only for its published vectors. */
export function hashV1(seed: string, value: string): number {
  return (fnv1a32(value + seed) % 1000) / 1000;
}

/** GrowthBook's hash v2 as a fraction in [0, 1) with four decimals. */
export function hashV2(seed: string, value: string): number {
  return bucketV2(seed, value) / BUCKETS;
}

/** GrowthBook's hash v2 as the integer bucket 0 … 9999 (`hashV2 × 10000`). */
export function bucketV2(seed: string, value: string): number {
  return fnvOfDecimal(fnv1a32(value, fnv1a32(seed))) % BUCKETS;
}

/**
 * A hasher for one seed: FNV is a stream, so the seed's state is computed once and each value
 * continues from it (the same number as `bucketV2(seed, value)`, without the concatenation).
 */
export function bucketerFor(seed: string): (value: string) => number {
  const state = fnv1a32(seed);
  return (value) => fnvOfDecimal(fnv1a32(value, state)) % BUCKETS;
}

/**
 * The identifier a bucket is computed from, or undefined when it must not be hashed. Only ASCII
 * is hashed (the notes' non-ASCII trap: SDKs that hash UTF-8 bytes and those that hash UTF-16
 * units disagree beyond ASCII), and identifiers are UUIDs, which RFC 9562 §4 says to compare
 * case-insensitively and to write in lower case: upper-case letters are lowered, so `ABC…` and
 * `abc…` fall in the same bucket. An empty identifier is refused too.
 */
export function hashUnit(id: string): string | undefined {
  if (id.length === 0 || id.length > 255) return undefined;
  let upper = false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7e || c < 0x21) return undefined;
    if (c >= 65 && c <= 90) upper = true;
  }
  return upper ? id.toLowerCase() : id;
}

/**
 * The bucket (0 … 9999) of a unit's id for one seed, or -1 when the id must not be hashed
 * (hashUnit); the last id's bucket is kept, so the rules of one flag sharing a
 * seed hash one installation's or profile's id once (issue 26 "Performance").
 */
export function lastUnitBucketer(seed: string): (id: string) => number {
  const bucket = bucketerFor(seed);
  let lastId: string | undefined;
  let last = -1;
  return (id) => {
    if (id !== lastId) {
      const unit = unitOf(id);
      last = unit === undefined ? -1 : bucket(unit);
      lastId = id;
    }
    return last;
  };
}

/**
 * hashUnit of the last id asked for: a snapshot evaluates every flag for one installation, so
 * its id is checked (and lowered) once, not once per flag that splits.
 */
let lastUnitId: string | undefined;
let lastUnit: string | undefined;
function unitOf(id: string): string | undefined {
  if (id !== lastUnitId) {
    lastUnit = hashUnit(id);
    lastUnitId = id;
  }
  return lastUnit;
}

/**
 * Cumulative ranges (GrowthBook `getBucketRanges`): variant i owns
 * [start_i, start_i + coverage × w_i) where start_i is the sum of the weights before it, all in
 * parts of 10,000. Weights sum to exactly 10,000 (checked by the schema's rules; GrowthBook's
 * "0.99–1.01 else equal weights" is refused instead of repaired). In integers:
 * 10000·start ≤ 10000·bucket < 10000·start + coverage·w. Returns the index of the variant whose
 * range holds `bucket`, or -1 when none does (outside the coverage).
 */
export function chooseVariant(bucket: number, weights: readonly number[], coverage: number = BUCKETS): number {
  const at = bucket * BUCKETS;
  let start = 0;
  for (let i = 0; i < weights.length; i++) {
    const from = start * BUCKETS;
    if (at >= from && at < from + coverage * weights[i]) return i;
    start += weights[i];
  }
  return -1;
}
