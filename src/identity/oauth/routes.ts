import type { Hono } from 'hono';
import { withHeaders } from '../../platform/http/request';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { clientCors, namedClient, tokenClient } from './cors';
import { mountIntrospectRoute } from './introspect-route';
import { mountRevokeGrantsRoute } from './revoke-grants-route';
import { mountRevokeRoute } from './revoke-route';
import { mountTokenRoute } from './token-route';
import { mountUserinfoRoute } from './userinfo-route';

/** RFC 6749 §5.1: token responses (and, here, every answer of these endpoints) are never cached. */
const noStore = withHeaders({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });

/** The protocol endpoints of spec 02 other than authorize, discovery and JWKS. */
export function mountOAuthRoutes(app: Hono<IssuerEnv>, services: Services): void {
  for (const p of ['/oauth2/token', '/oauth2/userinfo', '/oauth2/introspect', '/oauth2/revoke', '/oauth2/revoke-application-grants']) app.use(p, noStore);
  // Browser clients (CORS, cors.ts): these three only.
  app.use('/oauth2/token', clientCors(services.clients, namedClient, 'POST'));
  app.use('/oauth2/revoke', clientCors(services.clients, namedClient, 'POST'));
  app.use('/oauth2/userinfo', clientCors(services.clients, tokenClient(services.oauth.tokens), 'GET, POST'));
  mountTokenRoute(app, services);
  mountUserinfoRoute(app, services);
  mountIntrospectRoute(app, services);
  mountRevokeRoute(app, services);
  mountRevokeGrantsRoute(app, services);
}
