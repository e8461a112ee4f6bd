/**
 * What every route group of the management API shares (routes-tenants.ts, routes-catalog.ts):
 * the dependencies the app hands them, the OpenAPI description of a route, the path's tenant
 * and the page envelope. Its own module so that the route groups import neither the app that
 * mounts them nor each other (src/layering.test.ts).
 */
import type { Context } from 'hono';
import type { RouteDoc } from '../../platform/http/openapi';
import { pageQuery } from '../../platform/http/pagination';
import type { TSchema } from '../../platform/http/schema';
import type { Config } from '../../platform/config';
import type { Services } from '../../services';
import type { TenantService } from '../tenants/service';
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

/** Errors every management route may answer (spec 03 "Errors"). */
const COMMON: Record<number, string> = {
  401: 'invalid_token',
  403: 'insufficient_scope (WWW-Authenticate names the scope), access_denied',
  404: 'administration_disabled, unknown_tenant (issuer)',
};

/** A management route's OpenAPI description. */
export function adminDoc(summary: string, opts: Omit<RouteDoc, 'summary' | 'tags' | 'security'>): RouteDoc {
  const errors: Record<number, string> = { ...COMMON };
  for (const [k, v] of Object.entries(opts.errors ?? {})) errors[Number(k)] = errors[Number(k)] ? `${errors[Number(k)]}, ${v}` : v;
  return { summary, tags: ['management'], security: ['bearerToken'], ...opts, errors };
}

export const json = (schema: TSchema, description: string) => ({ description, schema });
export const PAGED = { query: pageQuery };
export const TENANT = { tenantId: TenantIdParam };

/** The tenant of the path (400 for a malformed id, 404 unknown_tenant). */
export async function pathTenant(c: Context<AdminEnv>, deps: Pick<AdminDeps, 'services'>): ReturnType<TenantService['byId']> {
  return deps.services.tenants.byId(uuidParam(c, 'tenantId'));
}

/** The page envelope of contracts §1. */
export function envelope<T>(c: Context, q: { page: number; size: number }, r: { items: T[]; hasMore: boolean }) {
  return c.json({ items: r.items, page: q.page, size: q.size, hasMore: r.hasMore });
}
