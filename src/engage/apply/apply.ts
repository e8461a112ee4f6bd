import type { SyncSettingsService } from '../definitions/settings';
import { DomainError } from '../../platform/errors';
import type { AuditActor } from '../shared/audit';
import type { EnvironmentApplyService } from '../environments/managed';
import type { AppView, EnvironmentService } from '../environments/service';
import type { CredentialService } from '../messaging/credentials';
import type { MessagingApplyService } from '../messaging/managed';
import { DEFAULTS, type TemplateService } from '../messaging/templates';
import type { TestGroupMember, TestGroupService } from '../messaging/test-groups';
import type { FlagService } from '../flags/service';
import type { InAppService } from '../in-app/service';
import { canonicalJson } from '../flags/diff';
import type { PreferenceService } from '../preferences/service';
import { listDefinitionOf, type ListFile } from '../preferences/schemas';
import type { PushChannelService } from '../push-channels/service';
import { pushChannelDefinitionOf, type PushChannelFile } from '../push-channels/schemas';
import { at, placeError, type EngageInputs } from './inputs';
import { credentialChangesOf, setCredentials } from './credentials';
import { applyInAppMessages } from './in-app';
import { applyAutomations } from './automations';
import type { AutomationService } from '../automations/service';
import type { ApplyEnvironment } from './schema';

/**
 * `engage apply` for the engagement half (issue 24; docs/apply.md): environments, apps and their
 * provider credentials, access keys, templates (published) and test groups, created or brought
 * to what the file declares through the owning services (`allowManaged`), and marked
 * configuration-managed. Never deletes. `walk` runs twice: first without writing (the plan, and
 * every error it can find before a write), then, unless a dry run or nothing changes, writing.
 */

type EnvironmentRow = NonNullable<Awaited<ReturnType<EnvironmentService['find']>>>;

export type EngageStepKind = 'environment' | 'app' | 'access_key' | 'template' | 'test_group' | 'flag' | 'list' | 'push_channel' | 'in_app_message' | 'automation';

export interface EngageStep {
  action: 'create' | 'update' | 'unchanged';
  kind: EngageStepKind;
  environment: string;
  /** The object's key in its environment: its name (template: its key). */
  key: string;
  /** What an update changes (field names; `adopt`: marked configuration-managed). Never a value. */
  changes: string[];
}

/** An access key apply created: its key shown this once (null: the key is the one of `keyEnv`). */
export interface EngageSecret {
  kind: 'access_key';
  environment: string;
  name: string;
  id: string;
  key: string | null;
  keyEnv?: string;
}

export interface EngageApplyDeps {
  environments: EnvironmentService;
  credentials: CredentialService;
  templates: TemplateService;
  testGroups: TestGroupService;
  /** Feature flags (issue 26): created, or edited into a new version (origin APPLY) when the file differs. */
  flags: FlagService;
  /** In-app messages (issue 27): created, edited and published (or paused) as declared. */
  inApp: InAppService;
  /** Automations (issue 28): created, published (or paused) and edited into new versions as declared; their API keys are not managed. */
  automations: AutomationService;
  /** Subscription lists and push channels/categories (issue 26): created, or replaced when the file differs. */
  lists: PreferenceService;
  pushChannels: PushChannelService;
  /** An environment's sync settings (issue 26): `syncRefreshAfterSeconds`, `inAppMinIntervalSeconds` (issue 27). */
  syncSettings: SyncSettingsService;
  marks: { environments: EnvironmentApplyService; messaging: MessagingApplyService };
  /** The id of the identity tenant with this slug, or undefined (the composition asks identity). */
  tenantIdOf: (slug: string) => Promise<string | undefined>;
  /** Whether the file's identity part declares this tenant (it exists once that part is applied). */
  tenantDeclared: (slug: string) => boolean;
  tenantExists: (id: string) => Promise<boolean>;
}

/** JSON with sorted keys: two definitions are the same when their canonical texts are. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * The definition the template service stores for this file (templates.ts `definitionOf`: apps by
 * id, variables' `required`, the defaults filled in), to compare with the published one.
 * Undefined when an app it names is not in the environment (the update will say why).
 */
function storedFormOf(file: Record<string, unknown>, apps: readonly AppView[]): unknown {
  const f = file as {
    key: string; apps: string[]; defaultLocale: string; fallbackLocale?: string; localizations?: unknown; collapseId?: string; list?: string; inbox?: unknown;
    variables?: Record<string, { type: string; required?: boolean; default?: unknown }>;
    ttlSeconds?: number; priority?: string; rateLimitPerMinute?: number; dedupWindowSeconds?: number;
  };
  const appIds: string[] = [];
  for (const ref of f.apps) {
    const app = apps.find((a) => a.id === ref || a.name === ref);
    if (!app) return undefined;
    if (!appIds.includes(app.id)) appIds.push(app.id);
  }
  const variables: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(f.variables ?? {})) variables[name] = { type: d.type, required: d.required ?? d.default === undefined, default: d.default };
  return {
    key: f.key, appIds, defaultLocale: f.defaultLocale, fallbackLocale: f.fallbackLocale, variables, localizations: f.localizations ?? {}, inbox: f.inbox,
    ttlSeconds: f.ttlSeconds ?? DEFAULTS.ttlSeconds, priority: f.priority ?? DEFAULTS.priority, rateLimitPerMinute: f.rateLimitPerMinute ?? DEFAULTS.rateLimitPerMinute,
    dedupWindowSeconds: f.dedupWindowSeconds ?? DEFAULTS.dedupWindowSeconds, collapseId: f.collapseId, list: f.list,
  };
}

const membersOf = (list: readonly { installationId?: string; externalId?: string }[]): TestGroupMember[] =>
  list.map((m) => (m.installationId !== undefined ? { installationId: m.installationId.toLowerCase() } : { externalId: m.externalId! }));

export async function applyEnvironments(
  deps: EngageApplyDeps,
  environments: readonly ApplyEnvironment[],
  inputs: EngageInputs,
  opts: { dryRun: boolean; actor: AuditActor },
): Promise<{ steps: EngageStep[]; secrets: EngageSecret[]; changed: boolean }> {
  const plan = await walk(deps, environments, inputs, opts.actor, false);
  const changed = plan.steps.some((s) => s.action !== 'unchanged');
  if (opts.dryRun || !changed) return { ...plan, changed };
  return { ...(await walk(deps, environments, inputs, opts.actor, true)), changed };
}

async function walk(deps: EngageApplyDeps, environments: readonly ApplyEnvironment[], inputs: EngageInputs, actor: AuditActor, write: boolean) {
  const steps: EngageStep[] = [];
  const secrets: EngageSecret[] = [];
  const allow = { allowManaged: true } as const;
  for (const [i, e] of environments.entries()) {
    const where = `environments[${i}]`;
    const step = (kind: EngageStepKind, key: string, action: EngageStep['action'], changes: string[] = []) => {
      const s: EngageStep = { action: action === 'update' && changes.length === 0 ? 'unchanged' : action, kind, environment: e.name, key, changes: action === 'create' ? [] : changes };
      steps.push(s);
      return s;
    };

    // The environment.
    let tenantId: string | null | undefined;
    if (e.identityTenant !== undefined) {
      tenantId = await deps.tenantIdOf(e.identityTenant);
      if (tenantId === undefined && !deps.tenantDeclared(e.identityTenant)) throw placeError(`${where}.identityTenant`, `no tenant ${e.identityTenant}`);
    }
    // The sync settings the file declares (those left out keep their value).
    const declaredSettings = {
      ...(e.syncRefreshAfterSeconds !== undefined ? { refreshAfterSeconds: e.syncRefreshAfterSeconds } : {}),
      ...(e.inAppMinIntervalSeconds !== undefined ? { inAppMinIntervalSeconds: e.inAppMinIntervalSeconds } : {}),
    };
    const found = await deps.environments.find(e.name);
    let env: EnvironmentRow | undefined = found && found.name === e.name ? found : undefined;
    if (env?.status === 'DELETING') throw placeError(where, `environment ${e.name} is being deleted`);
    if (!env) {
      step('environment', e.name, 'create');
      if (write) {
        env = await at(where, () => deps.environments.create({ name: e.name, displayName: e.displayName, identityTenantId: tenantId ?? null }, actor, { tenantExists: deps.tenantExists }));
        await deps.marks.environments.markEnvironment(env.id, actor);
        const created = env;
        if (Object.keys(declaredSettings).length > 0) await at(where, () => deps.syncSettings.update(created.id, declaredSettings, actor, allow));
      }
    } else {
      const changes: string[] = [];
      if (e.displayName !== undefined && e.displayName !== env.displayName) changes.push('displayName');
      if (e.identityTenant !== undefined && tenantId !== (env.identityTenantId ?? null)) changes.push('identityTenant');
      const settings = Object.keys(declaredSettings).length > 0 ? await deps.syncSettings.show(env.id) : undefined;
      if (e.syncRefreshAfterSeconds !== undefined && e.syncRefreshAfterSeconds !== settings?.refreshAfterSeconds) changes.push('syncRefreshAfterSeconds');
      if (e.inAppMinIntervalSeconds !== undefined && e.inAppMinIntervalSeconds !== settings?.inAppMinIntervalSeconds) changes.push('inAppMinIntervalSeconds');
      if (env.configurationManaged !== 1) changes.push('adopt');
      step('environment', e.name, 'update', changes);
      if (write && changes.some((c) => c === 'displayName' || c === 'identityTenant')) {
        const current = env;
        await at(where, () =>
          deps.environments.update(current.id, { ...(changes.includes('displayName') ? { displayName: e.displayName } : {}), ...(changes.includes('identityTenant') ? { identityTenantId: tenantId ?? null } : {}) }, actor, { ...allow, tenantExists: deps.tenantExists }),
        );
      }
      if (write && (changes.includes('syncRefreshAfterSeconds') || changes.includes('inAppMinIntervalSeconds'))) {
        const current = env;
        await at(where, () => deps.syncSettings.update(current.id, declaredSettings, actor, allow));
      }
      if (write && changes.includes('adopt')) await deps.marks.environments.markEnvironment(env.id, actor);
    }
    // On a plan of a new environment, every object in it is new.
    const envId = env?.id;
    let apps: AppView[] = envId ? await deps.environments.listApps(envId) : [];

    for (const [j, a] of (e.apps ?? []).entries()) {
      const place = `${where}.apps[${j}]`;
      const have = apps.find((x) => x.name === a.name);
      if (have && have.platform !== a.platform) throw placeError(`${place}.platform`, `app ${a.name} is an ${have.platform} app; an app's platform cannot change`);
      const credentialChanges = have ? await credentialChangesOf(deps.credentials, envId!, have, a, inputs, `${i}/${j}`) : [];
      if (!have) {
        step('app', a.name, 'create');
        if (!write) continue;
        const created = await at(place, () => deps.environments.createApp({ environment: envId!, platform: a.platform, name: a.name, bundleId: a.bundleId }, actor));
        await deps.marks.environments.markApp(envId!, created.id, actor);
        await setCredentials(deps.credentials, envId!, created.id, a, inputs, `${i}/${j}`, place, actor, ['apns', 'fcm']);
        continue;
      }
      const changes: string[] = [];
      if (a.bundleId !== undefined && a.bundleId !== have.bundleId) changes.push('bundleId');
      changes.push(...credentialChanges);
      if (!have.configurationManaged) changes.push('adopt');
      step('app', a.name, 'update', changes);
      if (!write) continue;
      if (changes.includes('bundleId')) await at(place, () => deps.environments.updateApp(envId!, have.id, { bundleId: a.bundleId }, actor, allow));
      await setCredentials(deps.credentials, envId!, have.id, a, inputs, `${i}/${j}`, place, actor, credentialChanges);
      if (changes.includes('adopt')) await deps.marks.environments.markApp(envId!, have.id, actor);
    }
    if (envId && write) apps = await deps.environments.listApps(envId);

    const keys = envId ? (await deps.environments.listAccessKeys(envId)).filter((k) => k.status === 'ACTIVE') : [];
    for (const [j, k] of (e.accessKeys ?? []).entries()) {
      const place = `${where}.accessKeys[${j}]`;
      const same = keys.filter((x) => x.name === k.name);
      if (same.length > 1) throw placeError(place, `environment ${e.name} has ${same.length} active access keys named ${k.name}: revoke all but one`);
      const have = same[0];
      const value = inputs.accessKeys.get(`${i}/${j}`);
      const appIds = k.apps.map((name) => apps.find((x) => x.name === name)?.id);
      if (!have) {
        step('access_key', k.name, 'create');
        if (!write) continue;
        const created = await at(place, () => deps.environments.createAccessKey({ environment: envId!, apps: k.apps, name: k.name }, actor));
        if (value !== undefined) await deps.marks.environments.setAccessKeySecret(envId!, created.id, value, actor);
        await deps.marks.environments.markAccessKey(envId!, created.id, actor);
        secrets.push({ kind: 'access_key', environment: e.name, name: k.name, id: created.id, key: value === undefined ? created.key : null, ...(k.keyEnv ? { keyEnv: k.keyEnv } : {}) });
        continue;
      }
      const changes: string[] = [];
      const sameApps = appIds.length === have.appIds.length && appIds.every((id) => id !== undefined && have.appIds.includes(id));
      if (!sameApps) changes.push('apps');
      if (value !== undefined && !(await deps.marks.environments.accessKeyIs(envId!, have.id, value))) changes.push('key');
      if (!have.configurationManaged) changes.push('adopt');
      step('access_key', k.name, 'update', changes);
      if (!write) continue;
      if (changes.includes('apps')) await deps.marks.environments.setAccessKeyApps(envId!, have.id, appIds as string[], actor);
      if (changes.includes('key')) await deps.marks.environments.setAccessKeySecret(envId!, have.id, value!, actor);
      if (changes.includes('adopt')) await deps.marks.environments.markAccessKey(envId!, have.id, actor);
    }

    // Lists before templates: a template may name one (checked when it is saved).
    const lists = envId ? await deps.lists.list(envId) : [];
    for (const [j, l] of (e.lists ?? []).entries()) {
      const place = `${where}.lists[${j}]`;
      const have = lists.find((x) => x.key === l.key);
      if (!have) {
        step('list', l.key, 'create');
        if (!write) continue;
        await at(place, () => deps.lists.create({ environment: envId!, file: l }, actor));
        await deps.lists.markManaged(envId!, l.key, actor);
        continue;
      }
      const changes: string[] = [];
      const { environmentId: _e, revision: _r, configurationManaged, createdAt: _c, updatedAt: _u, ...stored } = have;
      if (canonical(stored) !== canonical(listDefinitionOf(l as ListFile))) changes.push('definition');
      if (!configurationManaged) changes.push('adopt');
      step('list', l.key, 'update', changes);
      if (!write) continue;
      if (changes.includes('definition')) await at(place, () => deps.lists.update({ environment: envId!, key: l.key, file: l }, actor, allow));
      if (changes.includes('adopt')) await deps.lists.markManaged(envId!, l.key, actor);
    }

    // Each app's notification channels or categories (the app exists by now, unless this is the plan of a new one).
    for (const [j, a] of (e.apps ?? []).entries()) {
      const app = apps.find((x) => x.name === a.name);
      const channels = app ? await deps.pushChannels.list(envId!, app.id) : [];
      for (const [k, c] of (a.pushChannels ?? []).entries()) {
        const place = `${where}.apps[${j}].pushChannels[${k}]`;
        const key = String(c.key);
        const name = `${a.name}/${key}`;
        const have = channels.find((x) => x.key === key);
        if (!have) {
          step('push_channel', name, 'create');
          if (!write) continue;
          await at(place, () => deps.pushChannels.create({ environment: envId!, app: app!.id, file: c }, actor));
          await deps.pushChannels.markManaged(envId!, app!.id, key, actor);
          continue;
        }
        const changes: string[] = [];
        const { environmentId: _e, appId: _a, revision: _r, configurationManaged, createdAt: _c, updatedAt: _u, ...stored } = have;
        if (canonical(stored) !== canonical(pushChannelDefinitionOf(c as PushChannelFile))) changes.push('definition');
        if (!configurationManaged) changes.push('adopt');
        step('push_channel', name, 'update', changes);
        if (!write) continue;
        if (changes.includes('definition')) await at(place, () => deps.pushChannels.update({ environment: envId!, app: app!.id, key, file: c }, actor, allow));
        if (changes.includes('adopt')) await deps.pushChannels.markManaged(envId!, app!.id, key, actor);
      }
    }

    const templates = envId ? await deps.templates.list(envId) : [];
    for (const [j, t] of (e.templates ?? []).entries()) {
      const place = `${where}.templates[${j}]`;
      const file = inputs.templates.get(`${i}/${j}`)!;
      const have = templates.find((x) => x.key === t.key);
      if (have?.status === 'ARCHIVED') throw placeError(place, `template ${t.key} is archived; an archived template cannot be declared`);
      if (!have) {
        step('template', t.key, 'create');
        if (!write) continue;
        const created = await at(place, () => deps.templates.create({ environment: envId!, file }, actor));
        await at(place, () => deps.templates.publish(envId!, t.key, actor, allow));
        await deps.marks.messaging.markTemplate(envId!, created.id, actor);
        continue;
      }
      const shown = await deps.templates.show(envId!, t.key);
      const wanted = storedFormOf(file, apps);
      const changes: string[] = [];
      if (wanted === undefined || !shown.published || canonical(shown.published) !== canonical(wanted)) changes.push('definition');
      if (!have.configurationManaged) changes.push('adopt');
      step('template', t.key, 'update', changes);
      if (!write) continue;
      if (changes.includes('definition')) {
        await at(place, () => deps.templates.update({ environment: envId!, key: t.key, file }, actor, allow));
        await at(place, () => deps.templates.publish(envId!, t.key, actor, allow));
      }
      if (changes.includes('adopt')) await deps.marks.messaging.markTemplate(envId!, have.id, actor);
    }

    for (const [j, g] of (e.testGroups ?? []).entries()) {
      const place = `${where}.testGroups[${j}]`;
      const members = membersOf(g.members);
      const have = envId ? await deps.testGroups.show(envId, g.name).catch((err: unknown) => {
        if (err instanceof DomainError && err.kind === 'not_found') return undefined;
        throw err;
      }) : undefined;
      if (!have || have.name !== g.name) {
        step('test_group', g.name, 'create');
        if (!write) continue;
        const created = await at(place, () => deps.testGroups.create({ environment: envId!, name: g.name, members }, actor));
        await deps.marks.messaging.markTestGroup(envId!, created.id, actor);
        continue;
      }
      const changes: string[] = [];
      if (canonical(have.members) !== canonical(members)) changes.push('members');
      if (!have.configurationManaged) changes.push('adopt');
      step('test_group', g.name, 'update', changes);
      if (!write) continue;
      if (changes.includes('members')) await at(place, () => deps.testGroups.update({ environment: envId!, ref: have.id, members }, actor, allow));
      if (changes.includes('adopt')) await deps.marks.messaging.markTestGroup(envId!, have.id, actor);
    }

    // Feature flags: the stored definition compared with what the file stands for (apps by name resolved).
    const flags = envId ? await deps.flags.all(envId) : [];
    // A plan cannot resolve apps this file declares and the environment does not have yet: the write checks again.
    const appsPending = !write && (e.apps ?? []).some((a) => !apps.some((x) => x.name === a.name));
    for (const [j, f] of (e.flags ?? []).entries()) {
      const place = `${where}.flags[${j}]`;
      const file = inputs.flags.get(`${i}/${j}`)!;
      const have = flags.find((x) => x.key === f.key);
      const edit = { origin: 'APPLY', allowManaged: true } as const;
      const wanted = !envId ? undefined : await deps.flags.definitionOf(envId, file, { key: f.key, status: have?.status ?? 'ACTIVE' }).catch((err: unknown) => {
        if (!appsPending) throw placeError(place, (err as Error).message);
        return undefined;
      });
      if (!have) {
        step('flag', f.key, 'create');
        if (!write) continue;
        await at(place, () => deps.flags.create({ environment: envId!, file }, actor, edit));
        await deps.flags.markManaged(envId!, f.key, actor);
        continue;
      }
      const changes: string[] = [];
      if (wanted === undefined || canonicalJson(wanted) !== canonicalJson(have.definition)) changes.push('definition');
      if (!have.configurationManaged) changes.push('adopt');
      step('flag', f.key, 'update', changes);
      if (!write) continue;
      if (changes.includes('definition')) await at(place, () => deps.flags.update({ environment: envId!, key: f.key, file }, actor, edit));
      if (changes.includes('adopt')) await deps.flags.markManaged(envId!, f.key, actor);
    }

    // In-app messages (apply/in-app.ts): the file is what runs.
    const messages = await applyInAppMessages(deps.inApp, { envId, where, write, appsPending, actor }, e.inAppMessages ?? [], (j) => inputs.inAppMessages.get(`${i}/${j}`)!);
    for (const m of messages) step('in_app_message', m.key, m.action, m.changes);

    // Automations (apply/automations.ts), after the templates and messages their steps name.
    const automations = await applyAutomations(deps.automations, { envId, where, write, appsPending, actor }, e.automations ?? [], (j) => inputs.automations.get(`${i}/${j}`)!);
    for (const m of automations) step('automation', m.key, m.action, m.changes);
  }
  return { steps, secrets };
}
