import type { Hono } from 'hono';
import { setFamily, type AppEnv } from '../platform/http/request';
import { mountBindingRoutes } from './binding/routes';
import { mountInstallationRoutes } from './installations/routes';
import { mountOperationRoutes } from './operations/routes';
import { mountPrivacyRoutes } from './privacy/routes';
import type { EngageServices } from './services';

/** Every mobile edge route of spec 01; failures render as application/problem+json. */
export function mountEngageRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.use('/v1/*', setFamily('problem'));
  app.use('/api/*', setFamily('problem'));
  mountInstallationRoutes(app, engage);
  mountBindingRoutes(app, engage);
  mountOperationRoutes(app, engage);
  mountPrivacyRoutes(app, engage);
}
