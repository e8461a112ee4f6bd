import type { Hono } from 'hono';
import type { AppEnv } from '../../platform/http/request';
import type { EngageServices } from '../services';
import { joinedHeaderOf, noContent } from '../../platform/http/request';

export function mountPrivacyRoutes(app: Hono<AppEnv>, engage: EngageServices): void {
  app.put('/v1/sdk/privacy/revocations/:operationId', async (c) => {
    await engage.privacy.revoke(joinedHeaderOf(c, 'authorization'), c.req.param('operationId'));
    return noContent(c);
  });
}
