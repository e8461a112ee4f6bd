import type { Hono } from 'hono';
import { headerOf, joinedHeaderOf, type AppEnv } from '../../platform/http/request';
import { readEdgeJson } from '../shared/body';
import type { EngageServices } from '../services';

export function mountInstallationRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.post('/v1/sdk/installations', async (c) => {
    // The app key is checked first: an unauthenticated caller learns nothing about the body.
    const app = engage.installations.appFor(headerOf(c, 'x-service-app-key'));
    const { created, session } = await engage.installations.bootstrap(app, await readEdgeJson(c, engage.limits.maxRequestBytes));
    c.header('Cache-Control', 'no-store');
    return c.json(session, created ? 201 : 200);
  });

  app.get('/v1/sdk/installation', (c) => {
    const p = engage.installations.authenticate(joinedHeaderOf(c, 'authorization'));
    return c.json(engage.installations.state(p));
  });
}
