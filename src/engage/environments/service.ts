import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
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

type Stores = { environments: EnvironmentStore };


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

/** Environments, apps and access keys: called by the CLI now and the admin API later. */
export function createEnvironmentService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** An environment by id or name. */
  function resolve(ref: string): EnvironmentRow {
    const env = store.environments.findEnvironmentById(ref) ?? store.environments.findEnvironmentByName(ref);
    assertThat(env, EnvironmentErrors.unknownEnvironment(ref));
    return env;
  }

  function resolveApp(environmentId: string, ref: string): AppRow {
    const app = store.environments.findApp(environmentId, ref) ?? store.environments.findAppByName(environmentId, ref);
    assertThat(app, EnvironmentErrors.unknownApp(ref));
    return app;
  }

  async function create(input: { name: string }): Promise<EnvironmentRow> {
    const name = validInput(checkEnvironmentCreate, input, EnvironmentErrors.invalid).name.trim();
    const row: EnvironmentRow = { id: newId(), name, createdAt: now() };
    await store.tx((tx) => {
      assertThat(!tx.environments.findEnvironmentByName(name), EnvironmentErrors.nameTaken('environment', name));
      tx.environments.insertEnvironment(row);
    });
    return row;
  }

  async function createApp(input: { environment: string; platform: string; name: string }): Promise<AppView> {
    const valid = validInput(checkAppCreate, { ...input, platform: input.platform?.toUpperCase() }, EnvironmentErrors.invalid);
    const env = resolve(valid.environment);
    const platform = valid.platform;
    const name = valid.name.trim();
    const row: AppRow = { id: newId(), environmentId: env.id, platform, name, appKey: newSecret(APP_KEY_PREFIX), status: 'ACTIVE', createdAt: now() };
    await store.tx((tx) => {
      assertThat(!tx.environments.findAppByName(env.id, name), EnvironmentErrors.nameTaken('app', name));
      tx.environments.insertApp(row);
    });
    return appView(row);
  }

  async function setAppStatus(ref: string, status: AppRow['status'], environment?: string): Promise<AppView> {
    const app = environment ? resolveApp(resolve(environment).id, ref) : store.environments.findAppAnywhere(ref);
    assertThat(app, EnvironmentErrors.unknownApp(ref));
    await store.tx((tx) => tx.environments.setAppStatus(app.environmentId, app.id, status));
    return appView({ ...app, status });
  }

  async function createAccessKey(input: { environment: string; apps: string[]; name?: string }): Promise<AccessKeyView & { key: string }> {
    validInput(checkAccessKeyCreate, input, EnvironmentErrors.invalid);
    const env = resolve(input.environment);
    const appIds = [...new Set(input.apps.map((ref) => resolveApp(env.id, ref).id))];
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
    };
    await store.tx((tx) => tx.environments.insertAccessKey(row));
    return { ...keyView(row), key };
  }

  function getKey(id: string): AccessKeyRow {
    const row = store.environments.findAccessKey(id);
    assertThat(row, EnvironmentErrors.unknownAccessKey(id));
    return row;
  }

  async function revokeAccessKey(id: string): Promise<AccessKeyView> {
    const row = getKey(id);
    const revokedAt = row.revokedAt ?? now();
    await store.tx((tx) => tx.environments.updateAccessKey(row.environmentId, row.id, { status: 'REVOKED', revokedAt }));
    return keyView({ ...row, status: 'REVOKED', revokedAt });
  }

  /** Replaces the secret of a key (same id and apps); the previous secret stops working at once. */
  async function rotateAccessKey(id: string): Promise<AccessKeyView & { key: string }> {
    const row = getKey(id);
    assertThat(row.status === 'ACTIVE', EnvironmentErrors.accessKeyRevoked(id));
    const key = newSecret(ACCESS_KEY_PREFIX);
    const rotatedAt = now();
    await store.tx((tx) => tx.environments.updateAccessKey(row.environmentId, row.id, { keyDigest: digest(key), rotatedAt }));
    return { ...keyView({ ...row, rotatedAt }), key };
  }

  return {
    create,
    list: (): EnvironmentRow[] => store.environments.listEnvironments(),
    resolve,
    createApp,
    listApps: (environment: string): AppView[] => store.environments.listApps(resolve(environment).id).map(appView),
    disableApp: (ref: string, environment?: string) => setAppStatus(ref, 'DISABLED', environment),
    enableApp: (ref: string, environment?: string) => setAppStatus(ref, 'ACTIVE', environment),
    createAccessKey,
    listAccessKeys: (environment: string): AccessKeyView[] => store.environments.listAccessKeys(resolve(environment).id).map(keyView),
    revokeAccessKey,
    rotateAccessKey,

    /** The enabled app a bootstrap names by its public key, or undefined. */
    appForKey(appKey: string): AppRow | undefined {
      const app = store.environments.findAppByKey(appKey);
      return app && app.status === 'ACTIVE' ? app : undefined;
    },
    /** An active access key by its bearer value, or undefined. */
    authenticateAccessKey(bearer: string): AccessKeyPrincipal | undefined {
      if (!bearer.startsWith(ACCESS_KEY_PREFIX)) return undefined;
      const row = store.environments.findAccessKeyByDigest(digest(bearer));
      if (!row || row.status !== 'ACTIVE') return undefined;
      return { id: row.id, environmentId: row.environmentId, appIds: new Set(JSON.parse(row.appIds) as string[]) };
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
