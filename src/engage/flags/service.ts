/**
 * Feature flags' administration (issue 26 "FEATURE_FLAGS", "A flag edit … is versioned … and can
 * be rolled back"): create, edit, archive, restore and roll back, each one transaction that takes
 * the definitions revision first (engage/definitions: its lock orders the commits the sync reads),
 * writes the flag's next version in flag_versions with its origin and actor, and records an audit
 * event with the diff (diff.ts); the sync's change notice goes out after the commit. Scheduled
 * changes are in schedules.ts, exposures in exposures.ts. docs/flags.md is the guide,
 * docs/decisions.md "Feature flags administration" the choices.
 */
import type { Clock } from '../../platform/clock';
import type { TxRunner } from '../../platform/store/store';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { Violation } from '../../platform/http/schema';
import type { WorkStore } from '../../platform/work/store';
import { nextDefinitionRevisionIn, type DefinitionsTx } from '../definitions/service';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { resolveTargetApps } from '../shared/target-apps';
import { KEY_PATTERN } from '../shared/schemas';
import { canonicalJson, diffFlags } from './diff';
import { FlagErrors } from './errors';
import { flagViolations, type FlagDefinition } from './schemas';
import type { FlagAdminRow, FlagOrigin, FlagStore } from './store';

const KEY = new RegExp(KEY_PATTERN);

export type FlagStores = { flags: FlagStore; work: WorkStore } & DefinitionsTx & AuditTx;

/** Who edits: the administration API, the CLI or `engage apply` (ROLLBACK and SCHEDULE are the service's own). */
export type EditOrigin = Extract<FlagOrigin, 'API' | 'CLI' | 'APPLY'>;

export interface EditOptions {
  origin?: EditOrigin;
  /** `engage apply` edits the flags it declares (configuration-managed). */
  allowManaged?: boolean;
  /** Optimistic concurrency (If-Match): the edit applies only to this version (409 flag_version_conflict). */
  expectedVersion?: number;
}

/** A flag as lists show it: no definition (show has it). */
export interface FlagSummary {
  environmentId: string;
  key: string;
  kind: FlagDefinition['kind'];
  description: string | null;
  status: 'ACTIVE' | 'ARCHIVED';
  version: number;
  /** The definitions revision of the flag's last change (the sync's order). */
  revision: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface FlagView extends FlagSummary {
  definition: FlagDefinition;
}

export const summaryOf = (environmentId: string, r: FlagAdminRow): FlagSummary => {
  const d = JSON.parse(r.definition) as FlagDefinition;
  return {
    environmentId,
    key: r.key,
    kind: d.kind,
    description: d.description ?? null,
    status: r.status,
    version: r.version,
    revision: r.revision,
    configurationManaged: Number(r.configurationManaged) === 1,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
};
const viewOf = (environmentId: string, r: FlagAdminRow): FlagView => ({ ...summaryOf(environmentId, r), definition: JSON.parse(r.definition) as FlagDefinition });

/** Thrown inside a transaction to undo it when the edit changes nothing (the revision it took goes back too). */
class Unchanged extends Error {}

const actorText = (a: AuditActor) => a.subject;

export function createFlagService(deps: {
  store: FlagStores & TxRunner<FlagStores>;
  clock: Clock;
  environments: Pick<EnvironmentService, 'resolve' | 'listApps'>;
  notices?: ChangeNotices;
}) {
  const { store, clock, environments } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const now = () => clock.now().toISOString();

  /**
   * The definition a flag file stands for: `targetApps` named by id or by name (as template
   * files name apps) resolved to the app ids evaluate.ts compares, `status` ACTIVE unless given,
   * then every rule of `flagViolations`. An app of another environment is unknown here (400).
   */
  async function definitionOf(environmentId: string, file: unknown, defaults: { key?: string; status: FlagDefinition['status'] }): Promise<FlagDefinition> {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) throw FlagErrors.invalid('body: must be a JSON object (a flag file, docs/flags.md)');
    const f = { ...(file as Record<string, unknown>) };
    if (defaults.key !== undefined) {
      if (f.key !== undefined && f.key !== defaults.key) throw FlagErrors.keyImmutable(defaults.key);
      f.key = defaults.key;
    }
    if (f.status === undefined) f.status = defaults.status;
    const problems: Violation[] = [];
    await resolveTargetApps(environments, environmentId, f, problems);
    problems.push(...flagViolations(f));
    if (problems.length > 0) throw FlagErrors.violations(problems);
    return JSON.parse(JSON.stringify(f)) as FlagDefinition;
  }

  async function find(environment: string, key: string) {
    const env = await environments.resolve(environment);
    const row = KEY.test(key) ? await store.flags.find(env.id, key) : undefined;
    if (!row) throw FlagErrors.flagNotFound(key);
    return { env, row };
  }

  /**
   * The flag's next version, in one transaction: the definitions revision first (its lock
   * orders this commit among the environment's definition changes), then the flag read under
   * it, the checks (configuration-managed, expected version), the new definition, the flags
   * row, the version row and the audit event. An edit that changes nothing writes nothing.
   */
  async function commitVersion(
    environmentId: string,
    key: string,
    edit: {
      action: string;
      origin: FlagOrigin;
      actor: AuditActor;
      opts: EditOptions;
      next: (tx: FlagStores, current: FlagDefinition, row: FlagAdminRow) => Promise<FlagDefinition> | FlagDefinition;
      details?: Record<string, unknown>;
    },
  ): Promise<{ view: FlagView; changed: boolean }> {
    const at = now();
    try {
      const row = await store.tx(async (tx) => {
        const revision = await nextDefinitionRevisionIn(tx, environmentId, at);
        const cur = await tx.flags.find(environmentId, key);
        if (!cur) throw FlagErrors.flagNotFound(key);
        if (Number(cur.configurationManaged) === 1 && !edit.opts.allowManaged) throw configurationManaged(`flag ${key}`);
        if (edit.opts.expectedVersion !== undefined && edit.opts.expectedVersion !== cur.version) throw FlagErrors.versionConflict(key, edit.opts.expectedVersion, cur.version);
        const before = JSON.parse(cur.definition) as FlagDefinition;
        const def = await edit.next(tx, before, cur);
        if (canonicalJson(before) === canonicalJson(def)) throw new Unchanged();
        const version = cur.version + 1;
        const json = JSON.stringify(def);
        if (!(await tx.flags.replace(environmentId, key, cur.version, { status: def.status, version, revision, definition: json }, at))) {
          throw FlagErrors.versionConflict(key, cur.version, cur.version + 1);
        }
        await tx.flags.insertVersion(environmentId, key, { version, definition: json, origin: edit.origin, actor: actorText(edit.actor) }, at);
        await auditIn(tx, edit.actor, edit.action, { type: 'flag', id: key }, { environmentId, key, version, origin: edit.origin, ...edit.details, changes: diffFlags(before, def) }, at);
        tx.afterCommit(() => notices.definitionsChanged(environmentId));
        return (await tx.flags.find(environmentId, key))!;
      });
      return { view: viewOf(environmentId, row), changed: true };
    } catch (e) {
      if (!(e instanceof Unchanged)) throw e;
      return { view: viewOf(environmentId, (await store.flags.find(environmentId, key))!), changed: false };
    }
  }

  const origin = (opts: EditOptions): EditOrigin => opts.origin ?? 'API';

  return {
    definitionOf,

    /** A new flag from a flag file: version 1, ACTIVE unless the file says ARCHIVED. 409 flag_exists. */
    async create(input: { environment: string; file: unknown }, actor: AuditActor, opts: EditOptions = {}): Promise<FlagView> {
      const env = await environments.resolve(input.environment);
      const def = await definitionOf(env.id, input.file, { status: 'ACTIVE' });
      const at = now();
      const json = JSON.stringify(def);
      const row = await store.tx(async (tx) => {
        const revision = await nextDefinitionRevisionIn(tx, env.id, at);
        if (!(await tx.flags.insert(env.id, def.key, def.status, revision, json, at))) throw FlagErrors.flagExists(def.key);
        await tx.flags.insertVersion(env.id, def.key, { version: 1, definition: json, origin: origin(opts), actor: actorText(actor) }, at);
        await auditIn(tx, actor, 'flag.created', { type: 'flag', id: def.key }, { environmentId: env.id, key: def.key, version: 1, origin: origin(opts), changes: diffFlags(null, def) }, at);
        tx.afterCommit(() => notices.definitionsChanged(env.id));
        return (await tx.flags.find(env.id, def.key))!;
      });
      return viewOf(env.id, row);
    },

    /**
     * The flag's next version from a flag file (the key may be left out; it cannot change; the
     * status stays as it is unless the file gives one). A file equal to the current definition
     * makes no version (`changed: false`): an edit is idempotent, and `engage apply` of an
     * unchanged file writes nothing.
     */
    async update(input: { environment: string; key: string; file: unknown }, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(input.environment, input.key);
      const def = await definitionOf(env.id, input.file, { key: row.key, status: row.status });
      return commitVersion(env.id, row.key, { action: 'flag.updated', origin: origin(opts), actor, opts, next: () => def });
    },

    /** ARCHIVED: the sync sends a tombstone; the definition is otherwise kept, and restore brings it back. */
    archive: async (environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) => {
      const { env, row } = await find(environment, key);
      return commitVersion(env.id, row.key, { action: 'flag.archived', origin: origin(opts), actor, opts, next: (_tx, d) => ({ ...d, status: 'ARCHIVED' }) });
    },

    /** ACTIVE again, with the definition it had when archived (a new version). */
    restore: async (environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) => {
      const { env, row } = await find(environment, key);
      return commitVersion(env.id, row.key, { action: 'flag.restored', origin: origin(opts), actor, opts, next: (_tx, d) => ({ ...d, status: 'ACTIVE' }) });
    },

    /**
     * A new version whose definition is version `to`'s (its status included), origin ROLLBACK.
     * Rolling back to a definition equal to the current one makes no version.
     */
    async rollback(environment: string, key: string, to: number, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(environment, key);
      return commitVersion(env.id, row.key, {
        action: 'flag.rolled_back',
        origin: 'ROLLBACK',
        actor,
        opts,
        details: { toVersion: to, by: origin(opts) },
        next: async (tx) => {
          const v = await tx.flags.version(env.id, row.key, to);
          if (!v) throw FlagErrors.versionNotFound(row.key, to);
          return JSON.parse(v.definition) as FlagDefinition;
        },
      });
    },

    async show(environment: string, key: string): Promise<FlagView> {
      const { env, row } = await find(environment, key);
      return viewOf(env.id, row);
    },

    /** A page of the environment's flags, by key. */
    async page(environment: string, req: PageRequest): Promise<Page<FlagSummary>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.flags.page(env.id, limit, offset)).map((r) => summaryOf(env.id, r)), req);
    },

    /** Every flag of the environment with its definition (engage apply compares them). */
    async all(environment: string): Promise<FlagView[]> {
      const env = await environments.resolve(environment);
      return (await store.flags.all(env.id)).map((r) => viewOf(env.id, r));
    },

    /** A page of the flag's versions, newest first, without definitions. */
    async versions(environment: string, key: string, req: PageRequest) {
      const { env, row } = await find(environment, key);
      const { limit, offset } = limitOf(req);
      return pageFrom(await store.flags.versions(env.id, row.key, limit, offset), req);
    },

    async version(environment: string, key: string, version: number) {
      const { env, row } = await find(environment, key);
      const v = await store.flags.version(env.id, row.key, version);
      if (!v) throw FlagErrors.versionNotFound(row.key, version);
      return { ...v, definition: JSON.parse(v.definition) as FlagDefinition };
    },

    /** `engage apply` marks the flags it declares: the API and the CLI then refuse to change them (409 configuration_managed). */
    async markManaged(environmentId: string, key: string, actor: AuditActor): Promise<boolean> {
      return store.tx(async (tx) => {
        if (!(await tx.flags.mark(environmentId, key))) return false;
        await auditIn(tx, actor, 'flag.configuration_managed', { type: 'flag', id: key }, { environmentId, key, source: 'apply', changes: ['adopt'] }, now());
        return true;
      });
    },

    /** Exposures counted per experiment, flag version and variant (FLAG_EXPOSED, once per installation per experiment version). */
    async exposures(environment: string, key: string) {
      const { env, row } = await find(environment, key);
      return { environmentId: env.id, flagKey: row.key, items: await store.flags.exposureCounts(env.id, row.key) };
    },

    /** For schedules.ts: the same versioned write. */
    commitVersion,
    find,
  };
}

export type FlagService = ReturnType<typeof createFlagService>;
