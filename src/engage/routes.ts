import type { Hono } from 'hono';
import { createFamilyApp } from '../platform/http/family';
import { createEdgeGuards, type EdgeEnv } from './guards';
import { mountBindingRoutes } from './binding/routes';
import { mountInstallationRoutes } from './installations/routes';
import { mountOperationRoutes } from './operations/routes';
import { mountPrivacyRoutes } from './privacy/routes';
import { mountMessagingRoutes } from './messaging/routes';
import { mountSyncNoticeRoutes } from './sync-notices/routes';
import { mountSyncRoutes } from './sync/routes';
import { mountInboxRoutes } from './inbox/routes';
import { mountAutomationRoutes } from './automations/routes';
import type { EngageServices } from './services';

/** Every mobile edge and server messaging route of spec 01: the problem family's sub-app. */
export function createEdgeApp(engage: EngageServices): Hono<EdgeEnv> {
  const edge = createFamilyApp<EdgeEnv>('problem', { prefixes: ['/v1/*', '/api/*'] });
  const guards = createEdgeGuards(engage);
  mountInstallationRoutes(edge.app, engage, guards);
  mountBindingRoutes(edge.app, engage, guards);
  mountOperationRoutes(edge.app, engage, guards);
  mountSyncRoutes(edge.app, engage, guards);
  mountInboxRoutes(edge.app, engage, guards);
  mountPrivacyRoutes(edge.app, engage, guards);
  mountMessagingRoutes(edge.app, engage, guards);
  mountAutomationRoutes(edge.app, engage, guards);
  mountSyncNoticeRoutes(edge.app, engage, guards);
  return edge.close();
}
