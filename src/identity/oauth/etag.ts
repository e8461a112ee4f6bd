import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { headerOf } from '../../platform/http/request';

/**
 * Conditional GET for discovery and JWKS (RFC 9110 §13.1.2). Each answer is serialized, and its
 * validator computed, once per document: discovery per issuer (the document is a function of
 * the issuer alone), JWKS per key-set object, which the key service keeps while the catalogue
 * version stands still (keys/service.ts). A request costs a map lookup, never a hash.
 */

export interface Representation {
  body: string;
  /** Strong (RFC 9110 §8.8.3): the same validator means the very same bytes. */
  etag: string;
}

function represent(value: unknown): Representation {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

const byKey = new Map<string, Representation>();
const byObject = new WeakMap<object, Representation>();

/** For a document that is a function of `key` alone (discovery: of the issuer). */
export function keyedRepresentation(key: string, build: () => unknown): Representation {
  let r = byKey.get(key);
  if (!r) {
    r = represent(build());
    if (byKey.size >= 10_000) byKey.delete(byKey.keys().next().value!);
    byKey.set(key, r);
  }
  return r;
}

/** For a value that is replaced, never mutated, when it changes (such as keys.jwks()). */
export function representationOf(value: object): Representation {
  let r = byObject.get(value);
  if (!r) {
    r = represent(value);
    byObject.set(value, r);
  }
  return r;
}

/**
 * If-None-Match (RFC 9110 §13.1.2): weak comparison, so `W/"x"` matches `"x"`; `*` matches any
 * current representation. A list is compared member by member.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/** The 304 of a route answered by sendRepresentation, as its document says it. */
export const NOT_MODIFIED = { description: 'not modified: If-None-Match names the ETag (RFC 9110 §13.1.2); no body, the same ETag and Cache-Control' };

/** 200 with the JSON and its ETag, or 304 with the same validator and caching headers and no body. */
export function sendRepresentation(c: Context, r: Representation, cacheControl: string): Response {
  // Content-Type on the 304 too: the Node adapter would otherwise add text/plain to a bodiless
  // answer, and a cache refreshing its stored headers from the 304 (RFC 9111 §4.3.4) would take it.
  const headers = { 'Cache-Control': cacheControl, ETag: r.etag, 'Content-Type': 'application/json' };
  if (ifNoneMatchHits(headerOf(c, 'if-none-match'), r.etag)) return c.body(null, 304, headers);
  return c.body(r.body, 200, headers);
}
