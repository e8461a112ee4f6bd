import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import { DateTime, Strict, T } from '../../platform/http/schema';
import { IdempotencyKey } from '../binding/schemas';
import { ownEnvironment, type EdgeEnv, type EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import type { EngageServices } from '../services';
import { AutomationBounds } from './schemas';

/** spec 01 "Automation trigger (server)": the request and the response. */
export const TriggerRequest = Strict({
  profileId: T.String({ minLength: 1, maxLength: 255, description: 'A profile of the environment (its id).' }),
  context: T.Optional(
    T.Unsafe<Record<string, unknown>>({
      type: 'object',
      description: `Workflow input, not a profile update (rule 8): a JSON object of at most ${AutomationBounds.contextBytes} bytes as JSON and ${AutomationBounds.contextDepth} levels deep (413 context_too_large otherwise).`,
    }),
  ),
});
export const TriggerResponse = Strict({
  accepted: T.Boolean(),
  runId: T.String({ description: 'The run (a UUID).' }),
  enteredAt: DateTime(),
});

export function mountAutomationRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const route = edgeRoutes(engage.limits.maxRequestBytes);
  app.post(
    '/api/v1/environments/:environmentId/automations/:automationApiKey/trigger',
    guards.accessKey,
    ownEnvironment,
    route(
      {
        summary: 'Trigger an automation for a profile: a run enters it (202: accepted; its steps run later)',
        tags: ['server'],
        security: ['accessKey'],
        params: {
          environmentId: T.String({ description: 'The access key’s environment.' }),
          automationApiKey: T.String({ minLength: 1, maxLength: 255, description: 'The automation’s API entry key (`aut_…`, rotatable).' }),
        },
        headers: { 'Idempotency-Key': { schema: IdempotencyKey, required: false } },
        body: { schema: TriggerRequest },
        responses: { 202: { description: 'the run entered (or the first answer to the same Idempotency-Key)', schema: TriggerResponse } },
        errors: {
          400: 'invalid_request',
          401: 'unauthorized',
          403: 'automation_app_not_allowed',
          404: 'automation_not_found, profile_not_found',
          409: 'automation_not_active, profile_not_in_audience, reentry_refused, idempotency_key_reused',
          413: 'context_too_large, payload_too_large',
        },
      },
      async (c, input) => {
        const { response } = await engage.automations.trigger(c.get('accessKey'), input.params.automationApiKey, input.body, input.headers['Idempotency-Key']);
        noStore(c);
        return c.json(response, 202);
      },
    ),
  );
}
