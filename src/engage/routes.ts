import type { Hono } from 'hono';
import { createFamilyApp } from '../platform/http/family';
import type { AppEnv } from '../platform/http/request';
import { mountBindingRoutes } from './binding/routes';
import { mountInstallationRoutes } from './installations/routes';
import { mountOperationRoutes } from './operations/routes';
import { mountPrivacyRoutes } from './privacy/routes';
import type { EngageServices } from './services';

/** Every mobile edge and server messaging route of spec 01: the problem family's sub-app. */
export function createEdgeApp(engage: EngageServices): Hono<AppEnv> {
  const edge = createFamilyApp<AppEnv>('problem');
  mountInstallationRoutes(edge.app, engage);
  mountBindingRoutes(edge.app, engage);
  mountOperationRoutes(edge.app, engage);
  mountPrivacyRoutes(edge.app, engage);
  return edge.closePrefixes('/v1/*', '/api/*');
}
