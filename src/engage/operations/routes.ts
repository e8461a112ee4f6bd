import type { Hono } from 'hono';
import { headerOf, readJson, type AppEnv } from '../../platform/http/request';
import { badBody } from '../installations/routes';
import type { EngageServices } from '../services';

export function mountOperationRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.post('/v1/sdk/operations:batch', async (c) => {
    const p = engage.installations.authenticate(headerOf(c, 'authorization'));
    const { replayed, body } = await engage.operations.ingest(p, await readJson(c, badBody));
    // The answer is stored serialized; a replay returns the first answer byte for byte.
    return c.body(body, replayed ? 200 : 202, { 'Content-Type': 'application/json' });
  });
}
