/**
 * Authentication as route guards (CONVENTIONS.md "Layers"): a guard reads the credential,
 * asks a service who it belongs to, and hands the handler a principal in a context variable.
 * Services receive principals, never headers.
 */
import type { Context, Env, MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { headerOf } from './request';

/**
 * The request's one Authorization header. A request that carries the header more than once is
 * ambiguous (RFC 9110 §5.3 allows repeating only list-valued fields, and Authorization is not
 * one): Node keeps the first line and drops the others, so the raw header lines are counted.
 */
export function authorizationOf(c: Context): string | undefined | 'ambiguous' {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const raw = incoming?.rawHeaders;
  if (raw) {
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') seen++;
    if (seen > 1) return 'ambiguous';
  }
  return headerOf(c, 'authorization');
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The one bearer parser (RFC 6750 §2.1 `Bearer <token68>`): the token, or undefined when the
 * header is absent, malformed, or sent more than once.
 */
export function bearerOf(c: Context): string | undefined {
  const h = authorizationOf(c);
  if (h === undefined || h === 'ambiguous') return undefined;
  const m = BEARER.exec(h);
  return m ? m[1] : undefined;
}

/**
 * A guard: `resolve` turns the request's credential into a principal or throws the family's
 * 401; the principal is set as `c.var[key]` for the handler.
 */
export function guard<E extends Env, K extends string, P>(key: K, resolve: (c: Context<E>) => P | Promise<P>): MiddlewareHandler<E> {
  const check = principalCheck<E, K, P>(key, resolve);
  // Not an async function: a guard that resolves synchronously hands back next()'s promise.
  return (c, next) => {
    const done = check(c);
    return done instanceof Promise ? done.then(next) : next();
  };
}

/** The check of a guard without its middleware layer: sets `c.var[key]`, synchronously when it can. */
export function principalCheck<E extends Env, K extends string, P>(key: K, resolve: (c: Context<E>) => P | Promise<P>): (c: Context<E>) => void | Promise<void> {
  const set = (c: Context<E>, principal: P) => void (c as unknown as Context<{ Variables: Record<K, P> }>).set(key, principal);
  return (c) => {
    const principal = resolve(c);
    if (principal instanceof Promise) return principal.then((p) => set(c, p));
    set(c, principal);
  };
}

/**
 * A route's handler behind its guard, as one function: for the hottest routes (introspection),
 * where a middleware layer of its own costs a dispatch and a promise per request.
 */
export function behind<C extends Context, R>(check: (c: C) => void | Promise<void>, handler: (c: C) => R | Promise<R>): (c: C) => R | Promise<R> {
  return (c) => {
    const done = check(c);
    return done instanceof Promise ? done.then(() => handler(c)) : handler(c);
  };
}
