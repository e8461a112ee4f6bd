/**
 * POST /api/v1/environments/{environmentId}/transactional/{templateKey}/send (spec 01
 * "Transactional send", behaviour rule 7): authorization, template state, variables,
 * recipient, app scope, rate limit and idempotency, then the deliveries admitted in the same
 * transaction as the send; the 202 means they are committed (acceptance is not delivery).
 */
import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { Clock } from '../../platform/clock';
import { newId, newTimeOrderedId } from '../../platform/crypto';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner, TxScope } from '../../platform/store/store';
import type { AccessKeyPrincipal } from '../environments/service';
import { EdgeErrors } from '../shared/errors';
import { MessagingErrors } from './errors';
import { notReadyReason } from './readiness';
import { contentHash, hasPush, renderInbox, resolveVariables, type Rendered, type TemplateDefinition } from './render';
import { messageOf, renderChecked } from './send-message';
import { INBOX_LIMITS, type Diagnostic, type DiagnosticCode, type SendRequest, type SendResponse } from './schemas';
import { writeEntryIn, type InboxTx } from '../inbox/service';
import type { ChangeNotices } from '../shared/change-notices';
import type { DeliveryRow, MessagingStore, RecipientInstallation, SendRow } from './store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { selectVersion, type VersionSelector } from './versions';
import { KEY_PATTERN } from '../shared/schemas';
import { listAllows, liveListIn, quietHoursEnd, recipientPreferencesIn, type SendPreferencesTx } from '../preferences/send-preferences';

type Stores = { messaging: MessagingStore } & SendPreferencesTx & AuditTx & InboxTx;
type Admitted = { replayed: boolean; response: SendResponse };

export interface SendMetrics {
  pushSends: { inc(labels: { outcome: string }): void };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = new RegExp(KEY_PATTERN);
const MINUTE = 60_000;

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

/** `notices`: the badges of the devices that show a written inbox entry are told after commit (issue 27 point 5). */
export function createSendService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; wake: () => void; metrics?: SendMetrics; notices?: ChangeNotices }) {
  const { store, clock } = deps;
  const definitions = new Map<string, TemplateDefinition>();
  const count = (outcome: string) => deps.metrics?.pushSends.inc({ outcome });
  /**
   * Group commit (platform/store/group-commit.ts), as ingest does: sends arriving in the same
   * turn share one transaction, each in its own savepoint, each answered after that commit.
   * Ordered by template, so groups of two processes take the rate-window rows in one order.
   */
  const admit = createGroupCommit(
    store,
    (tx: Stores & TxScope, job: { templateId: string; run: (tx: Stores & TxScope) => Promise<Admitted> }) => job.run(tx),
    (job) => job.templateId,
  );

  /** The profile each resolved recipient list was read from (its inbox entry's owner): no second lookup in the send's transaction. */
  const resolvedProfiles = new WeakMap<readonly RecipientInstallation[], string>();
  /**
   * The recipient's installations in the apps the key may use: the answer speaks of nothing
   * else (issue 21 point 14, least privilege), so an installation of another app is not found.
   * Inside the send's transaction: `s` is the transaction's store (never a second connection).
   * Read under row locks, the profile before the installations (recipient-store.ts): an erasure
   * of any of them waits for this send's commit, or this send for the erasure's and then finds
   * the recipient gone, answered as an unknown recipient.
   */
  async function recipients(s: MessagingStore, env: string, r: SendRequest['recipient'], keyApps: ReadonlySet<string>): Promise<RecipientInstallation[]> {
    if (r.type === 'EXTERNAL_ID' || r.type === 'PROFILE') {
      const found = await s.lockProfileRecipients(env, r.type === 'EXTERNAL_ID' ? 'externalId' : 'id', r.value);
      if (!found) throw MessagingErrors.recipientNotFound();
      const installations = found.installations.filter((i) => keyApps.has(i.appId));
      resolvedProfiles.set(installations, found.profileId);
      return installations;
    }
    const one = await s.lockInstallation(env, r.value);
    if (!one || !keyApps.has(one.appId)) throw MessagingErrors.recipientNotFound();
    return [one];
  }

  /** Recipients and rules of one admission: a server send, or a console test send (issue 24 point 4). */
  interface Admission {
    env: string;
    templateId: string;
    version: number;
    def: TemplateDefinition;
    rendered: Rendered;
    /** The access key's id, or `operator:<subject>` for a test send. */
    caller: string;
    idempotencyKey: string;
    requestHash: string;
    recipient: { type: string; value: string };
    resolve: (s: MessagingStore) => Promise<RecipientInstallation[]>;
    targetAppIds: string[];
    replay: (found: SendRow | undefined) => Admitted | undefined;
    isTest: boolean;
    /** The inbox entry's content as JSON text (the template's inbox part rendered), written with the deliveries; none for test sends. */
    inbox?: string;
    /** Recorded in the send's transaction (a test send's audit event). */
    also?: (tx: Stores & TxScope, sendId: string, at: string) => Promise<void>;
    /** Stored and answered beside the send response (a test send's unresolved members). */
    extra?: (installations: RecipientInstallation[]) => Record<string, unknown>;
  }

  /**
   * Admits one send: recipients, rate limit (not for a test send), deliveries, the ledger row,
   * all in one transaction of the group commit.
   */
  async function admitSend(a: Admission): Promise<Admitted> {
    // The entry's id is known before the transaction: every delivery's payload carries it (issue 27, rule 5).
    const entryId = a.inbox ? newTimeOrderedId() : undefined;
    const message = messageOf(a.def, a.rendered, entryId);
    const push = hasPush(a.def);
    const hash = contentHash(a.rendered);
    const messageJson = JSON.stringify(message);
    const templateApps = new Set(a.def.appIds);
    const d = a.def;
    // Read outside the transaction: a credential set or removed while this send is admitted may
    // or may not count, as if it had happened just before or after.
    const credentialed = new Set((await store.messaging.credentialApps(a.env)).map((c) => `${c.appId}:${c.provider}`));
    // The first attempt relies on insertSend's conflict on the idempotencyKey (a send committed
    // meanwhile by another process); only the retry after such a race looks the key up again.
    const attempt = (retry: boolean) =>
      admit({ templateId: a.templateId, run: async (tx) => {
        if (retry) {
          const again = a.replay(await tx.messaging.findSend(a.env, a.idempotencyKey, a.isTest));
          if (again) return again;
        }
        const installations = await a.resolve(tx.messaging);
        const now = clock.now();
        const nowMs = now.getTime();
        const windowMs = nowMs - (nowMs % MINUTE);
        // Test sends are outside the template's rate limit (issue 24 point 4).
        if (!a.isTest && !(await tx.messaging.takeRate(a.templateId, windowMs, d.rateLimitPerMinute)))
          throw MessagingErrors.rateLimited(Math.max(1, Math.ceil((windowMs + MINUTE - nowMs) / 1000)));
        const sendId = newTimeOrderedId();
        const at = now.toISOString();
        const diagnostics: Diagnostic[] = [];
        const rows: DeliveryRow[] = [];
        const expiresMs = nowMs + d.ttlSeconds * 1000;
        // Preferences (issue 26), read in this transaction; a test send is meant to arrive every time, so none apply to it.
        // A list deleted since the template was saved holds nobody back (docs/decisions.md "Sends and preferences").
        const list = !a.isTest && d.list !== undefined ? await liveListIn(tx, a.env, d.list) : undefined;
        const quiet = !a.isTest && d.priority === 'normal';
        const prefs = list || quiet ? await recipientPreferencesIn(tx, a.env, installations.map((i) => i.id), list?.key ?? null) : undefined;
        const recipientType = a.recipient.type as 'INSTALLATION_ID' | 'EXTERNAL_ID' | 'PROFILE';
        const owner = a.inbox ? inboxOwner(recipientType, installations, templateApps) : undefined;
        for (const i of installations) {
          // An inbox-only template: its entry stands for the send, no delivery (an opted-out installation is still said so).
          if (!push) {
            const code = !templateApps.has(i.appId) ? 'APP_NOT_TARGETED' : i.privacy === 'OPTED_OUT' ? 'PRIVACY_OPTED_OUT' : 'INBOX_ONLY';
            diagnostics.push({ installationId: i.id, appId: i.appId, platform: i.platform, code, deliveryId: null });
            continue;
          }
          let code = skipReason(i, templateApps, credentialed);
          if (!code && list && !listAllows(list, recipientType, prefs?.get(i.id))) code = 'LIST_UNSUBSCRIBED';
          // A test send is meant to arrive every time it is asked for: no duplicate suppression.
          if (!code && !a.isTest && d.dedupWindowSeconds > 0 && (await tx.messaging.recentDuplicate(i.id, a.templateId, nowMs - d.dedupWindowSeconds * 1000, hash)))
            code = 'SUPPRESSED_DUPLICATE';
          if (code) {
            diagnostics.push({ installationId: i.id, appId: i.appId, platform: i.platform, code, deliveryId: null });
            continue;
          }
          // A normal-priority push inside the profile's quiet hours waits for their end; one that would expire first is not sent.
          const quietEnd = quiet ? quietHoursEnd(prefs?.get(i.id), now) : undefined;
          if (quietEnd && quietEnd.getTime() >= expiresMs) {
            diagnostics.push({ installationId: i.id, appId: i.appId, platform: i.platform, code: 'EXPIRES_IN_QUIET_HOURS', deliveryId: null, deferredUntil: quietEnd.toISOString() });
            continue;
          }
          const id = newTimeOrderedId();
          diagnostics.push(
            quietEnd
              ? { installationId: i.id, appId: i.appId, platform: i.platform, code: 'DEFERRED_QUIET_HOURS', deliveryId: id, deferredUntil: quietEnd.toISOString() }
              : { installationId: i.id, appId: i.appId, platform: i.platform, code: 'TARGETED', deliveryId: id },
          );
          rows.push({
            id, sendId, environmentId: a.env, templateId: a.templateId, installationId: i.id, appId: i.appId,
            provider: i.platform === 'IOS' ? 'APNS' : 'FCM', token: i.pushToken!, contentHash: hash, message: messageJson,
            state: 'PENDING', attempts: 0, nextAttemptMs: quietEnd?.getTime() ?? nowMs, expiresMs, lastError: null,
            createdMs: nowMs, createdAt: at, sentAt: null, deliveredAt: null, openedAt: null, updatedAt: at, deferredUntilMs: quietEnd?.getTime() ?? null,
          });
        }
        const response: SendResponse = {
          accepted: rows.length > 0 || owner !== undefined,
          resolvedLocale: a.rendered.resolvedLocale,
          renderedTitle: a.rendered.title,
          renderedBody: a.rendered.body,
          renderedDeepLink: a.rendered.deepLink,
          renderedCustomData: a.rendered.customData,
          targetAppIds: a.targetAppIds,
          diagnostics,
          requestId: sendId,
          ...(a.inbox ? { inboxEntryId: owner ? entryId! : null } : {}),
          ...a.extra?.(installations),
        };
        const recorded = await tx.messaging.insertSend({
          id: sendId, environmentId: a.env, templateId: a.templateId, templateVersion: a.version, idempotencyKey: a.idempotencyKey,
          requestHash: a.requestHash, accessKeyId: a.caller, recipientType: a.recipient.type, recipientValue: a.recipient.value,
          response: JSON.stringify(response), createdAt: at, createdMs: nowMs, isTest: a.isTest ? 1 : 0,
        });
        // The same idempotencyKey committed by another process meanwhile: undo this one, answer as its replay.
        if (!recorded) throw new IdempotencyRace();
        await tx.messaging.insertDeliveries(rows);
        if (owner && a.inbox) {
          const expiresIn = a.def.inbox?.expiresInSeconds;
          await writeEntryIn(tx, {
            id: entryId!, environmentId: a.env, ...owner, key: a.def.inbox!.key, content: a.inbox, sentAt: now,
            expiresAt: expiresIn === undefined ? null : new Date(nowMs + expiresIn * 1000), sendId, templateId: a.templateId,
          }, deps.notices);
        }
        await a.also?.(tx, sendId, at);
        if (rows.length > 0) tx.afterCommit(deps.wake);
        return { replayed: false, response };
      } });
    const again = (tries: number) => (e: unknown): Promise<Admitted> => {
      if (tries > 0 && e instanceof IdempotencyRace) return attempt(true).catch(again(tries - 1));
      throw e;
    };
    return attempt(false).catch(again(2));
  }

  /**
   * Whose inbox a send's entry goes to (issue 27): the profile's for EXTERNAL_ID and PROFILE
   * recipients (every installation bound to it sees it), the installation's for INSTALLATION_ID,
   * none for an installation of an app the template does not target or whose privacy is
   * OPTED_OUT (it gets nothing, as for push).
   */
  function inboxOwner(type: 'INSTALLATION_ID' | 'EXTERNAL_ID' | 'PROFILE', installations: readonly RecipientInstallation[], templateApps: ReadonlySet<string>) {
    if (type === 'INSTALLATION_ID') {
      const i = installations[0];
      return i && templateApps.has(i.appId) && i.privacy !== 'OPTED_OUT' ? { scope: 'INSTALLATION' as const, ownerId: i.id } : undefined;
    }
    // The profile `recipients` read, and locked, in this transaction.
    const profileId = resolvedProfiles.get(installations);
    return profileId === undefined ? undefined : { scope: 'PROFILE' as const, ownerId: profileId };
  }

  /** A stored send answered again to its caller; 409 when the key was another caller's or another request's. */
  const replayOf = (caller: string, requestHash: string, visible: (appId: string) => boolean) => (found: SendRow | undefined): Admitted | undefined => {
    if (!found) return undefined;
    // The key is part of the request: another key's send, even of the identical body, is not
    // this key's to replay (issue 21 point 10); checked before anything of it is answered.
    if (found.accessKeyId !== caller) throw MessagingErrors.idempotencyReusedByAnotherKey();
    checkReplay(found.requestHash, requestHash, MessagingErrors.idempotencyReused);
    const response = JSON.parse(found.response) as SendResponse;
    // Only what this key may reach, whatever was stored (sends admitted before point 14 held other apps' installations).
    const diagnostics = response.diagnostics.filter((d) => visible(d.appId));
    return { replayed: true, response: diagnostics.length === response.diagnostics.length ? response : { ...response, diagnostics } };
  };

  /** A send in the access key's environment (the route refused any other with 401). */
  async function send(key: AccessKeyPrincipal, templateKey: string, req: SendRequest): Promise<Admitted> {
    if (req.recipient.type === 'TEST_GROUP') throw MessagingErrors.recipientTypeNotAllowed();
    if (req.recipient.type !== 'EXTERNAL_ID' && !UUID.test(req.recipient.value)) throw MessagingErrors.invalid('recipient.value: must be a UUID');
    const env = key.environmentId;
    const requestHash = requestDigest({ templateKey, recipient: req.recipient, locale: req.locale ?? null, variables: req.variables ?? {} });
    const replay = replayOf(key.id, requestHash, (appId) => key.appIds.has(appId));
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
    const rendered = renderChecked(def, req.locale, vars);
    const rendering = renderInbox(def, vars);
    const inbox = rendering && JSON.stringify(rendering);
    if (inbox) {
      const bytes = Buffer.byteLength(inbox);
      if (bytes > INBOX_LIMITS.renderedBytes) throw MessagingErrors.inboxEntryTooLarge(bytes, INBOX_LIMITS.renderedBytes);
    }
    try {
      const out = await admitSend({
        env, templateId: active.templateId, version, def, rendered, caller: key.id, idempotencyKey: req.idempotencyKey, requestHash, inbox,
        recipient: req.recipient, resolve: (s) => recipients(s, env, req.recipient, key.appIds), targetAppIds, replay, isTest: false,
      });
      count(out.replayed ? 'replayed' : out.response.accepted ? 'admitted' : 'nothing_to_deliver');
      return out;
    } catch (e) {
      count((e as { code?: string }).code ?? 'error');
      throw e;
    }
  }

  /**
   * A console test send (issue 24 point 4; spec 01's TEST_GROUP, which the server API refuses):
   * a version of the template (the draft by default) to the installations of a test group's
   * members, in every app of the template, through the same admission as a send, marked
   * `is_test`: outside the rate limit and duplicate suppression, left out of counts and metrics.
   * The ledger's caller is `operator:<subject>`; audited as `template.test_sent`.
   */
  async function testSend(
    input: { environmentId: string; templateKey: string; testGroup: string; version?: VersionSelector; locale?: string; variables?: Record<string, unknown>; idempotencyKey?: string },
    actor: AuditActor,
  ): Promise<Admitted & { isTest: true }> {
    const env = input.environmentId;
    const caller = `operator:${actor.subject}`;
    const t = KEY.test(input.templateKey) ? await store.messaging.findTemplate(env, input.templateKey) : undefined;
    if (!t) throw MessagingErrors.templateNotFound(input.templateKey);
    const group = await store.messaging.findTestGroup(env, input.testGroup);
    if (!group) throw MessagingErrors.testGroupNotFound(input.testGroup);
    const selected = await selectVersion(store.messaging, t, input.version ?? 'latest');
    const requestHash = requestDigest({ test: true, templateKey: t.key, version: selected.version, testGroup: group.id, locale: input.locale ?? null, variables: input.variables ?? {} });
    const idempotencyKey = input.idempotencyKey ?? `test-${newId()}`;
    const replay = replayOf(caller, requestHash, () => true);
    // Test sends have keys of their own (migration 0030): a test can never take a real send's key.
    const early = replay(await store.messaging.findSend(env, idempotencyKey, true));
    if (early) return { ...early, isTest: true };
    // An archived template accepts no sends, tests included (docs/decisions.md).
    if (t.status === 'ARCHIVED') throw MessagingErrors.templateArchived(t.key);
    const def = selected.definition;
    const rendered = renderChecked(def, input.locale, resolveVariables(def, input.variables ?? {}));
    let unresolved = 0;
    const out = await admitSend({
      env, templateId: t.id, version: selected.version, def, rendered, caller, idempotencyKey, requestHash,
      recipient: { type: 'TEST_GROUP', value: group.id }, targetAppIds: [...def.appIds], replay, isTest: true,
      resolve: async (s) => {
        const found = await groupInstallations(s, env, group.id);
        unresolved = found.unresolved;
        return found.installations;
      },
      extra: () => ({ unresolvedMembers: unresolved }),
      also: (tx, sendId, at) =>
        auditIn(tx, actor, 'template.test_sent', { type: 'template', id: t.id }, { environmentId: env, key: t.key, version: selected.version, testGroupId: group.id, sendId }, at).then(() => undefined),
    });
    return { ...out, isTest: true };
  }

  /**
   * The installations of a test group's members, each once, in member order; members that name
   * nothing now are counted. Locked as a send's recipients are, all the members' profiles before
   * all the installations (recipient-store.ts).
   */
  async function groupInstallations(s: MessagingStore, env: string, groupId: string) {
    const seen = new Map<string, RecipientInstallation>();
    let unresolved = 0;
    const members = await s.testGroupMembers(env, groupId);
    const locked = await s.lockGroupRecipients(
      env,
      members.flatMap((m) => (m.installationId ? [m.installationId] : [])),
      members.flatMap((m) => (m.installationId ? [] : [m.externalId!])),
    );
    for (const m of members) {
      const one = m.installationId ? locked.installation(m.installationId) : undefined;
      const found = m.installationId ? (one ? [one] : []) : locked.ofExternalId(m.externalId!);
      if (found.length === 0) unresolved++;
      for (const i of found) if (!seen.has(i.id)) seen.set(i.id, i);
    }
    return { installations: [...seen.values()], unresolved };
  }

  return { send, testSend };
}

export type SendService = ReturnType<typeof createSendService>;
