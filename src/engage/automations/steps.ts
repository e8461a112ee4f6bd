/**
 * What each step kind does (issue 28 "Definitions"), apart from how runs are claimed and moved on
 * (engine.ts): a step's execution computes its result; the only writes are the effects it hands
 * back, which the engine commits with the run's advance past the step, once.
 */
import type { Clock } from '../../platform/clock';
import type { AccessKeyPrincipal } from '../environments/access-keys';
import { compileCondition, type FlagContext } from '../flags/evaluate';
import { applyIn, StateEffects, touchProfileIn, type ProfileTx } from '../profiles/service';
import { grantIn, type InAppTx } from '../in-app/service';
import { writeEntryIn, type InboxTx } from '../inbox/service';
import { inboxContentOf } from './in-app-step';
import type { ChangeNotices } from '../shared/change-notices';
import type { RunCondition, Step } from './schemas';
import type { ProfileReads } from './entry';
import type { AutomationStore, RunRow, StepRow } from './store';
import { nextTimeOfDay } from './time-of-day';
import { derivedId, mapResponse, resolveTemplated, type RunScope } from './values';

/** What an engine's transaction holds: the automations' store and those the steps' effects write through. */
export type EngineStores = { automations: AutomationStore } & InAppTx & ProfileTx & InboxTx;

/** What a webhook step asks of the webhooks context (engage/webhooks). */
export interface WebhookPort {
  deliver(environmentId: string, r: { method: string; url: string; headers: Record<string, string>; body: string; webhookId: string; timeoutMs: number }): Promise<
    | { kind: 'delivered'; status: number; response?: Record<string, unknown> }
    | { kind: 'retry'; status?: number; retryAfterMs?: number; error: string }
    | { kind: 'abort'; status?: number; error: string }
  >;
  /** The delay before the next attempt after `attemptsMade` failed ones; undefined once exhausted. */
  retryDelayMs(attemptsMade: number, retryAfterMs?: number): number | undefined;
}

/** What a push step asks of transactional sends. */
export interface SendPort {
  send(key: AccessKeyPrincipal, templateKey: string, req: { recipient: { type: 'PROFILE'; value: string }; idempotencyKey: string; locale?: string; variables?: Record<string, unknown> }): Promise<{ replayed: boolean; response: { sendId?: string; accepted: boolean } }>;
}

/** A push step's (or an unexpected failure's) retries: 1 s doubling up to 5 min, 10 attempts. */
const PUSH_RETRY = { attempts: 10, baseMs: 1_000, maxMs: 300_000 };

export type StepResult =
  | { kind: 'next'; next: string | undefined; output?: unknown; context?: Record<string, unknown>; effects?: (tx: EngineStores) => Promise<void>; after?: () => void; status?: 'SUCCEEDED' | 'SKIPPED' }
  | { kind: 'wait'; untilMs: number | null; waitingEvent: string | null; output: unknown }
  | { kind: 'exit' }
  | { kind: 'retry'; error: string; dueMs: number }
  | { kind: 'fail'; error: string };

/** A step's effect refused in its transaction (an in-app message that is not there): the step fails, nothing of it stays. */
export class StepRefused extends Error {}

export function createStepExecutor(deps: {
  clock: Clock;
  profiles: ProfileReads & { timeZone(environmentId: string, profileId: string): Promise<string> };
  sends: SendPort;
  webhooks?: WebhookPort;
  appIdsOf(environmentId: string): Promise<string[]>;
  notices: ChangeNotices;
}) {
  const { clock, notices } = deps;
  const nowMs = () => clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();

  async function scopeOf(run: RunRow, context: Record<string, unknown>): Promise<RunScope> {
    let profile: Promise<Awaited<ReturnType<RunScope['profile']>>> | undefined;
    return {
      context,
      entry: JSON.parse(run.entry) as RunScope['entry'],
      profile: () => (profile ??= deps.profiles.profile(run.environmentId, run.profileId).then((p) => p ?? null)),
    };
  }

  /** One step's execution (no writes but through its result). */
  async function execute(run: RunRow, step: Step, stepId: string, scope: RunScope, held: StepRow | undefined): Promise<StepResult> {
    const now = nowMs();
    switch (step.type) {
      case 'exit':
        return { kind: 'exit' };
      case 'condition': {
        const matched = await conditionsHold(step.conditions, scope);
        return { kind: 'next', next: matched ? step.then : step.else, output: { matched } };
      }
      case 'profile-update': {
        const set = (await resolveTemplated(step.set ?? {}, scope)) as Record<string, unknown>;
        const op = `${run.id}:${stepId}`;
        const effects = new StateEffects();
        for (const [k, v] of Object.entries(set)) effects.put('profileAttributes', [run.profileId, k, v === undefined ? null : JSON.stringify(v), now, op]);
        for (const k of step.remove ?? []) effects.put('profileAttributes', [run.profileId, k, null, now, op]);
        for (const t of step.addTags ?? []) effects.put('profileTags', [run.profileId, t, 1, now, op]);
        for (const t of step.removeTags ?? []) effects.put('profileTags', [run.profileId, t, 0, now, op]);
        return {
          kind: 'next',
          next: step.next,
          output: { set: Object.keys(set), remove: step.remove ?? [], addTags: step.addTags ?? [], removeTags: step.removeTags ?? [] },
          effects: async (tx) => {
            await applyIn(tx, { environmentId: run.environmentId, installationId: '', at: iso(now) }, effects);
          },
          after: () => notices.profileChanged(run.environmentId, run.profileId),
        };
      }
      case 'wait': {
        const started = held?.kind === 'wait' && held.status === 'RUNNING' ? (JSON.parse(held.output ?? '{}') as { untilMs?: number | null; matched?: unknown }) : undefined;
        if (started) {
          if (started.matched !== undefined) return { kind: 'next', next: step.next, output: { ...started, outcome: 'EVENT' } };
          if (started.untilMs !== null && started.untilMs !== undefined && now >= started.untilMs) {
            return { kind: 'next', next: step.event ? step.timeoutNext : step.next, output: { ...started, outcome: step.event ? 'TIMEOUT' : 'ELAPSED' } };
          }
          // Woken early (a resume after a pause): wait on.
          return { kind: 'wait', untilMs: started.untilMs ?? null, waitingEvent: step.event?.eventName ?? null, output: started };
        }
        let untilMs: number;
        if (step.seconds !== undefined) untilMs = now + step.seconds * 1000;
        else if (step.timeOfDay !== undefined) untilMs = nextTimeOfDay(now, step.timeOfDay, await deps.profiles.timeZone(run.environmentId, run.profileId));
        else untilMs = now + step.event!.timeoutSeconds * 1000;
        return { kind: 'wait', untilMs, waitingEvent: step.event?.eventName ?? null, output: { untilMs, until: iso(untilMs), ...(step.event ? { eventName: step.event.eventName } : {}) } };
      }
      case 'push': {
        const variables = (await resolveTemplated(step.variables ?? {}, scope)) as Record<string, unknown>;
        const appIds = await deps.appIdsOf(run.environmentId);
        const principal: AccessKeyPrincipal = { id: `automation:${run.automationId}`, environmentId: run.environmentId, appIds: new Set(appIds) };
        try {
          const sent = await deps.sends.send(principal, step.template, {
            recipient: { type: 'PROFILE', value: run.profileId },
            idempotencyKey: `${run.id}:${stepId}`,
            ...(step.locale ? { locale: step.locale } : {}),
            variables,
          });
          return { kind: 'next', next: step.next, output: { sendId: sent.response.sendId ?? null, accepted: sent.response.accepted, replayed: sent.replayed } };
        } catch (e) {
          const code = (e as { code?: string; kind?: string }).code;
          const kind = (e as { kind?: string }).kind;
          // A refusal of the request itself is permanent; anything else (the database, overload) is tried again.
          if (code && kind && kind !== 'unavailable' && kind !== 'rate_limited') return { kind: 'fail', error: `push: ${code}: ${(e as Error).message}` };
          return retryLater(run, `push: ${(e as Error).message}`, PUSH_RETRY);
        }
      }
      case 'webhook': {
        if (!deps.webhooks) return { kind: 'fail', error: 'webhook: outbound webhooks are not available in this process' };
        const data = await resolveTemplated(step.body ?? {}, scope);
        const body = JSON.stringify({ type: 'automation.step', timestamp: iso(now), data });
        const out = await deps.webhooks.deliver(run.environmentId, {
          method: step.method,
          url: step.url,
          headers: step.headers ?? {},
          body,
          webhookId: `${run.id}:${stepId}`,
          timeoutMs: (step.timeoutSeconds ?? 15) * 1000,
        });
        if (out.kind === 'delivered') {
          const mapping = step.responseMapping ?? {};
          return { kind: 'next', next: step.next, output: { status: out.status, mapped: Object.keys(mapping) }, context: mapResponse(scope.context, out.response, mapping) };
        }
        if (out.kind === 'abort') return { kind: 'fail', error: `webhook: ${out.error}` };
        const delay = deps.webhooks.retryDelayMs(run.attempts, out.retryAfterMs);
        if (delay === undefined) return { kind: 'fail', error: `webhook: ${out.error}; gave up after ${run.attempts} attempts` };
        return { kind: 'retry', error: `webhook: ${out.error}`, dueMs: now + delay };
      }
      case 'in-app': {
        const untilMs = now + step.periodSeconds * 1000;
        let found = true;
        return {
          kind: 'next',
          next: step.next,
          output: { message: step.message, until: iso(untilMs), savedToInbox: step.saveToInbox === true },
          // The grant, the profile's sync revision and the inbox entry in the step's transaction: once.
          effects: async (tx) => {
            const m = await grantIn(tx, run.environmentId, run.profileId, step.message, untilMs);
            if (!m) {
              found = false;
              throw new StepRefused(`in-app: no published in-app message ${step.message}`);
            }
            await touchProfileIn(tx, run.environmentId, run.profileId);
            if (step.saveToInbox) {
              await writeEntryIn(tx, { id: inboxEntryId(run.id, stepId), environmentId: run.environmentId, scope: 'PROFILE', ownerId: run.profileId, key: step.message, content: inboxContentOf(m.definition), sentAt: new Date(now), expiresAt: new Date(untilMs) }, notices);
            }
          },
          after: () => (found ? notices.profileChanged(run.environmentId, run.profileId) : undefined),
        };
      }
    }
  }

  function retryLater(run: RunRow, error: string, p: typeof PUSH_RETRY): StepResult {
    if (run.attempts >= p.attempts) return { kind: 'fail', error: `${error}; gave up after ${run.attempts} attempts` };
    return { kind: 'retry', error, dueMs: nowMs() + Math.min(p.maxMs, p.baseMs * 2 ** (run.attempts - 1)) };
  }

  async function conditionsHold(conditions: readonly RunCondition[], scope: RunScope): Promise<boolean> {
    const p = conditions.some((c) => c.attribute.startsWith('profile')) ? await scope.profile() : null;
    const profile = p ? { id: p.id, externalId: p.externalId ?? '', attributes: p.attributes, tags: p.tags } : null;
    for (const c of conditions) {
      const { source, test } = compiled(c);
      const attributes = source === 'context' ? scope.context : source === 'event' ? (scope.entry.type === 'EVENT' ? scope.entry.properties : {}) : undefined;
      const ctx: FlagContext = attributes !== undefined ? { installationId: '', app: '', platform: '', attributes } : { installationId: '', app: '', platform: '', profile: p && p.externalId !== null ? profile : null };
      if (!test(ctx)) return false;
    }
    return true;
  }

  return { scopeOf, execute };
}

/**
 * A condition compiled once per definition (published versions are kept per process, so the
 * same objects come back): `context.*` and `event.properties.*` are read as an installation's
 * attributes by the flag condition language.
 */
const compiledConditions = new WeakMap<RunCondition, { source: 'context' | 'event' | 'profile'; test: (ctx: FlagContext) => boolean }>();
function compiled(c: RunCondition) {
  let held = compiledConditions.get(c);
  if (!held) {
    const [source, rest] = c.attribute.startsWith('context.')
      ? (['context', c.attribute.slice('context.'.length)] as const)
      : c.attribute.startsWith('event.properties.')
        ? (['event', c.attribute.slice('event.properties.'.length)] as const)
        : (['profile', undefined] as const);
    held = { source, test: compileCondition({ ...c, attribute: rest === undefined ? c.attribute : `installation.attributes.${rest}` }) };
    compiledConditions.set(c, held);
  }
  return held;
}

/** The inbox entry an in-app step writes: one per run and step (a repeated attempt writes the same id, undone with its transaction). */
const inboxEntryId = (runId: string, stepId: string) => derivedId(`${runId}:${stepId}:inbox`);
