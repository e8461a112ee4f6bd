import type { Hono } from 'hono';
import { noContent } from '../../platform/http/request';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { RevocationParams } from './schemas';

export function mountPrivacyRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  app.put(
    '/v1/sdk/privacy/revocations/:operationId',
    guards.revocation,
    edgeRoutes(engage.limits.maxRequestBytes)(
      {
        summary: 'Revoke and erase the installation (privacy)',
        tags: ['mobile'],
        security: ['revocation'],
        params: RevocationParams.properties,
        responses: { 204: { description: 'erased (also for a repeat)' } },
        errors: { 400: 'invalid_request', 401: 'unauthorized' },
      },
      async (c, input) => {
        await engage.privacy.revoke(c.get('revocation'), input.params.operationId);
        return noContent(c);
      },
    ),
  );
}
