/**
 * Subscription lists per environment (issue 26 PREFERENCES): created, edited, deleted and read
 * through this service by the administration API, the CLI and `engage apply`. Every write takes
 * the environment's definitions revision first (engage/definitions: commit order for the sync),
 * stores it in the row, audits in the same transaction and says `definitionsChanged` after the
 * commit. A deleted list keeps its row as a tombstone; creating its key again revives it as a new
 * list (docs/decisions.md "Subscription lists and push channels").
 */
import type { Clock } from '../../platform/clock';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { nextDefinitionRevisionIn, type DefinitionsTx } from '../definitions/service';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { KEY_PATTERN } from '../shared/schemas';
import { PreferenceErrors } from './errors';
import type { ListDefinition } from './read-store';
import { checkListFile, listDefinitionOf, type ListFile } from './schemas';
import type { ListStoreRow, PreferenceStore } from './store';

type Stores = { preferences: PreferenceStore } & DefinitionsTx & AuditTx;

const KEY = new RegExp(KEY_PATTERN);

export interface ListView extends ListDefinition {
  environmentId: string;
  /** The definitions revision of the list's last change (what the sync compares). */
  revision: number;
  /** Declared by `engage apply`: the API and the CLI refuse to change it (409 configuration_managed). */
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ManagedOption {
  allowManaged?: boolean;
  /** If-Match: the change applies only while the list is at this revision (409 list_version_conflict). */
  expectedRevision?: number;
}

const view = (r: ListStoreRow): ListView => {
  const d = JSON.parse(r.definition) as ListDefinition;
  return {
    ...d,
    environmentId: r.environmentId,
    revision: Number(r.revision),
    configurationManaged: Number(r.configurationManaged) === 1,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
};

/** The file checked by its schema, then the rule a schema cannot state. */
function definitionOf(file: unknown): ListDefinition {
  const bad = checkListFile(file);
  if (bad) throw PreferenceErrors.invalid(bad.message);
  const f = file as ListFile;
  // A list nobody can leave is one everybody is on: "critical but not subscribed by default" says two things.
  if (f.critical === true && f.defaultSubscribed === false) throw PreferenceErrors.invalid('defaultSubscribed: a critical list is always subscribed (leave it out or set it true)');
  return listDefinitionOf(f);
}

export function createPreferenceService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService; notices?: ChangeNotices }) {
  const { store, clock, environments } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const now = () => clock.now().toISOString();

  async function find(environment: string, key: string) {
    const env = await environments.resolve(environment);
    const row = KEY.test(key) ? await store.preferences.findList(env.id, key) : undefined;
    if (!row || Number(row.deleted) === 1) throw PreferenceErrors.listNotFound(key);
    return { env, row };
  }

  async function findMutable(environment: string, key: string, opts: ManagedOption) {
    const found = await find(environment, key);
    if (Number(found.row.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`list ${found.row.key}`);
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== Number(found.row.revision)) throw PreferenceErrors.versionConflict(found.row.key, opts.expectedRevision, Number(found.row.revision));
    return found;
  }

  /** A conditional write that wrote nothing: gone meanwhile (404), or moved on from the expected revision (409). */
  async function missed(tx: Stores, environmentId: string, key: string, opts: ManagedOption): Promise<never> {
    const cur = await tx.preferences.findList(environmentId, key);
    if (!cur || Number(cur.deleted) === 1 || opts.expectedRevision === undefined) throw PreferenceErrors.listNotFound(key);
    throw PreferenceErrors.versionConflict(key, opts.expectedRevision, Number(cur.revision));
  }

  /** One definition write: the revision first (its lock orders the commit), the change, the audit; the notice after commit. */
  async function write<R>(environmentId: string, change: (tx: Stores & TxScope, revision: number, at: string) => Promise<R>): Promise<R> {
    const out = await store.tx(async (tx) => {
      const at = now();
      const revision = await nextDefinitionRevisionIn(tx, environmentId, at);
      const r = await change(tx, revision, at);
      tx.afterCommit(() => notices.definitionsChanged(environmentId));
      return r;
    });
    return out;
  }

  const reread = async (environmentId: string, key: string) => view((await store.preferences.findList(environmentId, key))!);

  return {
    async create(input: { environment: string; file: unknown }, actor: AuditActor): Promise<ListView> {
      const env = await environments.resolve(input.environment);
      const def = definitionOf(input.file);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.preferences.createList(env.id, def.key, revision, JSON.stringify(def), at))) throw PreferenceErrors.listExists(def.key);
        await auditIn(tx, actor, 'list.created', { type: 'list', id: def.key }, { environmentId: env.id, key: def.key, revision }, at);
      });
      return reread(env.id, def.key);
    },

    /** The definition replaced whole by the file's (omitted optional fields take their defaults). The key cannot change. */
    async update(input: { environment: string; key: string; file: unknown }, actor: AuditActor, opts: ManagedOption = {}): Promise<ListView> {
      const { env, row } = await findMutable(input.environment, input.key, opts);
      const file = input.file as { key?: unknown } | null;
      if (file && typeof file === 'object' && !Array.isArray(file) && file.key !== undefined && file.key !== row.key) throw PreferenceErrors.keyImmutable(row.key);
      const def = definitionOf(file && typeof file === 'object' && !Array.isArray(file) ? { ...file, key: row.key } : file);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.preferences.updateList(env.id, row.key, revision, JSON.stringify(def), at, opts.expectedRevision))) await missed(tx, env.id, row.key, opts);
        await auditIn(tx, actor, 'list.updated', { type: 'list', id: row.key }, { environmentId: env.id, key: row.key, revision }, at);
      });
      return reread(env.id, row.key);
    },

    /** Soft: the row stays as the sync's tombstone, under a new revision. Installations' and profiles' choices stay too (a revived list finds them). */
    async delete(environment: string, key: string, actor: AuditActor, opts: ManagedOption = {}): Promise<ListView> {
      const { env, row } = await findMutable(environment, key, opts);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.preferences.deleteList(env.id, row.key, revision, at, opts.expectedRevision))) await missed(tx, env.id, row.key, opts);
        await auditIn(tx, actor, 'list.deleted', { type: 'list', id: row.key }, { environmentId: env.id, key: row.key, revision }, at);
      });
      // The tombstone: the definition as it was, under the deletion's revision.
      return reread(env.id, row.key);
    },

    async show(environment: string, key: string): Promise<ListView> {
      return view((await find(environment, key)).row);
    },

    /** A page of the environment's lists (deleted ones left out), by key. */
    async page(environment: string, req: PageRequest): Promise<Page<ListView>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.preferences.pageLists(env.id, limit, offset)).map(view), req);
    },

    /** `engage apply`'s configuration-managed mark (audited; no new revision: the sync does not carry it). False when already set. */
    async markManaged(environmentId: string, key: string, actor: AuditActor): Promise<boolean> {
      return store.tx(async (tx) => {
        if (!(await tx.preferences.markList(environmentId, key))) return false;
        await auditIn(tx, actor, 'list.configuration_managed', { type: 'list', id: key }, { environmentId, key, source: 'apply', changes: ['adopt'] }, now());
        return true;
      });
    },

    /** The environment's live list of that key (by environment id), or undefined: what a template's `list` is checked against. */
    async definition(environmentId: string, key: string): Promise<ListDefinition | undefined> {
      const row = KEY.test(key) ? await store.preferences.findList(environmentId, key) : undefined;
      return row && Number(row.deleted) === 0 ? (JSON.parse(row.definition) as ListDefinition) : undefined;
    },

    /** Every list of the environment (deleted ones left out), by key: the CLI's list and `engage apply`. */
    async list(environment: string): Promise<ListView[]> {
      const env = await environments.resolve(environment);
      return (await store.preferences.allLists(env.id)).map(view);
    },
  };
}

export type PreferenceService = ReturnType<typeof createPreferenceService>;
