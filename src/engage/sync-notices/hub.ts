import type { ChangeNotices } from '../shared/change-notices';

/** Streams told per turn of the event loop. */
const SLICE = 1_000;

/** One notice as it travels between processes: what changed, never how (issue 26 point 6). */
export type Notice =
  | { kind: 'definitions'; environmentId: string }
  | { kind: 'installation'; environmentId: string; id: string }
  | { kind: 'profile'; environmentId: string; id: string }
  // An inbox of the installation or of the profile changed (issue 27 point 5): the badge, not a sync.
  | { kind: 'installation-inbox'; environmentId: string; id: string }
  | { kind: 'profile-inbox'; environmentId: string; id: string }
  // The environment was disabled or is being deleted: its streams end (no credential check: none would pass).
  | { kind: 'environment'; environmentId: string }
  // The app was disabled or deleted: the streams of its installations end, as an environment's do.
  | { kind: 'app'; environmentId: string; id: string };

/** Why a stream is told to sync: `gap` when notices may have been lost (another process's, while not listening). */
export type NoticeReason = Notice['kind'] | 'gap';

/** A stream as the hub sees it (streams.ts): where it listens, and what it is told. */
export interface NoticeListener {
  readonly environmentId: string;
  readonly installationId: string;
  /** The app the installation belongs to (it never changes): an app's closing ends its streams. */
  readonly appId: string;
  /** The profile the installation is bound to now (its anonymous one included); moved by `follow`. */
  profileId: string | null;
  notice(reason: NoticeReason): void;
}

/**
 * How notices reach the other processes on the database (pg-relay.ts on PostgreSQL; none on
 * SQLite, where one process serves). `publish` is fire-and-forget; `listen` hands every notice
 * another process published to `receive`, and calls `gap` when some may have been missed.
 */
export interface NoticeRelay {
  publish(notice: Notice): void;
  listen?(receive: (n: Notice) => void, gap: () => void): Promise<void>;
  /** Sends what is still queued, then stops listening. */
  close(): Promise<void>;
}

/**
 * The in-process fan-out of change notices: every open stream registered under its
 * installation, its profile, its app and its environment, so a notice costs a map look-up and one call
 * per stream concerned, and no database work (the stream decides what it does with it).
 * Implements `ChangeNotices` for the writers; what they say is also published to the other
 * processes through the relay, and what those publish is delivered here.
 */
export function createNoticeHub(deps: { relay?: NoticeRelay } = {}) {
  const byEnvironment = new Map<string, Set<NoticeListener>>();
  const byInstallation = new Map<string, Set<NoticeListener>>();
  const byApp = new Map<string, Set<NoticeListener>>();
  const byProfile = new Map<string, Set<NoticeListener>>();

  const add = (index: Map<string, Set<NoticeListener>>, key: string, l: NoticeListener) => {
    let set = index.get(key);
    if (!set) index.set(key, (set = new Set()));
    set.add(l);
  };
  const remove = (index: Map<string, Set<NoticeListener>>, key: string, l: NoticeListener) => {
    const set = index.get(key);
    if (set?.delete(l) && set.size === 0) index.delete(key);
  };
  const profileKey = (environmentId: string, profileId: string) => `${environmentId}/${profileId}`;

  // Streams to tell, worked through in slices on later turns of the event loop: the writer's
  // answer goes out first, and a change that concerns 10,000 streams never holds other
  // requests for longer than one slice.
  const work: { listeners: NoticeListener[]; at: number; reason: NoticeReason; environmentId?: string }[] = [];
  let draining = false;
  const drain = () => {
    let budget = SLICE;
    while (work.length > 0 && budget > 0) {
      const w = work[0];
      const end = Math.min(w.listeners.length, w.at + budget);
      budget -= end - w.at;
      // Installation ids are unique across environments; the check costs nothing and keeps a forged id of another environment out.
      for (; w.at < end; w.at++) {
        const l = w.listeners[w.at];
        if (w.environmentId === undefined || l.environmentId === w.environmentId) l.notice(w.reason);
      }
      if (w.at >= w.listeners.length) work.shift();
    }
    if (work.length > 0) setImmediate(drain);
    else draining = false;
  };
  /** Tells every stream the notice concerns, in this process, from the next turn on. */
  const deliver = (n: Notice): void => {
    const set =
      n.kind === 'definitions' || n.kind === 'environment'
        ? byEnvironment.get(n.environmentId)
        : n.kind === 'installation' || n.kind === 'installation-inbox'
          ? byInstallation.get(n.id)
          : n.kind === 'app'
            ? byApp.get(n.id)
            : byProfile.get(profileKey(n.environmentId, n.id));
    if (set) queue([...set], n.kind, n.environmentId);
  };
  const queue = (listeners: NoticeListener[], reason: NoticeReason, environmentId?: string) => {
    work.push({ listeners, at: 0, reason, environmentId });
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  };
  const said = (n: Notice) => {
    deliver(n);
    deps.relay?.publish(n);
  };

  const notices: ChangeNotices = {
    definitionsChanged: (environmentId) => said({ kind: 'definitions', environmentId }),
    installationChanged: (environmentId, id) => said({ kind: 'installation', environmentId, id }),
    profileChanged: (environmentId, id) => said({ kind: 'profile', environmentId, id }),
    inboxChanged: (environmentId, scope, id) => said({ kind: scope === 'PROFILE' ? 'profile-inbox' : 'installation-inbox', environmentId, id }),
    environmentClosed: (environmentId) => said({ kind: 'environment', environmentId }),
    appClosed: (environmentId, appId) => said({ kind: 'app', environmentId, id: appId }),
  };

  return {
    notices,
    deliver,
    register(l: NoticeListener): void {
      add(byEnvironment, l.environmentId, l);
      add(byInstallation, l.installationId, l);
      add(byApp, l.appId, l);
      if (l.profileId) add(byProfile, profileKey(l.environmentId, l.profileId), l);
    },
    unregister(l: NoticeListener): void {
      remove(byEnvironment, l.environmentId, l);
      remove(byInstallation, l.installationId, l);
      remove(byApp, l.appId, l);
      if (l.profileId) remove(byProfile, profileKey(l.environmentId, l.profileId), l);
    },
    /** The stream's installation is now bound to `profileId` (a binding transition): its profile's notices follow. */
    follow(l: NoticeListener, profileId: string | null): void {
      if (l.profileId === profileId) return;
      if (l.profileId) remove(byProfile, profileKey(l.environmentId, l.profileId), l);
      l.profileId = profileId;
      if (profileId) add(byProfile, profileKey(l.environmentId, profileId), l);
    },
    /** The streams of one installation, oldest first (a Set keeps insertion order). */
    ofInstallation(installationId: string): ReadonlySet<NoticeListener> {
      return byInstallation.get(installationId) ?? new Set();
    },
    /** Every stream: told to sync after a gap in listening. */
    everyone(reason: NoticeReason): void {
      for (const set of byEnvironment.values()) queue([...set], reason);
    },
  };
}

export type NoticeHub = ReturnType<typeof createNoticeHub>;
