import type { Hono } from 'hono';
import { headerOf, joinedHeaderOf, type AppEnv } from '../../platform/http/request';
import { readEdgeJson } from '../shared/body';
import type { EngageServices } from '../services';
import { EdgeErrors } from '../shared/errors';

export function mountBindingRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.post('/v1/sdk/installation/binding-code', async (c) => {
    const p = engage.installations.authenticate(joinedHeaderOf(c, 'authorization'));
    const { created, code } = await engage.binding.issueCode(p);
    c.header('Cache-Control', 'no-store');
    return c.json(code, created ? 201 : 200);
  });

  app.post('/v1/installation-binding-transitions', async (c) => {
    const authorization = joinedHeaderOf(c, 'authorization');
    // 401 before anything about the request is looked at.
    if (!engage.environments.authenticateAccessKey(bearerOf(authorization))) throw EdgeErrors.unauthorized();
    const body = await readEdgeJson(c, engage.limits.maxRequestBytes);
    const { created, transition } = await engage.binding.transition(authorization, headerOf(c, 'idempotency-key'), body);
    return c.json(transition, created ? 201 : 200);
  });
}

function bearerOf(h: string | undefined): string {
  return h?.replace(/^Bearer +/i, '').trim() ?? '';
}
