import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../platform/logger';
import { EventReader, SYNC_EVENT } from '../../../test/helpers/sse';
import { createNoticeHub } from './hub';
import { createNoticeStreams, STREAM_DEFAULTS, type StreamSettings, type StreamSubject } from './streams';
import { decodeNotice, encodeNotice, packNotices } from './pg-relay';

const A: StreamSubject = { environmentId: 'env-1', installationId: 'inst-a', appId: 'app-1', profileId: 'prof-1' };
const B: StreamSubject = { environmentId: 'env-1', installationId: 'inst-b', appId: 'app-2', profileId: 'prof-1' };
const C: StreamSubject = { environmentId: 'env-2', installationId: 'inst-c', appId: 'app-3', profileId: 'prof-2' };

const readers: EventReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) await r.cancel();
});

/** A hub and its streams; `subjects` is what the credential check answers now (by token). */
function setup(over: Partial<StreamSettings> = {}) {
  const hub = createNoticeHub();
  const subjects = new Map<string, StreamSubject | undefined>();
  let checks = 0;
  const streams = createNoticeStreams({
    hub,
    settings: { ...STREAM_DEFAULTS, idleMs: 60_000, heartbeatMs: 60_000, max: 100, ...over },
    check: async (token) => {
      checks++;
      return subjects.get(token);
    },
    logger: silentLogger,
  });
  const open = async (s: StreamSubject, token = s.installationId) => {
    subjects.set(token, s);
    const r = new EventReader(streams.open(s, token));
    readers.push(r);
    expect(await r.next()).toBe(`retry: ${STREAM_DEFAULTS.retryMs}\n:`);
    return r;
  };
  return { hub, streams, subjects, open, checks: () => checks };
}

describe('change-notice streams', () => {
  it('a definition change reaches every stream of its environment, no other', async () => {
    const { hub, open } = setup();
    const [a, b, c] = [await open(A), await open(B), await open(C)];
    hub.notices.definitionsChanged('env-1');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    expect(await b.nextEvent()).toBe(SYNC_EVENT);
    expect(await c.nextEvent(300)).toBe('timeout');
  });

  it('an environment that stops serving ends every stream of it at once, without a credential check; another environment’s stay', async () => {
    const { hub, open, checks, streams } = setup();
    const [a, b, c] = [await open(A), await open(B), await open(C)];
    hub.notices.environmentClosed!('env-1');
    expect(await a.nextEvent(1_000)).toBe('closed');
    expect(await b.nextEvent(1_000)).toBe('closed');
    expect(await c.nextEvent(300)).toBe('timeout');
    expect([checks(), streams.count()]).toEqual([0, 1]);
  });

  it('an app that stops serving ends the streams of its installations at once, without a credential check; its other apps’ stay', async () => {
    const { hub, open, checks, streams } = setup();
    const A2: StreamSubject = { ...A, installationId: 'inst-a2' };
    const [a, a2, b, c] = [await open(A), await open(A2), await open(B), await open(C)];
    hub.notices.appClosed!('env-1', 'app-1');
    expect(await a.nextEvent(1_000)).toBe('closed');
    expect(await a2.nextEvent(1_000)).toBe('closed');
    expect(await b.nextEvent(300)).toBe('timeout');
    expect(await c.nextEvent(1)).toBe('timeout');
    // An app id named with another environment concerns nobody (ids are unique; the check is the hub's).
    hub.notices.appClosed!('env-1', 'app-3');
    expect(await c.nextEvent(300)).toBe('timeout');
    expect([checks(), streams.count()]).toEqual([0, 2]);
  });

  it('an installation notice reaches its own streams only, after its credential is looked at again', async () => {
    const { hub, open, checks } = setup();
    const [a, b] = [await open(A), await open(B)];
    hub.notices.installationChanged('env-1', 'inst-a');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    expect(await b.nextEvent(300)).toBe('timeout');
    expect(checks()).toBe(1);
    // Another environment's notice naming the same id concerns nobody here.
    hub.notices.installationChanged('env-2', 'inst-a');
    expect(await a.nextEvent(300)).toBe('timeout');
  });

  it('a profile notice reaches every installation bound to it; after a binding transition the stream follows the new profile', async () => {
    const { hub, open, subjects } = setup();
    const [a, b] = [await open(A), await open(B)];
    hub.notices.profileChanged('env-1', 'prof-1');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    expect(await b.nextEvent()).toBe(SYNC_EVENT);
    // inst-a binds to prof-9: its own notice moves its stream.
    subjects.set('inst-a', { ...A, profileId: 'prof-9' });
    hub.notices.installationChanged('env-1', 'inst-a');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    hub.notices.profileChanged('env-1', 'prof-9');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    hub.notices.profileChanged('env-1', 'prof-1');
    expect(await b.nextEvent()).toBe(SYNC_EVENT);
    expect(await a.nextEvent(300)).toBe('timeout');
  });

  it('a credential no longer valid (erased, revoked, rotated) closes the stream at its next notice', async () => {
    const { hub, open, subjects, streams } = setup();
    const a = await open(A);
    subjects.set('inst-a', undefined);
    hub.notices.installationChanged('env-1', 'inst-a');
    expect(await a.nextEvent()).toBe('closed');
    expect(streams.count()).toBe(0);
  });

  it('a burst is one notice, and the next waits for the coalescing interval', async () => {
    const { hub, open } = setup({ coalesceMs: 200 });
    const a = await open(A);
    const started = Date.now();
    for (let i = 0; i < 50; i++) hub.notices.definitionsChanged('env-1');
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    expect(await a.nextEvent(1_000)).toBe(SYNC_EVENT); // the rest of the burst: one more, not 49
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await a.nextEvent(400)).toBe('timeout');
  });

  it('heartbeats keep a quiet stream open; it closes after the idle time without a notice', async () => {
    const { hub, open, streams } = setup({ heartbeatMs: 60, idleMs: 400 });
    const a = await open(A);
    expect(await a.next(500)).toBe(':');
    expect(await a.next(500)).toBe(':');
    hub.notices.definitionsChanged('env-1'); // a notice starts the idle time again
    expect(await a.nextEvent()).toBe(SYNC_EVENT);
    const since = Date.now();
    expect(await a.nextEvent(2_000)).toBe('closed');
    expect(Date.now() - since).toBeGreaterThanOrEqual(350);
    expect(streams.count()).toBe(0);
  });

  it('an installation holds at most perInstallation streams (the oldest closes); the process at most max (503)', async () => {
    const { open, streams } = setup({ perInstallation: 2, max: 3 });
    const first = await open(A);
    const second = await open(A);
    const third = await open(A);
    expect(await first.nextEvent()).toBe('closed');
    expect(await second.nextEvent(100)).toBe('timeout');
    await open(B);
    expect(streams.count()).toBe(3);
    expect(() => streams.open(C, 'inst-c')).toThrow(expect.objectContaining({ kind: 'unavailable', code: 'temporarily_unavailable', headers: { 'Retry-After': '5' } }));
    await third.cancel();
    expect(streams.count()).toBe(2);
  });

  it('the limit per installation counts each kind apart: inbox badge streams never end change-notice streams, nor the reverse', async () => {
    const { open, streams, subjects } = setup({ perInstallation: 2 });
    const [n1, n2] = [await open(A), await open(A)];
    subjects.set('inst-a', A);
    const badge = () => {
      const r = new EventReader(streams.open(A, 'inst-a', { badge: true }));
      readers.push(r);
      return r;
    };
    const [b1, b2] = [badge(), badge()];
    expect(await b1.next()).toBe(`retry: ${STREAM_DEFAULTS.retryMs}\n:`);
    expect(await b2.next()).toBe(`retry: ${STREAM_DEFAULTS.retryMs}\n:`);
    expect(await n1.nextEvent(100)).toBe('timeout');
    expect(await n2.nextEvent(100)).toBe('timeout');
    expect(streams.count()).toBe(4);
    badge(); // a third badge stream: the oldest badge stream ends, both notice streams stay
    expect(await b1.nextEvent(1_000)).toBe('closed');
    expect(await n1.nextEvent(100)).toBe('timeout');
    await open(A); // a third notice stream: the oldest notice stream ends
    expect(await n1.nextEvent(1_000)).toBe('closed');
    expect(await b2.nextEvent(100)).toBe('timeout');
    expect(streams.count()).toBe(4);
  });

  it('written straight to a Node response: its head with the first chunk; ended once Node holds a full buffer the client left unread, or when the client goes', async () => {
    const { hub, streams } = setup();
    const { EventEmitter } = await import('node:events');
    // What the stream uses of a ServerResponse.
    const response = () =>
      Object.assign(new EventEmitter(), {
        headersSent: false,
        destroyed: false,
        writableNeedDrain: false,
        head: undefined as unknown,
        chunks: [] as string[],
        ended: false,
        writeHead(status: number, headers: Record<string, string>) {
          this.head = { status, headers };
          this.headersSent = true;
        },
        write(chunk: Uint8Array) {
          this.chunks.push(Buffer.from(chunk).toString());
        },
        end() {
          this.ended = true;
        },
      });
    const slow = response();
    streams.openOn(slow as never, { 'Content-Type': 'text/event-stream' }, A, 'inst-a');
    expect(slow.head).toEqual({ status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    expect(slow.chunks).toEqual([`retry: ${STREAM_DEFAULTS.retryMs}\n:\n\n`]);
    slow.writableNeedDrain = true; // Node's buffer full: the client reads nothing
    hub.notices.definitionsChanged('env-1');
    await new Promise((r) => setTimeout(r, 20));
    expect(slow.chunks).toHaveLength(1);
    expect(slow.ended).toBe(true);
    expect(streams.count()).toBe(0);

    const gone = response();
    streams.openOn(gone as never, {}, B, 'inst-b');
    expect(streams.count()).toBe(1);
    gone.emit('close'); // the client went
    expect(streams.count()).toBe(0);
    hub.notices.definitionsChanged('env-1');
    await new Promise((r) => setTimeout(r, 20));
    expect(gone.chunks).toHaveLength(1);
  });
});

describe('notices on the wire between processes', () => {
  it('carry ids only, packed below PostgreSQL’s payload limit; anything else is ignored', () => {
    for (const n of [
      { kind: 'definitions', environmentId: 'e' },
      { kind: 'installation', environmentId: 'e', id: 'i' },
      { kind: 'profile', environmentId: 'e', id: 'p' },
      { kind: 'environment', environmentId: 'e' },
      { kind: 'app', environmentId: 'e', id: 'a' },
    ] as const)
      expect(decodeNotice(encodeNotice(n))).toEqual(n);
    for (const bad of ['', 'd', 'x e i', 'd e i', 'e e i', 'e', 'a e', 'a e i j', 'i e', 'i e i j', 'i e\u0000 i', `i ${'e'.repeat(101)} i`]) expect(decodeNotice(bad)).toBeUndefined();
    const lines = Array.from({ length: 500 }, (_, i) => `i 01234567-89ab-cdef-0123-456789abcdef ${String(i).padStart(36, '0')}`);
    const payloads = packNotices('origin', lines);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) {
      expect(p.length).toBeLessThan(8000);
      expect(p.startsWith('origin\n')).toBe(true);
    }
    expect(payloads.flatMap((p) => p.split('\n').slice(1))).toEqual(lines);
  });
});
