import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { BindingCode, BindingTransition, BindingTransitionRequest, IdempotencyKey } from './schemas';

export function mountBindingRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const route = edgeRoutes(engage.limits.maxRequestBytes);
  app.post(
    '/v1/sdk/installation/binding-code',
    guards.installation,
    described(
      {
        summary: 'The pending binding code, or a new one reserving the next generation',
        tags: ['mobile'],
        security: ['installation'],
        responses: { 201: { description: 'new code', schema: BindingCode }, 200: { description: 'the pending code', schema: BindingCode } },
        errors: { 401: 'unauthorized' },
      },
      async (c) => {
        const { created, code } = await engage.binding.issueCode(c.get('installation'));
        noStore(c);
        return c.json(code, created ? 201 : 200);
      },
    ),
  );

  app.post(
    '/v1/installation-binding-transitions',
    // 401 before anything about the request is looked at.
    guards.accessKey,
    route(
      {
        summary: 'Commit a binding transition (server to server)',
        tags: ['server'],
        security: ['accessKey'],
        headers: { 'Idempotency-Key': { schema: IdempotencyKey, required: true } },
        body: { schema: BindingTransitionRequest },
        responses: { 201: { description: 'committed', schema: BindingTransition }, 200: { description: 'idempotent replay', schema: BindingTransition } },
        errors: {
          400: 'invalid_request',
          401: 'unauthorized',
          409: 'binding_code_expired, binding_code_consumed, binding_code_invalid, idempotency_key_reused',
          413: 'payload_too_large',
        },
      },
      async (c, input) => {
        const { created, transition } = await engage.binding.transition(c.get('accessKey'), input.headers['Idempotency-Key']!, input.body);
        return c.json(transition, created ? 201 : 200);
      },
    ),
  );
}
