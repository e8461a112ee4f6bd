import { Hono, type MiddlewareHandler } from 'hono';
import { ApiError, EmptyNotFound } from '../platform/http/errors';
import type { AppEnv, RequestVars } from '../platform/http/request';
import type { ResolvedTenant, TenantService } from './tenants/service';
import { headerOf } from '../platform/http/request';

export type IssuerEnv = { Variables: RequestVars & { tenant: ResolvedTenant } };

/** Routes that answer `{error: unknown_tenant}` rather than the protocol routes' empty 404. */
const API_PREFIXES = ['/oauth2/native', '/identity/'];

/**
 * Resolves the tenant from the issuer the request came through: the `/t/<segment>` path
 * under the public URL, or the Host of a host-only custom issuer. An unknown or disabled
 * issuer is 404 with an empty body on protocol routes, `unknown_tenant` elsewhere (spec 02).
 */
export function resolveTenant(tenants: TenantService): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    const segment = c.req.param('tenantSegment' as never) as string | undefined;
    const resolved = segment !== undefined ? tenants.resolveByPath(segment) : tenants.resolveByHost(headerOf(c, 'host') ?? '');
    const rest = segment !== undefined ? c.req.path.slice(c.req.path.indexOf('/', 3)) : c.req.path;
    const apiRoute = API_PREFIXES.some((p) => rest.startsWith(p));
    c.set('family', apiRoute ? 'api' : 'oauth');
    if (!resolved) throw apiRoute ? new ApiError(404, 'unknown_tenant') : new EmptyNotFound();
    c.set('tenant', resolved);
    await next();
  };
}

/**
 * The issuer-scoped surface: every route relative to `{issuer}`. Contexts register their
 * routes through `mount` with paths such as `/oauth2/token`.
 */
export function createIssuerApp(tenants: TenantService, mount: (app: Hono<IssuerEnv>) => void): Hono<IssuerEnv> {
  const app = new Hono<IssuerEnv>();
  for (const prefix of ['/.well-known/*', '/oauth2/*', '/identity/*']) app.use(prefix, resolveTenant(tenants));
  mount(app);
  return app;
}

export type { AppEnv };
