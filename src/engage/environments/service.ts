import type { Clock } from '../../platform/clock';
import { newId, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { validInput } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { createAccessKeys } from './access-keys';
import type { EnvironmentDeletion } from './deletion';
import { EnvironmentErrors } from './errors';
import { PLATFORMS, checkAppCreate, checkAppUpdate, checkEnvironmentCreate, checkEnvironmentUpdate } from './schemas';
import type { AppRow, EnvironmentChange, EnvironmentRow, EnvironmentStore } from './store';

export type { AppRow, EnvironmentRow } from './store';
export { ACCESS_KEY_PREFIX, type AccessKeyPrincipal, type AccessKeyView } from './access-keys';

export const APP_KEY_PREFIX = 'svc_app_';
export { PLATFORMS };
export type Platform = (typeof PLATFORMS)[number];

export interface AppView {
  id: string;
  environmentId: string;
  platform: Platform;
  name: string;
  appKey: string;
  status: AppRow['status'];
  /** The iOS bundle id or Android package name, when set. */
  bundleId: string | null;
  configurationManaged: boolean;
  createdAt: string;
}

/** What a mutation of an app or access key may be told: `engage apply` edits the objects it declares. */
export interface ManagedOption {
  allowManaged?: boolean;
}

type Stores = { environments: EnvironmentStore } & AuditTx;


const appView = (a: AppRow): AppView => ({
  id: a.id,
  environmentId: a.environmentId,
  platform: a.platform,
  name: a.name,
  appKey: a.appKey,
  status: a.status,
  bundleId: a.bundleId ?? null,
  configurationManaged: a.configurationManaged === 1,
  createdAt: a.createdAt,
});

/**
 * Environments and apps, and access keys (access-keys.ts): called by the CLI and the administration API. Every
 * change takes its actor (the CLI's `os:<user>`, a token's subject) and records its audit event
 * in its own transaction; never a key.
 */
export function createEnvironmentService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  /** Queues an environment's deletion as durable work (deletion.ts); absent where nothing deletes environments. */
  deletion?: Pick<EnvironmentDeletion, 'queueIn'>;
  /** Told after an environment or an app stops serving (disabled, deleted): its change-notice streams end (issue 26 point 6). */
  notices?: Pick<ChangeNotices, 'environmentClosed' | 'appClosed'>;
}) {
  const { store, clock } = deps;
  const closed = (environmentId: string) => deps.notices?.environmentClosed?.(environmentId);
  const appClosed = (app: AppRow) => deps.notices?.appClosed?.(app.environmentId, app.id);
  const now = () => clock.now().toISOString();

  /** An environment by id or name. */
  async function resolve(ref: string): Promise<EnvironmentRow> {
    const env = (await store.environments.findEnvironmentById(ref)) ?? (await store.environments.findEnvironmentByName(ref));
    assertThat(env, EnvironmentErrors.unknownEnvironment(ref));
    return env;
  }

  async function resolveApp(environmentId: string, ref: string): Promise<AppRow> {
    let app = (await store.environments.findApp(environmentId, ref)) ?? (await store.environments.findAppByName(environmentId, ref));
    // Or its public app key, when the app is of this environment.
    if (!app && ref.startsWith(APP_KEY_PREFIX)) {
      const byKey = await store.environments.findAppByKey(ref);
      app = byKey?.environmentId === environmentId ? byKey : undefined;
    }
    assertThat(app, EnvironmentErrors.unknownApp(ref));
    return app;
  }

  /** What a change of an environment may be told: apply edits what it declares; over HTTP a tenant id is checked to exist. */
  type EnvironmentOptions = { allowManaged?: boolean; tenantExists?: (id: string) => Promise<boolean> };

  async function checkTenant(id: string | null | undefined, opts: EnvironmentOptions): Promise<void> {
    if (id && opts.tenantExists) assertThat(await opts.tenantExists(id), EnvironmentErrors.unknownTenant(id));
  }

  /**
   * Creates an environment (issue 24 point 1): its name a slug (schemas.ts `EnvironmentName`),
   * optionally a display name and the identity tenant whose subjects are its external ids.
   */
  async function create(input: { name: string; displayName?: string; identityTenantId?: string | null }, actor: AuditActor, opts: EnvironmentOptions = {}): Promise<EnvironmentRow> {
    const valid = validInput(checkEnvironmentCreate, input, EnvironmentErrors.invalid);
    const name = valid.name;
    await checkTenant(valid.identityTenantId, opts);
    const row: EnvironmentRow = {
      id: newId(),
      name,
      createdAt: now(),
      identityTenantId: valid.identityTenantId ?? null,
      displayName: valid.displayName?.trim() ?? null,
      status: 'ACTIVE',
      configurationManaged: 0,
    };
    // A conditional write: the name is unique, so of two concurrent creations one inserts.
    const inserted = await store.tx(async (tx) => {
      if (!(await tx.environments.insertEnvironment(row))) return false;
      await auditIn(tx, actor, 'environment.created', { type: 'environment', id: row.id }, { environmentId: row.id, name, displayName: row.displayName, identityTenantId: row.identityTenantId }, row.createdAt);
      return true;
    });
    assertThat(inserted, EnvironmentErrors.nameTaken('environment', name));
    return row;
  }

  /** The environment a change may apply to: not DELETING (409), not managed by apply unless allowed (409). */
  function changeable(env: EnvironmentRow, opts: { allowManaged?: boolean }): void {
    assertThat(env.status !== 'DELETING', EnvironmentErrors.environmentDeleting(env.name));
    assertThat(opts.allowManaged || env.configurationManaged !== 1, configurationManaged(`environment ${env.name}`));
  }

  /**
   * Changes an environment (PUT /environments/{id}, `engage environments update|disable|enable`):
   * its display name (null: the name again), identity tenant (null: none) and status (ACTIVE or
   * DISABLED: a disabled environment's credentials are refused at the edge). Audited with what
   * changed; a change to nothing records nothing.
   */
  async function update(
    ref: string,
    input: { displayName?: string | null; identityTenantId?: string | null; status?: 'ACTIVE' | 'DISABLED' },
    actor: AuditActor,
    opts: EnvironmentOptions = {},
  ): Promise<EnvironmentRow> {
    const valid = validInput(checkEnvironmentUpdate, input, EnvironmentErrors.invalid);
    const env = await resolve(ref);
    changeable(env, opts);
    await checkTenant(valid.identityTenantId, opts);
    const change: EnvironmentChange = {};
    if (valid.displayName !== undefined && (valid.displayName?.trim() ?? null) !== (env.displayName ?? null)) change.displayName = valid.displayName?.trim() ?? null;
    if (valid.identityTenantId !== undefined && valid.identityTenantId !== (env.identityTenantId ?? null)) change.identityTenantId = valid.identityTenantId;
    if (valid.status !== undefined && valid.status !== env.status) change.status = valid.status;
    if (Object.keys(change).length === 0) return env;
    const at = now();
    const changed = await store.tx(async (tx) => {
      // Conditional on the status not being DELETING (the store's condition): a deletion that won the race stays a deletion.
      if ((await tx.environments.updateEnvironment(env.id, change)) !== 1) return false;
      // One event per kind of change: the identity tenant's as docs/sign-in-binding.md names it, the status as its transition.
      const target = { type: 'environment', id: env.id };
      if (change.displayName !== undefined) await auditIn(tx, actor, 'environment.updated', target, { environmentId: env.id, displayName: change.displayName }, at);
      if (change.identityTenantId !== undefined)
        await auditIn(tx, actor, 'environment.identity_tenant.changed', target, { environmentId: env.id, identityTenantId: change.identityTenantId, previous: env.identityTenantId ?? null }, at);
      if (change.status !== undefined) await auditIn(tx, actor, change.status === 'DISABLED' ? 'environment.disabled' : 'environment.enabled', target, { environmentId: env.id }, at);
      return true;
    });
    assertThat(changed, EnvironmentErrors.environmentDeleting(env.name));
    if (change.status === 'DISABLED') closed(env.id);
    return { ...env, ...change };
  }

  /**
   * Starts an environment's deletion (DELETE /environments/{id}, `engage environments delete`):
   * DELETING at once, its rows erased by a durable work item (deletion.ts). A repeat while it is
   * DELETING changes nothing and answers the same. The environment as it is now.
   */
  async function remove(ref: string, actor: AuditActor, opts: { allowManaged?: boolean } = {}): Promise<EnvironmentRow> {
    const env = await resolve(ref);
    if (env.status === 'DELETING') return env;
    assertThat(opts.allowManaged || env.configurationManaged !== 1, configurationManaged(`environment ${env.name}`));
    assertThat(deps.deletion, EnvironmentErrors.invalid('environment deletion is not available here'));
    const deletion = deps.deletion;
    await store.tx((tx) => deletion.queueIn(tx as never, env, actor));
    closed(env.id);
    return { ...env, status: 'DELETING' };
  }

  async function createApp(input: { environment: string; platform: string; name: string; bundleId?: string }, actor: AuditActor): Promise<AppView> {
    const valid = validInput(checkAppCreate, { ...input, platform: input.platform?.toUpperCase() }, EnvironmentErrors.invalid);
    const env = await resolve(valid.environment);
    const platform = valid.platform;
    const name = valid.name.trim();
    const row: AppRow = { id: newId(), environmentId: env.id, platform, name, appKey: newSecret(APP_KEY_PREFIX), status: 'ACTIVE', createdAt: now(), bundleId: valid.bundleId ?? null, configurationManaged: 0 };
    const inserted = await store.tx(async (tx) => {
      if (!(await tx.environments.insertApp(row))) return false;
      await auditIn(tx, actor, 'app.created', { type: 'app', id: row.id }, { environmentId: env.id, platform, name, bundleId: row.bundleId }, row.createdAt);
      return true;
    });
    assertThat(inserted, EnvironmentErrors.nameTaken('app', name));
    return appView(row);
  }

  /** An app by id or public key, or by name within `environment`. */
  async function findApp(ref: string, environment?: string): Promise<AppRow> {
    const app = environment ? await resolveApp((await resolve(environment)).id, ref) : await store.environments.findAppAnywhere(ref);
    assertThat(app, EnvironmentErrors.unknownApp(ref));
    return app;
  }

  async function setAppStatus(ref: string, status: AppRow['status'], environment: string | undefined, actor: AuditActor, opts: ManagedOption = {}): Promise<AppView> {
    const app = await findApp(ref, environment);
    assertThat(opts.allowManaged || app.configurationManaged !== 1, configurationManaged(`app ${app.name}`));
    await store.tx(async (tx) => {
      await tx.environments.setAppStatus(app.environmentId, app.id, status);
      await auditIn(tx, actor, status === 'DISABLED' ? 'app.disabled' : 'app.enabled', { type: 'app', id: app.id }, { environmentId: app.environmentId }, now());
    });
    // Its installations' credentials are refused from now on: their open streams end too, on every process.
    if (status === 'DISABLED') appClosed(app);
    return appView({ ...app, status });
  }

  /** Changes an app's name, bundle id or status. */
  async function updateApp(environment: string, ref: string, input: { name?: string; bundleId?: string | null; status?: AppRow['status'] }, actor: AuditActor, opts: ManagedOption = {}): Promise<AppView> {
    const valid = validInput(checkAppUpdate, input, EnvironmentErrors.invalid);
    const app = await findApp(ref, environment);
    assertThat(opts.allowManaged || app.configurationManaged !== 1, configurationManaged(`app ${app.name}`));
    const change = { name: valid.name?.trim(), bundleId: valid.bundleId, status: valid.status };
    const changed = Object.fromEntries(Object.entries(change).filter(([k, v]) => v !== undefined && v !== app[k as keyof AppRow]));
    if (Object.keys(changed).length === 0) return appView(app);
    const ok = await store.tx(async (tx) => {
      if (change.name !== undefined && change.name !== app.name && (await tx.environments.findAppByName(app.environmentId, change.name))) return false;
      await tx.environments.updateApp(app.environmentId, app.id, changed);
      await auditIn(tx, actor, 'app.updated', { type: 'app', id: app.id }, { environmentId: app.environmentId, ...changed }, now());
      return true;
    });
    assertThat(ok, EnvironmentErrors.nameTaken('app', change.name ?? ''));
    if (changed.status === 'DISABLED') appClosed(app);
    return appView({ ...app, ...changed });
  }

  /**
   * Deletes an app that has no installations and no provider credentials (409 app_in_use
   * otherwise: disable it instead); the access keys naming it lose it from their app set.
   */
  async function deleteApp(environment: string, ref: string, actor: AuditActor, opts: ManagedOption = {}): Promise<AppView> {
    const app = await findApp(ref, environment);
    assertThat(opts.allowManaged || app.configurationManaged !== 1, configurationManaged(`app ${app.name}`));
    const deleted = await store.tx(async (tx) => {
      if (!(await tx.environments.deleteUnusedApp(app.environmentId, app.id))) return false;
      for (const k of await tx.environments.listAccessKeys(app.environmentId)) {
        const ids = JSON.parse(k.appIds) as string[];
        if (ids.includes(app.id)) await tx.environments.setAccessKeyApps(app.environmentId, k.id, JSON.stringify(ids.filter((x) => x !== app.id)));
      }
      await auditIn(tx, actor, 'app.deleted', { type: 'app', id: app.id }, { environmentId: app.environmentId, name: app.name, platform: app.platform }, now());
      return true;
    });
    assertThat(deleted, EnvironmentErrors.appInUse(app.name));
    // An app with installations is never deleted (app_in_use), so no stream can be open: said
    // anyway, so that the deletion ends them whatever a later rule lets it delete.
    appClosed(app);
    return appView(app);
  }

  const accessKeys = createAccessKeys({ store, clock, resolve, resolveApp });

  return {
    create,
    update,
    remove,
    /** Whether the environment's credentials are honoured at the edge: ACTIVE only (DISABLED and DELETING refuse, as a disabled app does). */
    serving: async (environmentId: string): Promise<boolean> => (await store.environments.environmentStatus(environmentId)) === 'ACTIVE',
    list: (): Promise<EnvironmentRow[]> => store.environments.listEnvironments(),
    resolve,
    /** An environment by id or name, or undefined. */
    find: async (ref: string): Promise<EnvironmentRow | undefined> =>
      (await store.environments.findEnvironmentById(ref)) ?? (await store.environments.findEnvironmentByName(ref)),
    createApp,
    findApp,
    listApps: async (environment: string): Promise<AppView[]> => (await store.environments.listApps((await resolve(environment)).id)).map(appView),
    disableApp: (ref: string, environment: string | undefined, actor: AuditActor, opts?: ManagedOption) => setAppStatus(ref, 'DISABLED', environment, actor, opts),
    enableApp: (ref: string, environment: string | undefined, actor: AuditActor, opts?: ManagedOption) => setAppStatus(ref, 'ACTIVE', environment, actor, opts),
    /** An app of `environment` by id, public key or name, as shown. */
    showApp: async (environment: string, ref: string): Promise<AppView> => appView(await findApp(ref, environment)),
    updateApp,
    deleteApp,
    ...accessKeys,

    /** The enabled app a bootstrap names by its public key, or undefined. */
    async appForKey(appKey: string): Promise<AppRow | undefined> {
      const app = await store.environments.findAppByKey(appKey);
      return app && app.status === 'ACTIVE' ? app : undefined;
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
