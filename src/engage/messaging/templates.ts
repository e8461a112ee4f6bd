/**
 * Templates per environment (issue 13), managed by the CLI from a JSON file: an immutable key,
 * draft and published versions. Only the active published version accepts sends; editing makes
 * a new draft (or replaces the draft not yet published); publishing supersedes the previous one.
 */
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { MessagingErrors } from './errors';
import { hasPush, placeholdersOf, resolveVariables, typeProblem, type TemplateDefinition } from './render';
import { checkTemplateFile, INBOX_LIMITS, type TemplateFile } from './schemas';
import type { MessagingStore, TemplateRow, TemplateVersionRow } from './store';
import { configurationManaged } from '../shared/errors';
import { KEY_PATTERN } from '../shared/schemas';
import { refusedLinkReason, refusedLinkScheme } from '../shared/links';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import { apnsPayload } from './apns';
import { fcmMessage } from './fcm';
import { messageOf, NIL_ID, renderChecked } from './send-message';
import { selectVersion, type VersionSelector } from './versions';

const KEY = new RegExp(KEY_PATTERN);
/** Stands for the device's push token in a preview's FCM message. */
const PREVIEW_TOKEN = 'DEVICE_PUSH_TOKEN';

type Stores = { messaging: MessagingStore } & AuditTx;

export const DEFAULTS = { ttlSeconds: 86_400, priority: 'high', rateLimitPerMinute: 6_000, dedupWindowSeconds: 0 } as const;

/**
 * What a template answers to sends, as the CLI shows it: DRAFT until a version is published
 * (sends answer template_not_active), ACTIVE while a published version serves, ARCHIVED. The
 * stored `status` is only the archive flag (ACTIVE | ARCHIVED); issue 23 point 1.
 */
export type TemplateStatus = 'DRAFT' | 'ACTIVE' | 'ARCHIVED';

export interface TemplateView {
  id: string;
  environmentId: string;
  key: string;
  status: TemplateStatus;
  publishedVersion: number | null;
  latestVersion: number;
  /** Declared by `engage apply`: the API and the CLI refuse to change it (409 configuration_managed). */
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a mutating call may be asked: `allowManaged` lets `engage apply` change what it declares. */
export interface ManagedOption {
  allowManaged?: boolean;
}

const statusOf = (t: TemplateRow): TemplateStatus => (t.status === 'ARCHIVED' ? 'ARCHIVED' : t.publishedVersion === null ? 'DRAFT' : 'ACTIVE');

const view = (t: TemplateRow): TemplateView => ({
  id: t.id,
  environmentId: t.environmentId,
  key: t.key,
  status: statusOf(t),
  configurationManaged: Number(t.configurationManaged) === 1,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  publishedVersion: t.publishedVersion === null ? null : Number(t.publishedVersion),
  latestVersion: Number(t.latestVersion),
});

/** What a template file's `list` is checked against (engage/preferences): the environment's live list of that key. */
export type ListLookup = (environmentId: string, key: string) => Promise<{ channels: readonly string[] } | undefined>;

export function createTemplateService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService; lists?: ListLookup }) {
  const { store, clock, environments } = deps;
  const now = () => clock.now().toISOString();

  /** The file checked by its schema (the same messages an HTTP API would give), then its cross-field rules. */
  async function definitionOf(environmentId: string, file: unknown): Promise<TemplateDefinition> {
    const bad = checkTemplateFile(file);
    if (bad) throw MessagingErrors.invalid(bad.message);
    const f = file as TemplateFile;
    const apps = await environments.listApps(environmentId);
    const appIds: string[] = [];
    f.apps.forEach((ref, i) => {
      const app = apps.find((a) => a.id === ref || a.name === ref);
      if (!app) throw MessagingErrors.invalid(`apps[${i}]: no app ${ref} in this environment`);
      if (!appIds.includes(app.id)) appIds.push(app.id);
    });
    // The list must exist when the file is saved, and send on PUSH (docs/decisions.md "Sends and preferences").
    if (f.list !== undefined) {
      const list = await deps.lists?.(environmentId, f.list);
      if (!list) throw MessagingErrors.invalid(`list: no list ${f.list} in this environment`);
      if (!list.channels.includes('PUSH')) throw MessagingErrors.invalid(`list: list ${f.list} does not send on PUSH`);
    }
    const variables: TemplateDefinition['variables'] = {};
    for (const [name, d] of Object.entries(f.variables ?? {})) {
      const required = d.required ?? d.default === undefined;
      if (d.default !== undefined) {
        if (required) throw MessagingErrors.invalid(`variables.${name}.default: only an optional variable (required: false) has a default`);
        const problem = typeProblem(d.type, d.default);
        if (problem) throw MessagingErrors.invalid(`variables.${name}.default: ${problem}`);
      }
      variables[name] = { type: d.type, required, ...(d.default !== undefined ? { default: d.default } : {}) };
    }
    // An inbox-only template has no localizations (no push), and then must have an inbox part (docs/templates.md).
    if (f.localizations === undefined && f.inbox === undefined) throw MessagingErrors.invalid('localizations: is required unless the template has an inbox part (an inbox-only template)');
    const locales = (where: string, byLocale: Record<string, unknown>) => {
      const has = (tag: string) => Object.keys(byLocale).some((k) => k.toLowerCase() === tag.toLowerCase());
      if (!has(f.defaultLocale)) throw MessagingErrors.invalid(`${where}: must hold the default locale ${f.defaultLocale}`);
      if (f.fallbackLocale !== undefined && !has(f.fallbackLocale)) throw MessagingErrors.invalid(`${where}: must hold the fallback locale ${f.fallbackLocale}`);
    };
    const checkPlaceholders = (path: string, v: unknown): void => {
      if (typeof v === 'string') {
        for (const name of placeholdersOf(v)) if (!Object.hasOwn(variables, name)) throw MessagingErrors.invalid(`${path}: {{${name}}} is not a declared variable`);
      } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) checkPlaceholders(`${path}.${k}`, x);
    };
    if (f.localizations !== undefined) {
      locales('localizations', f.localizations);
      for (const [locale, l] of Object.entries(f.localizations)) {
        checkPlaceholders(`localizations.${locale}`, l);
        const scheme = l.deepLink === undefined ? undefined : refusedLinkScheme(l.deepLink);
        if (scheme) throw MessagingErrors.invalid(`localizations.${locale}.deepLink: ${refusedLinkReason(scheme)}`);
      }
    }
    if (f.inbox !== undefined) {
      locales('inbox.localizations', f.inbox.localizations);
      const withLayout = Object.entries(f.inbox.localizations).filter(([, l]) => l.layout !== undefined);
      // Any LAYOUT at all: the default locale's too, so every installation's locale resolves to one.
      if (withLayout.length > 0 && !withLayout.some(([k]) => k.toLowerCase() === f.defaultLocale.toLowerCase()))
        throw MessagingErrors.invalid(`inbox.localizations.${f.defaultLocale}.layout: is required when another locale has a layout`);
      for (const [locale, l] of Object.entries(f.inbox.localizations)) checkPlaceholders(`inbox.localizations.${locale}`, l);
      const bytes = Buffer.byteLength(JSON.stringify(f.inbox));
      if (bytes > INBOX_LIMITS.fileBytes) throw MessagingErrors.invalid(`inbox: is ${bytes} bytes, more than ${INBOX_LIMITS.fileBytes}`);
    }
    return {
      key: f.key,
      appIds,
      defaultLocale: f.defaultLocale,
      ...(f.fallbackLocale !== undefined ? { fallbackLocale: f.fallbackLocale } : {}),
      variables,
      localizations: f.localizations ?? {},
      ttlSeconds: f.ttlSeconds ?? DEFAULTS.ttlSeconds,
      priority: f.priority ?? DEFAULTS.priority,
      rateLimitPerMinute: f.rateLimitPerMinute ?? DEFAULTS.rateLimitPerMinute,
      dedupWindowSeconds: f.dedupWindowSeconds ?? DEFAULTS.dedupWindowSeconds,
      ...(f.collapseId !== undefined ? { collapseId: f.collapseId } : {}),
      ...(f.list !== undefined ? { list: f.list } : {}),
      ...(f.inbox !== undefined ? { inbox: f.inbox } : {}),
    };
  }

  async function find(environment: string, key: string) {
    const env = await environments.resolve(environment);
    const t = KEY.test(key) ? await store.messaging.findTemplate(env.id, key) : undefined;
    if (!t) throw MessagingErrors.templateNotFound(key);
    return { env, t };
  }

  /** A change of a template `engage apply` declares is refused unless apply itself asks. */
  async function findMutable(environment: string, key: string, opts: ManagedOption = {}) {
    const found = await find(environment, key);
    if (Number(found.t.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`template ${found.t.key}`);
    return found;
  }

  const versionView = (v: TemplateVersionRow) => ({ version: Number(v.version), state: v.state, createdAt: v.createdAt, publishedAt: v.publishedAt });

  async function show(environment: string, key: string) {
    const { t } = await find(environment, key);
    const versions = await store.messaging.versions(t.id);
    const latest = versions.at(-1);
    return {
      ...view(t),
      versions: versions.map(versionView),
      draft: latest?.state === 'DRAFT' ? (JSON.parse(latest.definition) as TemplateDefinition) : null,
      published: versions.find((v) => v.state === 'PUBLISHED') ? (JSON.parse(versions.find((v) => v.state === 'PUBLISHED')!.definition) as TemplateDefinition) : null,
      /** Sends and their deliveries by state, test sends left out (issue 24 point 4). */
      sends: await store.messaging.sendCount(t.id),
      deliveries: await store.messaging.countsByState(t.id),
      testSends: await store.messaging.testSendCount(t.id),
    };
  }

  return {
    async create(input: { environment: string; file: unknown }, actor: AuditActor): Promise<TemplateView> {
      const env = await environments.resolve(input.environment);
      const def = await definitionOf(env.id, input.file);
      const id = newId();
      const at = now();
      const created = await store.tx(async (tx) => {
        if (!(await tx.messaging.insertTemplate(id, env.id, def.key, at))) return false;
        await tx.messaging.insertVersion(id, 1, JSON.stringify(def), at);
        await auditIn(tx, actor, 'template.created', { type: 'template', id }, { environmentId: env.id, key: def.key, version: 1 }, at);
        return true;
      });
      if (!created) throw MessagingErrors.templateExists(def.key);
      return view((await store.messaging.findTemplateById(id))!);
    },

    /** A new draft from the file, or the unpublished draft replaced. The key cannot change. */
    async update(input: { environment: string; key: string; file: unknown }, actor: AuditActor, opts: ManagedOption = {}): Promise<TemplateView> {
      const { env, t } = await findMutable(input.environment, input.key, opts);
      if (t.status === 'ARCHIVED') throw MessagingErrors.templateArchived(t.key);
      const file = input.file as { key?: unknown } | null;
      if (file && typeof file === 'object' && file.key !== undefined && file.key !== t.key) throw MessagingErrors.keyImmutable(t.key);
      const def = await definitionOf(env.id, { ...(file as object), key: t.key });
      const at = now();
      await store.tx(async (tx) => {
        const cur = (await tx.messaging.findTemplateById(t.id))!;
        const latest = Number(cur.latestVersion);
        let version = latest;
        if (!(await tx.messaging.replaceDraft(t.id, latest, JSON.stringify(def), at))) {
          if (!(await tx.messaging.bumpLatest(t.id, latest, at))) throw MessagingErrors.templateExists(t.key);
          await tx.messaging.insertVersion(t.id, ++version, JSON.stringify(def), at);
        }
        await auditIn(tx, actor, 'template.updated', { type: 'template', id: t.id }, { environmentId: env.id, key: t.key, version }, at);
      });
      return view((await store.messaging.findTemplateById(t.id))!);
    },

    async publish(environment: string, key: string, actor: AuditActor, opts: ManagedOption = {}): Promise<TemplateView> {
      const { env, t } = await findMutable(environment, key, opts);
      if (t.status === 'ARCHIVED') throw MessagingErrors.templateArchived(t.key);
      const ok = await store.tx(async (tx) => {
        const version = Number((await tx.messaging.findTemplateById(t.id))!.latestVersion);
        const at = now();
        if (!(await tx.messaging.publish(t.id, version, at))) return false;
        await auditIn(tx, actor, 'template.published', { type: 'template', id: t.id }, { environmentId: env.id, key: t.key, version }, at);
        return true;
      });
      if (!ok) throw MessagingErrors.nothingToPublish(key);
      return view((await store.messaging.findTemplateById(t.id))!);
    },

    /** An archived template accepts no sends; its sends and deliveries stay for inspection. */
    async archive(environment: string, key: string, actor: AuditActor, opts: ManagedOption = {}): Promise<TemplateView> {
      const { env, t } = await findMutable(environment, key, opts);
      await store.tx(async (tx) => {
        const at = now();
        await tx.messaging.setStatus(t.id, 'ARCHIVED', at);
        await auditIn(tx, actor, 'template.archived', { type: 'template', id: t.id }, { environmentId: env.id, key: t.key }, at);
      });
      return view((await store.messaging.findTemplateById(t.id))!);
    },

    show,

    async list(environment: string): Promise<TemplateView[]> {
      const env = await environments.resolve(environment);
      return (await store.messaging.listTemplates(env.id)).map(view);
    },

    /** A page of the environment's templates, by key. */
    async page(environment: string, req: PageRequest): Promise<Page<TemplateView>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messaging.pageTemplates(env.id, limit, offset)).map(view), req);
    },

    /** Every version of the template, oldest first (no definitions: `version` reads one). */
    async versions(environment: string, key: string) {
      const { t } = await find(environment, key);
      return (await store.messaging.versions(t.id)).map(versionView);
    },

    /** One version with its definition. */
    async version(environment: string, key: string, selector: VersionSelector) {
      const { t } = await find(environment, key);
      const v = await selectVersion(store.messaging, t, selector);
      const row = (await store.messaging.version(t.id, v.version))!;
      return { ...versionView(row), definition: v.definition };
    },

    /**
     * Renders a version (or an unsaved file) for a locale and variables as a send would
     * (render.ts, the send's variable and payload checks: the same 400s), per target app with the
     * provider payload it would carry; sends nothing and writes nothing. The delivery id and
     * token are placeholders.
     */
    async preview(environment: string, key: string, input: { version?: VersionSelector; file?: unknown; locale?: string; variables?: Record<string, unknown> }) {
      const { env, t } = await find(environment, key);
      // An unsaved file (the console's live preview while typing): checked as an edit would be, stored nowhere.
      let v: { version: number | null; state: 'DRAFT' | 'PUBLISHED' | 'SUPERSEDED' | 'UNSAVED'; definition: TemplateDefinition };
      if (input.file !== undefined) {
        if (input.version !== undefined) throw MessagingErrors.invalid('give version or file, not both');
        const file = input.file as { key?: unknown } | null;
        if (file && typeof file === 'object' && file.key !== undefined && file.key !== t.key) throw MessagingErrors.keyImmutable(t.key);
        v = { version: null, state: 'UNSAVED', definition: await definitionOf(env.id, { ...(file as object), key: t.key }) };
      } else v = await selectVersion(store.messaging, t, input.version ?? 'latest');
      const def = v.definition;
      const rendered = renderChecked(def, input.locale, resolveVariables(def, input.variables ?? {}));
      const message = messageOf(def, rendered);
      const apps = await environments.listApps(env.id);
      const nowMs = clock.now().getTime();
      // An inbox-only template sends no push: no provider payload to show.
      const targets = (hasPush(def) ? def.appIds : []).flatMap((appId) => {
        const app = apps.find((a) => a.id === appId);
        if (!app) return [];
        const payload =
          app.platform === 'IOS'
            ? apnsPayload(message, NIL_ID)
            : fcmMessage({ id: NIL_ID, token: PREVIEW_TOKEN, message, expiresMs: nowMs + def.ttlSeconds * 1000 }, nowMs);
        return [{ appId, appName: app.name, platform: app.platform, provider: app.platform === 'IOS' ? ('APNS' as const) : ('FCM' as const), payload, payloadBytes: Buffer.byteLength(JSON.stringify(payload)) }];
      });
      return {
        templateKey: t.key,
        version: v.version,
        state: v.state,
        resolvedLocale: rendered.resolvedLocale,
        title: rendered.title,
        body: rendered.body,
        deepLink: rendered.deepLink,
        customData: rendered.customData,
        targets,
      };
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
