import type { MiddlewareHandler } from 'hono';
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
  return async (c, next) => {
    const segment = c.req.param('tenantSegment' as never) as string | undefined;
    const resolved = segment !== undefined ? tenants.resolveByPath(segment) : tenants.resolveByHost(headerOf(c, 'host') ?? '');
    if (!resolved) throw unknown();
    c.set('tenant', resolved);
    await next();
  };
}
