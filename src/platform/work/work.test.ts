import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { silentLogger } from '../logger';
import { createMetrics } from '../metrics';
import { createWorkQueue, workKind, type WorkQueue } from './queue';
import { retryDelayMs } from './retry';
import type { WorkOutcome } from './worker';

let h: Harness | undefined;
let queues: WorkQueue[] = [];
afterEach(async () => {
  for (const q of queues) await q.stop();
  await h?.close();
  h = undefined;
  queues = [];
});

type Store = Harness['services']['store'];
const HOUR = 3_600_000;
const POLICY = { baseMs: 1_000, capMs: 60_000, maxAttempts: 3 };

function queueOn(store: Store, hh: Harness, opts: { random?: () => number; idleMs?: number; batch?: number; metrics?: ReturnType<typeof createMetrics> } = {}) {
  const q = createWorkQueue({ store, clock: hh.clock, logger: silentLogger, metrics: opts.metrics, idleMs: opts.idleMs, random: opts.random, options: { leaseMs: 30_000, batch: opts.batch ?? 50, concurrency: 4 } });
  queues.push(q);
  return q;
}

const enqueue = (hh: Harness, q: WorkQueue, kind: string, payload: unknown, dueMs?: number) =>
  hh.services.store.tx((tx) => q.enqueueIn(tx, kind, payload, dueMs === undefined ? {} : { dueMs }));

const items = (hh: Harness) =>
  hh.sql.all<{ id: string; status: string; attempts: number; dueMs: number; lastError: string | null }>(
    'SELECT id, status, attempts, due_ms AS "dueMs", last_error AS "lastError" FROM work_items ORDER BY created_ms, id',
  );


describe('durable work items (platform/work)', () => {
  it('two workers (two processes on one database) share the items: each runs once, neither takes what the other claimed', async () => {
    h = await createHarness();
    const other = await h.otherProcess();
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const a = queueOn(h.services.store, h, { batch: 5 });
    const b = queueOn(other.store, h, { batch: 5 });
    // a's attempts hang until released: its claim of 5 is held while b works.
    a.register(workKind<{ n: number }>({ kind: 'test.share', retry: POLICY, run: async (p) => {
      ran.push(`a:${p.n}`);
      await held;
    } }));
    b.register(workKind<{ n: number }>({ kind: 'test.share', retry: POLICY, run: async (p) => void ran.push(`b:${p.n}`) }));
    for (let n = 0; n < 30; n++) await enqueue(h, a, 'test.share', { n });
    const first = a.runDue();
    while (ran.length < 4) await new Promise((r) => setTimeout(r, 2));
    await b.runDue();
    release();
    await first;
    const numbers = ran.map((r) => Number(r.split(':')[1])).sort((x, y) => x - y);
    expect(numbers).toEqual([...Array(30).keys()]);
    expect(ran.filter((r) => r.startsWith('b:')).length).toBeGreaterThanOrEqual(25);
    expect(ran.filter((r) => r.startsWith('a:')).length).toBeGreaterThanOrEqual(4);
    expect(await items(h)).toEqual([]);
  });

  it('a lease that lapses is taken over; the first holder then records nothing', async () => {
    h = await createHarness();
    const metrics = createMetrics();
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const a = queueOn(h.services.store, h, { metrics });
    const b = queueOn(h.services.store, h);
    a.register(workKind({ kind: 'test.lease', retry: POLICY, run: async () => {
      ran.push('a');
      await stuck;
    } }));
    b.register(workKind({ kind: 'test.lease', retry: POLICY, run: async () => void ran.push('b') }));
    await enqueue(h, a, 'test.lease', {});
    const first = a.runDue();
    while (ran.length === 0) await new Promise((r) => setTimeout(r, 2));
    // Within the lease, nobody else takes it.
    await b.runDue();
    expect(ran).toEqual(['a']);
    h.clock.advance(30);
    await b.runDue();
    expect(ran).toEqual(['a', 'b']);
    expect(await items(h)).toEqual([]);
    release();
    await first;
    expect(await items(h)).toEqual([]);
    expect(await metrics.registry.render()).toMatch(/engage_work_items_total\{kind="test.lease",outcome="lost"\} 1/);
  });

  it('retries with backoff and jitter within bounds, then gives up after the policy\'s attempts', async () => {
    // The bounds: half the exponential wait to all of it, capped.
    expect(retryDelayMs(POLICY, 1, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(POLICY, 1, undefined, () => 0.999999)).toBe(1_000);
    expect(retryDelayMs(POLICY, 3, undefined, () => 0)).toBe(2_000);
    expect(retryDelayMs(POLICY, 20, undefined, () => 0.999999)).toBe(60_000);
    expect(retryDelayMs({ ...POLICY, jitter: 0 }, 2, undefined, () => 0.7)).toBe(2_000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelayMs(POLICY, 2);
      expect(d).toBeGreaterThanOrEqual(1_000);
      expect(d).toBeLessThanOrEqual(2_000);
    }
    h = await createHarness();
    const q = queueOn(h.services.store, h, { random: () => 0.5 });
    q.register(workKind({ kind: 'test.retry', retry: POLICY, run: async (): Promise<WorkOutcome> => ({ kind: 'retry', error: 'busy' }) }));
    await enqueue(h, q, 'test.retry', {});
    const t0 = h.clock.now().getTime();
    await q.runDue();
    let [row] = await items(h);
    expect(row).toMatchObject({ status: 'PENDING', attempts: 1, lastError: 'busy' });
    expect(Number(row.dueMs) - t0).toBe(750);
    h.clock.advance(1);
    await q.runDue();
    [row] = await items(h);
    expect(Number(row.dueMs) - h.clock.now().getTime()).toBe(1_500);
    h.clock.advance(2);
    await q.runDue();
    [row] = await items(h);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 3 });
    expect(row.lastError).toMatch(/gave up after 3 attempts/);
  });

  it('honours a Retry-After longer than the backoff', async () => {
    expect(retryDelayMs(POLICY, 1, 120_000, () => 1)).toBe(120_000);
    h = await createHarness();
    const q = queueOn(h.services.store, h);
    q.register(workKind({ kind: 'test.after', retry: POLICY, run: async (): Promise<WorkOutcome> => ({ kind: 'retry', error: '429', retryAfterMs: 120_000 }) }));
    await enqueue(h, q, 'test.after', {});
    await q.runDue();
    const [row] = await items(h);
    expect(Number(row.dueMs) - h.clock.now().getTime()).toBe(120_000);
  });

  it('an item due hours away is not claimed, and costs a row, not a timer', async () => {
    h = await createHarness();
    const ran: number[] = [];
    const q = queueOn(h.services.store, h, { idleMs: 10_000 });
    q.register(workKind<{ n: number }>({ kind: 'test.timer', retry: POLICY, run: async (p) => void ran.push(p.n) }));
    const due = h.clock.now().getTime() + 3 * HOUR;
    for (let n = 0; n < 200; n++) await enqueue(h, q, 'test.timer', { n }, due + n);
    await q.runDue();
    expect(ran).toEqual([]);
    expect((await items(h)).every((r) => Number(r.attempts) === 0)).toBe(true);
    // Started: one timer, armed for at most idleMs, whatever waits and however far away.
    q.start(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(q.timerDelayMs()).toBe(10_000);
    h.clock.advance(3 * 3600 + 1);
    await q.runDue();
    expect(ran.sort((x, y) => x - y)).toEqual([...Array(200).keys()]);
  });

  it('is woken after commit, never before it nor after a rollback', async () => {
    h = await createHarness();
    const ran: string[] = [];
    // The timer alone would look only in an hour.
    const q = queueOn(h.services.store, h, { idleMs: HOUR });
    q.register(workKind<{ n: string }>({ kind: 'test.wake', retry: POLICY, run: async (p) => void ran.push(p.n) }));
    q.start(HOUR);
    await expect(h.services.store.tx(async (tx) => {
      await q.enqueueIn(tx, 'test.wake', { n: 'rolled back' });
      throw new Error('abort');
    })).rejects.toThrow('abort');
    await h.services.store.tx(async (tx) => {
      await q.enqueueIn(tx, 'test.wake', { n: 'committed' });
      await new Promise((r) => setTimeout(r, 30));
      expect(ran).toEqual([]);
    });
    const deadline = Date.now() + 2_000;
    while (ran.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(ran).toEqual(['committed']);
  });

  it('counts outcomes by kind in /metrics', async () => {
    h = await createHarness();
    const metrics = createMetrics();
    const q = queueOn(h.services.store, h, { metrics });
    q.register(workKind<{ fail: boolean }>({ kind: 'test.count', retry: POLICY, run: async (p): Promise<WorkOutcome | void> => (p.fail ? { kind: 'failed', error: 'no' } : undefined) }));
    for (const fail of [false, false, true]) await enqueue(h, q, 'test.count', { fail });
    await q.runDue();
    const text = await metrics.registry.render();
    expect(text).toMatch(/engage_work_items_total\{kind="test.count",outcome="done"\} 2/);
    expect(text).toMatch(/engage_work_items_total\{kind="test.count",outcome="failed"\} 1/);
  });
});
