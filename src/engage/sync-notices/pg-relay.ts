import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../../platform/logger';
import { newPgClient, type Pg } from '../../platform/store/postgres';
import type { Notice, NoticeRelay } from './hub';

/** The NOTIFY channel of change notices (LISTEN on one connection per serving process). */
export const NOTICE_CHANNEL = 'engage_sync_notices';
/** PostgreSQL refuses a payload of 8000 bytes or more: notices are packed below it. */
const MAX_PAYLOAD = 7_900;
const KIND = { definitions: 'd', environment: 'e', app: 'a', installation: 'i', profile: 'p', 'installation-inbox': 'n', 'profile-inbox': 'm' } as const;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const RELISTEN_MIN_MS = 100;
const RELISTEN_MAX_MS = 3_000;

/** `<kind> <environment> [<id>]`: ids only, never state. */
export function encodeNotice(n: Notice): string {
  return n.kind === 'definitions' || n.kind === 'environment' ? `${KIND[n.kind]} ${n.environmentId}` : `${KIND[n.kind]} ${n.environmentId} ${n.id}`;
}

/** The notice of one line, or undefined for anything else (a payload is never trusted to be ours). */
export function decodeNotice(line: string): Notice | undefined {
  const [k, environmentId, id, extra] = line.split(' ');
  if (extra !== undefined || !environmentId || !ID.test(environmentId)) return undefined;
  if (k === 'd') return id === undefined ? { kind: 'definitions', environmentId } : undefined;
  if (k === 'e') return id === undefined ? { kind: 'environment', environmentId } : undefined;
  if (id === undefined || !ID.test(id)) return undefined;
  if (k === 'i') return { kind: 'installation', environmentId, id };
  if (k === 'p') return { kind: 'profile', environmentId, id };
  if (k === 'n') return { kind: 'installation-inbox', environmentId, id };
  if (k === 'm') return { kind: 'profile-inbox', environmentId, id };
  if (k === 'a') return { kind: 'app', environmentId, id };
  return undefined;
}

/** Packs lines into payloads: the origin first, then as many notices as fit below MAX_PAYLOAD. */
export function packNotices(origin: string, lines: readonly string[]): string[] {
  const payloads: string[] = [];
  let current = origin;
  for (const line of lines) {
    if (current.length + 1 + line.length > MAX_PAYLOAD && current !== origin) {
      payloads.push(current);
      current = origin;
    }
    current += `\n${line}`;
  }
  if (current !== origin) payloads.push(current);
  return payloads;
}

/**
 * Change notices across processes on PostgreSQL (issue 26 point 6): NOTIFY on the pool,
 * LISTEN on one connection of its own per serving process (as the store's catalogue channel,
 * platform/store/postgres-store.ts, but a connection apart, so the CLI, which only publishes,
 * never opens it). Notices said in the same turn of the event loop go out together in one
 * statement, packed several to a payload; duplicates within it are sent once. A payload starts
 * with the process's origin, so a process skips its own (it delivered them already). After a
 * gap in listening every stream is told to sync: what changed meanwhile is unknown.
 */
export function createPgNoticeRelay(pool: Pg, logger: Logger): NoticeRelay {
  const origin = randomBytes(9).toString('base64url');
  let queued = new Set<string>();
  let flushing: Promise<void> | undefined;
  let scheduled = false;
  let listener: pg.Client | undefined;
  let closed = false;
  let relistenTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  const flush = async (): Promise<void> => {
    scheduled = false;
    if (queued.size === 0) return;
    const payloads = packNotices(origin, [...queued]);
    queued = new Set();
    try {
      await pool.query({ text: 'SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', values: [NOTICE_CHANNEL, payloads] });
    } catch (err) {
      // Other processes' streams learn of the change at their next sync (refreshAfterSeconds).
      logger.warn('change notices could not be published to other processes', { err });
    }
  };
  const publish = (n: Notice) => {
    if (closed) return;
    queued.add(encodeNotice(n));
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      flushing = (flushing ?? Promise.resolve()).then(flush);
    });
  };

  let receive: (n: Notice) => void = () => undefined;
  let gap: () => void = () => undefined;
  const onPayload = (payload: string) => {
    const lines = payload.split('\n');
    if (lines[0] === origin) return;
    for (let i = 1; i < lines.length; i++) {
      const n = decodeNotice(lines[i]);
      if (n) receive(n);
    }
  };

  const connect = async (): Promise<void> => {
    let warned = false;
    const client = newPgClient(pool, (err) => {
      if (listener === client && !warned) logger.warn('change notices from other processes lost', { err });
      warned = true;
    });
    client.on('notification', (msg) => {
      if (msg.channel === NOTICE_CHANNEL && msg.payload) onPayload(msg.payload);
    });
    client.on('end', () => {
      if (listener !== client) return;
      listener = undefined;
      if (!closed) relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTICE_CHANNEL}`);
    } catch (e) {
      client.end().catch(() => {});
      throw e;
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    listener = client;
  };
  const relisten = () => {
    const delay = Math.min(RELISTEN_MAX_MS, RELISTEN_MIN_MS * 2 ** failures);
    relistenTimer = setTimeout(() => {
      relistenTimer = undefined;
      connect().then(
        () => {
          if (closed) return;
          failures = 0;
          logger.info('change notices from other processes resumed');
          gap();
        },
        (err: unknown) => {
          if (closed) return;
          if (failures++ === 0) logger.warn('change notices: cannot listen again yet, retrying', { err });
          relisten();
        },
      );
    }, delay * (0.5 + Math.random() / 2));
    relistenTimer.unref();
  };

  return {
    publish,
    async listen(onNotice, onGap) {
      receive = onNotice;
      gap = onGap;
      await connect();
    },
    async close() {
      if (scheduled) flushing = (flushing ?? Promise.resolve()).then(flush);
      closed = true;
      await flushing;
      clearTimeout(relistenTimer);
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => {});
    },
  };
}
