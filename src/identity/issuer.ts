import type { Context, MiddlewareHandler, Next } from 'hono';
import { headerOf, type RequestVars } from '../platform/http/request';
import type { ResolvedTenant, TenantService } from './tenants/service';

export type IssuerEnv = { Variables: RequestVars & { tenant: ResolvedTenant } };

/**
 * Resolves the tenant from the issuer the request came through: the `/t/<segment>` path under
 * the public URL, or the Host of a host-only custom issuer. An unknown or disabled issuer is
 * `unknown()`: each family says how it answers (spec 02: an empty 404 on protocol routes,
 * `unknown_tenant` on native and directory routes).
 */
export function resolveTenant(tenants: TenantService, unknown: () => Error): MiddlewareHandler<IssuerEnv> {
  const settle = (c: Context<IssuerEnv>, next: Next, resolved: ResolvedTenant | undefined) => {
    if (!resolved) throw unknown();
    c.set('tenant', resolved);
    return next();
  };
  // Not an async function: on a catalogue cache hit (every request but an issuer's first) this
  // layer hands back next()'s promise without a frame and a microtask turn of its own.
  return (c, next) => {
    const segment = c.req.param('tenantSegment' as never) as string | undefined;
    const host = segment === undefined ? (headerOf(c, 'host') ?? '') : undefined;
    const cached = segment !== undefined ? tenants.cachedByPath(segment) : tenants.cachedByHost(host!);
    if (cached) return settle(c, next, cached);
    return (segment !== undefined ? tenants.resolveByPath(segment) : tenants.resolveByHost(host!)).then((r) => settle(c, next, r));
  };
}
