import { CHANNEL } from './version-channels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from '../../../test/helpers/pg-cluster';
import { createJobLeaseStore } from '../jobs/store';
import { silentLogger } from '../logger';
import { applyPgMigrations } from './pg-migrations';
import { openPostgres, type Pg } from './postgres';
import { createPostgresStore } from './postgres-store';
import { UniqueViolation, type Sql } from './sql';
import { TransactionAborted, type StoreOf } from './store';

const skip = pgUnavailableReason();
if (skip) console.warn(skip);

/** What these tests bind: the jobs store (ported to Sql) and the raw executor. */
const bind = (sql: Sql) => ({ jobs: createJobLeaseStore(sql), raw: sql });
type Stores = ReturnType<typeof bind>;

const until = async (cond: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
};

describe.skipIf(skip !== undefined)('PostgreSQL store engine', () => {
  let db: TestDatabase;
  let store: StoreOf<Stores>;
  let other: StoreOf<Stores>; // another "process" on the same database
  let admin: Pg; // a plain connection standing in for the CLI or psql
  beforeAll(async () => {
    db = await createTestDatabase();
    admin = openPostgres(db.url, { max: 2 });
    await applyPgMigrations(admin);
    await admin.query('CREATE TABLE items (id text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)');
    store = await createPostgresStore(openPostgres(db.url, { max: 6 }), bind, silentLogger, { maxAttempts: 10 });
    other = await createPostgresStore(openPostgres(db.url, { max: 6 }), bind, silentLogger);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await admin?.end({ timeout: 5 });
    await db?.drop();
  });

  const count = async (id: string) => (await store.raw.get<{ n: number }>('SELECT count(*) AS n FROM items WHERE id = ?', [id]))!.n;

  it('commits, rolls back on a throw, and reads outside never see uncommitted rows', async () => {
    let outside: number | undefined;
    await store.tx(async (tx) => {
      await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['a']);
      expect((await tx.raw.get<{ n: number }>('SELECT count(*) AS n FROM items WHERE id = ?', ['a']))!.n).toBe(1);
      outside = await count('a');
    });
    expect(outside).toBe(0);
    expect(await count('a')).toBe(1);
    await expect(
      store.tx(async (tx) => {
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['b']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count('b')).toBe(0);
    await expect(store.tx(() => 42)).resolves.toBe(42);
    expect(store.dialect).toBe('postgres');
    expect(store.readSnapshot()).toBeUndefined();
    store.shareReadsThisTurn();
  });

  it('runs after-commit hooks after commit only, and drops those of a rolled-back savepoint', async () => {
    const ran: string[] = [];
    let committedWhenHookRan: number | undefined;
    await store.tx(async (tx) => {
      await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['c']);
      tx.afterCommit(async () => {
        ran.push('outer');
        committedWhenHookRan = await count('c');
      });
      await expect(
        tx.savepoint(async () => {
          tx.afterCommit(() => ran.push('dropped'));
          await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['d']);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      // A failed statement inside a savepoint undoes only the savepoint.
      await expect(tx.savepoint(() => tx.raw.run('INSERT INTO items (id) VALUES (?)', ['c']))).rejects.toBeInstanceOf(UniqueViolation);
      await tx.savepoint(async () => {
        tx.afterCommit(() => ran.push('kept'));
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['e']);
      });
      expect(ran).toEqual([]);
    });
    await until(() => ran.length === 2 && committedWhenHookRan !== undefined, 1000);
    expect(ran).toEqual(['outer', 'kept']);
    expect(committedWhenHookRan).toBe(1);
    expect([await count('c'), await count('d'), await count('e')]).toEqual([1, 0, 1]);

    const none: string[] = [];
    await expect(
      store.tx(async (tx) => {
        tx.afterCommit(() => none.push('x'));
        throw new Error('rollback');
      }),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(none).toEqual([]);
  });

  // The loss of the connection itself: see 'lost connections' below.
  it('throws TransactionAborted from a savepoint when the transaction itself is gone', async () => {
    let seen: unknown;
    await expect(
      store.tx(async (tx) => {
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['f']);
        try {
          await tx.savepoint(async () => {
            await tx.raw.run('ROLLBACK');
            throw new Error('after the transaction ended');
          });
        } catch (e) {
          seen = e;
          throw e;
        }
      }),
    ).rejects.toThrow();
    expect(seen).toBeInstanceOf(TransactionAborted);
    expect(await count('f')).toBe(0);
    // The pool goes on.
    await expect(store.tx(async (tx) => tx.raw.get<{ one: number }>('SELECT 1 AS one'))).resolves.toEqual({ one: 1 });
  });

  it('refuses to report a commit when an error was swallowed inside the transaction', async () => {
    await expect(
      store.tx(async (tx) => {
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['swallowed']);
        await tx.raw.run('SELECT no_such_function()').catch(() => {});
      }),
    ).rejects.toBeInstanceOf(TransactionAborted);
    expect(await count('swallowed')).toBe(0);
  });

  it('runs the whole transaction again on a serialization failure', async () => {
    let attempts = 0;
    const hooks: number[] = [];
    const result = await store.tx(async (tx) => {
      attempts++;
      tx.afterCommit(() => hooks.push(attempts));
      await tx.raw.run('INSERT INTO items (id) VALUES (?) ON CONFLICT (id) DO NOTHING', [`g${attempts}`]);
      if (attempts === 1) await tx.raw.run(`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`);
      return attempts;
    });
    expect(result).toBe(2);
    expect(hooks).toEqual([2]);
    expect([await count('g1'), await count('g2')]).toEqual([0, 1]);
  });

  it('SERIALIZABLE read-then-write increments from racing transactions all land (retried)', async () => {
    await admin.query(`INSERT INTO items (id, n) VALUES ('counter', 0)`);
    const bump = () =>
      store.tx(
        async (tx) => {
          const { n } = (await tx.raw.get<{ n: number }>('SELECT n FROM items WHERE id = ?', ['counter']))!;
          await new Promise((r) => setTimeout(r, 20));
          await tx.raw.run('UPDATE items SET n = ? WHERE id = ?', [n + 1, 'counter']);
        },
        { isolation: 'serializable' },
      );
    await Promise.all([bump(), bump(), bump()]);
    expect((await store.raw.get<{ n: number }>('SELECT n FROM items WHERE id = ?', ['counter']))!.n).toBe(3);
  });

  it("moves the catalogue version within a second of another connection's change", async () => {
    const before = store.version(CHANNEL.catalog);
    const otherBefore = other.version(CHANNEL.catalog);
    await admin.query(`INSERT INTO tenants (id, slug, managed_path, created_at, updated_at) VALUES ('t1', 't1', '/t/t1', 'x', 'x')`);
    expect(await until(() => store.version(CHANNEL.catalog) !== before && other.version(CHANNEL.catalog) !== otherBefore, 1000)).toBe(true);
    // Nothing else moves it.
    const still = store.version(CHANNEL.catalog);
    await admin.query(`INSERT INTO items (id) VALUES ('not-catalogue')`);
    await new Promise((r) => setTimeout(r, 100));
    expect(store.version(CHANNEL.catalog)).toBe(still);
  });

  it("moves this process's version as soon as its own catalogue change commits", async () => {
    const before = store.version(CHANNEL.catalog);
    await store.tx((tx) => tx.raw.run(`UPDATE tenants SET slug = 't1b' WHERE id = 't1'`));
    expect(store.version(CHANNEL.catalog)).not.toBe(before);
  });

  it('moves the token state version on a revocation by another connection or by this process; not the catalogue version', async () => {
    const before = store.version(CHANNEL.tokenState);
    const catalogue = store.version(CHANNEL.catalog);
    await admin.query(`INSERT INTO revoked_access_tokens (jti, tenant_id, expires_at) VALUES ('j1', 't1', 1)`);
    expect(await until(() => store.version(CHANNEL.tokenState) !== before, 1000)).toBe(true);
    expect(store.version(CHANNEL.catalog)).toBe(catalogue);
    const mine = store.version(CHANNEL.tokenState);
    await store.tx((tx) => tx.raw.run(`INSERT INTO revoked_access_tokens (jti, tenant_id, expires_at) VALUES ('j2', 't1', 1)`));
    expect(store.version(CHANNEL.tokenState)).not.toBe(mine);
    // A statement that deletes nothing moves nothing (the triggers look at the rows touched).
    const still = store.version(CHANNEL.tokenState);
    await admin.query(`DELETE FROM grants WHERE id = 'none'`);
    await new Promise((r) => setTimeout(r, 100));
    expect(store.version(CHANNEL.tokenState)).toBe(still);
  });

  it('moves the version when the listening connection comes back, and keeps listening', async () => {
    const before = store.version(CHANNEL.catalog);
    const { rows: killed } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'listen%'`,
    );
    expect(killed.length).toBe(2); // both stores' listening connections
    expect(await until(() => store.version(CHANNEL.catalog) !== before, 5000)).toBe(true);
    const after = store.version(CHANNEL.catalog);
    await new Promise((r) => setTimeout(r, 100));
    await admin.query(`UPDATE tenants SET slug = 't1c' WHERE id = 't1'`);
    expect(await until(() => store.version(CHANNEL.catalog) !== after, 1000)).toBe(true);
  });

  it('runs the jobs store: two stores racing for one lease, one wins', async () => {
    await store.jobs.registerJob('purge');
    await other.jobs.registerJob('purge');
    const now = 1_000_000;
    for (let round = 0; round < 10; round++) {
      const name = `race${round}`;
      await store.jobs.registerJob(name);
      const [a, b] = await Promise.all([
        store.tx((tx) => tx.jobs.takeLease(name, 'A', now, now + 30_000)),
        other.tx((tx) => tx.jobs.takeLease(name, 'B', now, now + 30_000)),
      ]);
      expect([a, b].filter((x) => x !== undefined)).toHaveLength(1);
      const lease = await store.jobs.lease(name);
      expect(lease?.owner).toBe(a ? 'A' : 'B');
      expect(lease?.leaseUntil).toBe(now + 30_000);
    }
    expect(await store.jobs.takeLease('purge', 'A', now, now + 1000)).toEqual({ runAfter: 0 });
    expect(await other.jobs.takeLease('purge', 'B', now + 10, now + 1010)).toBeUndefined();
    expect(await store.jobs.recordRun('purge', 'A', now + 20, 0, now + 60_000)).toBe(true);
    expect(await other.jobs.recordRun('purge', 'B', now + 20, 0, now + 60_000)).toBe(false);
    await store.jobs.releaseLease('purge', 'A');
    expect(await other.jobs.takeLease('purge', 'B', now + 30, now + 1030)).toEqual({ runAfter: now + 60_000 });
    // An expired lease is taken over.
    expect(await store.jobs.takeLease('purge', 'A', now + 2000, now + 3000)).toEqual({ runAfter: now + 60_000 });
  });

  it('answers readiness and scrubs deleted rows', async () => {
    expect(await store.readiness()).toBe('ready');
    expect(await store.scrubDeleted()).toBe('done');
  });
});

/**
 * A database failover, pg_terminate_backend or idle_in_transaction_session_timeout takes
 * connections away: the statements and transactions on them fail, the process lives on, and
 * the next transaction gets a new connection.
 */
describe.skipIf(skip !== undefined)('PostgreSQL store engine: lost connections', () => {
  let db: TestDatabase;
  let store: StoreOf<Stores>;
  let admin: Pg;
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  const APP = 'engage-victim';
  /** Terminates the backends of the store that match `where`; how many. */
  const terminate = async (where: string) =>
    (
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${APP}' AND ${where}`,
      )
    ).rowCount;
  const ok = () => store.tx(async (tx) => tx.raw.get<{ one: number }>('SELECT 1 AS one'));

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    db = await createTestDatabase();
    admin = openPostgres(db.url, { max: 2 });
    await applyPgMigrations(admin);
    await admin.query('CREATE TABLE items (id text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)');
    store = await createPostgresStore(openPostgres(db.url, { max: 4, applicationName: APP }), bind, silentLogger);
  }, 60_000);
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await store?.close();
    await admin?.end({ timeout: 5 });
    await db?.drop();
  });

  it('a transaction whose connection is terminated between statements rejects; the next one succeeds', async () => {
    await expect(
      store.tx(async (tx) => {
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['lost-a']);
        const { pid } = (await tx.raw.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await new Promise((r) => setTimeout(r, 50));
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['lost-b']);
      }),
    ).rejects.toThrow();
    await expect(ok()).resolves.toEqual({ one: 1 });
    expect((await store.raw.get<{ n: number }>(`SELECT count(*) AS n FROM items WHERE id LIKE 'lost-%'`))!.n).toBe(0);
    expect(uncaught).toEqual([]);
  });

  it('a statement running when its connection is terminated rejects, in a savepoint as TransactionAborted', async () => {
    let seen: unknown;
    // Settled into a value at once: the rejection may come before the assertion is made.
    const outcome = (p: Promise<unknown>) => p.then(() => 'resolved', (e: unknown) => e);
    const running = outcome(
      store.tx(async (tx) => {
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['lost-c']);
        try {
          await tx.savepoint(() => tx.raw.run('SELECT pg_sleep(5)'));
        } catch (e) {
          seen = e;
          throw e;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await terminate(`query LIKE '%pg_sleep(5)%'`)).toBe(1);
    expect(await running).toBeInstanceOf(TransactionAborted);
    expect(seen).toBeInstanceOf(TransactionAborted);
    await expect(ok()).resolves.toEqual({ one: 1 });
    // Outside a transaction too.
    const lone = outcome(store.raw.get('SELECT pg_sleep(5)'));
    await new Promise((r) => setTimeout(r, 200));
    expect(await terminate(`query LIKE '%pg_sleep(5)%'`)).toBe(1);
    expect(await lone).toBeInstanceOf(Error);
    await expect(store.raw.get('SELECT 1 AS one')).resolves.toEqual({ one: 1 });
    expect(uncaught).toEqual([]);
  });

  it('idle pooled connections terminated are dropped by the pool', async () => {
    // Several connections open, then idle in the pool.
    await Promise.all([1, 2, 3, 4].map(() => store.raw.get('SELECT pg_sleep(0.05)')));
    expect(await terminate(`state = 'idle' AND query NOT ILIKE 'listen%'`)).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 200));
    await expect(ok()).resolves.toEqual({ one: 1 });
    await expect(Promise.all([1, 2, 3, 4].map(() => store.raw.get<{ one: number }>('SELECT 1 AS one')))).resolves.toHaveLength(4);
    // Transactions starting at once, before the pool may have heard of the loss: a BEGIN on a
    // lost connection runs the transaction again on another.
    for (let round = 0; round < 5; round++) {
      await Promise.all([1, 2, 3, 4].map(() => store.raw.get('SELECT pg_sleep(0.01)')));
      await terminate(`state = 'idle' AND query NOT ILIKE 'listen%'`);
      await expect(Promise.all([1, 2, 3, 4].map(() => ok()))).resolves.toHaveLength(4);
    }
    expect(uncaught).toEqual([]);
  });

  it('a transaction left idle past idle_in_transaction_session_timeout rejects; the next one succeeds', async () => {
    await expect(
      store.tx(async (tx) => {
        await tx.raw.run(`SET LOCAL idle_in_transaction_session_timeout = '100ms'`);
        await new Promise((r) => setTimeout(r, 400));
        await tx.raw.run('INSERT INTO items (id) VALUES (?)', ['lost-d']);
      }),
    ).rejects.toThrow();
    await expect(ok()).resolves.toEqual({ one: 1 });
    expect(uncaught).toEqual([]);
  });

  it('the LISTEN connection terminated: the version moves, and moves again on a later change', async () => {
    const before = store.version(CHANNEL.catalog);
    expect(await terminate(`query ILIKE 'listen%'`)).toBe(1);
    // While nothing listens, no token state is trusted: the version moves on every look.
    expect(await until(() => store.version(CHANNEL.tokenState) !== store.version(CHANNEL.tokenState), 5000)).toBe(true);
    expect(await until(() => store.version(CHANNEL.catalog) !== before, 5000)).toBe(true);
    expect(store.version(CHANNEL.tokenState)).toBe(store.version(CHANNEL.tokenState));
    const after = store.version(CHANNEL.catalog);
    await admin.query(`INSERT INTO tenants (id, slug, managed_path, created_at, updated_at) VALUES ('lt', 'lt', '/t/lt', 'x', 'x')`);
    expect(await until(() => store.version(CHANNEL.catalog) !== after, 2000)).toBe(true);
    // Twice in a row, the second time while the first reconnection is recent.
    const again = store.version(CHANNEL.catalog);
    expect(await terminate(`query ILIKE 'listen%'`)).toBe(1);
    expect(await until(() => store.version(CHANNEL.catalog) !== again, 5000)).toBe(true);
    const last = store.version(CHANNEL.catalog);
    await admin.query(`UPDATE tenants SET slug = 'lt2' WHERE id = 'lt'`);
    expect(await until(() => store.version(CHANNEL.catalog) !== last, 2000)).toBe(true);
    await expect(ok()).resolves.toEqual({ one: 1 });
    expect(uncaught).toEqual([]);
  });
});
