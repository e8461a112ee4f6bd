import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { SyncRequest, SyncResponse } from './schemas';
import { syncResponseText } from './wire';

export function mountSyncRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  app.post(
    '/v1/sdk/sync',
    guards.syncInstallation,
    edgeRoutes(engage.limits.maxRequestBytes)(
      {
        summary: 'Synchronize remote state: flags, preferences, push settings (a full snapshot or a delta from the cursor)',
        tags: ['mobile'],
        security: ['installation'],
        body: { schema: SyncRequest },
        responses: { 200: { description: 'a full snapshot (`fullSnapshot: true`: replace everything held for these modules) or a delta', schema: SyncResponse } },
        errors: {
          400: 'invalid_request, invalid_cursor',
          401: 'unauthorized',
          413: 'payload_too_large',
        },
      },
      async (c, input) => {
        noStore(c);
        // c.json's answer, its text spliced from shared payloads' kept texts (wire.ts).
        return c.body(syncResponseText(await engage.sync.sync(c.get('installation'), input.body)), 200, { 'content-type': 'application/json' });
      },
    ),
  );
}
