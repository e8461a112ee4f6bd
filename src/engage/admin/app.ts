import { Hono, type MiddlewareHandler } from 'hono';
import { createEngageAdminGuard, type EngageAdminEnv, type EngageAdminGuardDeps } from './guards';
import type { EngageAdminRoutes } from './routing';

export { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
export type { EngageAdminRoutes } from './routing';

/**
 * The engagement administration API (issue 24) at `{control_issuer}/engage/admin`, in every
 * convention of spec 03's management API. `gate` (the app's: served only under the control
 * issuer and while configuration allows administration) and the guard's `authenticate` come
 * from the composition root, which knows the identity half; each route group adds the guard of
 * its scope to each route. Every answer is `Cache-Control: no-store`.
 */
export function createEngageAdminApp(
  deps: EngageAdminGuardDeps & { gate: MiddlewareHandler },
  groups: EngageAdminRoutes[],
): Hono<EngageAdminEnv> {
  const admin = new Hono<EngageAdminEnv>();
  admin.use('*', async (c, next) => {
    await deps.gate(c, async () => {
      await next();
    });
    c.header('Cache-Control', 'no-store');
  });
  const guard = createEngageAdminGuard(deps);
  for (const group of groups) group(admin, guard);
  return admin;
}
