import type { ServerResponse } from 'node:http';
import type { Logger } from '../../platform/logger';
import { SyncStreamErrors } from './errors';
import type { NoticeHub, NoticeListener, NoticeReason } from './hub';

/** Who a stream is for, as the credential names it now. */
export interface StreamSubject {
  environmentId: string;
  installationId: string;
  /** The app the installation belongs to. */
  appId: string;
  /** The profile the installation is bound to (its anonymous one included), if any. */
  profileId: string | null;
}

export interface StreamSettings {
  /** A stream that sent no notice for this long is closed; the SDK reconnects (`syncStreamIdle`). */
  idleMs: number;
  /** A comment line this often, so proxies keep the connection open (`syncStreamHeartbeat`). */
  heartbeatMs: number;
  /** At most one notice per stream this often: a burst of writes is one `sync` (issue 26: ~100 ms). */
  coalesceMs: number;
  /** Streams one installation may hold; the oldest is closed by a new one. */
  perInstallation: number;
  /** Streams this process holds at most; beyond, 503 with Retry-After (`syncStreamsMax`). */
  max: number;
  /** The `retry:` the stream announces: how long an EventSource waits before reconnecting (ms). */
  retryMs: number;
}

export const STREAM_DEFAULTS = { coalesceMs: 100, perInstallation: 3, retryMs: 5_000 } as const;

const utf8 = new TextEncoder();
// One buffer each, shared by every stream: a notice to 10,000 streams allocates nothing per stream.
const SYNC = utf8.encode('event: sync\ndata: {}\n\n');
const HEARTBEAT = utf8.encode(':\n\n');
/** Chunks a client may leave unread before its stream is dropped (it reconnects when it reads again). */
const MAX_UNREAD = 16;

/** Where a stream's bytes go. */
export interface StreamSink {
  /** Writes a chunk; false (nothing written) when the client stopped reading: the stream then ends. */
  write(chunk: Uint8Array): boolean;
  end(): void;
}

/** A WHATWG ReadableStream's controller (any runtime; the in-process tests). */
function controllerSink(controller: ReadableStreamDefaultController<Uint8Array>): StreamSink {
  return {
    write(chunk) {
      if ((controller.desiredSize ?? 0) < -MAX_UNREAD) return false;
      controller.enqueue(chunk);
      return true;
    },
    end() {
      try {
        controller.close();
      } catch {
        // Already closed or errored by the client's going.
      }
    },
  };
}

/**
 * Node's response itself, its head written with the first chunk: no ReadableStream, reader or
 * pending read per stream between the stream and the socket (bench/inbox.mjs "sse": the memory
 * each of 10,000 open streams costs). A client that stopped reading leaves Node's buffer full.
 */
function responseSink(res: ServerResponse, headers: Record<string, string>): StreamSink {
  return {
    write(chunk) {
      if (res.destroyed || res.writableNeedDrain) return false;
      if (!res.headersSent) res.writeHead(200, headers);
      res.write(chunk);
      return true;
    },
    end() {
      res.end();
    },
  };
}

/**
 * The Server-Sent Events streams of GET /v1/sdk/sync/events (issue 26 point 6). Each is a
 * listener of the hub: a notice that concerns it schedules one `event: sync` (coalesced to one
 * per `coalesceMs`). Idle streams cost no database work: the credential is checked at connect,
 * and again only when a notice about the installation itself or its profile arrives (an
 * erasure, a revocation, a recovery and a binding transition each send one): a credential no
 * longer valid closes the stream, and a binding transition moves the stream to the new
 * profile. One timer per process (the sweep) writes heartbeats and closes idle streams.
 */
export function createNoticeStreams(deps: {
  hub: NoticeHub;
  settings: StreamSettings;
  /** The installation the credential names now, or undefined when it names none (revoked, erased, rotated, environment disabled). */
  check: (token: string) => Promise<StreamSubject | undefined>;
  /** The installation's inbox unread count now (issue 27 point 5: the live badge); absent: no badge events. */
  unread?: (subject: StreamSubject) => Promise<number | undefined>;
  logger: Logger;
  now?: () => number;
}) {
  const { hub, settings } = deps;
  const now = deps.now ?? Date.now;
  const open = new Set<Stream>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweepEvery = Math.max(5, Math.min(1_000, settings.heartbeatMs / 2, settings.idleMs / 2));

  class Stream implements NoticeListener {
    readonly environmentId: string;
    readonly installationId: string;
    readonly appId: string;
    profileId: string | null;
    /** When the last notice was sent (or the stream opened): idleness counts from it. */
    lastNotice: number;
    /** When anything was last written: heartbeats count from it. */
    lastWrite: number;
    /** When the last `sync` was written: the next waits `coalesceMs` after it. */
    private lastSync = -Infinity;
    private timer: NodeJS.Timeout | undefined;
    private recheck = false;
    /** What the next fire writes: a `sync`, the inbox badge, or both. */
    private wantSync = false;
    private wantBadge = false;
    /** The unread count last sent (a badge is sent only when it changed). */
    private lastBadge: number | undefined;
    private checking = false;
    private pending = false;
    closed = false;

    constructor(
      subject: StreamSubject,
      private readonly token: string,
      private readonly sink: StreamSink,
      /** Whether the stream carries the inbox badge (opened as GET /v1/sdk/inbox/events). */
      readonly withBadge: boolean,
    ) {
      this.environmentId = subject.environmentId;
      this.installationId = subject.installationId;
      this.appId = subject.appId;
      this.profileId = subject.profileId;
      this.lastNotice = this.lastWrite = now();
    }

    notice(reason: NoticeReason): void {
      if (this.closed) return;
      // The environment or the app stopped serving: nothing to sync; the SDK's reconnection is refused.
      if (reason === 'environment' || reason === 'app') return this.close();
      // Definitions concern every installation alike; the installation's or its profile's own
      // notice may mean its credential or its binding changed: looked at before telling it.
      if (reason === 'installation' || reason === 'profile') this.recheck = true;
      // An inbox's change moves the badge; a lost stretch of notices (gap) may have moved both.
      if (reason === 'installation-inbox' || reason === 'profile-inbox') {
        if (!this.withBadge) return;
        this.wantBadge = true;
      } else this.wantSync = true;
      if (reason === 'gap') this.wantBadge = this.withBadge;
      // A sync already due says it too. One during a credential check comes after what the
      // check read: it gets a sync of its own.
      if (this.timer) return;
      if (this.checking) {
        this.pending = true;
        return;
      }
      this.schedule();
    }

    private schedule(): void {
      const wait = this.lastSync + settings.coalesceMs - now();
      if (wait <= 0) void this.fire();
      else this.timer = setTimeout(() => void this.fire(), wait);
    }

    private async fire(): Promise<void> {
      this.timer = undefined;
      if (this.recheck) {
        this.recheck = false;
        this.checking = true;
        let subject: StreamSubject | undefined | 'unknown';
        try {
          subject = await deps.check(this.token);
        } catch (err) {
          // The database is away: tell the SDK anyway; its sync authenticates.
          deps.logger.warn('change-notice stream: credential check failed', { err });
          subject = 'unknown';
        }
        this.checking = false;
        if (this.closed) return;
        if (subject === undefined || (subject !== 'unknown' && subject.installationId !== this.installationId)) return this.close();
        if (subject !== 'unknown') hub.follow(this, subject.profileId);
      }
      if (this.wantBadge) {
        this.wantBadge = false;
        await this.badge();
        if (this.closed) return;
      }
      if (this.wantSync) {
        this.wantSync = false;
        this.write(SYNC);
      }
      this.lastNotice = this.lastSync = this.lastWrite;
      if (this.pending) {
        this.pending = false;
        this.schedule();
      }
    }

    /** Sends the unread count when it changed since the last one sent (one read of the inbox's counters). */
    async badge(): Promise<void> {
      if (!deps.unread || !this.withBadge) return;
      let count: number | undefined;
      try {
        count = await deps.unread({ environmentId: this.environmentId, installationId: this.installationId, appId: this.appId, profileId: this.profileId });
      } catch (err) {
        deps.logger.warn('change-notice stream: unread count failed', { err });
        return;
      }
      if (count === undefined || count === this.lastBadge || this.closed) return;
      this.lastBadge = count;
      this.write(utf8.encode(`event: inbox\ndata: {"unreadCount":${count}}\n\n`));
    }

    write(chunk: Uint8Array): void {
      if (this.closed) return;
      // A client that stopped reading: its chunks would pile up in memory.
      if (!this.sink.write(chunk)) return this.close();
      this.lastWrite = now();
    }

    /** Ends the response (idle, replaced, credential gone, shutdown); the SDK reconnects when it should. */
    close(): void {
      if (this.closed) return;
      this.forget();
      this.sink.end();
    }

    /** The client went (or close): nothing more is written. */
    forget(): void {
      if (this.closed) return;
      this.closed = true;
      clearTimeout(this.timer);
      hub.unregister(this);
      open.delete(this);
      if (open.size === 0 && sweeper) {
        clearInterval(sweeper);
        sweeper = undefined;
      }
    }
  }

  /** Heartbeats and idle closes, for every stream at once: one timer, however many streams. */
  const sweep = () => {
    const t = now();
    for (const s of [...open]) {
      if (t - s.lastNotice >= settings.idleMs) s.close();
      else if (t - s.lastWrite >= settings.heartbeatMs) s.write(HEARTBEAT);
    }
  };

  /**
   * A stream for the installation `subject` names (its credential `token` checked by the guard),
   * writing to `sink`. Beyond the process's cap: SyncStreamErrors.full, before anything is
   * written. The installation's oldest stream of the same kind (change notices, or the inbox
   * badge's) is closed when it already holds `perInstallation` of that kind: an app that keeps
   * both open never ends its own.
   */
  const start = (subject: StreamSubject, token: string, badge: boolean, sink: StreamSink): Stream => {
    if (open.size >= settings.max) throw SyncStreamErrors.full(Math.max(1, Math.ceil(settings.retryMs / 1000)));
    const mine = ([...hub.ofInstallation(subject.installationId)] as Stream[]).filter((s) => s.withBadge === badge);
    for (let i = 0; i <= mine.length - settings.perInstallation; i++) mine[i].close();
    const stream = new Stream(subject, token, sink, badge);
    open.add(stream);
    hub.register(stream);
    // The reconnection delay, then a comment: headers and a first byte go out at once.
    stream.write(utf8.encode(`retry: ${settings.retryMs}\n:\n\n`));
    // An inbox stream: the badge as it is now, then whenever it changes.
    void stream.badge();
    if (!sweeper) {
      sweeper = setInterval(sweep, sweepEvery);
      sweeper.unref();
    }
    return stream;
  };

  return {
    /** A stream as a ReadableStream (see `start`). */
    open(subject: StreamSubject, token: string, opts: { badge?: boolean } = {}): ReadableStream<Uint8Array> {
      // Checked before the ReadableStream exists: its start() cannot throw to this caller.
      if (open.size >= settings.max) throw SyncStreamErrors.full(Math.max(1, Math.ceil(settings.retryMs / 1000)));
      let stream: Stream | undefined;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          stream = start(subject, token, opts.badge === true, controllerSink(controller));
        },
        cancel() {
          stream?.forget();
        },
      });
    },
    /** A stream written straight to Node's response `res`, `headers` its head (see `start`). */
    openOn(res: ServerResponse, headers: Record<string, string>, subject: StreamSubject, token: string, opts: { badge?: boolean } = {}): void {
      const stream = start(subject, token, opts.badge === true, responseSink(res, headers));
      res.once('close', () => stream.forget());
    },
    /** Open streams in this process (/metrics). */
    count: () => open.size,
    /** Ends every stream (graceful shutdown: the server's close does not wait for them). */
    closeAll(): void {
      for (const s of [...open]) s.close();
    },
  };
}

export type NoticeStreams = ReturnType<typeof createNoticeStreams>;
