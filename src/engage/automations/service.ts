/**
 * Automations' administration and entry (issue 28): definitions with versions (a DRAFT is edited
 * freely; editing an ACTIVE or PAUSED automation publishes a new version at once, and runs stay on
 * the version they entered with), the API entry's rotatable key (shown once, stored as a digest),
 * pause/resume/archive, run inspection and cancellation, and `enter`: the one way a run starts,
 * for the trigger endpoint and event entries alike (entry.ts): the automation ACTIVE, the profile in the
 * audience, the re-entry policy, then the run row (its own durable work item, engine.ts).
 * docs/automations.md is the guide, docs/decisions.md "Automations" the choices.
 */
import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { everyRow, limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import { violation, ViolationCode, type Violation } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import { canonicalJson } from '../flags/diff';
import { auditIn, type AuditActor } from '../shared/audit';
import { configurationManaged } from '../shared/errors';
import { resolveTargetApps } from '../shared/target-apps';
import { KEY_PATTERN } from '../shared/schemas';
import { AutomationErrors } from './errors';
import { draftViolations, publishViolations, type AutomationDefinition, type AutomationStatus, type RunStatus } from './schemas';
import type { AutomationRow, RunRow } from './store';
import { AUTOMATION_KEY_PREFIX, createAutomationEntry, type AutomationStores, type ProfileReads } from './entry';

const KEY = new RegExp(KEY_PATTERN);



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


class Unchanged extends Error {}


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
  const { enter, trigger, publishedDefinition } = createAutomationEntry({ store, clock, environments, profiles: deps.profiles, wake });

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


  return {
    definitionOf,
    publishedDefinition,
    enter,
    trigger,

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

  };
}


export type AutomationService = ReturnType<typeof createAutomationService>;
