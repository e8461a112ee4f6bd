import type { Context } from 'hono';
import { readJsonBody, type BodyFailure } from '../../platform/http/body';
import { EdgeErrors } from './errors';

const fail = (f: BodyFailure) => (f.kind === 'too_large' ? EdgeErrors.payloadTooLarge(f.limit) : EdgeErrors.invalid(`${f.field}: ${f.reason}`));

/**
 * A mobile edge request body: JSON in UTF-8 of at most `maxBytes` (config `maxRequestBytes`).
 * Too large is a 413 `payload_too_large`; anything else unreadable a 400 naming the field.
 * `perItem`: the route bounds depth and refuses NUL per item itself, answering REJECTED for
 * that item rather than a 400 for all (the operation batch, operations/check.ts).
 */
export function readEdgeJson(c: Context, maxBytes: number, opts: { perItem?: boolean } = {}): Promise<unknown> {
  return readJsonBody(c, opts.perItem ? { maxBytes, fail, maxDepth: Infinity, nul: 'allow' } : { maxBytes, fail });
}
