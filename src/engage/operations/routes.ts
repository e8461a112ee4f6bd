import type { Hono } from 'hono';
import { joinedHeaderOf, type AppEnv } from '../../platform/http/request';
import { readEdgeJson } from '../shared/body';
import type { EngageServices } from '../services';

export function mountOperationRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.post('/v1/sdk/operations:batch', async (c) => {
    const p = engage.installations.authenticate(joinedHeaderOf(c, 'authorization'));
    const { replayed, body } = await engage.operations.ingest(p, await readEdgeJson(c, engage.limits.maxRequestBytes));
    // The answer is stored serialized; a replay returns the first answer byte for byte.
    return c.body(body, replayed ? 200 : 202, { 'Content-Type': 'application/json' });
  });
}
