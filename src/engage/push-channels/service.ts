/**
 * Push channels and categories per app (issue 26 PUSH): an ANDROID app's notification channels,
 * an IOS app's notification categories, created, edited, deleted and read through this service
 * by the administration API, the CLI and `engage apply`. The kind must be the app's platform's.
 * Writes follow the definitions' rules (preferences/service.ts): the revision first, the audit in
 * the transaction, `definitionsChanged` after the commit, a deleted one kept as a tombstone.
 */
import type { Clock } from '../../platform/clock';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { nextDefinitionRevisionIn, type DefinitionsTx } from '../definitions/service';
import type { AppRow, EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { KEY_PATTERN } from '../shared/schemas';
import { PushChannelErrors } from './errors';
import type { PushChannelDefinition } from './read-store';
import { KIND_OF_PLATFORM, pushChannelDefinitionOf, pushChannelViolation, type PushChannelFile } from './schemas';
import type { PushChannelStore, PushChannelStoreRow } from './store';

type Stores = { pushChannels: PushChannelStore } & DefinitionsTx & AuditTx;

const KEY = new RegExp(KEY_PATTERN);

export type PushChannelView = PushChannelDefinition & {
  environmentId: string;
  appId: string;
  revision: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
};

export interface ManagedOption {
  allowManaged?: boolean;
  /** If-Match: the change applies only while the channel is at this revision (409 push_channel_version_conflict). */
  expectedRevision?: number;
}

const view = (r: PushChannelStoreRow): PushChannelView => ({
  ...(JSON.parse(r.definition) as PushChannelDefinition),
  environmentId: r.environmentId,
  appId: r.appId,
  revision: Number(r.revision),
  configurationManaged: Number(r.configurationManaged) === 1,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** The file checked against its kind's schema, and the kind against the app's platform. */
function definitionOf(app: AppRow, file: unknown): PushChannelDefinition {
  const bad = pushChannelViolation(file);
  if (bad) throw PushChannelErrors.invalid(bad.message);
  const f = file as PushChannelFile;
  const want = KIND_OF_PLATFORM[app.platform];
  if (f.kind !== want) throw PushChannelErrors.invalid(`kind: app ${app.name} is ${app.platform}: it takes ${want}, not ${f.kind}`);
  return pushChannelDefinitionOf(f);
}

export function createPushChannelService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService; notices?: ChangeNotices }) {
  const { store, clock, environments } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const now = () => clock.now().toISOString();

  /** The app by id, public app key or name, in this environment only (another environment's is not found). */
  async function appOf(environment: string, app: string) {
    const env = await environments.resolve(environment);
    return { env, app: await environments.findApp(app, env.id) };
  }

  async function find(environment: string, appRef: string, key: string) {
    const { env, app } = await appOf(environment, appRef);
    const row = KEY.test(key) ? await store.pushChannels.findChannel(env.id, app.id, key) : undefined;
    if (!row || Number(row.deleted) === 1) throw PushChannelErrors.channelNotFound(key);
    return { env, app, row };
  }

  async function findMutable(environment: string, appRef: string, key: string, opts: ManagedOption) {
    const found = await find(environment, appRef, key);
    if (Number(found.row.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`push channel ${found.row.key}`);
    const at = Number(found.row.revision);
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== at) throw PushChannelErrors.versionConflict(found.row.key, opts.expectedRevision, at);
    return found;
  }

  /** A conditional write that wrote nothing: gone meanwhile (404), or moved on from the expected revision (409). */
  async function missed(tx: Stores, environmentId: string, appId: string, key: string, opts: ManagedOption): Promise<never> {
    const cur = await tx.pushChannels.findChannel(environmentId, appId, key);
    if (!cur || Number(cur.deleted) === 1 || opts.expectedRevision === undefined) throw PushChannelErrors.channelNotFound(key);
    throw PushChannelErrors.versionConflict(key, opts.expectedRevision, Number(cur.revision));
  }

  /** One definition write: the revision first (its lock orders the commit), the change, the audit; the notice after commit. */
  function write(environmentId: string, change: (tx: Stores & TxScope, revision: number, at: string) => Promise<void>): Promise<void> {
    return store.tx(async (tx) => {
      const at = now();
      await change(tx, await nextDefinitionRevisionIn(tx, environmentId, at), at);
      tx.afterCommit(() => notices.definitionsChanged(environmentId));
    });
  }

  const reread = async (environmentId: string, appId: string, key: string) => view((await store.pushChannels.findChannel(environmentId, appId, key))!);
  const target = (appId: string, key: string) => ({ type: 'push_channel', id: `${appId}/${key}` });

  return {
    async create(input: { environment: string; app: string; file: unknown }, actor: AuditActor): Promise<PushChannelView> {
      const { env, app } = await appOf(input.environment, input.app);
      const def = definitionOf(app, input.file);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.pushChannels.createChannel(env.id, app.id, def.key, revision, JSON.stringify(def), at))) throw PushChannelErrors.channelExists(def.key);
        await auditIn(tx, actor, 'push_channel.created', target(app.id, def.key), { environmentId: env.id, appId: app.id, key: def.key, kind: def.kind, revision }, at);
      });
      return reread(env.id, app.id, def.key);
    },

    /** The definition replaced whole by the file's. The key and the kind cannot change. */
    async update(input: { environment: string; app: string; key: string; file: unknown }, actor: AuditActor, opts: ManagedOption = {}): Promise<PushChannelView> {
      const { env, app, row } = await findMutable(input.environment, input.app, input.key, opts);
      const file = input.file as { key?: unknown } | null;
      const isObject = file !== null && typeof file === 'object' && !Array.isArray(file);
      if (isObject && file.key !== undefined && file.key !== row.key) throw PushChannelErrors.keyImmutable(row.key);
      const def = definitionOf(app, isObject ? { ...file, key: row.key } : file);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.pushChannels.updateChannel(env.id, app.id, row.key, revision, JSON.stringify(def), at, opts.expectedRevision))) await missed(tx, env.id, app.id, row.key, opts);
        await auditIn(tx, actor, 'push_channel.updated', target(app.id, row.key), { environmentId: env.id, appId: app.id, key: row.key, kind: def.kind, revision }, at);
      });
      return reread(env.id, app.id, row.key);
    },

    /** Soft: the row stays as the sync's tombstone, under a new revision. */
    async delete(environment: string, appRef: string, key: string, actor: AuditActor, opts: ManagedOption = {}): Promise<PushChannelView> {
      const { env, app, row } = await findMutable(environment, appRef, key, opts);
      await write(env.id, async (tx, revision, at) => {
        if (!(await tx.pushChannels.deleteChannel(env.id, app.id, row.key, revision, at, opts.expectedRevision))) await missed(tx, env.id, app.id, row.key, opts);
        await auditIn(tx, actor, 'push_channel.deleted', target(app.id, row.key), { environmentId: env.id, appId: app.id, key: row.key, revision }, at);
      });
      // The tombstone: the definition as it was, under the deletion's revision.
      return reread(env.id, app.id, row.key);
    },

    async show(environment: string, app: string, key: string): Promise<PushChannelView> {
      return view((await find(environment, app, key)).row);
    },

    /** A page of the app's channels or categories (deleted ones left out), by key. */
    async page(environment: string, appRef: string, req: PageRequest): Promise<Page<PushChannelView>> {
      const { env, app } = await appOf(environment, appRef);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.pushChannels.pageChannels(env.id, app.id, limit, offset)).map(view), req);
    },

    /** `engage apply`'s configuration-managed mark (audited; no new revision). False when already set. */
    async markManaged(environmentId: string, appId: string, key: string, actor: AuditActor): Promise<boolean> {
      return store.tx(async (tx) => {
        if (!(await tx.pushChannels.markChannel(environmentId, appId, key))) return false;
        await auditIn(tx, actor, 'push_channel.configuration_managed', target(appId, key), { environmentId, appId, key, source: 'apply', changes: ['adopt'] }, now());
        return true;
      });
    },

    /** Every channel or category of the app (deleted ones left out), by key. */
    async list(environment: string, appRef: string): Promise<PushChannelView[]> {
      const { env, app } = await appOf(environment, appRef);
      return (await store.pushChannels.allChannels(env.id, app.id)).map(view);
    },
  };
}

export type PushChannelService = ReturnType<typeof createPushChannelService>;
