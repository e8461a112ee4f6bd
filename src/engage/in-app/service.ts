/**
 * In-app messages' administration (issue 27 "In-app messages"): create, edit, publish, pause and
 * archive, each one transaction that takes the environment's definitions revision first when
 * devices can see the change (engage/definitions: its lock orders the commits the sync reads), an
 * audit event, and the sync's change notice after the commit. A message keeps its latest edit
 * beside the version devices are served: editing an ACTIVE message changes nothing on devices until
 * it is published again (as templates do). Results are the INTERACTION_TRACKED counts
 * (interactions.ts). docs/in-app.md is the guide, docs/decisions.md "In-app messages" the choices.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { everyRow, limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { Violation } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { nextDefinitionRevisionIn, type DefinitionsTx } from '../definitions/service';
import type { EnvironmentService } from '../environments/service';
import { canonicalJson } from '../flags/diff';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { resolveTargetApps } from '../shared/target-apps';
import { KEY_PATTERN } from '../shared/schemas';
import { InAppErrors } from './errors';
import { INTERACTION_TYPES, messageViolations, type InteractionType, type MessageDefinition, type MessageStatus } from './schemas';
import type { InAppStore, MessageRow } from './store';

const KEY = new RegExp(KEY_PATTERN);

/** What another context's transaction carries to call `grantIn` (automations, issue 28). */
export type InAppTx = { inApp: InAppStore };
export type InAppStores = InAppTx & DefinitionsTx & AuditTx;

export interface EditOptions {
  /** `engage apply` edits the messages it declares (configuration-managed). */
  allowManaged?: boolean;
  /** Optimistic concurrency (If-Match): the edit applies only to this version (409 message_version_conflict). */
  expectedVersion?: number;
}

/** A message as lists show it. */
export interface MessageSummary {
  environmentId: string;
  key: string;
  /** INTERACTION_TRACKED's experienceId. */
  id: string;
  description: string | null;
  status: MessageStatus;
  version: number;
  publishedVersion: number | null;
  /** Whether the latest edit is not the published version yet. */
  draftPending: boolean;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

export interface MessageView extends MessageSummary {
  definition: MessageDefinition;
  published: MessageDefinition | null;
}

const summaryOf = (environmentId: string, r: MessageRow): MessageSummary => {
  const d = JSON.parse(r.definition) as MessageDefinition;
  return {
    environmentId,
    key: r.key,
    id: r.id,
    description: d.description ?? null,
    status: r.status,
    version: r.version,
    publishedVersion: r.publishedVersion,
    draftPending: r.publishedVersion !== r.version,
    configurationManaged: r.configurationManaged === 1,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    publishedAt: r.publishedAt,
  };
};
const viewOf = (environmentId: string, r: MessageRow): MessageView => ({
  ...summaryOf(environmentId, r),
  definition: JSON.parse(r.definition) as MessageDefinition,
  published: r.publishedDefinition === null ? null : (JSON.parse(r.publishedDefinition) as MessageDefinition),
});

/** Results per variant ('' for a message without variants) and interaction type, with the daily series. */
export interface MessageResults {
  environmentId: string;
  key: string;
  id: string;
  fromDay: string;
  variants: { variantId: string | null; totals: Record<InteractionType, number>; daily: { day: string; counts: Record<InteractionType, number> }[] }[];
}

/** Days of results a request may ask for. */
export const RESULT_DAYS = { default: 30, max: 366 } as const;

class Unchanged extends Error {}

export function createInAppService(deps: {
  store: InAppStores & TxRunner<InAppStores>;
  clock: Clock;
  environments: Pick<EnvironmentService, 'resolve' | 'listApps'>;
  notices?: ChangeNotices;
}) {
  const { store, clock, environments } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const now = () => clock.now().toISOString();

  /** The definition a message file stands for: target apps named by id or name resolved to ids, then every rule of `messageViolations`. */
  async function definitionOf(environmentId: string, file: unknown, key?: string): Promise<MessageDefinition> {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) throw InAppErrors.invalid('body: must be a JSON object (a message file, docs/in-app.md)');
    const f = { ...(file as Record<string, unknown>) };
    if (key !== undefined) {
      if (f.key !== undefined && f.key !== key) throw InAppErrors.keyImmutable(key);
      f.key = key;
    }
    const problems: Violation[] = [];
    await resolveTargetApps(environments, environmentId, f, problems);
    problems.push(...messageViolations(f));
    if (problems.length > 0) throw InAppErrors.violations(problems);
    return JSON.parse(JSON.stringify(f)) as MessageDefinition;
  }

  async function find(environment: string, key: string) {
    const env = await environments.resolve(environment);
    const row = KEY.test(key) ? await store.inApp.find(env.id, key) : undefined;
    if (!row) throw InAppErrors.notFound(key);
    return { env, row };
  }

  /**
   * The message's next state in one transaction: the definitions revision first when devices can
   * see the change (`visible`), the row read under it, the checks, the write conditional on the
   * version and status read, the audit event, the notice after the commit.
   */
  async function transition(
    environmentId: string,
    key: string,
    t: {
      action: string;
      actor: AuditActor;
      opts: EditOptions;
      next: (cur: MessageRow, at: string) => Omit<Parameters<InAppStore['replace']>[3], 'revision'> & { visible: boolean };
    },
  ): Promise<{ view: MessageView; changed: boolean }> {
    const at = now();
    try {
      const row = await store.tx(async (tx) => {
        const cur = await tx.inApp.find(environmentId, key);
        if (!cur) throw InAppErrors.notFound(key);
        if (cur.configurationManaged === 1 && !t.opts.allowManaged) throw configurationManaged(`in-app message ${key}`);
        if (t.opts.expectedVersion !== undefined && t.opts.expectedVersion !== cur.version) throw InAppErrors.versionConflict(key, t.opts.expectedVersion, cur.version);
        const { visible, ...next } = t.next(cur, at);
        if (next.status === cur.status && next.version === cur.version && next.publishedVersion === cur.publishedVersion) throw new Unchanged();
        const revision = visible ? await nextDefinitionRevisionIn(tx, environmentId, at) : cur.revision;
        if (!(await tx.inApp.replace(environmentId, key, cur, { ...next, revision }, at))) throw InAppErrors.versionConflict(key, cur.version, cur.version + 1);
        await auditIn(tx, t.actor, t.action, { type: 'in_app_message', id: key }, { environmentId, key, version: next.version, status: next.status, publishedVersion: next.publishedVersion }, at);
        if (visible) tx.afterCommit(() => notices.definitionsChanged(environmentId));
        return (await tx.inApp.find(environmentId, key))!;
      });
      return { view: viewOf(environmentId, row), changed: true };
    } catch (e) {
      if (!(e instanceof Unchanged)) throw e;
      return { view: viewOf(environmentId, (await store.inApp.find(environmentId, key))!), changed: false };
    }
  }

  const keep = (cur: MessageRow) => ({
    status: cur.status,
    version: cur.version,
    definition: cur.definition,
    publishedVersion: cur.publishedVersion,
    publishedDefinition: cur.publishedDefinition,
    publishedAt: cur.publishedAt,
  });

  return {
    definitionOf,

    /** A new message from a message file: version 1, DRAFT (devices see it once published). 409 message_exists. */
    async create(input: { environment: string; file: unknown }, actor: AuditActor): Promise<MessageView> {
      const env = await environments.resolve(input.environment);
      const def = await definitionOf(env.id, input.file);
      const at = now();
      const row = await store.tx(async (tx) => {
        if (!(await tx.inApp.insert(env.id, { key: def.key, id: randomUUID(), definition: JSON.stringify(def), revision: 0 }, at))) throw InAppErrors.exists(def.key);
        await auditIn(tx, actor, 'in_app_message.created', { type: 'in_app_message', id: def.key }, { environmentId: env.id, key: def.key, version: 1, status: 'DRAFT' }, at);
        return (await tx.inApp.find(env.id, def.key))!;
      });
      return viewOf(env.id, row);
    },

    /**
     * The latest edit from a message file (the key may be left out; it cannot change): a new
     * version, which devices see once published. A file equal to the latest edit changes nothing.
     */
    async update(input: { environment: string; key: string; file: unknown }, actor: AuditActor, opts: EditOptions = {}) {
      const { env, row } = await find(input.environment, input.key);
      const def = await definitionOf(env.id, input.file, row.key);
      return transition(env.id, row.key, {
        action: 'in_app_message.updated',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'ARCHIVED') throw InAppErrors.wrongStatus(cur.key, cur.status, 'edited');
          if (canonicalJson(JSON.parse(cur.definition)) === canonicalJson(def)) return { ...keep(cur), visible: false };
          return { ...keep(cur), version: cur.version + 1, definition: JSON.stringify(def), visible: false };
        },
      });
    },

    /** ACTIVE with the latest edit: from DRAFT, from ACTIVE with an edit pending, or from PAUSED (resuming). */
    publish: async (environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) => {
      const { env, row } = await find(environment, key);
      return transition(env.id, row.key, {
        action: 'in_app_message.published',
        actor,
        opts,
        next: (cur, at) => {
          if (cur.status === 'ARCHIVED') throw InAppErrors.wrongStatus(cur.key, cur.status, 'published');
          if (cur.status === 'ACTIVE' && cur.publishedVersion === cur.version) return { ...keep(cur), visible: false };
          const fresh = cur.publishedVersion !== cur.version;
          return {
            ...keep(cur),
            status: 'ACTIVE',
            publishedVersion: cur.version,
            publishedDefinition: cur.definition,
            publishedAt: fresh ? at : cur.publishedAt,
            visible: true,
          };
        },
      });
    },

    /** PAUSED: devices get a tombstone at their next sync; publish resumes it. Only an ACTIVE message pauses. */
    pause: async (environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) => {
      const { env, row } = await find(environment, key);
      return transition(env.id, row.key, {
        action: 'in_app_message.paused',
        actor,
        opts,
        next: (cur) => {
          if (cur.status === 'PAUSED') return { ...keep(cur), visible: false };
          if (cur.status !== 'ACTIVE') throw InAppErrors.wrongStatus(cur.key, cur.status, 'paused');
          return { ...keep(cur), status: 'PAUSED', visible: true };
        },
      });
    },

    /** ARCHIVED, for good: devices get a tombstone; the results stay. */
    archive: async (environment: string, key: string, actor: AuditActor, opts: EditOptions = {}) => {
      const { env, row } = await find(environment, key);
      return transition(env.id, row.key, {
        action: 'in_app_message.archived',
        actor,
        opts,
        next: (cur) => (cur.status === 'ARCHIVED' ? { ...keep(cur), visible: false } : { ...keep(cur), status: 'ARCHIVED', visible: cur.publishedVersion !== null }),
      });
    },

    async show(environment: string, key: string): Promise<MessageView> {
      const { env, row } = await find(environment, key);
      return viewOf(env.id, row);
    },

    /** A page of the environment's messages by key, of one status or all. */
    async page(environment: string, req: PageRequest, status?: MessageStatus): Promise<Page<MessageSummary>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.inApp.page(env.id, status ?? '', limit, offset)).map((r) => summaryOf(env.id, r)), req);
    },

    /** Every message of the environment with its definitions (engage apply compares them). */
    async all(environment: string): Promise<MessageView[]> {
      const env = await environments.resolve(environment);
      return (await everyRow((limit, offset) => store.inApp.page(env.id, '', limit, offset))).map((r) => viewOf(env.id, r));
    },

    /** `engage apply` marks the messages it declares: the API and the CLI then refuse to change them (409 configuration_managed). */
    async markManaged(environmentId: string, key: string, actor: AuditActor): Promise<boolean> {
      return store.tx(async (tx) => {
        if (!(await tx.inApp.mark(environmentId, key))) return false;
        await auditIn(tx, actor, 'in_app_message.configuration_managed', { type: 'in_app_message', id: key }, { environmentId, key, source: 'apply' }, now());
        return true;
      });
    },

    /** The interactions counted for the message over the last `days` UTC days (today included), per variant and type, with the daily series. */
    async results(environment: string, key: string, days: number = RESULT_DAYS.default): Promise<MessageResults> {
      const { env, row } = await find(environment, key);
      const fromDay = new Date(clock.now().getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const rows = await store.inApp.results(env.id, row.id, fromDay);
      const zero = (): Record<InteractionType, number> => Object.fromEntries(INTERACTION_TYPES.map((t) => [t, 0])) as Record<InteractionType, number>;
      const published = row.publishedDefinition ? (JSON.parse(row.publishedDefinition) as MessageDefinition) : (JSON.parse(row.definition) as MessageDefinition);
      const byVariant = new Map<string, MessageResults['variants'][number]>();
      const variant = (id: string) => {
        let v = byVariant.get(id);
        if (!v) byVariant.set(id, (v = { variantId: id === '' ? null : id, totals: zero(), daily: [] }));
        return v;
      };
      // Every variant of the published version appears, counted or not.
      for (const v of published.variants ?? [{ key: '' }]) variant(v.key);
      for (const r of rows) {
        const v = variant(r.variantId);
        v.totals[r.type] += r.n;
        let d = v.daily.find((x) => x.day === r.day);
        if (!d) v.daily.push((d = { day: r.day, counts: zero() }));
        d.counts[r.type] += r.n;
      }
      return { environmentId: env.id, key: row.key, id: row.id, fromDay, variants: [...byVariant.values()] };
    },

    find,
  };
}

export type InAppService = ReturnType<typeof createInAppService>;

/**
 * An automation's in-app step (issue 28): makes the environment's message `key` eligible for the
 * profile until `untilMs` (the later end wins when it was already), in the caller's transaction;
 * the caller moves the profile's sync revision so its installations get the document. The
 * message's published definition, or undefined when it has none (not found, never published).
 */
export async function grantIn(tx: InAppTx, environmentId: string, profileId: string, key: string, untilMs: number): Promise<{ id: string; definition: MessageDefinition } | undefined> {
  const m = await tx.inApp.find(environmentId, key);
  if (!m || m.publishedDefinition === null || m.status === 'ARCHIVED') return undefined;
  await tx.inApp.grant(environmentId, profileId, m.id, untilMs);
  return { id: m.id, definition: JSON.parse(m.publishedDefinition) as MessageDefinition };
}
