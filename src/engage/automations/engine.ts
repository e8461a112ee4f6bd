/**
 * The automation engine (issue 28 "Runs"): runs are rows of automation_runs and each is its own
 * durable work item (platform/work's worker over that table): claimed when due, in any serving
 * process, under a lease that every write of the attempt is conditional on. No run waits in
 * memory: a wait is a due time (or an event name) on the row.
 *
 * An attempt loads the run's version (a run stays on the version it entered with) and executes
 * steps from the current one until the run waits, ends or must retry. Each step's effect and the
 * run's move to the next step are one transaction where the effect is a database write
 * (profile-update, condition, exit, a wait's start), so they apply once. Effects outside the
 * database carry a key: a push step sends with idempotency key `<run id>:<step id>` (a repeated
 * attempt gets the first send's answer), a webhook carries `webhook-id` = the same (receivers
 * deduplicate; delivered at least once). A paused automation's runs are held at their next step;
 * an archived one's are cancelled there.
 */
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { Metrics } from '../../platform/metrics';
import type { TxRunner } from '../../platform/store/store';
import { createWorker, type Lease, type WorkOutcome } from '../../platform/work/worker';
import type { AccessKeyPrincipal } from '../environments/access-keys';
import { compileCondition, type FlagContext } from '../flags/evaluate';
import { applyIn, StateEffects, touchProfileIn, type ProfileTx } from '../profiles/service';
import { grantIn, type InAppTx } from '../in-app/service';
import { writeEntryIn, type InboxTx } from '../inbox/service';
import { inboxContentOf } from './in-app-step';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import type { AutomationDefinition, RunCondition, Step } from './schemas';
import type { ProfileReads } from './entry';
import type { AutomationService } from './service';
import type { AutomationStore, RunRow, StepRow } from './store';
import { nextTimeOfDay } from './time-of-day';
import { derivedId, mapResponse, resolveTemplated, type RunScope } from './values';
import { createEventHandling } from './events';
import { automationCommitter } from './store';

type Stores = { automations: AutomationStore } & InAppTx & ProfileTx & InboxTx;

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

/** Steps executed in one attempt before the run is put back in the queue (a long chain of instant steps yields). */
const STEPS_PER_ATTEMPT = 25;
/** A push step's (or an unexpected failure's) retries: 1 s doubling up to 5 min, 10 attempts. */
const PUSH_RETRY = { attempts: 10, baseMs: 1_000, maxMs: 300_000 };

type StepResult =
  | { kind: 'next'; next: string | undefined; output?: unknown; context?: Record<string, unknown>; effects?: (tx: Stores) => Promise<void>; after?: () => void; status?: 'SUCCEEDED' | 'SKIPPED' }
  | { kind: 'wait'; untilMs: number | null; waitingEvent: string | null; output: unknown }
  | { kind: 'exit' }
  | { kind: 'retry'; error: string; dueMs: number }
  | { kind: 'fail'; error: string };

export function createAutomationEngine(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<Metrics, 'workItems'>;
  automations: Pick<AutomationService, 'publishedDefinition' | 'enter'>;
  profiles: ProfileReads & { timeZone(environmentId: string, profileId: string): Promise<string> };
  sends: SendPort;
  webhooks?: WebhookPort;
  appIdsOf(environmentId: string): Promise<string[]>;
  notices?: ChangeNotices;
  options?: { leaseMs?: number; batch?: number; concurrency?: number; idleMs?: number };
}) {
  const { store, clock, logger } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const commit = automationCommitter(store, store.automations.dialect);
  const sqlite = store.automations.dialect === 'sqlite';
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
      let ctx: FlagContext;
      let attribute = c.attribute;
      if (c.attribute.startsWith('context.')) {
        attribute = `installation.attributes.${c.attribute.slice('context.'.length)}`;
        ctx = { installationId: '', app: '', platform: '', attributes: scope.context };
      } else if (c.attribute.startsWith('event.properties.')) {
        attribute = `installation.attributes.${c.attribute.slice('event.properties.'.length)}`;
        ctx = { installationId: '', app: '', platform: '', attributes: scope.entry.type === 'EVENT' ? scope.entry.properties : {} };
      } else ctx = { installationId: '', app: '', platform: '', profile: p && p.externalId !== null ? profile : null };
      if (!compileCondition({ ...c, attribute })(ctx)) return false;
    }
    return true;
  }

  /**
   * One attempt at a claimed run: steps until it waits, ends or must retry. Every write is
   * conditional on the lease (the due time the claim wrote, kept while the attempt goes on), so a
   * process whose lease lapsed and was taken over writes nothing more.
   */
  async function attempt(run: RunRow, lease: Lease): Promise<WorkOutcome> {
    const a = await store.automations.byId(run.environmentId, run.automationId);
    const at = nowMs();
    if (!a || a.status === 'ARCHIVED') {
      await store.tx((tx) => tx.automations.advance(run.id, lease.untilMs, ended(run, 'CANCELLED', run.context, null, at)));
      return { kind: 'done' };
    }
    if (a.status === 'PAUSED') {
      await store.tx((tx) => tx.automations.hold(run.id, lease.untilMs, at));
      return { kind: 'done' };
    }
    const def: AutomationDefinition = await deps.automations.publishedDefinition(run.automationId, run.version);
    let stepId = run.stepId;
    let seq = run.stepSeq;
    let context = JSON.parse(run.context) as Record<string, unknown>;
    for (let i = 0; i < STEPS_PER_ATTEMPT && stepId !== null; i++) {
      const step = def.steps[stepId];
      const scope = await scopeOf(run, context);
      // A step row of this attempt's first step may be there (a wait started, a retry); the later
      // steps' rows are not: a row is written only with the run's advance past the step before it,
      // conditional on the lease this attempt holds.
      const held = i === 0 ? await store.automations.step(run.id, seq) : undefined;
      const startedAt = held?.startedAt ?? iso(nowMs());
      const r = await execute({ ...run, stepId, stepSeq: seq, context: JSON.stringify(context) }, step, stepId, scope, held);
      const now = nowMs();
      const base = { runId: run.id, seq, environmentId: run.environmentId, profileId: run.profileId, stepId, kind: step.type, startedAt, attempts: Math.max(1, run.attempts) };
      const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
      let refused: string | undefined;
      if (r.kind === 'next') {
        const nextContext = r.context ?? context;
        const committed = await commit(run.id, async (tx) => {
          await r.effects?.(tx);
          await tx.automations.putStep({ ...base, status: r.status ?? 'SUCCEEDED', finishedAt: iso(now), error: null, output: json(r.output) });
          const done = r.next === undefined;
          const ok = await tx.automations.advance(run.id, lease.untilMs, {
            status: done ? 'COMPLETED' : 'RUNNING',
            stepId: r.next ?? null,
            stepSeq: seq + 1,
            dueMs: done ? null : lease.untilMs,
            waitingEvent: null,
            context: JSON.stringify(nextContext),
            error: null,
            endedAt: done ? iso(now) : null,
            endedMs: done ? now : null,
          });
          if (!ok) throw new LeaseLost();
          return true;
        }).catch((e: unknown) => {
          if (!(e instanceof StepRefused)) return lost(e);
          refused = e.message;
          return false;
        });
        if (refused === undefined) {
          if (!committed) return { kind: 'done' };
          r.after?.();
          stepId = r.next ?? null;
          seq += 1;
          context = nextContext;
          run = { ...run, attempts: 1 };
          continue;
        }
      }
      if (r.kind === 'exit') {
        await commit(run.id, async (tx) => {
          await tx.automations.putStep({ ...base, status: 'SUCCEEDED', finishedAt: iso(now), error: null, output: null });
          if (!(await tx.automations.advance(run.id, lease.untilMs, { ...ended({ ...run, stepSeq: seq + 1 }, 'EXITED', JSON.stringify(context), null, now), stepSeq: seq + 1 }))) throw new LeaseLost();
        }).catch(lost);
        return { kind: 'done' };
      }
      if (r.kind === 'wait') {
        await commit(run.id, async (tx) => {
          await tx.automations.putStep({ ...base, status: 'RUNNING', finishedAt: null, error: null, output: json(r.output) });
          const ok = await tx.automations.advance(run.id, lease.untilMs, {
            status: 'WAITING',
            stepId,
            stepSeq: seq,
            dueMs: r.untilMs,
            waitingEvent: r.waitingEvent,
            context: JSON.stringify(context),
            error: null,
            endedAt: null,
            endedMs: null,
          });
          if (!ok) throw new LeaseLost();
        }).catch(lost);
        return { kind: 'done' };
      }
      if (r.kind === 'retry') {
        await commit(run.id, async (tx) => {
          await tx.automations.putStep({ ...base, status: 'RUNNING', finishedAt: null, error: r.error, output: null });
          if (!(await tx.automations.retryStep(run.id, lease.untilMs, r.dueMs, r.error))) throw new LeaseLost();
        }).catch(lost);
        return { kind: 'done' };
      }
      // Failed for good (r.kind 'fail', or an effect refused in its transaction): the run ends
      // FAILED, or goes on at the step's onFailure (the execution stays FAILED with its error).
      const error = r.kind === 'fail' ? r.error : refused!;
      const onFailure = 'onFailure' in step ? step.onFailure : undefined;
      const committed = await commit(run.id, async (tx) => {
        await tx.automations.putStep({ ...base, status: 'FAILED', finishedAt: iso(now), error, output: onFailure === undefined ? null : json({ onFailure }) });
        const ok = await tx.automations.advance(
          run.id,
          lease.untilMs,
          onFailure === undefined
            ? { ...ended({ ...run, stepSeq: seq }, 'FAILED', JSON.stringify(context), error, now), stepId }
            : { status: 'RUNNING', stepId: onFailure, stepSeq: seq + 1, dueMs: lease.untilMs, waitingEvent: null, context: JSON.stringify(context), error: null, endedAt: null, endedMs: null },
        );
        if (!ok) throw new LeaseLost();
        return true;
      }).catch(lost);
      if (!committed || onFailure === undefined) return { kind: 'done' };
      stepId = onFailure;
      seq += 1;
      run = { ...run, attempts: 1 };
    }
    // Yielded after STEPS_PER_ATTEMPT instant steps: due again at once (lease held until now).
    if (stepId !== null) await store.tx((tx) => tx.automations.renew(run.id, lease.untilMs, nowMs())).catch(() => false);
    return { kind: 'done' };
  }

  const lost = (e: unknown): false => {
    if (e instanceof LeaseLost) {
      logger.warn('automation run lease lost: another process took the run over', {});
      return false;
    }
    throw e;
  };

  const worker = createWorker<RunRow>(
    {
      name: 'automation_runs',
      leaseMs: deps.options?.leaseMs ?? 30_000,
      // SQLite: 64 attempts at once (16 before): the steps of more runs share each group commit,
      // and a push or webhook waiting on its answer holds one lane (bench/automations.mjs:
      // 365-393 -> 263-328 us of CPU per step, docs/benchmarks.md). PostgreSQL: 16, each step its
      // own transaction on a pool of 10 connections (64 measured no better there, under load).
      batch: deps.options?.batch ?? (sqlite ? 64 : 50),
      concurrency: deps.options?.concurrency ?? (sqlite ? 64 : 16),
      claim: (now, until, limit) => store.tx((tx) => tx.automations.claim(now, until, limit)),
      nextDueMs: () => store.automations.nextDue(),
      attempts: (run) => run.attempts,
      // Unexpected failures of an attempt (the database away): tried again with backoff, never given up.
      retry: () => ({ maxAttempts: Number.MAX_SAFE_INTEGER, baseMs: 1_000, capMs: 300_000 }),
      attempt: (run, lease) => attempt(run, lease),
      // The attempt wrote the run's next state itself; an unexpected failure moves its due time.
      settle: (run, until, s) => (s.kind === 'done' ? Promise.resolve(true) : store.tx((tx) => tx.automations.retryStep(run.id, until, s.kind === 'retry' ? s.dueMs : nowMs() + 60_000, s.error))),
      renew: (run, from, to) => store.tx((tx) => tx.automations.renew(run.id, from, to)),
    },
    { clock, logger, metrics: deps.metrics, idleMs: deps.options?.idleMs ?? 1_000 },
  );

  const events = createEventHandling({ store, clock, logger, automations: deps.automations, wake: () => worker.wake() });

  return { run: worker.run, wake: worker.wake, start: worker.start, stop: worker.stop, onEvents: events.onEvents, needsEvents: events.needsEvents, forget: events.forget };
}


function ended(run: Pick<RunRow, 'stepId' | 'stepSeq'>, status: 'CANCELLED' | 'EXITED' | 'FAILED', context: string, error: string | null, atMs: number) {
  return { status, stepId: run.stepId, stepSeq: run.stepSeq, dueMs: null, waitingEvent: null, context, error, endedAt: new Date(atMs).toISOString(), endedMs: atMs };
}

class LeaseLost extends Error {}
/** A step's effect refused in its transaction (an in-app message that is not there): the step fails, nothing of it stays. */
class StepRefused extends Error {}

/** The inbox entry an in-app step writes: one per run and step (a repeated attempt writes the same id, undone with its transaction). */
const inboxEntryId = (runId: string, stepId: string) => derivedId(`${runId}:${stepId}:inbox`);

export type AutomationEngine = ReturnType<typeof createAutomationEngine>;
