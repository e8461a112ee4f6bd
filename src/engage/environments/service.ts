import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { TxRunner } from '../../platform/store/store';
import { EnvironmentErrors } from './errors';
import { PLATFORMS, checkAccessKeyCreate, checkAppCreate, checkEnvironmentCreate } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { AccessKeyRow, AppRow, EnvironmentRow, EnvironmentStore } from './store';

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
export function createEnvironmentService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
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

  async function create(input: { name: string }, actor: AuditActor): Promise<EnvironmentRow> {
    const name = validInput(checkEnvironmentCreate, input, EnvironmentErrors.invalid).name.trim();
    const row: EnvironmentRow = { id: newId(), name, createdAt: now(), identityTenantId: null, displayName: null, status: 'ACTIVE', configurationManaged: 0 };
    // A conditional write: the name is unique, so of two concurrent creations one inserts.
    const inserted = await store.tx(async (tx) => {
      if (!(await tx.environments.insertEnvironment(row))) return false;
      await auditIn(tx, actor, 'environment.created', { type: 'environment', id: row.id }, { name }, row.createdAt);
      return true;
    });
    assertThat(inserted, EnvironmentErrors.nameTaken('environment', name));
    return row;
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
