/**
 * How a run of an automation starts (issue 28): `enter`, the one way, for the trigger endpoint and
 * event entries alike (the automation ACTIVE, the profile in the audience, the re-entry policy,
 * then the run row, the engine's work item), and `trigger`, the endpoint's checks and its
 * Idempotency-Key ledger around it. The published versions runs execute are read here too.
 */
import type { Clock } from '../../platform/clock';
import { digest, newTimeOrderedId } from '../../platform/crypto';
import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { TxRunner } from '../../platform/store/store';
import type { AccessKeyPrincipal } from '../environments/access-keys';
import type { EnvironmentService } from '../environments/service';
import { compileCondition, type FlagContext } from '../flags/evaluate';
import { AutomationErrors } from './errors';
import { AutomationBounds, type AutomationDefinition } from './schemas';
import type { AutomationRow, AutomationStore } from './store';
import type { AuditTx } from '../shared/audit';
import { automationCommitter } from './store';

/** The API entry's key: the trigger's path segment. */
export const AUTOMATION_KEY_PREFIX = 'aut_';

export type AutomationStores = { automations: AutomationStore } & AuditTx;

/** What entering a run reads of the profile (engage/profiles' read model). */
export interface ProfileReads {
  profile(environmentId: string, profileId: string): Promise<
    | {
        id: string;
        externalId: string | null;
        attributes: Record<string, unknown>;
        tags: string[];
        installations: { id: string; appId: string; platform: string }[];
      }
    | undefined
  >;
  installationAttributes(environmentId: string, installationId: string): Promise<Record<string, unknown>>;
  exists(environmentId: string, profileId: string): Promise<boolean>;
}

/** How a run entered: the trigger endpoint, or an EVENT_TRACKED of an event entry (its name and properties). */
export type Entry = { type: 'API' } | { type: 'EVENT'; name: string; properties: Record<string, unknown> };

export interface TriggerResponse {
  accepted: boolean;
  runId: string;
  enteredAt: string;
}
/** The context's bounds (docs/automations.md): a JSON object, at most 16 KB as JSON and 8 levels deep. */
export function contextProblem(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return 'must be a JSON object';
  const bytes = Buffer.byteLength(JSON.stringify(context));
  if (bytes > AutomationBounds.contextBytes) return `is ${bytes} bytes as JSON, more than ${AutomationBounds.contextBytes}`;
  const depth = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
  if (depth(context) > AutomationBounds.contextDepth) return `is nested more than ${AutomationBounds.contextDepth} levels deep`;
  return undefined;
}
export function createAutomationEntry(deps: {
  store: AutomationStores & TxRunner<AutomationStores>;
  clock: Clock;
  environments: Pick<EnvironmentService, 'listApps'>;
  profiles: ProfileReads;
  /** A run was committed: the engine looks at once. */
  wake: () => void;
}) {
  const { store, clock, environments, wake } = deps;
  // The environment's apps, kept a second (a refusal reads them again: an app just added counts).
  const appIds = appIdsCache((env) => environments.listApps(env));
  // SQLite: the runs entered in one turn share a commit, each in its savepoint (work.ts).
  const commit = automationCommitter(store, store.automations.dialect);


  /** Audiences compiled once per kept definition (published versions are kept per process). */
  const compiledAudiences = new WeakMap<object, ((ctx: FlagContext) => boolean)[]>();
  /** Whether the profile, with one of its installations (or none), meets every audience condition. */
  async function inAudience(environmentId: string, d: AutomationDefinition, profileId: string): Promise<boolean> {
    if (!d.audience || d.audience.length === 0) return true;
    const p = await deps.profiles.profile(environmentId, profileId);
    if (!p) return false;
    let tests = compiledAudiences.get(d.audience);
    if (!tests) compiledAudiences.set(d.audience, (tests = d.audience.map(compileCondition)));
    const readsInstallation = d.audience.some((c) => c.attribute.startsWith('installation.'));
    const profile = { id: p.id, externalId: p.externalId ?? '', attributes: p.attributes, tags: p.tags };
    const contexts: FlagContext[] = [];
    for (const i of p.installations.slice(0, 20)) {
      const attributes = readsInstallation ? await deps.profiles.installationAttributes(environmentId, i.id) : {};
      contexts.push({ installationId: i.id, app: i.appId, platform: i.platform, attributes, profile: p.externalId === null ? null : profile });
    }
    if (contexts.length === 0) contexts.push({ installationId: '', app: '', platform: '', profile: p.externalId === null ? null : profile });
    return contexts.some((ctx) => tests.every((t) => t(ctx)));
  }

  /** The re-entry policy (default NEVER): undefined when a new run may start, else why not. */
  async function reentryRefusal(tx: AutomationStores, d: AutomationDefinition, automationId: string, profileId: string, nowMs: number): Promise<string | undefined> {
    const r = d.reentry ?? { mode: 'NEVER' as const };
    // Always, with neither a cap nor an interval: nothing of the earlier runs decides (no read).
    if (r.mode === 'ALWAYS' && r.maxRunsPerProfile === undefined && r.minIntervalSeconds === undefined) return undefined;
    const held = await tx.automations.profileRuns(profileId, automationId);
    if (held.count === 0) return undefined;
    if (r.maxRunsPerProfile !== undefined && held.count >= r.maxRunsPerProfile) return `the profile had ${held.count} runs (at most ${r.maxRunsPerProfile})`;
    if (r.mode === 'NEVER') return 'the profile entered it before (mode NEVER)';
    if (r.mode === 'AFTER_END' && held.live > 0) return 'the profile’s previous run has not ended (mode AFTER_END)';
    if (r.minIntervalSeconds !== undefined && held.lastMs !== null && nowMs - held.lastMs < r.minIntervalSeconds * 1000) return `the profile entered it less than ${r.minIntervalSeconds} s ago`;
    return undefined;
  }

  /**
   * Starts a run of the automation's published version for the profile, or throws why not:
   * inactive, not in the audience, refused by re-entry. The audience is read before the
   * transaction; re-entry is decided inside it, under a lock on the (automation, profile) pair. A
   * run entered while the automation is being archived is cancelled by the engine at its first step.
   */
  async function enter(
    environmentId: string,
    a: AutomationRow,
    profileId: string,
    context: Record<string, unknown>,
    entry: Entry,
    opts: { inTx?: (tx: AutomationStores, run: TriggerResponse) => Promise<void>; runId?: string } = {},
  ) {
    if (a.status !== 'ACTIVE' || a.publishedVersion === null) throw AutomationErrors.inactive(a.status);
    const def = await publishedDefinition(a.id, a.publishedVersion);
    if (!(await inAudience(environmentId, def, profileId))) throw AutomationErrors.notInAudience();
    const at = clock.now();
    const run = { accepted: true, runId: opts.runId ?? newTimeOrderedId(), enteredAt: at.toISOString() };
    await commit(`${a.id}:${profileId}`, async (tx) => {
      await tx.automations.lockEntry(profileId, a.id);
      // The profile kept from erasure until this commits; one erased since the audience was read gets no run.
      if (!(await tx.automations.holdProfile(environmentId, profileId))) throw AutomationErrors.profileNotFound();
      // A run of this id is there already: this entry was made before (an event acted on twice).
      if (opts.runId !== undefined && (await tx.automations.run(environmentId, opts.runId))) return;
      const refused = await reentryRefusal(tx, def, a.id, profileId, at.getTime());
      if (refused) throw AutomationErrors.reentryRefused(refused);
      await tx.automations.insertRun({
        id: run.runId,
        environmentId,
        automationId: a.id,
        version: a.publishedVersion!,
        profileId,
        stepId: def.start,
        dueMs: at.getTime(),
        context: JSON.stringify(context),
        entry: JSON.stringify(entry),
        at: run.enteredAt,
        atMs: at.getTime(),
      });
      await opts.inTx?.(tx, run);
      tx.afterCommit(wake);
    });
    return run;
  }

  /** Published versions never change: kept per process. */
  const versions = new Map<string, AutomationDefinition>();
  async function publishedDefinition(automationId: string, version: number): Promise<AutomationDefinition> {
    const k = `${automationId}:${version}`;
    let d = versions.get(k);
    if (!d) {
      const text = await store.automations.version(automationId, version);
      if (text === undefined) throw new Error(`automation ${automationId} has no version ${version}`);
      d = JSON.parse(text) as AutomationDefinition;
      if (versions.size > 1000) versions.delete(versions.keys().next().value!);
      versions.set(k, d);
    }
    return d;
  }

  /**
   * POST …/automations/{automationApiKey}/trigger (spec 01, rule 8): the key names the
   * automation; it must be ACTIVE and target an app of the access key; the profile must be the
   * environment's; the context is bounded; then `enter`. With an Idempotency-Key, the first
   * answer is stored in the run's transaction and a retry gets it again (409 for another body).
   */
async function trigger(key: AccessKeyPrincipal, automationApiKey: string, body: { profileId: string; context?: unknown }, idempotencyKey?: string): Promise<{ replayed: boolean; response: TriggerResponse }> {
    const env = key.environmentId;
    const keyDigest = digest(automationApiKey);
    // Only a request with an Idempotency-Key is compared with another: its digest is made for it alone.
    const requestHash = idempotencyKey === undefined ? '' : requestDigest({ automationApiKey: keyDigest, profileId: body.profileId, context: body.context ?? {} });
    if (idempotencyKey !== undefined) {
      const found = await store.automations.findTrigger(env, idempotencyKey);
      if (found) {
        if (found.accessKeyId !== key.id) throw AutomationErrors.idempotencyReused();
        checkReplay(found.requestHash, requestHash, AutomationErrors.idempotencyReused);
        return { replayed: true, response: JSON.parse(found.response) as TriggerResponse };
      }
    }
    const a = automationApiKey.startsWith(AUTOMATION_KEY_PREFIX) ? await store.automations.byApiKey(keyDigest) : undefined;
    if (!a || a.environmentId !== env) throw AutomationErrors.triggerNotFound();
    if (a.status !== 'ACTIVE' || a.publishedVersion === null) throw AutomationErrors.inactive(a.status);
    const def = await publishedDefinition(a.id, a.publishedVersion);
    if (!def.entries.api) throw AutomationErrors.triggerNotFound();
    const inScope = (apps: readonly string[]) => apps.some((id) => key.appIds.has(id) || key.appIds.has(id.toLowerCase()));
    if (def.targetApps && def.targetApps.length > 0 ? !inScope(def.targetApps) : !inScope(await appIds(env)) && !inScope(await appIds(env, { fresh: true }))) throw AutomationErrors.appScope();
    const context = body.context ?? {};
    const problem = contextProblem(context);
    if (problem) throw AutomationErrors.contextTooLarge(problem);
    // With an audience the profile is read before the run's transaction, and one that is not
    // there must say so rather than "not in the audience"; without one, the transaction's own
    // hold on the profile (enter) answers profile_not_found.
    if (def.audience && def.audience.length > 0 && !(await deps.profiles.exists(env, body.profileId))) throw AutomationErrors.profileNotFound();
    let replay: TriggerResponse | undefined;
    try {
      const response = await enter(env, a, body.profileId, context as Record<string, unknown>, { type: 'API' }, {
        inTx: async (tx, run) => {
          if (idempotencyKey !== undefined && !(await tx.automations.insertTrigger(env, idempotencyKey, key.id, requestHash, JSON.stringify(run), run.enteredAt))) {
            // Another request with this key committed first: undo this run, answer as it was answered.
            throw new ConcurrentTrigger();
          }
        },
      });
      return { replayed: false, response };
    } catch (e) {
      if (!(e instanceof ConcurrentTrigger)) throw e;
      const found = (await store.automations.findTrigger(env, idempotencyKey!))!;
      if (found.accessKeyId !== key.id) throw AutomationErrors.idempotencyReused();
      checkReplay(found.requestHash, requestHash, AutomationErrors.idempotencyReused);
      replay = JSON.parse(found.response) as TriggerResponse;
      return { replayed: true, response: replay };
    }
  }

  return { enter, trigger, publishedDefinition };
}

class ConcurrentTrigger extends Error {}

/** How long an environment's app ids are kept (appIdsCache). */
export const APP_IDS_TTL_MS = 1_000;

/**
 * An environment's app ids, read again once `ttlMs` have passed (on the process's monotonic clock,
 * `now`), or at once with `fresh`. Every trigger of an automation without target apps and every
 * push step asks for them; apps change rarely. Concurrent callers share one read; a failed read is
 * not kept. Within the `ttlMs` after an app is added or deleted through any process, a caller
 * may see the list before it (docs/decisions.md).
 */
export function appIdsCache(listApps: (environmentId: string) => Promise<readonly { id: string }[]>, ttlMs = APP_IDS_TTL_MS, now: () => number = () => performance.now()) {
  const held = new Map<string, { readMs: number; ids: Promise<string[]> }>();
  return (environmentId: string, opts: { fresh?: boolean } = {}): Promise<string[]> => {
    const at = now();
    const h = held.get(environmentId);
    if (h && !opts.fresh && at - h.readMs < ttlMs) return h.ids;
    const ids = listApps(environmentId).then((apps) => apps.map((a) => a.id));
    const entry = { readMs: at, ids };
    held.delete(environmentId);
    held.set(environmentId, entry);
    if (held.size > 1024) held.delete(held.keys().next().value!);
    ids.catch(() => (held.get(environmentId) === entry ? held.delete(environmentId) : undefined));
    return ids;
  };
}
