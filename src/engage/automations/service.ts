/**
 * Automations' administration and entry (issue 28): definitions with versions (a DRAFT is edited
 * freely; editing an ACTIVE or PAUSED automation publishes a new version at once, and runs stay on
 * the version they entered with), the API entry's rotatable key (shown once, stored as a digest),
 * pause/resume/archive, run inspection and cancellation, and `enter`: the one way a run starts,
 * for the trigger endpoint and event entries alike: the automation ACTIVE, the profile in the
 * audience, the re-entry policy, then the run row (its own durable work item, engine.ts).
 * docs/automations.md is the guide, docs/decisions.md "Automations" the choices.
 */
import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { everyRow, limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import { violation, ViolationCode, type Violation } from '../../platform/http/schema';
import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { TxRunner } from '../../platform/store/store';
import type { AccessKeyPrincipal } from '../environments/access-keys';
import type { EnvironmentService } from '../environments/service';
import { compileCondition, type FlagContext } from '../flags/evaluate';
import { canonicalJson } from '../flags/diff';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { configurationManaged } from '../shared/errors';
import { resolveTargetApps } from '../shared/target-apps';
import { KEY_PATTERN } from '../shared/schemas';
import { AutomationErrors } from './errors';
import { AutomationBounds, draftViolations, publishViolations, type AutomationDefinition, type AutomationStatus, type RunStatus } from './schemas';
import type { AutomationRow, AutomationStore, RunRow } from './store';

const KEY = new RegExp(KEY_PATTERN);
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

export interface EditOptions {
  allowManaged?: boolean;
  expectedVersion?: number;
}

export interface AutomationSummary {
  environmentId: string;
  key: string;
  id: string;
  name: string;
  status: AutomationStatus;
  version: number;
  publishedVersion: number | null;
  apiEntry: boolean;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AutomationView extends AutomationSummary {
  definition: AutomationDefinition;
}

const summaryOf = (environmentId: string, r: AutomationRow): AutomationSummary => {
  const d = JSON.parse(r.definition) as AutomationDefinition;
  return {
    environmentId,
    key: r.key,
    id: r.id,
    name: d.name,
    status: r.status,
    version: r.version,
    publishedVersion: r.publishedVersion,
    apiEntry: d.entries.api === true,
    configurationManaged: r.configurationManaged === 1,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
};
const viewOf = (environmentId: string, r: AutomationRow): AutomationView => ({ ...summaryOf(environmentId, r), definition: JSON.parse(r.definition) as AutomationDefinition });

export interface RunView {
  id: string;
  automationId: string;
  version: number;
  profileId: string;
  status: RunStatus;
  stepId: string | null;
  waitingEvent: string | null;
  dueAt: string | null;
  entry: unknown;
  context: unknown;
  error: string | null;
  enteredAt: string;
  endedAt: string | null;
}

export const runViewOf = (r: RunRow): RunView => ({
  id: r.id,
  automationId: r.automationId,
  version: r.version,
  profileId: r.profileId,
  status: r.status,
  stepId: r.stepId,
  waitingEvent: r.waitingEvent,
  dueAt: r.dueMs === null || r.status === 'COMPLETED' ? null : new Date(r.dueMs).toISOString(),
  entry: JSON.parse(r.entry),
  context: JSON.parse(r.context),
  error: r.error,
  enteredAt: r.enteredAt,
  endedAt: r.endedAt,
});

/** How a run entered: the trigger endpoint, or an EVENT_TRACKED of an event entry (its name and properties). */
export type Entry = { type: 'API' } | { type: 'EVENT'; name: string; properties: Record<string, unknown> };

export interface TriggerResponse {
  accepted: boolean;
  runId: string;
  enteredAt: string;
}

class Unchanged extends Error {}

/** The context's bounds (docs/automations.md): a JSON object, at most 16 KB as JSON and 8 levels deep. */
export function contextProblem(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return 'must be a JSON object';
  const bytes = Buffer.byteLength(JSON.stringify(context));
  if (bytes > AutomationBounds.contextBytes) return `is ${bytes} bytes as JSON, more than ${AutomationBounds.contextBytes}`;
  const depth = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
  if (depth(context) > AutomationBounds.contextDepth) return `is nested more than ${AutomationBounds.contextDepth} levels deep`;
  return undefined;
}

export function createAutomationService(deps: {
  store: AutomationStores & TxRunner<AutomationStores>;
  clock: Clock;
  environments: Pick<EnvironmentService, 'resolve' | 'listApps'>;
  profiles: ProfileReads;
  /** Whether the environment has an active template of that key / an in-app message of that key (checked at publish). */
  exists: { template(environmentId: string, key: string): Promise<boolean>; message(environmentId: string, key: string): Promise<boolean> };
  /** A run was committed: the engine looks at once. */
  wake?: () => void;
  /** An automation changed: this process's engine reads the environment's event entries and exits again at once (others within 5 s). */
  changed?: (environmentId: string) => void;
}) {
  const { store, clock, environments } = deps;
  const now = () => clock.now().toISOString();
  const wake = () => deps.wake?.();

  async function definitionOf(environmentId: string, file: unknown, key?: string): Promise<AutomationDefinition> {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) throw AutomationErrors.invalid('body: must be a JSON object (an automation file, docs/automations.md)');
    const f = { ...(file as Record<string, unknown>) };
    if (key !== undefined) {
      if (f.key !== undefined && f.key !== key) throw AutomationErrors.keyImmutable(key);
      f.key = key;
    }
    const problems: Violation[] = [];
    await resolveTargetApps(environments, environmentId, f, problems);
    problems.push(...draftViolations(f));
    if (problems.length > 0) throw AutomationErrors.violations(problems);
    return JSON.parse(JSON.stringify(f)) as AutomationDefinition;
  }

  /** Publish's rules: the graph's (schemas.ts) and the templates and messages its steps name. */
  async function checkPublishable(environmentId: string, d: AutomationDefinition): Promise<void> {
    const problems = publishViolations(d);
    for (const [id, s] of Object.entries(d.steps)) {
      if (s.type === 'push' && !(await deps.exists.template(environmentId, s.template))) problems.push(violation(ViolationCode.value, `steps.${id}.template`, `no active template ${s.template} in this environment`));
      if (s.type === 'in-app' && !(await deps.exists.message(environmentId, s.message))) problems.push(violation(ViolationCode.value, `steps.${id}.message`, `no in-app message ${s.message} in this environment`));
    }
    if (problems.length > 0) throw AutomationErrors.violations(problems);
  }

  async function find(environment: string, key: string) {
    const env = await environments.resolve(environment);
    const row = KEY.test(key) ? await store.automations.find(env.id, key) : undefined;
    if (!row) throw AutomationErrors.notFound(key);
    return { env, row };
  }

  async function transition(
    environmentId: string,
    key: string,
    t: { action: string; actor: AuditActor; opts: EditOptions; next: (cur: AutomationRow) => Pick<AutomationRow, 'status' | 'version' | 'definition' | 'publishedVersion'>; after?: (tx: AutomationStores, cur: AutomationRow) => Promise<void> },
  ): Promise<{ view: AutomationView; changed: boolean }> {
    const at = now();
    try {
      const row = await store.tx(async (tx) => {
        const cur = await tx.automations.find(environmentId, key);
        if (!cur) throw AutomationErrors.notFound(key);
        if (cur.configurationManaged === 1 && !t.opts.allowManaged) throw configurationManaged(`automation ${key}`);
        if (t.opts.expectedVersion !== undefined && t.opts.expectedVersion !== cur.version) throw AutomationErrors.versionConflict(key, t.opts.expectedVersion, cur.version);
        const next = t.next(cur);
        if (next.status === cur.status && next.version === cur.version && next.publishedVersion === cur.publishedVersion) throw new Unchanged();
        if (!(await tx.automations.replace(environmentId, key, cur, next, at))) throw AutomationErrors.versionConflict(key, cur.version, cur.version + 1);
        if (next.publishedVersion !== null && next.publishedVersion !== cur.publishedVersion) await tx.automations.insertVersion(cur.id, next.publishedVersion, environmentId, next.definition, at);
        await t.after?.(tx, cur);
        await auditIn(tx, t.actor, t.action, { type: 'automation', id: key }, { environmentId, key, version: next.version, status: next.status, publishedVersion: next.publishedVersion }, at);
        return (await tx.automations.find(environmentId, key))!;
      });
      deps.changed?.(environmentId);
      return { view: viewOf(environmentId, row), changed: true };
    } catch (e) {
      if (!(e instanceof Unchanged)) throw e;
      return { view: viewOf(environmentId, (await store.automations.find(environmentId, key))!), changed: false };
    }
  }

  const keep = (cur: AutomationRow) => ({ status: cur.status, version: cur.version, definition: cur.definition, publishedVersion: cur.publishedVersion });

  // ---- entering a run -------------------------------------------------------------------------

  /** Whether the profile, with one of its installations (or none), meets every audience condition. */
  async function inAudience(environmentId: string, d: AutomationDefinition, profileId: string): Promise<boolean> {
    if (!d.audience || d.audience.length === 0) return true;
    const p = await deps.profiles.profile(environmentId, profileId);
    if (!p) return false;
    const tests = d.audience.map(compileCondition);
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
    const run = { accepted: true, runId: opts.runId ?? newId(), enteredAt: at.toISOString() };
    await store.tx(async (tx) => {
      await tx.automations.lockEntry(profileId, a.id);
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

  return {
    definitionOf,
    publishedDefinition,
    enter,

    /** A new automation (DRAFT, version 1); with an API entry, its key, shown this once. */
    async create(input: { environment: string; file: unknown }, actor: AuditActor): Promise<AutomationView & { automationApiKey?: string }> {
      const env = await environments.resolve(input.environment);
      const def = await definitionOf(env.id, input.file);
      const at = now();
      const apiKey = def.entries.api ? newSecret(AUTOMATION_KEY_PREFIX) : undefined;
      const row = await store.tx(async (tx) => {
        if (!(await tx.automations.insert(env.id, { key: def.key, id: newId(), definition: JSON.stringify(def) }, at))) throw AutomationErrors.exists(def.key);
        if (apiKey) await tx.automations.setApiKey(env.id, def.key, digest(apiKey), at);
        await auditIn(tx, actor, 'automation.created', { type: 'automation', id: def.key }, { environmentId: env.id, key: def.key, version: 1, status: 'DRAFT' }, at);
        return (await tx.automations.find(env.id, def.key))!;
      });
      return { ...viewOf(env.id, row), ...(apiKey ? { automationApiKey: apiKey } : {}) };
    },

    /**
     * A new version from the file. A DRAFT keeps it as its draft; an ACTIVE or PAUSED automation
     * publishes it at once (its rules checked as at publish): new runs enter it, runs under way stay
     * on theirs. A file equal to the latest version changes nothing.
     */
    async update(input: { environment: string; key: string; file: unknown }, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(input.environment, input.key);
      const def = await definitionOf(env.id, input.file, row.key);
      if (row.status === 'ACTIVE' || row.status === 'PAUSED') await checkPublishable(env.id, def);
      return transition(env.id, row.key, {
        action: 'automation.updated',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'ARCHIVED') throw AutomationErrors.wrongStatus(cur.key, cur.status, 'edited');
          if (canonicalJson(JSON.parse(cur.definition)) === canonicalJson(def)) return keep(cur);
          const version = cur.version + 1;
          const live = cur.status === 'ACTIVE' || cur.status === 'PAUSED';
          return { ...keep(cur), version, definition: JSON.stringify(def), publishedVersion: live ? version : cur.publishedVersion };
        },
      });
    },

    /** DRAFT → ACTIVE: its latest version, checked (graph, templates, messages), becomes the one runs enter. */
    async publish(environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(environment, key);
      if (row.status === 'DRAFT') await checkPublishable(env.id, JSON.parse(row.definition) as AutomationDefinition);
      return transition(env.id, row.key, {
        action: 'automation.published',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'ACTIVE') return keep(cur);
          if (cur.status !== 'DRAFT') throw AutomationErrors.wrongStatus(cur.key, cur.status, 'published (resume a PAUSED one)');
          return { ...keep(cur), status: 'ACTIVE', publishedVersion: cur.version };
        },
      });
    },

    /** ACTIVE → PAUSED: no new runs; runs under way are held at their next step. */
    async pause(environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(environment, key);
      return transition(env.id, row.key, {
        action: 'automation.paused',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'PAUSED') return keep(cur);
          if (cur.status !== 'ACTIVE') throw AutomationErrors.wrongStatus(cur.key, cur.status, 'paused');
          return { ...keep(cur), status: 'PAUSED' };
        },
      });
    },

    /** PAUSED → ACTIVE: held runs continue where they were. */
    async resume(environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(environment, key);
      const out = await transition(env.id, row.key, {
        action: 'automation.resumed',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'ACTIVE') return keep(cur);
          if (cur.status !== 'PAUSED') throw AutomationErrors.wrongStatus(cur.key, cur.status, 'resumed');
          return { ...keep(cur), status: 'ACTIVE' };
        },
        after: async (tx, cur) => {
          await tx.automations.resume(cur.id);
        },
      });
      wake();
      return out;
    },

    /** ARCHIVED, for good: runs under way are cancelled. */
    async archive(environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(environment, key);
      return transition(env.id, row.key, {
        action: 'automation.archived',
        actor,
        opts,
        next: (cur) => (cur.status === 'ARCHIVED' ? keep(cur) : { ...keep(cur), status: 'ARCHIVED' }),
        after: async (tx, cur) => {
          await tx.automations.cancelAll(cur.id, now(), clock.now().getTime());
        },
      });
    },

    /** A new API entry key (the previous one stops working at once); shown this once. */
    async rotateKey(environment: string, key: string, actor: AuditActor, opts: EditOptions = {}): Promise<{ automationApiKey: string }> {
      const { env, row } = await find(environment, key);
      if (row.configurationManaged === 1 && !opts.allowManaged) throw configurationManaged(`automation ${key}`);
      if (!(JSON.parse(row.definition) as AutomationDefinition).entries.api) throw AutomationErrors.wrongStatus(row.key, 'without an api entry', 'given a key');
      const apiKey = newSecret(AUTOMATION_KEY_PREFIX);
      const at = now();
      await store.tx(async (tx) => {
        await tx.automations.setApiKey(env.id, row.key, digest(apiKey), at);
        await auditIn(tx, actor, 'automation.key_rotated', { type: 'automation', id: row.key }, { environmentId: env.id, key: row.key }, at);
      });
      return { automationApiKey: apiKey };
    },

    async show(environment: string, key: string) {
      const { env, row } = await find(environment, key);
      const runs = Object.fromEntries((await store.automations.runCounts(row.id)).map((r) => [r.status, r.n]));
      const steps: Record<string, Record<string, number>> = {};
      for (const s of await store.automations.stepCounts(row.id)) (steps[s.stepId] ??= {})[s.status] = s.n;
      return { ...viewOf(env.id, row), runs, steps };
    },

    async page(environment: string, req: PageRequest, status?: AutomationStatus): Promise<Page<AutomationSummary>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.automations.page(env.id, status ?? '', limit, offset)).map((r) => summaryOf(env.id, r)), req);
    },

    async all(environment: string): Promise<AutomationView[]> {
      const env = await environments.resolve(environment);
      return (await everyRow((limit, offset) => store.automations.page(env.id, '', limit, offset))).map((r) => viewOf(env.id, r));
    },

    async markManaged(environmentId: string, key: string, actor: AuditActor): Promise<boolean> {
      return store.tx(async (tx) => {
        if (!(await tx.automations.mark(environmentId, key))) return false;
        await auditIn(tx, actor, 'automation.configuration_managed', { type: 'automation', id: key }, { environmentId, key, source: 'apply' }, now());
        return true;
      });
    },

    /** The automation's runs, newest first, of one status and/or profile. */
    async runs(environment: string, key: string, req: PageRequest, filter: { status?: RunStatus; profileId?: string } = {}): Promise<Page<RunView>> {
      const { env, row } = await find(environment, key);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.automations.runs(env.id, row.id, filter, limit, offset)).map(runViewOf), req);
    },

    /** A run with its steps' executions (its timeline). */
    async run(environment: string, runId: string) {
      const env = await environments.resolve(environment);
      const r = await store.automations.run(env.id, runId);
      if (!r) throw AutomationErrors.runNotFound(runId);
      const steps = (await store.automations.steps(r.id)).map((s) => ({ ...s, output: s.output === null ? null : (JSON.parse(s.output) as unknown) }));
      return { ...runViewOf(r), steps: steps.map(({ runId: _r, ...s }) => s) };
    },

    async cancelRun(environment: string, runId: string, actor: AuditActor) {
      const env = await environments.resolve(environment);
      const r = await store.automations.run(env.id, runId);
      if (!r) throw AutomationErrors.runNotFound(runId);
      const at = clock.now();
      await store.tx(async (tx) => {
        if (!(await tx.automations.cancel(env.id, runId, at.toISOString(), at.getTime()))) throw AutomationErrors.runEnded(runId, r.status);
        await auditIn(tx, actor, 'automation.run_cancelled', { type: 'automation_run', id: runId }, { environmentId: env.id, runId }, at.toISOString());
      });
      return this.run(env.id, runId);
    },

    /**
     * POST …/automations/{automationApiKey}/trigger (spec 01, rule 8): the key names the
     * automation; it must be ACTIVE and target an app of the access key; the profile must be the
     * environment's; the context is bounded; then `enter`. With an Idempotency-Key, the first
     * answer is stored in the run's transaction and a retry gets it again (409 for another body).
     */
    async trigger(key: AccessKeyPrincipal, automationApiKey: string, body: { profileId: string; context?: unknown }, idempotencyKey?: string): Promise<{ replayed: boolean; response: TriggerResponse }> {
      const env = key.environmentId;
      const requestHash = requestDigest({ automationApiKey: digest(automationApiKey), profileId: body.profileId, context: body.context ?? {} });
      if (idempotencyKey !== undefined) {
        const found = await store.automations.findTrigger(env, idempotencyKey);
        if (found) {
          if (found.accessKeyId !== key.id) throw AutomationErrors.idempotencyReused();
          checkReplay(found.requestHash, requestHash, AutomationErrors.idempotencyReused);
          return { replayed: true, response: JSON.parse(found.response) as TriggerResponse };
        }
      }
      const a = automationApiKey.startsWith(AUTOMATION_KEY_PREFIX) ? await store.automations.byApiKey(digest(automationApiKey)) : undefined;
      if (!a || a.environmentId !== env) throw AutomationErrors.triggerNotFound();
      if (a.status !== 'ACTIVE' || a.publishedVersion === null) throw AutomationErrors.inactive(a.status);
      const def = await publishedDefinition(a.id, a.publishedVersion);
      if (!def.entries.api) throw AutomationErrors.triggerNotFound();
      const apps = def.targetApps && def.targetApps.length > 0 ? def.targetApps : (await environments.listApps(env)).map((x) => x.id.toLowerCase());
      if (!apps.some((id) => key.appIds.has(id) || key.appIds.has(id.toLowerCase()))) throw AutomationErrors.appScope();
      const context = body.context ?? {};
      const problem = contextProblem(context);
      if (problem) throw AutomationErrors.contextTooLarge(problem);
      if (!(await deps.profiles.exists(env, body.profileId))) throw AutomationErrors.profileNotFound();
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
    },
  };
}

class ConcurrentTrigger extends Error {}

export type AutomationService = ReturnType<typeof createAutomationService>;
