/**
 * The one place the management API's route groups are registered (issue 22 point 4). Each
 * context declares its management routes in its own folder (`<context>/admin-routes.ts`, or
 * the identity administration's own groups in identity/admin/) and is listed here; the
 * management app (identity/admin/app.ts) mounts them behind its gate and hands each the guard,
 * so every group carries the same scope and live-permission checks. A new context's
 * management routes are one more entry.
 */
import { ADMIN_SCOPES, type AdminExtension } from './identity/admin/app';
import { actorOf } from './identity/audit';
import { mountFederationRoutes } from './identity/federations/admin-routes';
import { mountTransferRoutes } from './identity/transfer/admin-routes';
import type { Services } from './services';

export function adminRouteGroups(services: Services): AdminExtension[] {
  return [
    // User imports and exports (identity/transfer).
    (admin, guard) => mountTransferRoutes(admin, { transfer: services.transfer, guard, tenantId: async (id) => (await services.tenants.byId(id)).id }),
    // Federations between tenants (identity/federations).
    (admin, guard) =>
      mountFederationRoutes(admin, {
        federations: services.federations,
        read: [guard(ADMIN_SCOPES.read)],
        manage: [guard(ADMIN_SCOPES.manage)],
        actor: (c) => actorOf(c.get('principal')),
      }),
  ];
}
