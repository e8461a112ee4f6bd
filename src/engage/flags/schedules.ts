/**
 * Scheduled flag changes (issue 26 "Scheduled changes"): a definition the flag takes at a time,
 * or a rollout plan expanded into one such definition per step (a rule's rollout weights stepped
 * up). Each change is a flag_schedules row and a durable work item due at its time
 * (platform/work, kind registered in src/work.ts), applied by whichever `engage serve` process
 * claims it: PENDING → APPLIED in the same transaction as the flag's new version (origin
 * SCHEDULE), so it applies exactly once however often the item runs. A change applies as stated
 * even when the flag was edited after it was scheduled (docs/decisions.md "Feature flags
 * administration").
 */
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { limitOf, pageFrom, type PageRequest } from '../../platform/http/pagination';
import { parseDateTime } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { insertWorkItemIn, type WorkKind } from '../../platform/work/queue';
import { nextDefinitionRevisionIn } from '../definitions/service';
import { auditIn, type AuditActor } from '../shared/audit';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { BUCKETS } from './bucketing';
import { canonicalJson, diffFlags } from './diff';
import { FlagErrors } from './errors';
import type { FlagDefinition } from './schemas';
import type { EditOptions, FlagService, FlagStores } from './service';
import type { FlagScheduleRow, ScheduleStatus } from './store';

/** The work kind of a scheduled flag change. */
export const FLAG_SCHEDULE_WORK = 'engage.flag.schedule';

export interface FlagScheduleWork {
  environmentId: string;
  scheduleId: string;
}

export const ScheduleBounds = {
  /** Pending changes of one flag. */
  pendingPerFlag: 50,
  /** Steps of one rollout plan. */
  rolloutSteps: 20,
  /** How far ahead a change may be scheduled. */
  horizonMs: 366 * 86_400_000,
} as const;

/** What a schedule request holds: one change (`at`, `definition`), or a rollout plan. */
export interface ScheduleInput {
  at?: string;
  definition?: unknown;
  rollout?: { rule: number; variant: string; steps: { at: string; percentage: number }[] };
}

export interface ScheduleView {
  id: string;
  flagKey: string;
  at: string;
  status: ScheduleStatus;
  actor: string;
  createdAt: string;
  appliedVersion: number | null;
  appliedAt: string | null;
  definition: FlagDefinition;
}

const scheduleView = (r: FlagScheduleRow): ScheduleView => ({
  id: r.id,
  flagKey: r.flagKey,
  at: new Date(r.dueMs).toISOString(),
  status: r.status,
  actor: r.actor,
  createdAt: r.createdAt,
  appliedVersion: r.appliedVersion,
  appliedAt: r.appliedAt,
  definition: JSON.parse(r.definition) as FlagDefinition,
});

/** Thrown inside the transaction to undo it: the change was applied, cancelled or failed already. */
class NotPending extends Error {}

/**
 * A rule's rollout with `variant` at `percentage` (two decimals: parts of 10,000) and the rest
 * shared by the split's other variants in proportion to their current weights (all to the first
 * of them when they all weigh 0), largest remainders rounding.
 */
export function steppedRollout(def: FlagDefinition, ruleIndex: number, variant: string, percentage: number): FlagDefinition {
  const rule = def.rules[ruleIndex];
  if (!rule) throw FlagErrors.invalid(`rollout.rule: the flag has no rule ${ruleIndex} (it has ${def.rules.length})`);
  if (!rule.rollout) throw FlagErrors.invalid(`rollout.rule: rule ${ruleIndex} serves no rollout`);
  const split = rule.rollout.variants;
  if (!split.some((s) => s.variant === variant)) throw FlagErrors.invalid(`rollout.variant: ${variant} is not in rule ${ruleIndex}'s rollout`);
  const weight = Math.round(percentage * 100);
  const others = split.filter((s) => s.variant !== variant);
  if (others.length === 0 && weight !== BUCKETS) throw FlagErrors.invalid(`rollout.variant: ${variant} is alone in rule ${ruleIndex}'s rollout; add the variant that takes the rest`);
  const rest = BUCKETS - weight;
  const total = others.reduce((n, s) => n + s.weight, 0);
  const exact = others.map((s, i) => (total === 0 ? (i === 0 ? rest : 0) : (rest * s.weight) / total));
  const shares = exact.map(Math.floor);
  let left = rest - shares.reduce((n, x) => n + x, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    shares[i]++;
    left--;
  }
  const weights = new Map(others.map((s, i) => [s.variant, shares[i]]));
  weights.set(variant, weight);
  const rules = def.rules.map((r, i) => (i === ruleIndex ? { ...r, rollout: { ...r.rollout!, variants: split.map((s) => ({ variant: s.variant, weight: weights.get(s.variant)! })) } } : r));
  return { ...def, rules };
}

export function createFlagSchedules(deps: {
  store: FlagStores & TxRunner<FlagStores>;
  clock: Clock;
  flags: FlagService;
  notices?: ChangeNotices;
  /** Wakes the durable work queue after a change is scheduled. */
  wake?: () => void;
}) {
  const { store, clock, flags } = deps;
  const notices = deps.notices ?? NO_NOTICES;

  function dueOf(at: unknown, field: string, nowMs: number): number {
    const ms = typeof at === 'string' ? parseDateTime(at) : NaN;
    if (Number.isNaN(ms)) throw FlagErrors.invalid(`${field}: must be an RFC 3339 date-time`);
    if (ms <= nowMs) throw FlagErrors.invalid(`${field}: must be in the future`);
    if (ms > nowMs + ScheduleBounds.horizonMs) throw FlagErrors.invalid(`${field}: must be within 366 days`);
    return ms;
  }

  /** The definitions the request stands for, checked as an edit would be, each with its due time. */
  async function changesOf(environmentId: string, key: string, current: FlagDefinition, input: ScheduleInput, nowMs: number) {
    if (input.rollout !== undefined) {
      if (input.at !== undefined || input.definition !== undefined) throw FlagErrors.invalid('rollout: give either rollout, or at and definition');
      const { rule, variant, steps } = input.rollout;
      if (!Array.isArray(steps) || steps.length === 0 || steps.length > ScheduleBounds.rolloutSteps) throw FlagErrors.invalid(`rollout.steps: must hold 1 to ${ScheduleBounds.rolloutSteps} steps`);
      let last = nowMs;
      return steps.map((s, i) => {
        const dueMs = dueOf(s.at, `rollout.steps[${i}].at`, nowMs);
        if (dueMs <= last && i > 0) throw FlagErrors.invalid(`rollout.steps[${i}].at: must be later than the step before`);
        last = dueMs;
        if (typeof s.percentage !== 'number' || !(s.percentage >= 0 && s.percentage <= 100) || Math.round(s.percentage * 100) !== s.percentage * 100) {
          throw FlagErrors.invalid(`rollout.steps[${i}].percentage: must be a number from 0 to 100 with at most two decimals`);
        }
        return { dueMs, definition: steppedRollout(current, rule, variant, s.percentage) };
      });
    }
    if (input.definition === undefined) throw FlagErrors.invalid('definition: is required (or give rollout)');
    const dueMs = dueOf(input.at, 'at', nowMs);
    return [{ dueMs, definition: await flags.definitionOf(environmentId, input.definition, { key, status: current.status }) }];
  }

  /**
   * Schedules changes of a flag (one, or a rollout plan's steps): rows PENDING and their work
   * items, in one transaction, audited; the sync's next answer shortens refreshAfterSeconds.
   */
  async function schedule(environment: string, key: string, input: ScheduleInput, actor: AuditActor, opts: EditOptions = {}): Promise<ScheduleView[]> {
    const { env, row } = await flags.find(environment, key);
    if (Number(row.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`flag ${row.key}`);
    const nowMs = clock.now().getTime();
    const at = new Date(nowMs).toISOString();
    const changes = await changesOf(env.id, row.key, JSON.parse(row.definition) as FlagDefinition, input, nowMs);
    const ids = changes.map(() => newId());
    await store.tx(async (tx) => {
      // The definitions revision moves on (no flag row does: no document is sent again), so every
      // process's sync reads the environment's due times afresh and tells the SDKs concerned to come back sooner.
      await nextDefinitionRevisionIn(tx, env.id, at);
      const pending = await tx.flags.pendingCount(env.id, row.key);
      if (pending + changes.length > ScheduleBounds.pendingPerFlag) throw FlagErrors.tooManySchedules(row.key, ScheduleBounds.pendingPerFlag);
      for (let i = 0; i < changes.length; i++) {
        await tx.flags.insertSchedule(env.id, { id: ids[i], flagKey: row.key, dueMs: changes[i].dueMs, definition: JSON.stringify(changes[i].definition), actor: actor.subject }, at);
        await insertWorkItemIn(tx, FLAG_SCHEDULE_WORK, { environmentId: env.id, scheduleId: ids[i] } satisfies FlagScheduleWork, nowMs, changes[i].dueMs);
      }
      const scheduled = changes.map((c, i) => ({ id: ids[i], at: new Date(c.dueMs).toISOString() }));
      await auditIn(tx, actor, 'flag.scheduled', { type: 'flag', id: row.key }, { environmentId: env.id, key: row.key, scheduled }, at);
      tx.afterCommit(() => {
        deps.wake?.();
        notices.definitionsChanged(env.id);
      });
    });
    return Promise.all(ids.map(async (id) => scheduleView((await store.flags.schedule(env.id, id))!)));
  }

  /**
   * Applies a scheduled change (the work item's run), and every pending change of the same flag
   * due before it, in due order: the definitions revision first, then each row PENDING → APPLIED
   * with the flag's next version (origin SCHEDULE, actor who scheduled it), in one transaction.
   * Two steps of a rollout due together (a server down over both times) thus apply in their
   * order, whichever item runs first; the other then finds nothing PENDING and does nothing, as
   * does a repeated run or one that raced a cancel.
   */
  async function apply(w: FlagScheduleWork): Promise<'applied' | 'unchanged' | 'skipped' | 'failed'> {
    const at = clock.now().toISOString();
    try {
      return await store.tx(async (tx) => {
        const revision = await nextDefinitionRevisionIn(tx, w.environmentId, at);
        const s = await tx.flags.schedule(w.environmentId, w.scheduleId);
        if (!s || s.status !== 'PENDING') throw new NotPending();
        const earlier = (await tx.flags.schedules(w.environmentId, s.flagKey, 'PENDING', ScheduleBounds.pendingPerFlag, 0)).filter((x) => x.dueMs <= s.dueMs && x.id !== s.id);
        let outcome: 'applied' | 'unchanged' | 'failed' = 'unchanged';
        for (const x of [...earlier, s]) {
          const cur = await tx.flags.find(w.environmentId, x.flagKey);
          if (!cur) {
            if (!(await tx.flags.settleSchedule(w.environmentId, x.id, 'FAILED', null, at))) throw new NotPending();
            outcome = 'failed';
            continue;
          }
          const before = JSON.parse(cur.definition) as FlagDefinition;
          const def = JSON.parse(x.definition) as FlagDefinition;
          if (canonicalJson(before) === canonicalJson(def)) {
            if (!(await tx.flags.settleSchedule(w.environmentId, x.id, 'APPLIED', cur.version, at))) throw new NotPending();
            continue;
          }
          const version = cur.version + 1;
          if (!(await tx.flags.settleSchedule(w.environmentId, x.id, 'APPLIED', version, at))) throw new NotPending();
          await tx.flags.replace(w.environmentId, x.flagKey, cur.version, { status: def.status, version, revision, definition: x.definition }, at);
          await tx.flags.insertVersion(w.environmentId, x.flagKey, { version, definition: x.definition, origin: 'SCHEDULE', actor: x.actor }, at);
          await auditIn(tx, { subject: x.actor, clientId: null }, 'flag.updated', { type: 'flag', id: x.flagKey }, {
            environmentId: w.environmentId, key: x.flagKey, version, origin: 'SCHEDULE', scheduleId: x.id, changes: diffFlags(before, def),
          }, at);
          outcome = 'applied';
        }
        if (outcome === 'applied') tx.afterCommit(() => notices.definitionsChanged(w.environmentId));
        return outcome;
      });
    } catch (e) {
      if (e instanceof NotPending) return 'skipped';
      throw e;
    }
  }

  return {
    schedule,
    apply,

    /** The flag's scheduled changes by due time, of one status or all. */
    async list(environment: string, key: string, status: ScheduleStatus | undefined, req: PageRequest) {
      const { env, row } = await flags.find(environment, key);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.flags.schedules(env.id, row.key, status ?? '', limit, offset)).map(scheduleView), req);
    },

    /** PENDING → CANCELLED; its work item then finds nothing to do. 409 schedule_not_pending otherwise. */
    async cancel(environment: string, key: string, id: string, actor: AuditActor, opts: EditOptions = {}): Promise<ScheduleView> {
      const { env, row } = await flags.find(environment, key);
      if (Number(row.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`flag ${row.key}`);
      const s = /^[0-9a-f-]{36}$/i.test(id) ? await store.flags.schedule(env.id, id.toLowerCase()) : undefined;
      if (!s || s.flagKey !== row.key) throw FlagErrors.scheduleNotFound(id);
      const at = clock.now().toISOString();
      const done = await store.tx(async (tx) => {
        await nextDefinitionRevisionIn(tx, env.id, at);
        if (!(await tx.flags.settleSchedule(env.id, s.id, 'CANCELLED', null, at))) return false;
        await auditIn(tx, actor, 'flag.schedule_cancelled', { type: 'flag', id: row.key }, { environmentId: env.id, key: row.key, scheduleId: s.id, at: new Date(s.dueMs).toISOString() }, at);
        tx.afterCommit(() => notices.definitionsChanged(env.id));
        return true;
      });
      const now = (await store.flags.schedule(env.id, s.id))!;
      if (!done) throw FlagErrors.scheduleNotPending(s.id, now.status);
      return scheduleView(now);
    },
  };
}

export type FlagSchedules = ReturnType<typeof createFlagSchedules>;

/** The work kind: applying is one transaction; a throw is retried by the queue. */
export const flagScheduleWork = (schedules: Pick<FlagSchedules, 'apply'>): WorkKind<FlagScheduleWork> => ({
  kind: FLAG_SCHEDULE_WORK,
  retry: { baseMs: 1_000, capMs: 60_000, maxAttempts: 50 },
  async run(w) {
    await schedules.apply(w);
  },
});
