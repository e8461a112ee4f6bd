import { Hono } from 'hono';
import type { Config } from './platform/config';
import type { Clock } from './platform/clock';
import { notFoundError, renderError, requestContext, type AppEnv } from './platform/http/request';
import type { Logger } from './platform/logger';
import { readiness } from './platform/store/sqlite';
import { mountEngageRoutes } from './engage/routes';
import type { Services } from './services';
import { createIssuerApp, resolveTenant, type IssuerEnv } from './identity/issuer';
import { METADATA_CACHE, discoveryRepresentation, mountDiscoveryRoutes } from './identity/oauth/discovery-routes';
import { publicCors } from './identity/oauth/cors';
import { sendRepresentation } from './identity/oauth/etag';
import { mountOAuthRoutes } from './identity/oauth/routes';
import { mountBrowserRoutes } from './identity/oauth/authorize-routes';

export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  services: Services;
}

/** Which family answers an unmatched path (CONVENTIONS.md "Errors"). */
function familyOf(path: string): 'problem' | 'oauth' | 'api' {
  if (path.startsWith('/v1/') || path.startsWith('/api/')) return 'problem';
  if (path.includes('/oauth2/native') || path.includes('/identity/')) return 'api';
  if (path.includes('/oauth2/') || path.includes('/.well-known/')) return 'oauth';
  return 'api';
}

/** The composition root of the HTTP surface: every context's routes, one error renderer. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { services } = deps;
  const app = new Hono<AppEnv>();
  app.use(requestContext(deps.logger));
  app.use(async (_c, next) => {
    services.store.shareReadsThisTurn();
    await next();
  });
  app.onError((err, c) => renderError(err, c));
  app.notFound((c) => {
    const family = c.get('family') === 'oauth' ? 'oauth' : familyOf(c.req.path);
    c.set('family', family);
    return renderError(notFoundError(family), c);
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    const status = readiness(services.store.db);
    return c.json({ status }, status === 'ready' ? 200 : 503);
  });

  mountEngageRoutes(app, services.engage);

  // RFC 8414 §3.1: for an issuer with a path, the path goes after the well-known prefix.
  app.use('/.well-known/oauth-authorization-server/t/:tenantSegment', publicCors());
  app.get('/.well-known/oauth-authorization-server/t/:tenantSegment', resolveTenant(services.tenants) as never, (c) =>
    sendRepresentation(c, discoveryRepresentation((c as unknown as { get(k: 'tenant'): { issuer: string } }).get('tenant').issuer), METADATA_CACHE),
  );

  const issuer = createIssuerApp(services.tenants, (r: Hono<IssuerEnv>) => {
    mountDiscoveryRoutes(r, services.keys);
    mountOAuthRoutes(r, services);
    mountBrowserRoutes(r, services, deps.config);
  });
  app.route('/t/:tenantSegment', issuer as unknown as Hono<AppEnv>);
  // Host-only custom issuers are served at the root of their host.
  app.route('/', issuer as unknown as Hono<AppEnv>);
  return app;
}
