import type { Hono } from 'hono';
import type { Config } from '../../platform/config';
import { EmptyNotFound } from '../../platform/http/errors';
import { createFamilyApp } from '../../platform/http/family';
import { withHeaders } from '../../platform/http/request';
import type { Services } from '../../services';
import { resolveTenant, type IssuerEnv } from '../issuer';
import type { TenantService } from '../tenants/service';
import { mountBrowserRoutes } from './authorize-routes';
import { mountAccountRoutes } from '../account/routes';
import { clientCors, namedClient, tokenClient } from './cors';
import { mountDeviceRoutes } from './device-routes';
import { mountDiscoveryRoutes, mountPathMetadataRoute } from './discovery-routes';
import { mountIntrospectRoute } from './introspect-route';
import { mountLogoutRoute } from './logout-route';
import { mountRevokeGrantsRoute } from './revoke-grants-route';
import { mountRevokeRoute } from './revoke-route';
import { mountTokenRoute } from './token-route';
import { mountUserinfoRoute } from './userinfo-route';

/** RFC 6749 §5.1: token responses (and, here, every answer of these endpoints) are never cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
const noStore = withHeaders(NO_STORE);

// The account page (issue 10) is a browser page of the issuer like the sign-in pages.
const OAUTH_PREFIXES = ['/.well-known/*', '/oauth2/*', '/account', '/account/*'] as const;
const unknownIssuer = () => new EmptyNotFound();

/**
 * The OAuth family under an issuer: discovery, JWKS, the authorization endpoint and its pages,
 * token, userinfo, introspection and revocation (spec 02). An unknown issuer is an empty 404.
 */
export function createOAuthApp(services: Services, config: Pick<Config, 'trustedProxies'>): Hono<IssuerEnv> {
  const oauth = createFamilyApp<IssuerEnv>('oauth', { prefixes: OAUTH_PREFIXES });
  const app = oauth.app;
  const resolve = resolveTenant(services.tenants, unknownIssuer);
  for (const p of OAUTH_PREFIXES) app.use(p, resolve);
  for (const p of ['/oauth2/introspect', '/oauth2/revoke-application-grants']) app.use(p, noStore);
  // Browser clients (CORS, cors.ts): these three only; their CORS layer sets no-store too.
  app.use('/oauth2/token', clientCors(services.clients, namedClient, 'POST', NO_STORE));
  app.use('/oauth2/revoke', clientCors(services.clients, namedClient, 'POST', NO_STORE));
  app.use('/oauth2/userinfo', clientCors(services.clients, tokenClient(services.oauth.tokens), 'GET, POST', NO_STORE));
  mountDiscoveryRoutes(app, services.keys, services.clients);
  mountTokenRoute(app, services);
  mountUserinfoRoute(app, services);
  mountIntrospectRoute(app, services);
  mountRevokeRoute(app, services);
  mountRevokeGrantsRoute(app, services);
  mountBrowserRoutes(app, services, config);
  mountLogoutRoute(app, services);
  mountDeviceRoutes(app, services, config);
  mountAccountRoutes(app, services, config);
  return oauth.close();
}

/** RFC 8414 §3.1: for an issuer with a path, the metadata path ends with the issuer's path. */
export function createPathMetadataApp(tenants: TenantService, clients: Services['clients']): Hono<IssuerEnv> {
  const meta = createFamilyApp<IssuerEnv>('oauth', { prefixes: ['/.well-known/oauth-authorization-server/t/*'] });
  mountPathMetadataRoute(meta.app, resolveTenant(tenants, unknownIssuer), clients);
  return meta.close();
}
