/**
 * POST /v1/sdk/sync (spec 01; issue 26 "The protocol"): the documents of the requested modules
 * for one installation in its current generation, as a full snapshot or as a delta from the
 * state a cursor describes.
 *
 * The state is three revisions, each moved on in the writing transaction under one row's lock,
 * so each follows its writers' commit order: the environment's definitions revision
 * (engage/definitions), the installation's sync revision and its current profile's (profile
 * state). A cursor holds all three. A sync reads them with everything it derives from in one
 * snapshot (a single statement, a REPEATABLE READ transaction on PostgreSQL, the turn's shared
 * read transaction on SQLite), so the revisions it answers with describe exactly what it read:
 * a change committed later has a higher revision and is in the next delta. A document is sent
 * when one of its sources moved past the cursor's (documents.ts), a tombstone for each
 * definition changed since that the installation does not have.
 */
import type { Clock } from '../../platform/clock';
import type { Dialect } from '../../platform/store/sql';
import type { TxOptions, TxRunner } from '../../platform/store/store';
import type { FlagReadStore, StickyRow } from '../flags/read-store';
import type { InAppReadStore } from '../in-app/read-store';
import { CREDENTIAL_PREFIX, type InstallationPrincipal } from '../installations/service';
import { digest } from '../../platform/crypto';
import type { ListReadStore } from '../preferences/read-store';
import type { ProfileTx } from '../profiles/service';
import type { PushChannelReadStore } from '../push-channels/read-store';
import { EdgeErrors } from '../shared/errors';
import { SDK_MODULES, type CursorCodec, type CursorState, type SdkModule } from './cursor';
import { compileDefinitions, createDefinitionsCache, type Definitions } from './definitions';
import { deriveDocuments, type Delta, type InstallationFacts, type Sources, type SyncDocument } from './documents';
import { SyncErrors } from './errors';
import type { SyncRequest, SyncResponse } from './schemas';
import type { SyncHead, SyncRevisions, SyncStore } from './store';

type Stores = ProfileTx & { sync: SyncStore; flagReads: FlagReadStore; listReads: ListReadStore; pushChannelReads: PushChannelReadStore; inAppReads: InAppReadStore };

/** Counts what syncs answer (platform/metrics.ts). */
export interface SyncMetrics {
  syncResponses: { inc(labels: { kind: 'full' | 'delta' | 'unchanged' }): void };
}

/**
 * How long the due times of scheduled flag changes are kept before they are read again, unless the
 * definitions revision moved on (scheduling and cancelling move it), which reads them at once.
 */
const DUE_TTL_MS = 5_000;
const DEFAULT_REFRESH = 900;
const MIN_REFRESH = 30;

/** The components of a cursor, in order. */
const DEFINITIONS = 0;
const INSTALLATION = 1;
const PROFILE = 2;
/**
 * The fourth component: the second (floored) of the next instant at which a document may change
 * without a write (an in-app message's schedule or cap window; 0: none). An unchanged cursor is
 * answered from the head only before it.
 */
const WAKE = 3;

interface Snapshot {
  head: SyncHead;
  definitions: Definitions;
  facts: InstallationFacts;
  /** The sticky rows as stored (only read when a profile-sticky flag exists). */
  stored: StickyRow[];
}

export function createSyncService(deps: {
  store: Stores & TxRunner<Stores> & { dialect?: Dialect; shareReadsThisTurn?(): void };
  clock: Clock;
  cursors: CursorCodec;
  metrics?: SyncMetrics;
}) {
  const { store, clock, cursors } = deps;
  const cache = createDefinitionsCache();
  const dueCache = new Map<string, { readMs: number; revision: number; due: Map<string, number> }>();

  /** One consistent read: PostgreSQL in a REPEATABLE READ transaction, SQLite in the turn's shared read transaction. */
  const consistently = <T>(fn: (s: Stores) => Promise<T>): Promise<T> => {
    if (store.dialect === 'postgres') return store.tx(fn, { isolation: 'repeatable read' } satisfies TxOptions);
    store.shareReadsThisTurn?.();
    return fn(store);
  };

  async function sync(p: SyncPrincipal, request: SyncRequest): Promise<SyncResponse> {
    const modules = SDK_MODULES.filter((m) => request.modules.includes(m));
    let cursor: CursorState | undefined;
    if (request.cursor !== undefined && request.cursor !== null) {
      const decoded = cursors.decode(request.cursor, { installationId: p.id });
      if (!decoded.ok) throw SyncErrors.invalidCursor(decoded.reason);
      cursor = decoded.state;
    }
    const now = clock.now();

    // An unchanged installation costs one statement (the head's revisions only), and its cursor
    // stays the one it sent (the same state: nothing to sign again). Without a cursor there is nothing to compare: straight to the snapshot.
    if (cursor) {
      // Read with the credential by the sync's guard (one statement), else here.
      const head = p.revisions ?? (await store.sync.revisions(p.environmentId, p.id));
      if (!head) throw EdgeErrors.unauthorized();
      if (usable(cursor, head, modules) && unchanged(cursor, head, now.getTime())) {
        deps.metrics?.syncResponses.inc({ kind: 'unchanged' });
        const wake = Number(cursor.revisions[WAKE] ?? 0n);
        const refresh = await refreshAfter(p.environmentId, head, cache.get(p.environmentId, head.definitionsRevision), now, wake === 0 ? Infinity : wake * 1000);
        return answer(p, head, modules, now, false, [], [], refresh, wake, request.cursor as string);
      }
    }

    const snap = await consistently((s) => read(s, p, modules));
    const full = !cursor || !usable(cursor, snap.head, modules);
    const delta = full ? undefined : deltaFrom(cursor!, snap.head, now.getTime());
    const served: StickyRow[] = [];
    const recordSticky = !snap.head.bound && snap.definitions.flags.some((f) => f.sticky);
    const { documents, tombstones, wakeMs } = deriveDocuments(modules, snap.definitions, snap.facts, delta, now.getTime(), recordSticky ? stickyCollector(snap, served) : undefined);
    if (served.length > 0) await recordStickyRows(p, snap.stored, served, now.getTime());
    const sent = delta ? documents.filter((d) => delta.changed(d.sources)) : documents;
    deps.metrics?.syncResponses.inc({ kind: full ? 'full' : 'delta' });
    const refresh = await refreshAfter(p.environmentId, snap.head, snap.definitions, now, wakeMs);
    return answer(p, snap.head, modules, now, full, sent, tombstones, refresh, wakeMs === Infinity ? 0 : Math.floor(wakeMs / 1000));
  }

  async function read(s: Stores, p: InstallationPrincipal, modules: readonly SdkModule[]): Promise<Snapshot> {
    const head = await s.sync.head(p.environmentId, p.id);
    if (!head) throw EdgeErrors.unauthorized();
    let definitions = cache.get(p.environmentId, head.definitionsRevision);
    if (!definitions) {
      const [flags, lists, channels] = [await s.flagReads.flags(p.environmentId), await s.listReads.lists(p.environmentId), await s.pushChannelReads.channels(p.environmentId)];
      definitions = compileDefinitions(head.definitionsRevision, flags, lists, channels, await s.inAppReads.published(p.environmentId));
      cache.put(p.environmentId, definitions);
    }
    const sticky = definitions.flags.some((f) => f.sticky);
    const sources = await s.sync.state(p.id, head.profileId, { sticky, impressions: definitions.capped && modules.includes('IN_APP') });
    const facts: InstallationFacts = {
      installationId: p.id,
      appId: head.appId,
      platform: head.platform,
      appVersion: head.appVersion,
      osVersion: head.osVersion,
      locale: head.locale,
      timezone: head.timezone,
      privacy: head.privacy,
      pushSubscription: head.pushSubscription,
      pushPermission: head.pushPermission,
      pushTokenHeld: head.pushTokenHeld,
      attributes: sources.attributes,
      subscriptions: sources.subscriptions,
      profile: { id: head.profileId, externalId: head.externalId, bound: head.bound, ...sources.profile },
      sticky: {},
      impressions: new Map(sources.impressions.map((w) => [w.messageId, w])),
      // Automations' grants (issue 28): read only when a message is shown by them alone.
      grants: definitions.granted && modules.includes('IN_APP') ? await s.inAppReads.grants(head.profileId) : new Map<string, number>(),
      inAppSettings: { minIntervalSeconds: head.inAppMinIntervalSeconds, revision: head.inAppSettingsRevision },
    };
    const stored = sources.sticky;
    for (const r of stored) facts.sticky[r.flagKey] = r.experimentId === '' ? { variantKey: r.variantKey } : { variantKey: r.variantKey, experimentId: r.experimentId };
    return { head, definitions, facts, stored };
  }

  /** What a profile-sticky split serves an anonymous installation is kept for when it binds (docs/decisions.md "Flag evaluation core"). */
  function stickyCollector(snap: Snapshot, served: StickyRow[]) {
    const sticky = new Set(snap.definitions.flags.filter((f) => f.sticky).map((f) => f.key));
    return (key: string, r: { variantKey: string; reason: string; experimentId?: string }) => {
      if (sticky.has(key) && r.reason === 'SPLIT') served.push({ flagKey: key, experimentId: r.experimentId ?? '', variantKey: r.variantKey });
    };
  }

  async function recordStickyRows(p: InstallationPrincipal, stored: StickyRow[], served: StickyRow[], atMs: number): Promise<void> {
    const held = new Map(stored.map((r) => [r.flagKey, r]));
    const changed = served.filter((r) => {
      const h = held.get(r.flagKey);
      return !h || h.experimentId !== r.experimentId || h.variantKey !== r.variantKey;
    });
    if (changed.length > 0) await store.tx((s) => s.flagReads.recordSticky(p.environmentId, p.id, changed, atMs));
  }

  /** The due times of pending scheduled flag changes, read at most every DUE_TTL_MS per environment. */
  async function dueChanges(environmentId: string, revision: number, nowMs: number): Promise<Map<string, number>> {
    const held = dueCache.get(environmentId);
    if (held && held.revision === revision && nowMs - held.readMs < DUE_TTL_MS) return held.due;
    const due = await store.flagReads.dueChanges(environmentId);
    dueCache.delete(environmentId);
    dueCache.set(environmentId, { readMs: nowMs, revision, due });
    if (dueCache.size > 1024) dueCache.delete(dueCache.keys().next().value!);
    return due;
  }

  /**
   * The environment's interval, sooner when a scheduled change of a flag that may concern the
   * installation is due, or a document may change at `wakeMs` (never under 30 s).
   */
  async function refreshAfter(environmentId: string, head: SyncRevisions, defs: Definitions | undefined, now: Date, wakeMs: number): Promise<number> {
    const base = head.refreshAfterSeconds ?? DEFAULT_REFRESH;
    const due = await dueChanges(environmentId, head.definitionsRevision, now.getTime());
    let soonest = wakeMs;
    for (const [flagKey, dueMs] of due) {
      const flag = defs?.flags.find((f) => f.key === flagKey);
      if (flag?.apps && !flag.apps.has(head.appId.toLowerCase())) continue;
      soonest = Math.min(soonest, dueMs);
    }
    if (soonest === Infinity) return Math.max(MIN_REFRESH, base);
    return Math.max(MIN_REFRESH, Math.min(base, Math.ceil((soonest - now.getTime()) / 1000)));
  }

  function answer(
    p: InstallationPrincipal,
    head: SyncRevisions,
    modules: SdkModule[],
    now: Date,
    fullSnapshot: boolean,
    documents: SyncDocument[],
    tombstones: SyncResponse['tombstones'],
    refreshAfterSeconds: number,
    wakeSeconds: number,
    sameCursor?: string,
  ): SyncResponse {
    const revisions = [head.definitionsRevision, head.installationRevision, head.profileRevision];
    return {
      cursor:
        sameCursor ??
        cursors.encode({ installationId: p.id, generation: BigInt(head.generation), modules, revisions: [...revisions, wakeSeconds].map(BigInt), issuedAt: now }),
      generation: head.generation,
      revision: revisions[DEFINITIONS] + revisions[INSTALLATION] + revisions[PROFILE],
      fullSnapshot,
      documents: documents.map((d) => ({ module: d.module, key: d.key, revision: revisionOf(d.sources, head), payload: d.payload })),
      tombstones,
      serverTime: now.toISOString(),
      refreshAfterSeconds,
    };
  }

  /**
   * The installation credential of POST /v1/sdk/sync (the edge guard's `syncInstallation`): the
   * principal and its sync head's revisions in one statement, which is all an unchanged sync
   * reads. A revision read here describes a moment before the request's body was read: an
   * answer from it is the state of that moment, and anything committed since is in the next delta.
   */
  async function authenticate(token: string | undefined): Promise<SyncPrincipal | undefined> {
    return token && token.startsWith(CREDENTIAL_PREFIX) ? store.sync.principal(digest(token)) : undefined;
  }

  return { sync, authenticate };
}

/** An installation principal as the sync's guard resolves it: with its head's revisions. */
export type SyncPrincipal = InstallationPrincipal & { revisions?: SyncRevisions };

/** A document's revision: the sum of its sources' (never above the response's). */
function revisionOf(s: Sources, head: SyncRevisions): number {
  return s.def + (s.inst ? head.installationRevision : 0) + (s.prof ? head.profileRevision : 0);
}

/**
 * What a delta from `cursor` sends: the documents whose sources moved past the cursor's
 * revisions, or that passed one of their instants (an in-app schedule's bound, the end of a cap's
 * window) between the cursor's issue and now.
 */
function deltaFrom(cursor: CursorState, head: SyncRevisions, nowMs: number): Delta {
  const since = cursor.revisions.map(Number);
  const issuedMs = cursor.issuedAt.getTime();
  return {
    changed: (s) =>
      s.def > since[DEFINITIONS] ||
      (s.inst && head.installationRevision > since[INSTALLATION]) ||
      (s.prof && head.profileRevision > since[PROFILE]) ||
      (s.at !== undefined && s.at.some((t) => t > issuedMs && t <= nowMs)),
    revision: (s) => revisionOf(s, head),
  };
}

/**
 * Whether a delta can be answered from `cursor`: the same generation and modules, three
 * revision components (and the wake instant since issue 27), none ahead of the server (a
 * database restored from a backup), and definitions not older than the tombstone horizon.
 * Otherwise: a full snapshot.
 */
function usable(cursor: CursorState, head: SyncRevisions, modules: readonly SdkModule[]): boolean {
  if (cursor.generation !== BigInt(head.generation)) return false;
  if (cursor.modules.length !== modules.length || cursor.modules.some((m, i) => m !== modules[i])) return false;
  if (cursor.revisions.length !== 3 && cursor.revisions.length !== 4) return false;
  const [d, i, p] = cursor.revisions.map(Number);
  return d <= head.definitionsRevision && i <= head.installationRevision && p <= head.profileRevision && d >= head.horizon;
}

/** Nothing written since the cursor, and its wake instant (if any) not reached. */
function unchanged(cursor: CursorState, head: SyncRevisions, nowMs: number): boolean {
  const [d, i, p, wake = 0] = cursor.revisions.map(Number);
  return d === head.definitionsRevision && i === head.installationRevision && p === head.profileRevision && (wake === 0 || nowMs < wake * 1000);
}

export type SyncService = ReturnType<typeof createSyncService>;
