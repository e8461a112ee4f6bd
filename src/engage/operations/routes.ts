import type { Hono } from 'hono';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { OperationBatchEnvelope, OperationBatchRequest, OperationBatchResult } from './schemas';

export function mountOperationRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  app.post(
    '/v1/sdk/operations:batch',
    guards.installation,
    edgeRoutes(engage.limits.maxRequestBytes)(
      {
        summary: 'Submit a batch of operations',
        tags: ['mobile'],
        security: ['installation'],
        // The envelope makes a 400; each operation is then checked on its own (REJECTED, check.ts).
        body: { schema: OperationBatchRequest, check: OperationBatchEnvelope, bounds: 'per-item' },
        responses: {
          202: { description: 'processed; individual operations may be REJECTED', schema: OperationBatchResult },
          200: { description: 'the batch was completed before: its first answer', schema: OperationBatchResult },
        },
        errors: { 400: 'invalid_request', 401: 'unauthorized', 409: 'batch_conflict', 413: 'payload_too_large' },
      },
      async (c, input) => {
        const { replayed, body } = await engage.operations.ingest(c.get('installation'), input.body);
        // The answer is stored serialized; a replay returns the first answer byte for byte.
        return c.body(body, replayed ? 200 : 202, { 'Content-Type': 'application/json' });
      },
    ),
  );
}
