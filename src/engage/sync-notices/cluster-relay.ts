import { decodeNotice, encodeNotice } from './pg-relay';
import type { Notice, NoticeRelay } from './hub';

/** The IPC message of `serve --workers N` that carries change notices (ids only). */
const NOTICE = 'engage:sync-notices';

interface Channel {
  on(event: 'message', listener: (m: unknown) => void): unknown;
  send?(message: unknown): unknown;
}

const linesOf = (m: unknown): string[] | undefined => {
  const r = m as { type?: unknown; lines?: unknown } | null;
  return r && r.type === NOTICE && Array.isArray(r.lines) ? r.lines.filter((l): l is string => typeof l === 'string') : undefined;
};

/**
 * Change notices between the workers of `serve --workers N` on SQLite (on PostgreSQL every
 * worker listens to the database): a worker sends its notices to the primary over the cluster's
 * IPC channel, the notices of one turn of the event loop in one message, and the primary hands
 * them to every other worker (forwardClusterNotices). A worker's own notices were delivered in it
 * already.
 */
export function createClusterNoticeRelay(channel: Channel = process): NoticeRelay {
  let queued = new Set<string>();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued.size === 0) return;
    const lines = [...queued];
    queued = new Set();
    try {
      channel.send?.({ type: NOTICE, lines });
    } catch {
      // The primary is gone: this worker is stopping.
    }
  };
  return {
    publish(n: Notice) {
      queued.add(encodeNotice(n));
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
    async listen(receive) {
      channel.on('message', (m) => {
        for (const line of linesOf(m) ?? []) {
          const n = decodeNotice(line);
          if (n) receive(n);
        }
      });
    },
    async close() {
      flush();
    },
  };
}

/** What the primary needs of a cluster worker. */
interface Worker {
  id: number;
  send(message: unknown): unknown;
  isConnected(): boolean;
}

/** The primary's side: each worker's notices go to every other worker. */
export function forwardClusterNotices(cluster: { on(event: 'message', listener: (worker: Worker, m: unknown) => void): unknown; workers?: Record<string, Worker | undefined> }): void {
  cluster.on('message', (from, m) => {
    if (!linesOf(m)) return;
    for (const w of Object.values(cluster.workers ?? {})) {
      if (!w || w.id === from.id || !w.isConnected()) continue;
      try {
        w.send(m);
      } catch {
        // A worker going away: its streams go with it.
      }
    }
  });
}
