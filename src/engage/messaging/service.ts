/**
 * POST /api/v1/environments/{environmentId}/transactional/{templateKey}/send (spec 01
 * "Transactional send", behaviour rule 7): authorization, template state, variables,
 * recipient, app scope, rate limit and idempotency, then the deliveries admitted in the same
 * transaction as the send; the 202 means they are committed (acceptance is not delivery).
 */
import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner, TxScope } from '../../platform/store/store';
import type { AccessKeyPrincipal } from '../environments/service';
import { EdgeErrors } from '../shared/errors';
import { apnsPayload } from './apns';
import { MessagingErrors } from './errors';
import type { DeliveryMessage } from './message';
import { notReadyReason } from './readiness';
import { contentHash, render, resolveVariables, type Rendered, type TemplateDefinition } from './render';
import { type Diagnostic, type DiagnosticCode, type SendRequest, type SendResponse } from './schemas';
import type { DeliveryRow, MessagingStore, RecipientInstallation } from './store';
import { KEY_PATTERN } from '../shared/schemas';

type Stores = { messaging: MessagingStore };

export interface SendMetrics {
  pushSends: { inc(labels: { outcome: string }): void };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = new RegExp(KEY_PATTERN);
const MINUTE = 60_000;
const MAX_PAYLOAD = 4096;

class IdempotencyRace extends Error {}

/**
 * Why an installation of an app the key may use gets no delivery, in the order the conditions
 * are checked (docs/decisions.md). Installations of other apps never get this far (point 14).
 */
function skipReason(i: RecipientInstallation, template: ReadonlySet<string>, credentialed: ReadonlySet<string>): DiagnosticCode | undefined {
  if (!template.has(i.appId)) return 'APP_NOT_TARGETED';
  // The conditions the delivery worker checks again before every attempt (readiness.ts).
  const notReady = notReadyReason(i);
  if (notReady) return notReady;
  if (!credentialed.has(`${i.appId}:${i.platform === 'IOS' ? 'APNS' : 'FCM'}`)) return 'NO_PROVIDER_CREDENTIALS';
  return undefined;
}

export function createSendService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; wake: () => void; metrics?: SendMetrics }) {
  const { store, clock } = deps;
  const definitions = new Map<string, TemplateDefinition>();
  const count = (outcome: string) => deps.metrics?.pushSends.inc({ outcome });
  type Admission = { replayed: boolean; response: SendResponse };
  /**
   * Group commit (platform/store/group-commit.ts), as ingest does: sends arriving in the same
   * turn share one transaction, each in its own savepoint, each answered after that commit.
   * Ordered by template, so groups of two processes take the rate-window rows in one order.
   */
  const admit = createGroupCommit(
    store,
    (tx: Stores & TxScope, job: { templateId: string; run: (tx: Stores & TxScope) => Promise<Admission> }) => job.run(tx),
    (job) => job.templateId,
  );

  /**
   * The recipient's installations in the apps the key may use: the answer speaks of nothing
   * else (issue 21 point 14, least privilege), so an installation of another app is not found.
   * Inside the send's transaction: `s` is the transaction's store (never a second connection).
   */
  async function recipients(s: MessagingStore, env: string, r: SendRequest['recipient'], keyApps: ReadonlySet<string>): Promise<RecipientInstallation[]> {
    if (r.type === 'EXTERNAL_ID' || r.type === 'PROFILE') {
      const found = await s.profileInstallations(env, r.type === 'EXTERNAL_ID' ? 'externalId' : 'id', r.value);
      if (!found) throw MessagingErrors.recipientNotFound();
      return found.filter((i) => keyApps.has(i.appId));
    }
    const one = await s.installation(env, r.value);
    if (!one || !keyApps.has(one.appId)) throw MessagingErrors.recipientNotFound();
    return [one];
  }

  /** A send in the access key's environment (the route refused any other with 401). */
  async function send(key: AccessKeyPrincipal, templateKey: string, req: SendRequest): Promise<{ replayed: boolean; response: SendResponse }> {
    if (req.recipient.type === 'TEST_GROUP') throw MessagingErrors.recipientTypeNotAllowed();
    if (req.recipient.type !== 'EXTERNAL_ID' && !UUID.test(req.recipient.value)) throw MessagingErrors.invalid('recipient.value: must be a UUID');
    const env = key.environmentId;
    const requestHash = requestDigest({ templateKey, recipient: req.recipient, locale: req.locale ?? null, variables: req.variables ?? {} });

    const replay = (found: { accessKeyId: string; requestHash: string; response: string } | undefined) => {
      if (!found) return undefined;
      // The key is part of the request: another key's send, even of the identical body, is not
      // this key's to replay (issue 21 point 10); checked before anything of it is answered.
      if (found.accessKeyId !== key.id) throw MessagingErrors.idempotencyReusedByAnotherKey();
      checkReplay(found.requestHash, requestHash, MessagingErrors.idempotencyReused);
      const response = JSON.parse(found.response) as SendResponse;
      // Only what this key may reach, whatever was stored (sends admitted before point 14 held other apps' installations).
      const diagnostics = response.diagnostics.filter((d) => key.appIds.has(d.appId));
      return { replayed: true, response: diagnostics.length === response.diagnostics.length ? response : { ...response, diagnostics } };
    };
    // An admitted request answers the same whatever happened to the template since.
    const early = replay(await store.messaging.findSend(env, req.idempotencyKey));
    if (early) {
      count('replayed');
      return early;
    }

    if (!KEY.test(templateKey)) throw MessagingErrors.templateNotFound(templateKey);
    const active = await store.messaging.activeTemplate(env, templateKey);
    if (!active) throw MessagingErrors.templateNotFound(templateKey);
    if (active.status !== 'ACTIVE' || active.version === null || active.definition === null) throw MessagingErrors.templateNotActive(templateKey);
    const version = Number(active.version);
    const cacheKey = `${active.templateId}:${version}`;
    let def = definitions.get(cacheKey);
    if (!def) {
      def = JSON.parse(active.definition) as TemplateDefinition;
      if (definitions.size > 1000) definitions.clear();
      definitions.set(cacheKey, def);
    }
    const vars = resolveVariables(def, req.variables ?? {});
    const targetAppIds = def.appIds.filter((id) => key.appIds.has(id));
    // Sends go only through the template's apps the key may use (rule 7); none: the key is not scoped for this send.
    if (targetAppIds.length === 0) throw EdgeErrors.unauthorized('The access key is not allowed for any of the template’s apps.');
    const rendered = render(def, req.locale, vars);
    const message = messageOf(def, rendered);
    const size = Buffer.byteLength(JSON.stringify(apnsPayload(message, '00000000-0000-0000-0000-000000000000')));
    if (size > MAX_PAYLOAD) throw MessagingErrors.messageTooLarge(size);
    const hash = contentHash(rendered);
    const messageJson = JSON.stringify(message);
    const templateApps = new Set(def.appIds);
    const d = def;

    // Read outside the transaction: a credential set or removed while this send is admitted may
    // or may not count, as if it had happened just before or after.
    const credentialed = new Set((await store.messaging.credentialApps(env)).map((c) => `${c.appId}:${c.provider}`));
    // The first attempt relies on insertSend's conflict on the idempotencyKey (a send committed
    // meanwhile by another process); only the retry after such a race looks the key up again.
    const attempt = (retry: boolean) =>
      admit({ templateId: active.templateId, run: async (tx) => {
        if (retry) {
          const again = replay(await tx.messaging.findSend(env, req.idempotencyKey));
          if (again) return again;
        }
        const installations = await recipients(tx.messaging, env, req.recipient, key.appIds);
        const now = clock.now();
        const nowMs = now.getTime();
        const windowMs = nowMs - (nowMs % MINUTE);
        if (!(await tx.messaging.takeRate(active.templateId, windowMs, d.rateLimitPerMinute)))
          throw MessagingErrors.rateLimited(Math.max(1, Math.ceil((windowMs + MINUTE - nowMs) / 1000)));
        const sendId = newId();
        const at = now.toISOString();
        const diagnostics: Diagnostic[] = [];
        const rows: DeliveryRow[] = [];
        for (const i of installations) {
          let code = skipReason(i, templateApps, credentialed);
          if (!code && d.dedupWindowSeconds > 0 && (await tx.messaging.recentDuplicate(i.id, active.templateId, nowMs - d.dedupWindowSeconds * 1000, hash)))
            code = 'SUPPRESSED_DUPLICATE';
          if (code) {
            diagnostics.push({ installationId: i.id, appId: i.appId, platform: i.platform, code, deliveryId: null });
            continue;
          }
          const id = newId();
          diagnostics.push({ installationId: i.id, appId: i.appId, platform: i.platform, code: 'TARGETED', deliveryId: id });
          rows.push({
            id, sendId, environmentId: env, templateId: active.templateId, installationId: i.id, appId: i.appId,
            provider: i.platform === 'IOS' ? 'APNS' : 'FCM', token: i.pushToken!, contentHash: hash, message: messageJson,
            state: 'PENDING', attempts: 0, nextAttemptMs: nowMs, expiresMs: nowMs + d.ttlSeconds * 1000, lastError: null,
            createdMs: nowMs, createdAt: at, sentAt: null, deliveredAt: null, openedAt: null, updatedAt: at,
          });
        }
        const response: SendResponse = {
          accepted: rows.length > 0,
          resolvedLocale: rendered.resolvedLocale,
          renderedTitle: rendered.title,
          renderedBody: rendered.body,
          renderedDeepLink: rendered.deepLink,
          renderedCustomData: rendered.customData,
          targetAppIds,
          diagnostics,
          requestId: sendId,
        };
        const recorded = await tx.messaging.insertSend({
          id: sendId, environmentId: env, templateId: active.templateId, templateVersion: version, idempotencyKey: req.idempotencyKey,
          requestHash, accessKeyId: key.id, recipientType: req.recipient.type, recipientValue: req.recipient.value,
          response: JSON.stringify(response), createdAt: at, createdMs: nowMs, isTest: 0,
        });
        // The same idempotencyKey committed by another process meanwhile: undo this one, answer as its replay.
        if (!recorded) throw new IdempotencyRace();
        await tx.messaging.insertDeliveries(rows);
        if (rows.length > 0) tx.afterCommit(deps.wake);
        return { replayed: false, response };
      } });
    try {
      const out = await attempt(false).catch((e: unknown) => {
        if (e instanceof IdempotencyRace) return attempt(true);
        throw e;
      });
      count(out.replayed ? 'replayed' : out.response.accepted ? 'admitted' : 'nothing_to_deliver');
      return out;
    } catch (e) {
      count((e as { code?: string }).code ?? 'error');
      throw e;
    }
  }

  return { send };
}

export function messageOf(def: TemplateDefinition, r: Rendered): DeliveryMessage {
  return {
    title: r.title,
    body: r.body,
    deepLink: r.deepLink,
    data: r.customData,
    priority: def.priority,
    ...(def.collapseId !== undefined ? { collapseId: def.collapseId } : {}),
  };
}

export type SendService = ReturnType<typeof createSendService>;
