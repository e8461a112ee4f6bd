/**
 * The bounds every JSON value of every API is held to (docs/decisions.md "Input bounds"), and
 * the walks that check them. Each walk is iterative, with an explicit stack: they run before
 * anything recursive (a canonical form for an idempotency digest, JSON.stringify, a renderer)
 * sees the value, so no depth can overflow the call stack. `JSON.parse` itself is iterative.
 */

/** Levels of arrays and objects one free-form value (a variable, an event property, an import record) may nest. */
export const MAX_FREE_FORM_DEPTH = 32;
/** Bytes of one free-form value as JSON (UTF-8); an operation's whole payload has the same bound. */
export const MAX_FREE_FORM_BYTES = 64 * 1024;
/**
 * Levels a whole request body may nest, checked as it is read: a free-form value at its bound
 * inside the deepest fixed structure of any route (an operation's `payload.properties`, five
 * levels) fits with room to spare, and nothing deeper can be valid anywhere.
 */
export const MAX_JSON_DEPTH = 64;

/** NUL (U+0000): PostgreSQL's text cannot hold it (22021), so no API accepts it in a string. */
export const hasNul = (s: string): boolean => s.includes('\0');
export const NUL_REASON = 'holds a NUL character (\\u0000), which text values may not contain';

/**
 * The top-level member (`variables`, `records`; `body` when the root itself is the array) that
 * holds an array or object more than `max` levels deep, the root being level 1; undefined when
 * nothing is that deep.
 */
export function tooDeep(root: unknown, max: number): string | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const values: object[] = [root];
  const depths: number[] = [1];
  const tops: string[] = ['body'];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    const top = tops.pop()!;
    const isRoot = v === root;
    if (Array.isArray(v)) {
      for (const x of v) {
        if (typeof x !== 'object' || x === null) continue;
        if (depth + 1 > max) return top;
        values.push(x);
        depths.push(depth + 1);
        tops.push(top);
      }
    } else {
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (typeof x !== 'object' || x === null) continue;
        const at = isRoot ? k : top;
        if (depth + 1 > max) return at;
        values.push(x);
        depths.push(depth + 1);
        tops.push(at);
      }
    }
  }
  return undefined;
}

/** Why a free-form value breaks the bounds, or null. */
export type FreeFormFault = 'depth' | 'not_finite' | 'size' | null;

/**
 * A free-form value nests at most MAX_FREE_FORM_DEPTH levels of arrays and objects (the value
 * itself is level 1), holds only finite numbers (JSON.parse makes Infinity of 1e400, which
 * JSON.stringify would write as null) and is at most MAX_FREE_FORM_BYTES as JSON.
 */
export function freeFormFault(value: unknown): FreeFormFault {
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'not_finite';
  if (typeof value !== 'object' && typeof value !== 'string') return null;
  const values: object[] = typeof value === 'object' && value !== null ? [value] : [];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop()!;
    const child = depths.pop()! + 1;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof x === 'object' && x !== null) {
        if (child > MAX_FREE_FORM_DEPTH) return 'depth';
        values.push(x as object);
        depths.push(child);
      } else if (typeof x === 'number' && !Number.isFinite(x)) return 'not_finite';
    }
  }
  // Safe now: the depth is bounded. Strings are at most 3 bytes per UTF-16 unit.
  const json = JSON.stringify(value);
  return json.length * 3 > MAX_FREE_FORM_BYTES && Buffer.byteLength(json) > MAX_FREE_FORM_BYTES ? 'size' : null;
}
