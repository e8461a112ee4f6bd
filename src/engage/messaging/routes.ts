import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import { T } from '../../platform/http/schema';
import { ownEnvironment, type EdgeEnv, type EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { SendRequest, SendResponse, TemplateKeyParam } from './schemas';


export function mountMessagingRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const route = edgeRoutes(engage.limits.maxRequestBytes);
  app.post(
    '/api/v1/environments/:environmentId/transactional/:templateKey/send',
    // 401 before anything about the request is looked at.
    guards.accessKey,
    ownEnvironment,
    route(
      {
        summary: 'Send a transactional push: admits one delivery per reachable installation (202: accepted, not yet delivered)',
        tags: ['server'],
        security: ['accessKey'],
        params: { environmentId: T.String({ description: 'The access key’s environment.' }), templateKey: TemplateKeyParam },
        body: { schema: SendRequest },
        responses: { 202: { description: 'admitted (or the established result of the same idempotencyKey); acceptance is not delivery', schema: SendResponse } },
        errors: {
          400: 'invalid_request, invalid_variables, recipient_type_not_allowed, message_too_large',
          401: 'unauthorized',
          404: 'template_not_found, recipient_not_found',
          409: 'template_not_active, idempotency_key_reused',
          413: 'payload_too_large',
          429: 'rate_limited (Retry-After)',
        },
      },
      async (c, input) => {
        const { response } = await engage.messaging.sends.send(c.get('accessKey'), input.params.templateKey, input.body);
        noStore(c);
        return c.json(response, 202);
      },
    ),
  );
}
