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
    // Every request: the catalogue cache answers without an await unless the issuer is new to it.
    let resolved: ResolvedTenant | undefined;
    if (segment !== undefined) resolved = tenants.cachedByPath(segment) ?? (await tenants.resolveByPath(segment));
    else {
      const host = headerOf(c, 'host') ?? '';
      resolved = tenants.cachedByHost(host) ?? (await tenants.resolveByHost(host));
    }
    if (!resolved) throw unknown();
    c.set('tenant', resolved);
    await next();
  };
}
