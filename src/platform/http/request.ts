import type { Context, MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routePath } from 'hono/route';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import { hasNul } from './json-bounds';
import type { Metrics } from '../metrics';

export interface RequestVars {
  requestId: string;
  log: Logger;
}

export type AppEnv = { Variables: RequestVars };

/**
 * A request header by lower-case name. On the Node server it comes from the IncomingMessage
 * that Node already parsed; `c.req.header` would first copy every header into a WHATWG
 * Headers object, validating each, for every request.
 */
export function headerOf(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  const v = incoming.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}


/**
 * 204 No Content with no Content-Type (RFC 9110 §15.3.5: there is no content to type). The
 * Node adapter gives every answer that lacks one `text/plain`, so on the Node server the head is
 * written here (headers already set on the ServerResponse, X-Request-Id among them, are kept)
 * and the adapter is told the answer is sent.
 */
export function noContent(c: Context): Response {
  const outgoing = nodeResponse(c);
  if (!outgoing) return c.body(null, 204);
  outgoing.writeHead(204);
  outgoing.end();
  return alreadySent(204);
}

/** The Node server's response for this request, when it runs on one (not in-process `app.request`). */
export function nodeResponse(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return outgoing && typeof outgoing.writeHead === 'function' ? outgoing : undefined;
}

/** What a handler that answered on `nodeResponse` itself returns: the Node adapter then writes nothing. */
export const alreadySent = (status = 200): Response => new Response(null, { status, headers: { 'x-hono-already-sent': 'true' } });

/**
 * Sets headers on whatever answer this request gets, an error included, then runs `next`.
 * On the Node server they go straight onto the ServerResponse, where Node merges them into the
 * head: set on the hono response instead, they would build a WHATWG Headers object per answer.
 */
async function nextWithHeaders(c: Context, next: () => Promise<void>, entries: readonly (readonly [string, string])[]): Promise<void> {
  const outgoing = nodeResponse(c);
  if (outgoing) for (const [k, v] of entries) outgoing.setHeader(k, v);
  await next();
  if (!outgoing) for (const [k, v] of entries) c.res.headers.set(k, v);
}

/**
 * `Cache-Control: no-store` on this request's answer, whatever it is. On the Node server it goes
 * straight onto the ServerResponse (see nextWithHeaders): `c.header` would build a WHATWG
 * Headers object, and the adapter convert it back, on every answer of the hot mobile routes.
 */
export function noStore(c: Context): void {
  const outgoing = nodeResponse(c);
  if (outgoing) outgoing.setHeader('Cache-Control', 'no-store');
  else c.header('Cache-Control', 'no-store');
}

/** Middleware that sets these headers on every answer of its routes (see nextWithHeaders). */
export function withHeaders(headers: Record<string, string>): MiddlewareHandler {
  const entries = Object.entries(headers);
  return (c, next) => nextWithHeaders(c, next, entries);
}

/**
 * The client's address: the TCP peer, or with `trustedProxies` reverse proxies in front, the
 * address the outermost of them saw, read from the end of X-Forwarded-For (each proxy appends
 * the address it received from; entries further left are the client's to invent). With fewer
 * entries than proxies, the leftmost one.
 */
export function clientAddress(c: Context, trustedProxies: number): string {
  const peer = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress ?? 'unknown';
  if (trustedProxies === 0) return peer;
  const hops = (headerOf(c, 'x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (hops.length === 0) return peer;
  return hops[Math.max(0, hops.length - trustedProxies)].slice(0, 64);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * A NUL character (`%00`) anywhere in the path or query is refused before any route reads it:
 * decoded, it would reach a lookup as text that PostgreSQL cannot hold (an error, so a 500)
 * while SQLite would take it. 400 `invalid_request` in the family of the path, naming the query
 * parameter (or `path`, `query` for a parameter name). Not async: one more turn per request
 * is what every request would pay.
 */
export const refuseNulInUrl: MiddlewareHandler = (c, next) => {
  const url = c.req.url;
  const at = url.indexOf('%00');
  if (at === -1) return next();
  const q = url.indexOf('?');
  let field = 'path';
  if (q !== -1 && at > q) {
    field = 'query';
    for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
      if (hasNul(k)) break;
      if (hasNul(v)) {
        field = k;
        break;
      }
    }
  }
  // Answered before any route's middleware: `no-store` here, as the administration APIs answer everything (an outside review).
  throw new DomainError('invalid', 'invalid_request', `${field}: holds a NUL character (%00), which text values may not contain`, { 'Cache-Control': 'no-store' });
};

/** Probes and scrapes, every few seconds all day: their access lines are `debug`. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Assigns a request id (a sane inbound X-Request-Id is kept), echoes it, counts the request in
 * the metrics and writes its access line, both by route pattern (never the path: it carries
 * ids; never the query: it can carry codes and tokens). `onRequest` runs first on every request
 * (the composition root's per-request hook).
 *
 * The access line (`accessLog`, on by default) is one `info` line per request, `debug` for
 * QUIET_ROUTES: `msg: "request"`, method, route, status, ms (until the handler's answer, before
 * its body is on the wire) and the request id. Nothing a client sent is in it beyond the
 * method: no query, header, body or secret.
 */
export function requestContext(
  logger: Logger,
  opts: { onRequest?: () => void; metrics?: Pick<Metrics, 'httpRequests' | 'httpDuration'>; accessLog?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  const { onRequest, metrics } = opts;
  const info = (opts.accessLog ?? true) && logger.enabled('info');
  const debug = (opts.accessLog ?? true) && logger.enabled('debug');
  return async (c, next) => {
    onRequest?.();
    const inbound = headerOf(c, 'x-request-id');
    const requestId = inbound && REQUEST_ID.test(inbound) ? inbound : randomUUID();
    const log = logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    const started = info || metrics ? performance.now() : 0;
    await nextWithHeaders(c, next, [['X-Request-Id', requestId]]);
    if (!metrics && !info) return;
    const elapsed = performance.now() - started;
    // After the answer, routeIndex is the handler that gave it (hono's compose).
    const route = routePath(c) || 'unmatched';
    const method = c.req.method;
    const status = c.res.status;
    if (metrics) {
      metrics.httpRequests.inc({ route, method, status: String(status) });
      metrics.httpDuration.observe(elapsed / 1000, { route, method });
    }
    const quiet = QUIET_ROUTES.has(route);
    if (quiet ? !debug : !info) return;
    const fields = { method, route, status, ms: Math.round(elapsed * 10) / 10 };
    if (quiet) log.debug('request', fields);
    else log.info('request', fields);
  };
}

/** Largest request body any route reads (a 100-operation batch with large payloads fits). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request body as text; `undefined` when it is larger than `maxBytes`.
 * On the Node server this reads the IncomingMessage directly: building a WHATWG Request
 * and its stream just to read a small form costs more than the rest of an introspection.
 */
export async function readBodyText(c: Context, maxBytes = MAX_BODY_BYTES): Promise<string | undefined> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const declared = Number(headerOf(c, 'content-length') ?? NaN);
  if (declared > maxBytes) return undefined;
  if (!incoming || typeof incoming.on !== 'function') {
    const text = await c.req.text();
    return Buffer.byteLength(text) > maxBytes ? undefined : text;
  }
  return new Promise<string | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    incoming.once('end', () => resolve(tooLarge ? undefined : chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    incoming.once('error', reject);
  });
}
