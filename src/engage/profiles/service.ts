import type { TxRunner } from '../../platform/store/store';
import { STATE_KEY_COLUMNS, STATE_KINDS, type InstallationState, type LwwValue, type NewInstallation, type ProfileSnapshot, type Recovery, type StateKind } from './schemas';
import { SYNC_READ_LIMIT, type KeyedKind, type ProfileStore } from './store';

export { SYNC_READ_LIMIT, type KeyedKind };

export type { InstallationState, InstallationView, LwwValue, NewInstallation, ProfileSnapshot, Recovery, StateKind } from './schemas';

/**
 * Profile state: the one context that writes installations, their generations, profiles and
 * the last-writer-wins attributes, tags and subscriptions (db/owners.ts). Other contexts change
 * them only through the `…In(tx, …)` functions below, inside their own transaction, and read
 * them through `snapshot` and the lookups.
 */
export type ProfileTx = { profiles: ProfileStore };

const PROFILE_KINDS: ReadonlySet<StateKind> = new Set(['profileAttributes', 'profileTags', 'profileSubscriptions']);

/** Last-writer-wins on (ms, op): the later write wins a tie, as it would written one after the other. */
export const wins = (ms: number, op: string, over: { ms: number; op: string }) => ms > over.ms || (ms === over.ms && op >= over.op);

/** Last-writer-wins update of one installation-level state value in `state` (written by `applyIn`); true when it landed. */
export function setState<V>(column: LwwValue<V>, value: V, ms: number, op: string): boolean {
  if (column.op !== '' && !wins(ms, op, column)) return false;
  column.value = value;
  column.ms = ms;
  column.op = op;
  return true;
}

/**
 * A set of last-writer-wins effects, one row per key and kind: the row that would stand had the
 * writes been made one after the other (each key's winner). The database then applies the same
 * rule between that row and the stored one, which gives the same result.
 */
export class StateEffects {
  private readonly byKind = new Map<StateKind, Map<string, unknown[]>>();

  /** `row` is the key values (owner id first), then value, ms and op (booleans as 0/1). */
  put(kind: StateKind, row: unknown[]): void {
    let rows = this.byKind.get(kind);
    if (rows === undefined) this.byKind.set(kind, (rows = new Map()));
    const k = STATE_KEY_COLUMNS[kind];
    // Owner ids never hold a NUL, and the last key column is the only free-form one but for lists,
    // which are followed only by a channel (never holding a NUL): the joined key is unambiguous.
    let id = row[0] as string;
    for (let c = 1; c < k; c++) id += `\u0000${row[c] as string}`;
    const held = rows.get(id);
    const ms = row[k + 1] as number;
    const op = row[k + 2] as string;
    if (held === undefined || wins(ms, op, { ms: held[k + 1] as number, op: held[k + 2] as string })) rows.set(id, row);
  }

  rows(kind: StateKind): unknown[][] {
    const rows = this.byKind.get(kind);
    return rows === undefined ? [] : [...rows.values()];
  }
}

/** The installation-level state, its row locked until the caller's transaction ends (PostgreSQL); undefined for no such installation. */
export function lockStateIn(tx: ProfileTx, environmentId: string, installationId: string): Promise<InstallationState | undefined> {
  return tx.profiles.lockState(environmentId, installationId);
}

/** The profiles bound in `generations` of the installation (the generation fence of spec 01). */
export function profilesOfGenerationsIn(tx: ProfileTx, installationId: string, generations: readonly number[]): Promise<Map<number, string>> {
  return tx.profiles.profilesOfGenerations(installationId, generations);
}

/**
 * Applies `effects` (last-writer-wins against the stored rows) in the caller's transaction, and
 * writes the installation-level `state` when given (as decided under `lockStateIn`'s lock).
 * One multi-row statement per kind of effect.
 */
/** Live keys of an owner, for a cap at ingest (operations/key-budget.ts): how many, and which of some. */
export const liveKeyCountIn = (tx: ProfileTx, kind: KeyedKind, ownerId: string) => tx.profiles.liveKeyCount(kind, ownerId);
export const liveKeysAmongIn = (tx: ProfileTx, kind: KeyedKind, ownerId: string, keys: readonly string[]) => tx.profiles.liveKeysAmong(kind, ownerId, keys);

export async function applyIn(
  tx: ProfileTx,
  target: { environmentId: string; installationId: string; at: string },
  effects: StateEffects,
  state?: InstallationState,
  /** Something else an installation's documents derive from changed in this transaction (an in-app cap reached). */
  touched = false,
): Promise<StateChanges> {
  let installationChanged = false;
  const profilesChanged = new Set<string>();
  for (const kind of STATE_KINDS) {
    const rows = effects.rows(kind);
    if (rows.length === 0) continue;
    await tx.profiles.upsert(kind, rows);
    if (PROFILE_KINDS.has(kind)) for (const r of rows) profilesChanged.add(r[0] as string);
    else installationChanged = true;
  }
  // The sync revisions (issue 26): writeState moves the installation's on; a write that lost to a
  // later one moves them too, which at worst sends an unchanged document again.
  if (state) await tx.profiles.writeState(target.environmentId, target.installationId, state, target.at);
  else if (installationChanged || touched) await tx.profiles.bumpInstallation(target.environmentId, target.installationId);
  const profiles = [...profilesChanged].sort();
  for (const id of profiles) await tx.profiles.bumpProfile(target.environmentId, id);
  return { installation: installationChanged || touched || state !== undefined, profiles };
}

/**
 * Something a profile's sync documents derive from changed outside profile state, in the caller's
 * transaction (an automation made an in-app message eligible for it, issue 28): its sync revision
 * moves on, so its installations' next syncs send what changed.
 */
export function touchProfileIn(tx: ProfileTx, environmentId: string, profileId: string): Promise<void> {
  return tx.profiles.bumpProfile(environmentId, profileId);
}

/** Whose sync revision a write moved: the change notices said after its commit (issue 26 point 6). */
export interface StateChanges {
  installation: boolean;
  profiles: string[];
}

/** A provider reported `token` invalid since `invalidSinceMs`: cleared unless the app set it again later; false when nothing was cleared. */
export function clearPushTokenIn(tx: ProfileTx, environmentId: string, installationId: string, token: string, invalidSinceMs: number, at: string): Promise<boolean> {
  return tx.profiles.clearPushToken(environmentId, installationId, token, invalidSinceMs, at);
}

/** Bootstrap: the installation at generation 0 with its anonymous profile. */
export function createInstallationIn(tx: ProfileTx, r: NewInstallation): Promise<void> {
  return tx.profiles.insertInstallation(r);
}

/** Recovery: new metadata and credentials while `presentedRecoveryDigest` still names the installation; false when another recovery won. */
export function recoverIn(tx: ProfileTx, environmentId: string, id: string, presentedRecoveryDigest: string, r: Recovery): Promise<boolean> {
  return tx.profiles.recover(environmentId, id, presentedRecoveryDigest, r);
}

/** The profile with `externalId`, created as `newId` when there is none. */
export function ensureProfileIn(tx: ProfileTx, environmentId: string, externalId: string, newId: string, createdAt: string): Promise<string> {
  return tx.profiles.ensureProfile(environmentId, externalId, newId, createdAt);
}

export function createAnonymousProfileIn(tx: ProfileTx, environmentId: string, id: string, createdAt: string): Promise<void> {
  return tx.profiles.insertAnonymousProfile(environmentId, id, createdAt);
}

/** Moves the installation to `generation`, bound to `profileId`, recording the fence; false when it is already there or beyond. */
export function commitGenerationIn(
  tx: ProfileTx,
  environmentId: string,
  installationId: string,
  generation: number,
  profileId: string,
  bindingState: 'BOUND' | 'ANONYMOUS',
  at: string,
): Promise<boolean> {
  return tx.profiles.commitGeneration(environmentId, installationId, generation, profileId, bindingState, at);
}

const parsed = (rows: { key: string; value: string }[]): Record<string, unknown> => Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));

/**
 * The installation's current generation, the profile bound in it and its locale (the inbox's view,
 * issue 27); with `lock`, its row locked until the caller's transaction ends (PostgreSQL), as
 * ingest locks it, so a binding transition waits for the caller. Undefined for no such installation.
 */
export function bindingIn(tx: ProfileTx, environmentId: string, installationId: string, lock = false) {
  return tx.profiles.binding(environmentId, installationId, lock);
}

/**
 * The values an installation's sync documents derive from (issue 26), read in the caller's
 * snapshot (transaction or shared read): its attributes and list choices, and those of
 * `profileId` (its current profile, anonymous ones too): at most SYNC_READ_LIMIT (1,000) of each
 * kind, the first in key order, so what an installation holds cannot make its syncs slow.
 */
export async function documentSourcesIn(tx: ProfileTx, installationId: string, profileId: string) {
  const r = await tx.profiles.syncSources(installationId, profileId);
  return {
    attributes: parsed(r.attributes),
    subscriptions: Object.fromEntries(r.subscriptions.map((x) => [x.list, Boolean(x.subscribed)])) as Record<string, boolean>,
    profile: {
      attributes: parsed(r.profileAttributes),
      tags: r.profileTags,
      subscriptions: r.profileSubscriptions.map((x) => ({ list: x.list, channel: x.channel, subscribed: Boolean(x.subscribed) })),
    },
  };
}

export function createProfileService(deps: { store: ProfileTx & TxRunner<ProfileTx> }) {
  const { store } = deps;

  /** The profile id with `externalId` in the environment, if any. */
  function findProfileByExternalId(environmentId: string, externalId: string): Promise<string | undefined> {
    return store.profiles.findProfileByExternalId(environmentId, externalId);
  }

  /** The current state of an installation and of the profile it is bound to, read in one snapshot; undefined for no such installation. */
  function snapshot(environmentId: string, installationId: string): Promise<ProfileSnapshot | undefined> {
    return store.tx(async (tx) => {
      const s = await tx.profiles.state(environmentId, installationId);
      if (!s) return undefined;
      const profile = s.profileId ? await tx.profiles.profile(environmentId, s.profileId) : undefined;
      return {
        installation: {
          id: installationId,
          generation: s.generation,
          privacy: s.privacy.value,
          pushSubscription: s.pushSubscription.value,
          pushPermission: s.pushPermission.value,
          pushToken: s.pushToken.value,
          attributes: parsed(await tx.profiles.installationAttributes(installationId)),
          subscriptions: Object.fromEntries((await tx.profiles.installationSubscriptions(installationId)).map((r) => [r.list, Boolean(r.subscribed)])),
        },
        profile: profile
          ? {
              id: profile.id,
              externalId: profile.externalId,
              attributes: parsed(await tx.profiles.profileAttributes(profile.id)),
              tags: await tx.profiles.profileTags(profile.id),
              subscriptions: (await tx.profiles.profileSubscriptions(profile.id)).map((r) => ({ list: r.list, channel: r.channel, subscribed: Boolean(r.subscribed) })),
            }
          : null,
      };
    });
  }

  /**
   * An installation as operators see it (read model of `installations show`): its row, values,
   * subscriptions and generations; in `environmentId` when given, else in its own environment.
   * Undefined for no such installation there.
   */
  async function installationView(id: string, environmentId?: string) {
    const env = environmentId ?? (await store.profiles.environmentOf(id));
    const row = env ? await store.profiles.installationView(env, id) : undefined;
    if (!row) return undefined;
    return {
      row,
      attributes: parsed(await store.profiles.installationAttributes(id)),
      subscriptions: Object.fromEntries((await store.profiles.installationSubscriptions(id)).map((r) => [r.list, Boolean(r.subscribed)])),
      generations: await store.profiles.generations(id),
    };
  }

  /**
   * A profile as operators see it (read model of `profiles show`), by its external id or, with
   * `{ id }`, by its profile id (an anonymous profile too); undefined for none in the environment.
   */
  async function profileView(environmentId: string, ref: string | { id: string }) {
    const p = typeof ref === 'string' ? await store.profiles.profileView(environmentId, ref) : await store.profiles.profileById(environmentId, ref.id);
    if (!p) return undefined;
    return {
      ...p,
      attributes: parsed(await store.profiles.profileAttributes(p.id)),
      tags: await store.profiles.profileTags(p.id),
      subscriptions: (await store.profiles.profileSubscriptions(p.id)).map((r) => ({ list: r.list, channel: r.channel, subscribed: Boolean(r.subscribed) })),
      installations: await store.profiles.installationsOfProfile(environmentId, p.id),
    };
  }

  /**
   * A page of the environment's installations in id order after `after` (keyset: no offset, no
   * count; issue 24), `size` of them and whether more follow.
   */
  async function installationPage(environmentId: string, after: string, size: number) {
    const rows = await store.profiles.installationPage(environmentId, after, size + 1);
    const items = rows.slice(0, size).map((r) => ({ ...r, generation: Number(r.generation), pushTokenHeld: Number(r.pushTokenHeld) === 1 }));
    return { items, hasMore: rows.length > size };
  }

  /** Whether `profileId` is a profile of the environment (one primary-key read). */
  const profileExists = async (environmentId: string, profileId: string): Promise<boolean> => (await store.profiles.profileById(environmentId, profileId)) !== undefined;

  return { snapshot, findProfileByExternalId, installationView, profileView, profileExists, installationPage };
}

export type ProfileService = ReturnType<typeof createProfileService>;
