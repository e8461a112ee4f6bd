import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { BootstrapInstallationRequest, InstallationSession, InstallationState } from './schemas';

export function mountInstallationRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const route = edgeRoutes(engage.limits.maxRequestBytes);
  app.post(
    '/v1/sdk/installations',
    // The app key is checked first: an unauthenticated caller learns nothing about the body.
    guards.appKey,
    route(
      {
        summary: 'Bootstrap (or recover) an installation',
        tags: ['mobile'],
        security: ['appKey'],
        body: { schema: BootstrapInstallationRequest },
        responses: { 201: { description: 'created', schema: InstallationSession }, 200: { description: 'recovered', schema: InstallationSession } },
        errors: { 400: 'invalid_request', 401: 'unauthorized', 413: 'payload_too_large' },
      },
      async (c, input) => {
        const { created, session } = await engage.installations.bootstrap(c.get('app'), input.body);
        noStore(c);
        return c.json(session, created ? 201 : 200);
      },
    ),
  );

  app.get(
    '/v1/sdk/installation',
    guards.installation,
    described(
      {
        summary: 'The installation’s state',
        tags: ['mobile'],
        security: ['installation'],
        responses: { 200: { description: 'state', schema: InstallationState } },
        errors: { 401: 'unauthorized' },
      },
      async (c) => {
        const state = await engage.installations.state(c.get('installation'));
        // The installation's own state (its binding, its settings): no shared cache may keep it.
        noStore(c);
        return c.json(state);
      },
    ),
  );
}
