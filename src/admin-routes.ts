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
import type { Hono, MiddlewareHandler } from 'hono';
import type { Config } from './platform/config';
import { ENGAGE_ADMIN_API } from './platform/operator-apis';
import { createEngageAdminApp, type EngageAdminRoutes } from './engage/admin/app';
import { environmentAdminRoutes } from './engage/environments/admin-routes';
import { syncSettingsAdminRoutes } from './engage/definitions/admin-routes';
import { accessKeyAdminRoutes, appAdminRoutes } from './engage/environments/app-admin-routes';
import { messagingAdminRoutes } from './engage/messaging/admin-routes';
import { inspectionAdminRoutes } from './engage/inspection/admin-routes';
import { privacyAdminRoutes } from './engage/privacy/admin-routes';
import { auditAdminRoutes } from './engage/admin/audit-routes';
import { flagAdminRoutes } from './engage/flags/admin-routes';
import { inAppAdminRoutes } from './engage/in-app/admin-routes';
import { automationAdminRoutes } from './engage/automations/admin-routes';
import { listAdminRoutes } from './engage/preferences/admin-routes';
import { pushChannelAdminRoutes } from './engage/push-channels/admin-routes';
import { webhookSigningAdminRoutes } from './engage/webhooks/admin-routes';
import type { EngageAdminGuardDeps } from './engage/admin/guards';
import { AdminErrors } from './identity/admin/errors';
import type { IssuerEnv } from './identity/issuer';
import { createTokenGuards } from './identity/token-guards';

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

/**
 * The engagement administration API's route groups (issue 24), each declared in its context
 * (`engage/<context>/admin-routes.ts`). A new engagement context's administration routes are
 * one more entry.
 */
export function engageAdminRouteGroups(services: Services): EngageAdminRoutes[] {
  const { engage } = services;
  return [
    // Environments, apps, provider credentials, access keys (engage/environments).
    environmentAdminRoutes({
      environments: engage.environments,
      overview: engage.environmentOverview,
      // Over HTTP an identityTenantId must name a tenant (400 otherwise): the identity half, known here only.
      // The control tenant is never one: its subjects are the operators (an outside review, issue 24).
      tenantExists: async (id) => {
        const t = await services.tenants.byId(id).catch(() => undefined);
        return t !== undefined && !t.isControl;
      },
    }),
    // Apps and their provider credentials, access keys (engage/environments, engage/messaging/credentials.ts).
    appAdminRoutes({ environments: engage.environments, credentials: engage.messaging.credentials }),
    accessKeyAdminRoutes({ environments: engage.environments }),
    // Templates, previews, test groups and test sends (engage/messaging).
    messagingAdminRoutes({ templates: engage.messaging.templates, testGroups: engage.messaging.testGroups, sends: engage.messaging.sends }),
    // Subscription lists (engage/preferences) and push channels and categories per app (engage/push-channels).
    listAdminRoutes({ lists: engage.lists }),
    pushChannelAdminRoutes({ pushChannels: engage.pushChannels }),
    // Feature flags: versions, rollback, scheduled changes, exposures (engage/flags).
    flagAdminRoutes({ flags: engage.flags, schedules: engage.flagSchedules }),
    // In-app messages: edits, publishing, results (engage/in-app, issue 27).
    inAppAdminRoutes({ inApp: engage.inApp }),
    // Automations: definitions, versions, the API entry's key, runs and their timelines (engage/automations, issue 28).
    automationAdminRoutes({ automations: engage.automations }),
    // The secrets that sign an environment's outbound webhooks, their rotation (engage/webhooks, issue 28).
    webhookSigningAdminRoutes({ signing: engage.webhooks.signing }),
    // An environment's sync settings (engage/definitions, issue 26).
    syncSettingsAdminRoutes({ settings: engage.syncSettings }),
    // Inspection of installations, profiles, sends and deliveries (engage/inspection).
    inspectionAdminRoutes({ inspection: engage.inspection, messaging: engage.messaging.inspection }),
    // Erasure of installations and profiles, privacy requests (engage/privacy).
    privacyAdminRoutes({ privacy: engage.privacy }),
    // The audit trail of an environment (platform/audit, as GET /identity/admin/audit-events).
    auditAdminRoutes({ auditEvents: (f) => services.admin.auditEvents(f) }),
  ];
}

/**
 * Mounts the engagement administration API at `{control_issuer}/engage/admin` on the issuer api
 * app: served under the control issuer only, while configuration allows administration (the
 * management API's gate), to live control-issuer tokens for audience `engage-admin-api` whose
 * subjects hold the route's permission in the control tenant's directory.
 */
export function mountEngageAdminApi(api: Hono<IssuerEnv>, services: Services, config: Config): void {
  const gate: MiddlewareHandler<IssuerEnv> = async (c, next) => {
    if (!config.administrationApi) throw AdminErrors.disabled();
    if (!c.get('tenant').tenant.isControl) throw AdminErrors.notControl();
    await next();
  };
  const tokens = createTokenGuards({ liveAccessToken: (t, token) => services.oauth.liveAccessToken(t, token), hasPermission: () => false });
  const deps: EngageAdminGuardDeps = {
    authenticate: tokens.bearerToken({ audience: () => ENGAGE_ADMIN_API.audience, scopes: [] }) as MiddlewareHandler,
    hasPermission: (p, key) => services.directory.hasPermission(p.tenantId, p.subject, key),
    findEnvironment: (ref) => services.engage.environments.find(ref),
    listEnvironments: () => services.engage.environments.list(),
  };
  api.route(ENGAGE_ADMIN_API.root, createEngageAdminApp({ ...deps, gate: gate as MiddlewareHandler }, engageAdminRouteGroups(services)) as never);
}
