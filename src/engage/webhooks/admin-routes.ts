/**
 * Webhook signing on the engagement administration API (issue 28): the live secrets' ids and
 * times (never a secret), and the rotation, which answers the new secret this once.
 */
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor } from '../admin/guards';
import { DEFAULT_OVERLAP_SECONDS, WebhookSigning, WebhookSigningRotate, WebhookSigningRotated } from './schemas';
import type { WebhookSigningService } from './secrets';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };

export function webhookSigningAdminRoutes(deps: { signing: WebhookSigningService }): EngageAdminRoutes {
  const { signing } = deps;
  return (admin, guard) => {
    admin.get('/environments/:environmentId/webhook-signing', guard(read), adminRoute(
      adminDoc('Read the secrets that sign an environment’s webhooks: ids and times, never a secret', {
        params: ENV,
        responses: { 200: { description: 'the live secrets, newest first', schema: WebhookSigning } },
      }),
      async (c) => c.json(await signing.show(c.get('environment').id)),
    ));
    admin.post('/environments/:environmentId/webhook-signing/rotate', guard(manage), adminRoute(
      adminDoc(`Rotate an environment’s webhook signing secret: a new secret, shown in this answer only; the previous ones keep signing beside it for overlapSeconds (default ${DEFAULT_OVERLAP_SECONDS})`, {
        params: ENV,
        body: { schema: WebhookSigningRotate, required: false, example: { overlapSeconds: 3600 } },
        responses: { 200: { description: 'the new secret (once) and the live secrets', schema: WebhookSigningRotated } },
        errors: { 400: 'invalid_request (overlapSeconds out of 0..604800)', 409: 'operation_conflict (rotated by another request at the same time)' },
      }),
      async (c, { body }) => c.json(await signing.rotate(c.get('environment').id, body ?? {}, adminActor(c))),
    ));
  };
}
