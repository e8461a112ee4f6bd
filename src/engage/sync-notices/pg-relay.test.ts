import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../platform/logger';
import { openPostgres, type Pg } from '../../platform/store/postgres';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/pg-cluster';
import { TEST_ENGINE } from '../../../test/helpers/harness';
import { createNoticeHub, type Notice } from './hub';
import { createPgNoticeRelay } from './pg-relay';

// Two processes on one PostgreSQL database, each with its pool, relay and hub: what one says
// reaches the other within a second, once; a process never hears its own back.
const describePg = TEST_ENGINE === 'postgres' ? describe : describe.skip;

describePg('change notices across processes (LISTEN/NOTIFY)', () => {
  let db: TestDatabase;
  const pools: Pg[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const p of pools) await p.end().catch(() => {});
    await db.drop();
  });

  async function processOn(): Promise<{ hub: ReturnType<typeof createNoticeHub>; heard: Notice[]; gaps: number[]; close(): Promise<void> }> {
    const pool = openPostgres(db.url, { max: 2 });
    pools.push(pool);
    const relay = createPgNoticeRelay(pool, silentLogger);
    const hub = createNoticeHub({ relay });
    const heard: Notice[] = [];
    const gaps: number[] = [];
    await relay.listen!(
      (n) => {
        heard.push(n);
        hub.deliver(n);
      },
      () => gaps.push(Date.now()),
    );
    return { hub, heard, gaps, close: () => relay.close() };
  }

  const until = async (ok: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return ok();
  };

  it('a notice said in one process reaches the other within a second, once; its own process does not hear it back', async () => {
    const a = await processOn();
    const b = await processOn();
    const started = Date.now();
    a.hub.notices.definitionsChanged('env-1');
    a.hub.notices.installationChanged('env-1', 'inst-1');
    a.hub.notices.installationChanged('env-1', 'inst-1'); // a duplicate in the same turn goes once
    a.hub.notices.profileChanged('env-1', 'prof-1');
    expect(await until(() => b.heard.length >= 3, 1_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(b.heard).toEqual([
      { kind: 'definitions', environmentId: 'env-1' },
      { kind: 'installation', environmentId: 'env-1', id: 'inst-1' },
      { kind: 'profile', environmentId: 'env-1', id: 'prof-1' },
    ]);
    expect(a.heard).toEqual([]);
    await a.close();
    await b.close();
  });

  it('an environment that stops serving (disabled in one process) ends the streams of the other', async () => {
    const a = await processOn();
    const b = await processOn();
    const told: string[] = [];
    const listener = { environmentId: 'env-9', installationId: 'inst-9', appId: 'app-9', profileId: null, notice: (r: string) => void told.push(r) };
    b.hub.register(listener);
    a.hub.notices.environmentClosed!('env-9');
    expect(await until(() => told.length === 1, 1_000)).toBe(true);
    expect(told).toEqual(['environment']);
    expect(b.heard).toEqual([{ kind: 'environment', environmentId: 'env-9' }]);
    b.hub.unregister(listener);
    await a.close();
    await b.close();
  });

  it('an app that stops serving (disabled in one process) ends the streams of its installations in the other, no other app’s', async () => {
    const a = await processOn();
    const b = await processOn();
    const told: string[] = [];
    const mine = { environmentId: 'env-8', installationId: 'inst-8', appId: 'app-8', profileId: null, notice: (r: string) => void told.push(`mine:${r}`) };
    const other = { environmentId: 'env-8', installationId: 'inst-7', appId: 'app-7', profileId: null, notice: (r: string) => void told.push(`other:${r}`) };
    b.hub.register(mine);
    b.hub.register(other);
    a.hub.notices.appClosed!('env-8', 'app-8');
    expect(await until(() => told.length === 1, 1_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(told).toEqual(['mine:app']);
    expect(b.heard).toEqual([{ kind: 'app', environmentId: 'env-8', id: 'app-8' }]);
    b.hub.unregister(mine);
    b.hub.unregister(other);
    await a.close();
    await b.close();
  });

  it('a burst of 2,000 notices arrives whole (packed in payloads below the limit)', async () => {
    const a = await processOn();
    const b = await processOn();
    for (let i = 0; i < 2_000; i++) a.hub.notices.installationChanged('0f9e7c1a-6f1b-4a53-9d0e-2b1d0c3f4e5a', `inst-${i}`);
    expect(await until(() => b.heard.length === 2_000, 2_000)).toBe(true);
    await a.close();
    await b.close();
  });

  it('a lost LISTEN connection is opened again, and every stream is told to sync (a gap)', async () => {
    const b = await processOn();
    const admin = openPostgres(db.url, { max: 1 });
    pools.push(admin);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`);
    expect(await until(() => b.gaps.length === 1, 5_000)).toBe(true);
    const a = await processOn();
    a.hub.notices.definitionsChanged('env-2');
    expect(await until(() => b.heard.some((n) => n.environmentId === 'env-2'), 1_000)).toBe(true);
    await a.close();
    await b.close();
  });

  it('a publishing process (the CLI) sends what is queued when it closes', async () => {
    const b = await processOn();
    const pool = openPostgres(db.url, { max: 1 });
    const relay = createPgNoticeRelay(pool, silentLogger);
    createNoticeHub({ relay }).notices.definitionsChanged('env-cli');
    await relay.close();
    await pool.end();
    expect(await until(() => b.heard.some((n) => n.environmentId === 'env-cli'), 1_000)).toBe(true);
    await b.close();
  });
});
