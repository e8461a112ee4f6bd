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
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import type { AutomationDefinition } from './schemas';
import type { ProfileReads } from './entry';
import type { AutomationService } from './service';
import type { RunRow } from './store';
import { createEventHandling } from './events';
import { createStepExecutor, StepRefused, type EngineStores, type SendPort, type WebhookPort } from './steps';
import { automationCommitter } from './store';

export type { SendPort, WebhookPort } from './steps';

type Stores = EngineStores;

/** Steps executed in one attempt before the run is put back in the queue (a long chain of instant steps yields). */
const STEPS_PER_ATTEMPT = 25;

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

  const steps = createStepExecutor({ clock, profiles: deps.profiles, sends: deps.sends, webhooks: deps.webhooks, appIdsOf: deps.appIdsOf, notices });

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
      const scope = await steps.scopeOf(run, context);
      // A step row of this attempt's first step may be there (a wait started, a retry); the later
      // steps' rows are not: a row is written only with the run's advance past the step before it,
      // conditional on the lease this attempt holds.
      const held = i === 0 ? await store.automations.step(run.id, seq) : undefined;
      const startedAt = held?.startedAt ?? iso(nowMs());
      const r = await steps.execute({ ...run, stepId, stepSeq: seq, context: JSON.stringify(context) }, step, stepId, scope, held);
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


export type AutomationEngine = ReturnType<typeof createAutomationEngine>;
