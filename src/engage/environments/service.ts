import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { TxRunner } from '../../platform/store/store';
import { EnvironmentErrors } from './errors';
import { PLATFORMS, checkAccessKeyCreate, checkAppCreate, checkEnvironmentCreate, checkEnvironmentUpdate } from './schemas';
import type { EnvironmentDeletion } from './deletion';
import { configurationManaged } from '../shared/errors';
import { validInput } from '../../platform/http/schema';
import type { AccessKeyRow, AppRow, EnvironmentChange, EnvironmentRow, EnvironmentStore } from './store';

export type { AppRow } from './store';

export const APP_KEY_PREFIX = 'svc_app_';
export const ACCESS_KEY_PREFIX = 'svc_key_';
export { PLATFORMS };
export type Platform = (typeof PLATFORMS)[number];

export interface AppView {
  id: string;
  environmentId: string;
  platform: Platform;
  name: string;
  appKey: string;
  status: AppRow['status'];
  createdAt: string;
}

/** An access key as listed: never the key itself (shown once, stored as a digest). */
export interface AccessKeyView {
  id: string;
  environmentId: string;
  name: string | null;
  appIds: string[];
  status: AccessKeyRow['status'];
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
}

/** An authenticated environment access key (spec 01 "Authentication"). */
export interface AccessKeyPrincipal {
  id: string;
  environmentId: string;
  appIds: ReadonlySet<string>;
}

type Stores = { environments: EnvironmentStore } & AuditTx;


const appView = (a: AppRow): AppView => ({ ...a });
const keyView = (k: AccessKeyRow): AccessKeyView => ({
  id: k.id,
  environmentId: k.environmentId,
  name: k.name,
  appIds: JSON.parse(k.appIds) as string[],
  status: k.status,
  createdAt: k.createdAt,
  rotatedAt: k.rotatedAt,
  revokedAt: k.revokedAt,
});

/**
 * Environments, apps and access keys: called by the CLI now and the admin API later. Every
 * change takes its actor (the CLI's `os:<user>`, a token's subject) and records its audit event
 * in its own transaction; never a key.
 */
export function createEnvironmentService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  /** Queues an environment's deletion as durable work (deletion.ts); absent where nothing deletes environments. */
  deletion?: Pick<EnvironmentDeletion, 'queueIn'>;
}) {

  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** An environment by id or name. */
  async function resolve(ref: string): Promise<EnvironmentRow> {
    const env = (await store.environments.findEnvironmentById(ref)) ?? (await store.environments.findEnvironmentByName(ref));
    assertThat(env, EnvironmentErrors.unknownEnvironment(ref));
    return env;
  }

  async function resolveApp(environmentId: string, ref: string): Promise<AppRow> {
    const app = (await store.environments.findApp(environmentId, ref)) ?? (await store.environments.findAppByName(environmentId, ref));
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
      const action = change.status === 'DISABLED' ? 'environment.disabled' : change.status === 'ACTIVE' ? 'environment.enabled' : 'environment.updated';
      await auditIn(tx, actor, action, { type: 'environment', id: env.id }, { environmentId: env.id, ...change }, at);
      return true;
    });
    assertThat(changed, EnvironmentErrors.environmentDeleting(env.name));
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
    return { ...env, status: 'DELETING' };
  }

  async function createApp(input: { environment: string; platform: string; name: string }, actor: AuditActor): Promise<AppView> {
    const valid = validInput(checkAppCreate, { ...input, platform: input.platform?.toUpperCase() }, EnvironmentErrors.invalid);
    const env = await resolve(valid.environment);
    const platform = valid.platform;
    const name = valid.name.trim();
    const row: AppRow = { id: newId(), environmentId: env.id, platform, name, appKey: newSecret(APP_KEY_PREFIX), status: 'ACTIVE', createdAt: now(), bundleId: null, configurationManaged: 0 };
    const inserted = await store.tx(async (tx) => {
      if (!(await tx.environments.insertApp(row))) return false;
      await auditIn(tx, actor, 'app.created', { type: 'app', id: row.id }, { environmentId: env.id, platform, name }, row.createdAt);
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

  async function setAppStatus(ref: string, status: AppRow['status'], environment: string | undefined, actor: AuditActor): Promise<AppView> {
    const app = await findApp(ref, environment);
    await store.tx(async (tx) => {
      await tx.environments.setAppStatus(app.environmentId, app.id, status);
      await auditIn(tx, actor, status === 'DISABLED' ? 'app.disabled' : 'app.enabled', { type: 'app', id: app.id }, { environmentId: app.environmentId }, now());
    });
    return appView({ ...app, status });
  }

  async function createAccessKey(input: { environment: string; apps: string[]; name?: string }, actor: AuditActor): Promise<AccessKeyView & { key: string }> {
    validInput(checkAccessKeyCreate, input, EnvironmentErrors.invalid);
    const env = await resolve(input.environment);
    const appIds: string[] = [];
    for (const ref of input.apps) {
      const id = (await resolveApp(env.id, ref)).id;
      if (!appIds.includes(id)) appIds.push(id);
    }
    const key = newSecret(ACCESS_KEY_PREFIX);
    const row: AccessKeyRow = {
      id: newId(),
      environmentId: env.id,
      name: input.name === undefined ? null : input.name.trim(),
      keyDigest: digest(key),
      appIds: JSON.stringify(appIds),
      status: 'ACTIVE',
      createdAt: now(),
      rotatedAt: null,
      revokedAt: null,
      expiresAt: null,
      keyHint: key.slice(-4),
      previousKeyDigest: null,
      previousExpiresAt: null,
      configurationManaged: 0,
    };
    await store.tx(async (tx) => {
      await tx.environments.insertAccessKey(row);
      await auditIn(tx, actor, 'access_key.created', { type: 'access_key', id: row.id }, { environmentId: env.id, appIds, name: row.name }, row.createdAt);
    });
    return { ...keyView(row), key };
  }

  async function getKey(id: string): Promise<AccessKeyRow> {
    const row = await store.environments.findAccessKey(id);
    assertThat(row, EnvironmentErrors.unknownAccessKey(id));
    return row;
  }

  async function revokeAccessKey(id: string, actor: AuditActor): Promise<AccessKeyView> {
    const row = await getKey(id);
    // The first revocation's time stays, also when two revocations race.
    const revokedAt = await store.tx(async (tx) => {
      const at = await tx.environments.revokeAccessKey(row.environmentId, row.id, now());
      // A repeat changes nothing and records nothing.
      if (at !== undefined) await auditIn(tx, actor, 'access_key.revoked', { type: 'access_key', id: row.id }, { environmentId: row.environmentId }, at);
      return at;
    });
    return keyView({ ...row, status: 'REVOKED', revokedAt: revokedAt ?? row.revokedAt ?? now() });
  }

  /** Replaces the secret of a key (same id and apps); the previous secret stops working at once. */
  async function rotateAccessKey(id: string, actor: AuditActor): Promise<AccessKeyView & { key: string }> {
    const row = await getKey(id);
    assertThat(row.status === 'ACTIVE', EnvironmentErrors.accessKeyRevoked(id));
    const key = newSecret(ACCESS_KEY_PREFIX);
    const rotatedAt = now();
    // Only while still active: a revocation committed since the read above stays a revocation.
    const changed = await store.tx(async (tx) => {
      const n = await tx.environments.updateAccessKey(row.environmentId, row.id, { keyDigest: digest(key), rotatedAt }, 'ACTIVE');
      if (n === 1) await auditIn(tx, actor, 'access_key.rotated', { type: 'access_key', id: row.id }, { environmentId: row.environmentId }, rotatedAt);
      return n;
    });
    assertThat(changed === 1, EnvironmentErrors.accessKeyRevoked(id));
    return { ...keyView({ ...row, rotatedAt }), key };
  }

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
    disableApp: (ref: string, environment: string | undefined, actor: AuditActor) => setAppStatus(ref, 'DISABLED', environment, actor),
    enableApp: (ref: string, environment: string | undefined, actor: AuditActor) => setAppStatus(ref, 'ACTIVE', environment, actor),
    createAccessKey,
    listAccessKeys: async (environment: string): Promise<AccessKeyView[]> =>
      (await store.environments.listAccessKeys((await resolve(environment)).id)).map(keyView),
    revokeAccessKey,
    rotateAccessKey,

    /** The enabled app a bootstrap names by its public key, or undefined. */
    async appForKey(appKey: string): Promise<AppRow | undefined> {
      const app = await store.environments.findAppByKey(appKey);
      return app && app.status === 'ACTIVE' ? app : undefined;
    },
    /** An active access key by its bearer value, or undefined. */
    async authenticateAccessKey(bearer: string): Promise<AccessKeyPrincipal | undefined> {
      if (!bearer.startsWith(ACCESS_KEY_PREFIX)) return undefined;
      const row = await store.environments.findAccessKeyByDigest(digest(bearer));
      if (!row || row.status !== 'ACTIVE') return undefined;
      return { id: row.id, environmentId: row.environmentId, appIds: new Set(JSON.parse(row.appIds) as string[]) };
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
