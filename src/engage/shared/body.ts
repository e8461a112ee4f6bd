import type { Context } from 'hono';
import { readJsonBody, type BodyFailure } from '../../platform/http/body';
import { declaredRoutes } from '../../platform/http/route';
import type { EdgeEnv } from '../guards';
import { EdgeErrors } from './errors';
import { atBody } from './schemas';

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

/**
 * The mobile edge's route declarations (platform/http/route.ts): bodies read as above, and a
 * 400 `invalid_request` Problem naming the request's first violation (a body's root as `body`),
 * as spec 01's SDKs have always been answered.
 */
export function edgeRoutes(maxBytes: number) {
  return declaredRoutes<EdgeEnv>({
    readBody: (c, body) => readEdgeJson(c, maxBytes, { perItem: body.bounds === 'per-item' }),
    violations: 'first',
    invalid: (list) => EdgeErrors.fromViolation(atBody(list[0]) ?? list[0]),
  });
}
