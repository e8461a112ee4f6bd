/**
 * Provider failures at `warn` (issue 23 point 5): every attempt APNs or FCM did not accept, an
 * answer other than 200 (4xx, 5xx, the FCM token endpoint's included) or no answer at all (a
 * transport error, a timeout), is one line naming the delivery, the provider, the HTTP status
 * and the provider's reason. The line is built from the delivery id and the attempt's outcome
 * only: never the device token, the message or the credentials, and should a transport error's
 * text ever quote the token, it is masked.
 *
 * A decorator around the provider client, so the delivery worker's flow is untouched: what it
 * sees is the same outcome.
 */
import type { Logger } from '../../platform/logger';
import type { AttemptOutcome } from './outcome';

export type PushProvider = 'APNS' | 'FCM';

interface ProviderClient {
  send(credentials: never, delivery: { id: string; token: string }): Promise<AttemptOutcome>;
}

/** `apns 410 Unregistered`, `fcm 404 UNREGISTERED`, `fcm token endpoint 400 invalid_grant` (apns.ts, fcm.ts). */
const ANSWER = /^(?:apns|fcm)( token endpoint)? (\d{3})(?: (.+))?$/;

/** The fields of a failed attempt's line; undefined when the provider accepted it. */
export function failureFields(provider: PushProvider, deliveryId: string, token: string, outcome: AttemptOutcome): Record<string, unknown> | undefined {
  if (outcome.kind === 'sent') return undefined;
  const error = token ? outcome.error.split(token).join('[token]') : outcome.error;
  const m = ANSWER.exec(error);
  return {
    deliveryId,
    provider,
    // What happens next: retried later, failed for good, or failed with the token cleared.
    outcome: outcome.kind,
    ...(m ? { status: Number(m[2]), ...(m[3] ? { reason: m[3] } : {}), ...(m[1] ? { endpoint: 'oauth2 token' } : {}) } : { reason: error }),
    ...(outcome.kind === 'retry' && outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
  };
}

export function withFailureLog<T extends ProviderClient>(provider: PushProvider, client: T, logger: Logger): T {
  const send = client.send.bind(client) as (c: unknown, d: { id: string; token: string }) => Promise<AttemptOutcome>;
  const logged = async (c: unknown, d: { id: string; token: string }): Promise<AttemptOutcome> => {
    let outcome: AttemptOutcome;
    try {
      outcome = await send(c, d);
    } catch (e) {
      // The worker retries a thrown attempt (delivery.ts); it is a transport failure here.
      logger.warn('push delivery attempt failed', failureFields(provider, d.id, d.token, { kind: 'retry', error: `send: ${(e as Error).message}` }));
      throw e;
    }
    const fields = failureFields(provider, d.id, d.token, outcome);
    if (fields) logger.warn('push delivery attempt failed', fields);
    return outcome;
  };
  return { ...client, send: logged };
}
