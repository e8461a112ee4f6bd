import { createHash } from 'node:crypto';

/**
 * What every idempotency ledger shares (a transactional send, a binding transition, an ingest
 * batch, a user transfer job): the digest of the request kept beside its answer, and the rule
 * that tells a replay from a reuse of the key.
 */

/**
 * JSON of a parsed JSON value with object keys sorted, so equal requests give equal text
 * whatever their key order; no whitespace. Iterative: a value nested as deep as the body
 * bounds allow (platform/http/json-bounds.ts) never overflows the stack. An `undefined` member
 * or element is written `null`.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const v = todo.pop();
    if (v instanceof Text) out.push(v.text);
    else if (Array.isArray(v)) {
      out.push('[');
      todo.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push(v[i]);
        if (i > 0) todo.push(COMMA);
      }
    } else if (typeof v === 'object' && v !== null) {
      out.push('{');
      todo.push(CLOSE_OBJECT);
      const keys = Object.keys(v).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push((v as Record<string, unknown>)[keys[i]]);
        todo.push(new Text(`${JSON.stringify(keys[i])}:`));
        if (i > 0) todo.push(COMMA);
      }
    } else out.push(JSON.stringify(v) ?? 'null');
  }
  return out.join('');
}

/** Punctuation queued by `canonicalJson`, told apart from string values. */
class Text {
  constructor(readonly text: string) {}
}
const COMMA = new Text(',');
const CLOSE_ARRAY = new Text(']');
const CLOSE_OBJECT = new Text('}');

/** SHA-256 (hex) of text. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** SHA-256 (hex) of the request's canonical JSON: what a ledger keeps to recognise the same request. */
export const requestDigest = (request: unknown): string => sha256Hex(canonicalJson(request));

/**
 * The ledger's rule for an entry found under the key: the same request is a replay (the caller
 * answers the stored answer); another request under a used key is a conflict, thrown as
 * `reused()`, never answered with what is not its own. A null stored digest is an entry made
 * before its ledger kept digests: it replays whatever the request.
 */
export function checkReplay(storedDigest: string | null, digest: string, reused: () => Error): void {
  if (storedDigest !== null && storedDigest !== digest) throw reused();
}
