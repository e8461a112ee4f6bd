import { Hono, type Env } from 'hono';
import type { Config } from './platform/config';
import type { Clock } from './platform/clock';
import { notFoundError } from './platform/http/errors';
import { familyOnError } from './platform/http/family';
import { refuseNulInUrl, requestContext, type AppEnv } from './platform/http/request';
import { responseCheck } from './platform/http/response-check';
import type { Logger } from './platform/logger';
import { ISSUER_PREFIX } from './platform/http/openapi';
import { createEdgeApp } from './engage/routes';
import type { Services } from './services';
import { createIssuerApiApp } from './identity/issuer-api';
import { mountNativeRoutes } from './identity/native/routes';
import { mountDirectoryRoutes } from './identity/directory/routes';
import { mountAdminApi } from './identity/admin/app';
import { adminRouteGroups, mountEngageAdminApi } from './admin-routes';
import { createOAuthApp, createPathMetadataApp } from './identity/oauth/routes';
import { createPlatformRoutes } from './platform/http/platform-routes';
import { metricsPolicy } from './platform/metrics-access';
import { createConsoleApp } from './console/serve';
import { CONSOLE_CLIENT_ID } from './identity/operators/control';

export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  services: Services;
}

/**
 * The composition root of the HTTP surface: request context, then one sub-app per error family
 * (CONVENTIONS.md "Errors"). Issuer-scoped apps are mounted under `/t/{segment}` and again at the
 * root, where host-only custom issuers are served. Order matters where prefixes nest: the api
 * family owns `{issuer}/oauth2/native/*` and is mounted before the oauth family's `/oauth2/*`.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { services, config } = deps;
  const app = new Hono<AppEnv>();
  // The in-process test suite's check of every answer against the document (off when served).
  const checked = responseCheck();
  if (checked) app.use(checked);
  app.use(requestContext(deps.logger, { onRequest: () => services.store.shareReadsThisTurn(), metrics: services.metrics, accessLog: config.accessLog }));
  app.use(refuseNulInUrl);
  // Each family names its renderer for the paths it owns; elsewhere the api family's form.
  app.onError(familyOnError);
  app.notFound(() => {
    throw notFoundError('api');
  });

  const mount = <E extends Env>(sub: Hono<E>, issuerScoped: boolean) => {
    if (issuerScoped) app.route(ISSUER_PREFIX, sub);
    app.route('/', sub);
  };
  mount(createEdgeApp(services.engage), false);
  mount(createPathMetadataApp(services.tenants, services.clients), false);
  // The management API (spec 03) under the control issuer; each context's route groups are registered in src/admin-routes.ts.
  const adminExtensions = adminRouteGroups(services);
  const adminDeps = {
    services,
    config,
    hasPermission: (t: string, s: string, k: string) => services.directory.hasPermission(t, s, k),
    activeFederations: () => services.federations.countActive(),
  };
  mount(
    createIssuerApiApp(services.tenants, (api) => {
      mountNativeRoutes(api, services.native, config);
      mountDirectoryRoutes(api, { directory: services.directory, liveAccessToken: (t, token) => services.oauth.liveAccessToken(t, token) });
      mountAdminApi(api, adminDeps, adminExtensions);
      // The engagement administration API (issue 24) beside it, its groups registered in src/admin-routes.ts too.
      mountEngageAdminApi(api, services, config);
    }),
    true,
  );
  mount(createOAuthApp(services, config), true);
  // The web console (issue 25): a client of the control issuer and the two administration APIs.
  if (config.console) {
    const controlIssuer = async () => {
      const control = await services.tenants.control();
      return control && (control.customIssuer ?? services.tenants.managedIssuerOf(control));
    };
    mount(createConsoleApp({ base: config.consolePath, controlIssuer, clientId: CONSOLE_CLIENT_ID }), false);
  }
  const metricsAccess = metricsPolicy(config).main;
  mount(createPlatformRoutes({ readiness: () => services.readiness(), metrics: services.metrics.registry, metricsAccess, document: () => app, publicUrl: config.publicUrl }), false);
  return app;
}
