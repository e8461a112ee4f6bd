import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { headerOf, withHeaders } from '../../platform/http/request';
import type { ClientService } from '../clients/service';
import type { IssuerEnv } from '../issuer';
import { formRead } from './form';
import { parseBasic } from './http-auth';
import { bearerOf } from '../../platform/http/guards';
import { KEY_MISS, type TokenIssuer } from './tokens';

/**
 * CORS (Fetch standard) for browser applications: single-page apps are public clients that
 * call the token, revocation and userinfo endpoints from their own origin. No credentials mode
 * (no cookies are involved: clients send client_id or an Authorization header they set), so
 * Access-Control-Allow-Credentials is never sent. Routes without a middleware of this file get
 * no CORS headers at all (introspection, revoke-application-grants and the authorization pages
 * are not for browsers' scripts).
 */

/** Seconds a browser may cache a preflight answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = '600';
const REQUEST_HEADERS = 'Authorization, Content-Type';

/**
 * Discovery and JWKS: public documents any page may read (`*`), their ETag exposed for
 * conditional requests. A preflight (a script sending If-None-Match itself) is answered too.
 */
export function publicCors(): MiddlewareHandler {
  const headers = withHeaders({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'ETag' });
  return async (c, next) => {
    if (c.req.method !== 'OPTIONS') return headers(c, next);
    return c.body(null, 204, {
      Allow: 'GET, OPTIONS',
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': 'If-None-Match',
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
    });
  };
}

/**
 * Which client a request is about, for CORS only: nothing is authenticated here. A Promise
 * only when a key must come from the database.
 */
type Identify = (c: Context<IssuerEnv>) => string | undefined | Promise<string | undefined>;

/**
 * Token and revocation endpoints: the client the request names, by HTTP Basic or by client_id
 * in the form (as read by the handler; a form that failed to parse names none).
 */
export const namedClient: Identify = (c) => {
  const basic = parseBasic(headerOf(c, 'authorization'));
  if (basic && basic !== 'malformed') return basic.id;
  return formRead(c)?.get('client_id') ?? undefined;
};

/** Userinfo: the client the (verified) access token was issued to, from the header or the form. */
export function tokenClient(tokens: TokenIssuer): Identify {
  return (c) => {
    const token = bearerOf(c) ?? formRead(c)?.get('access_token') ?? undefined;
    if (!token) return undefined;
    const claims = tokens.verifyAccessToken(c.get('tenant'), token);
    if (claims !== KEY_MISS) return claims?.client_id;
    return tokens.verifyAccessTokenLoadingKey(c.get('tenant'), token).then((cl) => cl?.client_id);
  };
}

/**
 * CORS for an endpoint a browser client calls with its own origin:
 * - the preflight (the client is not known yet) is allowed for any origin that an ACTIVE client
 *   of the tenant allows (ClientService.originsOfTenant);
 * - the answer itself, errors included so the page can read them, carries
 *   Access-Control-Allow-Origin only when the origin is allowed for the client the request is
 *   about (ClientService.allowsOrigin; with no such client, the preflight's rule);
 * - every answer carries `Vary: Origin`, and `headers` (the route's own, set here to spare a layer).
 */
export function clientCors(clients: ClientService, identify: Identify, methods: 'POST' | 'GET, POST', headers: Readonly<Record<string, string>> = {}): MiddlewareHandler<IssuerEnv> {
  const always = [...Object.entries(headers), ['Vary', 'Origin']] as const;
  return async (c, next) => {
    const origin = headerOf(c, 'origin');
    const tenantId = c.get('tenant').tenant.id;
    if (c.req.method === 'OPTIONS') {
      const preflight: Record<string, string> = { ...headers, Allow: `${methods}, OPTIONS`, Vary: 'Origin' };
      if (origin !== undefined && (await clients.originsOfTenant(tenantId)).has(origin)) {
        preflight['Access-Control-Allow-Origin'] = origin;
        preflight['Access-Control-Allow-Methods'] = methods;
        preflight['Access-Control-Allow-Headers'] = REQUEST_HEADERS;
        preflight['Access-Control-Max-Age'] = PREFLIGHT_MAX_AGE;
      }
      return c.body(null, 204, preflight);
    }
    // Straight onto Node's response (as withHeaders does) with no extra async layer: this runs
    // on every userinfo request.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing && typeof outgoing.setHeader === 'function') {
      for (const [k, v] of always) outgoing.setHeader(k, v);
      await next();
    } else {
      await next();
      for (const [k, v] of always) c.res.headers.set(k, v);
    }
    // Server-to-server calls send no Origin and pay nothing more.
    if (origin !== undefined && (await clients.allowsOrigin(tenantId, await identify(c), origin))) {
      c.res.headers.set('Access-Control-Allow-Origin', origin);
      c.res.headers.set('Access-Control-Expose-Headers', 'WWW-Authenticate');
    }
  };
}
