import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { validInput } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { configurationManaged } from '../shared/errors';
import { EnvironmentErrors } from './errors';
import { MAX_ROTATION_OVERLAP_SECONDS, checkAccessKeyCreate } from './schemas';
import type { AccessKeyRow, AppRow, EnvironmentRow, EnvironmentStore } from './store';

export const ACCESS_KEY_PREFIX = 'svc_key_';

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
  /** `svc_key_`, and the last four characters of the current secret: enough to recognise a key, never the key. */
  prefix: string;
  keyHint: string | null;
  expiresAt: string | null;
  /** During a rotation's overlap: when the previous secret stops working. */
  previousExpiresAt: string | null;
  configurationManaged: boolean;
}

/** An authenticated environment access key (spec 01 "Authentication"). */
export interface AccessKeyPrincipal {
  id: string;
  environmentId: string;
  appIds: ReadonlySet<string>;
}

const keyView = (k: AccessKeyRow): AccessKeyView => ({
  id: k.id,
  environmentId: k.environmentId,
  name: k.name,
  appIds: JSON.parse(k.appIds) as string[],
  status: k.status,
  createdAt: k.createdAt,
  rotatedAt: k.rotatedAt,
  revokedAt: k.revokedAt,
  prefix: ACCESS_KEY_PREFIX,
  keyHint: k.keyHint,
  expiresAt: k.expiresAt,
  previousExpiresAt: k.previousKeyDigest ? k.previousExpiresAt : null,
  configurationManaged: k.configurationManaged === 1,
});

type Stores = { environments: EnvironmentStore } & AuditTx;
type ManagedOption = { allowManaged?: boolean };

/**
 * Environment access keys (spec 01 "Authentication"; issue 24 point 3), part of the environment
 * service: shown once, stored as digests, with an optional expiry and a rotation's overlap.
 */
export function createAccessKeys(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  resolve: (ref: string) => Promise<EnvironmentRow>;
  resolveApp: (environmentId: string, ref: string) => Promise<AppRow>;
}) {
  const { store, clock, resolve, resolveApp } = deps;
  const now = () => clock.now().toISOString();

  async function createAccessKey(input: { environment: string; apps: string[]; name?: string; expiresAt?: string }, actor: AuditActor): Promise<AccessKeyView & { key: string }> {
    validInput(checkAccessKeyCreate, input, EnvironmentErrors.invalid);
    const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString();
    assertThat(expiresAt === null || expiresAt > now(), EnvironmentErrors.invalid('expiresAt: must be in the future'));
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
      expiresAt,
      keyHint: key.slice(-4),
      previousKeyDigest: null,
      previousExpiresAt: null,
      configurationManaged: 0,
    };
    await store.tx(async (tx) => {
      await tx.environments.insertAccessKey(row);
      await auditIn(tx, actor, 'access_key.created', { type: 'access_key', id: row.id }, { environmentId: env.id, appIds, name: row.name, expiresAt }, row.createdAt);
    });
    return { ...keyView(row), key };
  }

  /** A key by id; with `environment`, only a key of that environment (another's id is unknown). */
  async function getKey(id: string, environment?: string): Promise<AccessKeyRow> {
    const row = environment === undefined ? await store.environments.findAccessKey(id) : await store.environments.findAccessKeyIn((await resolve(environment)).id, id);
    assertThat(row, EnvironmentErrors.unknownAccessKey(id));
    return row;
  }

  async function revokeAccessKey(id: string, actor: AuditActor, opts: ManagedOption & { environment?: string } = {}): Promise<AccessKeyView> {
    const row = await getKey(id, opts.environment);
    assertThat(opts.allowManaged || row.configurationManaged !== 1, configurationManaged(`access key ${row.id}`));
    // The first revocation's time stays, also when two revocations race.
    const revokedAt = await store.tx(async (tx) => {
      const at = await tx.environments.revokeAccessKey(row.environmentId, row.id, now());
      // A repeat changes nothing and records nothing.
      if (at !== undefined) await auditIn(tx, actor, 'access_key.revoked', { type: 'access_key', id: row.id }, { environmentId: row.environmentId }, at);
      return at;
    });
    return keyView({ ...row, status: 'REVOKED', revokedAt: revokedAt ?? row.revokedAt ?? now() });
  }

  /**
   * Replaces the secret of a key (same id and apps). Without an overlap the previous secret stops
   * working at once; with `overlapSeconds` (0 to 7 days) it keeps working until then, beside the
   * new one. A rotation during another's overlap ends that overlap: only the secret being replaced
   * is kept (one previous secret per key, migration 0028).
   */
  async function rotateAccessKey(
    id: string,
    actor: AuditActor,
    opts: ManagedOption & { environment?: string; overlapSeconds?: number } = {},
  ): Promise<AccessKeyView & { key: string }> {
    const overlap = opts.overlapSeconds ?? 0;
    assertThat(Number.isInteger(overlap) && overlap >= 0 && overlap <= MAX_ROTATION_OVERLAP_SECONDS,
      EnvironmentErrors.invalid(`overlap: must be 0 to ${MAX_ROTATION_OVERLAP_SECONDS} seconds (7 days)`));
    const row = await getKey(id, opts.environment);
    assertThat(opts.allowManaged || row.configurationManaged !== 1, configurationManaged(`access key ${row.id}`));
    assertThat(row.status === 'ACTIVE', EnvironmentErrors.accessKeyRevoked(id));
    const rotatedAt = now();
    assertThat(row.expiresAt === null || row.expiresAt > rotatedAt, EnvironmentErrors.accessKeyExpired(id));
    const key = newSecret(ACCESS_KEY_PREFIX);
    const previousExpiresAt = overlap > 0 ? new Date(clock.now().getTime() + overlap * 1000).toISOString() : null;
    const change = { keyDigest: digest(key), rotatedAt, keyHint: key.slice(-4), previousKeyDigest: overlap > 0 ? row.keyDigest : null, previousExpiresAt };
    // Only while still active with the secret read above: a revocation committed since stays a
    // revocation, and of two rotations racing one wins (the other is 409 and its key never handed out).
    const changed = await store.tx(async (tx) => {
      const n = await tx.environments.rotateAccessKeySecret(row.environmentId, row.id, row.keyDigest, change);
      if (n === 1) await auditIn(tx, actor, 'access_key.rotated', { type: 'access_key', id: row.id }, { environmentId: row.environmentId, overlapSeconds: overlap, previousExpiresAt }, rotatedAt);
      return n;
    });
    if (changed !== 1) {
      const current = await store.environments.findAccessKey(row.id);
      throw current?.status === 'ACTIVE' ? EnvironmentErrors.rotationConflict(id) : EnvironmentErrors.accessKeyRevoked(id);
    }
    return { ...keyView({ ...row, ...change }), key };
  }

  return {
    /** A key of `environment` (never the secret). */
    showAccessKey: async (environment: string, id: string): Promise<AccessKeyView> => keyView(await getKey(id, environment)),
    createAccessKey,
    listAccessKeys: async (environment: string): Promise<AccessKeyView[]> =>
      (await store.environments.listAccessKeys((await resolve(environment)).id)).map(keyView),
    revokeAccessKey,
    rotateAccessKey,
    /**
     * An active, unexpired access key by its bearer value, or undefined: its current secret, or
     * the previous one until a rotation's overlap ends. Read from the database at every request,
     * so a revocation or a rotation is seen at once by every process.
     */
    async authenticateAccessKey(bearer: string): Promise<AccessKeyPrincipal | undefined> {
      if (!bearer.startsWith(ACCESS_KEY_PREFIX)) return undefined;
      const d = digest(bearer);
      const at = now();
      let row = await store.environments.findAccessKeyByDigest(d);
      if (!row) {
        row = await store.environments.findAccessKeyByPreviousDigest(d);
        if (row && !(row.previousExpiresAt !== null && row.previousExpiresAt > at)) return undefined;
      }
      if (!row || row.status !== 'ACTIVE') return undefined;
      if (row.expiresAt !== null && row.expiresAt <= at) return undefined;
      return { id: row.id, environmentId: row.environmentId, appIds: new Set(JSON.parse(row.appIds) as string[]) };
    },
  };
}
