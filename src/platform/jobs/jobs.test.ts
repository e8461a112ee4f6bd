import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../clock';
import { silentLogger } from '../logger';
import { openDatabase, type Database } from '../store/sqlite';
import { createSqliteStore } from '../store/sqlite-store';
import { createJobRunner, type JobRunner } from './runner';
import { createJobLeaseStore } from './store';

// Two "processes": two connections pairs (and two stores, two locks) on one SQLite file.
let dir: string;
let dbs: Database[];
let runners: JobRunner[];
const clock = fixedClock(new Date('2026-01-01T00:00:00Z'));
const T0 = clock.now().getTime();
const MINUTE = 60_000;

function processOn(owner: string, leaseMs = 30_000) {
  const db = openDatabase(dir);
  dbs.push(db);
  const store = createSqliteStore(db, (c) => ({ jobs: createJobLeaseStore(c) }), silentLogger);
  const runner = createJobRunner({ store, clock, logger: silentLogger, owner, leaseMs });
  runners.push(runner);
  return { store, runner };
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'engage-jobs-'));
  dbs = [];
  runners = [];
  clock.set(new Date(T0));
});
afterEach(async () => {
  for (const r of runners) await r.stop();
  for (const db of dbs) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('jobs with leases', () => {
  it('a job runs once per interval across two processes', async () => {
    const runs: string[] = [];
    const a = processOn('a');
    const b = processOn('b');
    a.runner.register({ name: 'purge', intervalMs: MINUTE, run: () => void runs.push(`a@${clock.now().getTime() - T0}`) });
    b.runner.register({ name: 'purge', intervalMs: MINUTE, run: () => void runs.push(`b@${clock.now().getTime() - T0}`) });

    for (let i = 0; i < 5; i++) {
      // Both look, several times, at every point in time.
      for (let k = 0; k < 3; k++) {
        await b.runner.runDue();
        await a.runner.runDue();
      }
      clock.advance(20);
    }
    // 0 s, 60 s (both at 20 s steps: 0, 20, 40, 60, 80): two runs in 80 s, by the first to look.
    expect(runs).toEqual(['b@0', 'b@60000']);
    const lease = (await a.store.jobs.lease('purge'))!;
    expect(lease).toMatchObject({ owner: 'b', lastRunAt: T0 + MINUTE, runAfter: T0 + 2 * MINUTE });
  });

  it("a dead holder's lease (never released) is taken over once it expires, keeping the schedule", async () => {
    const runs: string[] = [];
    const dead = processOn('dead', 30_000);
    const alive = processOn('alive', 30_000);
    dead.runner.register({ name: 'retire', intervalMs: MINUTE, run: () => void runs.push('dead') });
    alive.runner.register({ name: 'retire', intervalMs: MINUTE, run: () => void runs.push('alive') });

    await dead.runner.runDue(); // runs at T0, holds the lease until T0 + 30 s, then dies
    clock.advance(20);
    await alive.runner.runDue();
    expect((await alive.store.jobs.lease('retire'))!.owner).toBe('dead'); // still live

    clock.advance(20); // T0 + 40 s: the lease has expired, the job is not due before T0 + 60 s
    await alive.runner.runDue();
    expect((await alive.store.jobs.lease('retire'))!.owner).toBe('alive');
    expect(runs).toEqual(['dead']);

    clock.advance(20); // T0 + 60 s
    await alive.runner.runDue();
    expect(runs).toEqual(['dead', 'alive']);
  });

  it('stop waits for the running job, then releases the lease so another process takes over at once', async () => {
    const gate = deferred();
    let started = 0;
    const a = processOn('a');
    const b = processOn('b');
    a.runner.register({ name: 'slow', intervalMs: MINUTE, run: async () => {
      started++;
      await gate.promise;
    } });
    let bRuns = 0;
    b.runner.register({ name: 'slow', intervalMs: MINUTE, run: () => void bRuns++ });

    a.runner.start();
    await vi.waitFor(() => expect(started).toBe(1));
    let stopped = false;
    const stopping = a.runner.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false); // the run is still going on
    expect((await a.store.jobs.lease('slow'))!.owner).toBe('a');
    gate.resolve();
    await stopping;
    expect((await a.store.jobs.lease('slow'))).toMatchObject({ owner: null, leaseUntil: 0, lastRunAt: T0 });

    await b.runner.runDue(); // not due yet, but the lease is b's without waiting for expiry
    expect((await b.store.jobs.lease('slow'))!.owner).toBe('b');
    expect(bRuns).toBe(0);
    clock.advance(60);
    await b.runner.runDue();
    expect(bRuns).toBe(1);
  });

  it('wake runs a job soon, once for wake-ups that arrive together; through the holder when another process is woken', async () => {
    let runs = 0;
    const a = processOn('a', 300); // looks every 100 ms
    const b = processOn('b', 300);
    a.runner.register({ name: 'scrub', intervalMs: 3_600_000, run: () => void runs++ });
    b.runner.register({ name: 'scrub', intervalMs: 3_600_000, run: () => void runs++ });
    await a.runner.runDue();
    expect(runs).toBe(1);

    a.runner.start();
    a.runner.wake('scrub');
    a.runner.wake('scrub');
    a.runner.wake('scrub');
    await vi.waitFor(() => expect(runs).toBe(2));
    await new Promise((r) => setTimeout(r, 150));
    expect(runs).toBe(2);

    b.runner.start();
    b.runner.wake('scrub'); // b does not hold the lease: the row asks a to run it
    await vi.waitFor(() => expect(runs).toBe(3));
    expect((await a.store.jobs.lease('scrub'))!.owner).toBe('a');
  });

  it('a request made while the job runs is not overwritten by the schedule', async () => {
    const gate = deferred();
    let runs = 0;
    const a = processOn('a');
    const b = processOn('b');
    a.runner.register({ name: 'scrub', intervalMs: MINUTE, run: async () => {
      runs++;
      if (runs === 1) await gate.promise;
    } });
    b.runner.register({ name: 'scrub', intervalMs: MINUTE, run: () => undefined });

    const first = a.runner.runDue();
    await vi.waitFor(() => expect(runs).toBe(1));
    b.runner.wake('scrub');
    await b.runner.runDue(); // a holds the lease: b records the request in the row
    gate.resolve();
    await first;
    await a.runner.runDue(); // same instant: due again because of the request
    expect(runs).toBe(2);
    await a.runner.runDue();
    expect(runs).toBe(2);
  });

  it('a failed run is logged and retried after retryMs', async () => {
    const errors: string[] = [];
    const db = openDatabase(dir);
    dbs.push(db);
    const store = createSqliteStore(db, (c) => ({ jobs: createJobLeaseStore(c) }), silentLogger);
    const runner = createJobRunner({ store, clock, logger: { ...silentLogger, error: (m: string) => errors.push(m) }, owner: 'a' });
    runners.push(runner);
    let runs = 0;
    runner.register({ name: 'flaky', intervalMs: MINUTE, retryMs: 5_000, run: () => {
      runs++;
      if (runs === 1) throw new Error('boom');
    } });
    await runner.runDue();
    expect(errors).toEqual(['job failed']);
    expect((await store.jobs.lease('flaky'))!.runAfter).toBe(T0 + 5_000);
    clock.advance(5);
    await runner.runDue();
    expect(runs).toBe(2);
    expect((await store.jobs.lease('flaky'))!.runAfter).toBe(T0 + 5_000 + MINUTE);
  });
});
