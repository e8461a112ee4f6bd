import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createClusterNoticeRelay, forwardClusterNotices } from './cluster-relay';
import type { Notice } from './hub';

/** A primary and its workers, wired as node:cluster's IPC is (each send arrives on the other side). */
function fakeCluster(n: number) {
  const primary = new EventEmitter();
  const workers: Record<string, { id: number; send(m: unknown): void; isConnected(): boolean; process: EventEmitter & { send(m: unknown): void } }> = {};
  for (let id = 1; id <= n; id++) {
    const proc = Object.assign(new EventEmitter(), { send: (m: unknown) => setImmediate(() => primary.emit('message', workers[id], structuredClone(m))) });
    workers[id] = { id, send: (m) => setImmediate(() => proc.emit('message', structuredClone(m))), isConnected: () => true, process: proc };
  }
  forwardClusterNotices(Object.assign(primary, { workers }));
  return workers;
}

describe('change notices between the workers of serve --workers (SQLite)', () => {
  it("reach every other worker, once per turn's distinct notice; never the sender; other messages are ignored", async () => {
    const workers = fakeCluster(3);
    const heard: Record<number, Notice[]> = { 1: [], 2: [], 3: [] };
    const relays = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const relay = createClusterNoticeRelay(workers[id].process);
        await relay.listen!((n) => heard[id].push(n), () => undefined);
        return relay;
      }),
    );
    relays[0].publish({ kind: 'installation', environmentId: 'e', id: 'i' });
    relays[0].publish({ kind: 'installation', environmentId: 'e', id: 'i' });
    relays[0].publish({ kind: 'definitions', environmentId: 'e' });
    workers[2].process.emit('message', { type: 'engage:metrics', id: 'x' });
    workers[2].process.emit('message', { type: 'engage:sync-notices', lines: ['x y z w', 7] });
    await new Promise((r) => setTimeout(r, 50));
    const expected = [
      { kind: 'installation', environmentId: 'e', id: 'i' },
      { kind: 'definitions', environmentId: 'e' },
    ];
    expect(heard[1]).toEqual([]);
    expect(heard[2]).toEqual(expected);
    expect(heard[3]).toEqual(expected);
  });
});
