/**
 * What every route group of the management API shares (routes-tenants.ts, routes-catalog.ts):
 * the dependencies the app hands them, the OpenAPI description of a route, the path's tenant
 * and the page envelope. Its own module so that the route groups import neither the app that
 * mounts them nor each other (src/layering.test.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { withSharedErrors } from '../../platform/http/admin-errors';
import type { RouteDoc } from '../../platform/http/openapi';
import { pageQuery } from '../../platform/http/pagination';
import { MAX_BODY_BYTES } from '../../platform/http/request';
import { apiInputRules, declaredRoutes } from '../../platform/http/route';
import type { TSchema } from '../../platform/http/schema';
import type { Config } from '../../platform/config';
import type { Services } from '../../services';
import type { TenantService } from '../tenants/service';
import { AdminErrors } from './errors';
import { uuidParam, type AdminEnv } from './guards';
import { TenantIdParam } from './schemas';

export interface AdminDeps {
  services: Services;
  config: Pick<Config, 'administrationApi'>;
  /** The operator's live directory permission (`services.directory.hasPermission`, contracts §1). */
  hasPermission: (tenantId: string, subject: string, key: string) => Promise<boolean>;
  /** ACTIVE federations for the overview; the federations context provides it (0 without one). */
  activeFederations?: () => Promise<number>;
}

/** Errors every management route may answer (spec 03 "Errors"), user transfer's too. */
export const MANAGEMENT_ERRORS: Record<number, string> = {
  401: 'invalid_token',
  403: 'insufficient_scope (WWW-Authenticate names the scope), access_denied',
  404: 'administration_disabled, unknown_tenant (issuer)',
};

/** A management route's OpenAPI description. */
export function adminDoc<const O extends Omit<RouteDoc, 'summary' | 'tags' | 'security'>>(summary: string, opts: O) {
  return { summary, tags: ['management'] as string[], security: ['bearerToken'] as RouteDoc['security'], ...opts, errors: withSharedErrors(MANAGEMENT_ERRORS, opts.errors) };
}

/**
 * The management API's route declarations (issue 22 point 4): the page query, the path values
 * and the body are checked by the route's documented schemas before the handler, every
 * violation named in one invalid_request; the body's read failures are spec 03's (AdminErrors.body).
 */
export const route = declaredRoutes<AdminEnv>(apiInputRules({ maxBytes: MAX_BODY_BYTES, body: AdminErrors.body, invalid: AdminErrors.invalid }));

export const json = (schema: TSchema, description: string) => ({ description, schema });
export const PAGED = { query: pageQuery };
export const TENANT = { tenantId: TenantIdParam };

/** The tenant of the path (400 for a malformed id, 404 unknown_tenant). */
export async function pathTenant(c: Context<AdminEnv>, deps: Pick<AdminDeps, 'services'>): ReturnType<TenantService['byId']> {
  return deps.services.tenants.byId(uuidParam(c, 'tenantId'));
}

type PathTenant = Awaited<ReturnType<TenantService['byId']>>;
const found = new WeakMap<Context, { tenant: PathTenant; ids: Record<string, string> }>();

/**
 * Before a declared route of `/tenants/:tenantId/...`: the path's tenant (400 `tenantId: must be
 * a uuid`, then 404 unknown_tenant), then the path's other uuid `ids` (`<name>: must be a uuid`),
 * so both come before anything about the body, as they always did. The handler reads them with
 * `inTenant.of(c)` (ids lower-cased).
 */
export function inTenant(deps: Pick<AdminDeps, 'services'>, ...ids: string[]): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const tenant = await pathTenant(c, deps);
    found.set(c, { tenant, ids: Object.fromEntries(ids.map((name) => [name, uuidParam(c, name)])) });
    await next();
  };
}
/** What `inTenant` found for this request. */
inTenant.of = (c: Context): { tenant: PathTenant; ids: Record<string, string> } => {
  const f = found.get(c);
  if (!f) throw new Error('inTenant must run before this route');
  return f;
};

/** The page envelope of contracts §1. */
export function envelope<T>(c: Context, q: { page: number; size: number }, r: { items: T[]; hasMore: boolean }) {
  return c.json({ items: r.items, page: q.page, size: q.size, hasMore: r.hasMore });
}
