import { Hono, type MiddlewareHandler } from 'hono';
import type { IssuerEnv } from '../issuer';
import { AdminErrors } from './errors';
import { createAdminGuard, type AdminEnv, type AdminGuard } from './guards';
import { mountCatalogRoutes } from './routes-catalog';
import { mountDirectoryAdminRoutes } from './routes-directory';
import { mountTenantRoutes } from './routes-tenants';
import type { AdminDeps } from './routing';
import { ADMIN_ROOT } from './schemas';

export { ADMIN_AUDIENCE, ADMIN_ROOT, ADMIN_SCOPES } from './schemas';
export { createAdminGuard, type AdminEnv, type AdminGuard } from './guards';
export type { AdminDeps } from './routing';

/**
 * Route groups other contexts add to the management API (federations, user imports and
 * exports): called with the admin app (paths relative to `{control_issuer}/identity/admin`)
 * and the guard, so their routes carry the same scope and permission checks.
 */
export type AdminExtension = (admin: Hono<AdminEnv>, guard: AdminGuard) => void;

/**
 * The management API (spec 03) at `{control_issuer}/identity/admin`: served only under the
 * control tenant's issuer (any other issuer: 404 not_found), and not at all when configuration
 * turns it off (404 administration_disabled). Every answer is `Cache-Control: no-store`.
 */
export function createAdminApp(deps: AdminDeps, extensions: AdminExtension[] = []): Hono<AdminEnv> {
  const { services } = deps;
  const admin = new Hono<AdminEnv>();
  const gate: MiddlewareHandler<AdminEnv> = async (c, next) => {
    if (!deps.config.administrationApi) throw AdminErrors.disabled();
    if (!c.get('tenant').tenant.isControl) throw AdminErrors.notControl();
    await next();
    c.header('Cache-Control', 'no-store');
  };
  admin.use('*', gate);
  const guard = createAdminGuard({ liveAccessToken: (t, token) => services.oauth.liveAccessToken(t, token), hasPermission: deps.hasPermission });
  mountTenantRoutes(admin, guard, deps);
  mountCatalogRoutes(admin, guard, services);
  mountDirectoryAdminRoutes(admin, guard, services);
  for (const extend of extensions) extend(admin, guard);
  return admin;
}

/** Mounts the management API on the issuer api family app (src/identity/issuer-api.ts). */
export function mountAdminApi(api: Hono<IssuerEnv>, deps: AdminDeps, extensions: AdminExtension[] = []): void {
  api.route(ADMIN_ROOT, createAdminApp(deps, extensions));
}
