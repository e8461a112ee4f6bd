import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, describeSqlite, itSqlite, type Harness } from '../../../test/helpers/harness';
import { bindStores } from '../../stores';
import { silentLogger } from '../logger';
import { createSqliteStore } from './sqlite-store';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const slugs = async () => (await h.services.tenants.list(0, 100)).items.map((t) => t.slug).sort();

describe('store.tx', () => {
  it('rolls back every write when the callback throws', async () => {
    const { store } = h.services;
    const before = await slugs();
    await expect(
      store.tx(async (tx) => {
        await tx.tenants.insert({ id: 'a', slug: 'first', managedPath: '/t/first', createdAt: 'x', updatedAt: 'x' });
        await tx.tenants.insert({ id: 'b', slug: 'second', managedPath: '/t/second', createdAt: 'x', updatedAt: 'x' });
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await slugs()).toEqual(before);
  });

  // SQLite engine: one writer, transactions serialized in-process.
  itSqlite('never interleaves two concurrent transactions', async () => {
    const events: string[] = [];
    const run = (name: string) =>
      h.services.store.tx(async () => {
        events.push(`${name}:start`);
        await new Promise((r) => setTimeout(r, 10));
        events.push(`${name}:end`);
      });
    await Promise.all([run('a'), run('b'), run('c')]);
    expect(events).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  });

  it('a read outside the transaction never sees uncommitted data', async () => {
    let seenInside: string | undefined;
    let seenOutside: unknown = 'unset';
    await h.services.store.tx(async (tx) => {
      await tx.tenants.insert({ id: 'c', slug: 'pending', managedPath: '/t/pending', createdAt: 'x', updatedAt: 'x' });
      seenInside = (await tx.tenants.findBySlug('pending'))?.id;
      seenOutside = (await h.services.store.tenants.findBySlug('pending'));
    });
    expect(seenInside).toBe('c');
    expect(seenOutside).toBeUndefined();
    expect((await h.services.store.tenants.findBySlug('pending'))?.id).toBe('c');
  });

  it('a failed transaction does not block the next one', async () => {
    await expect(h.services.store.tx(() => Promise.reject(new Error('x')))).rejects.toThrow();
    await expect(h.services.store.tx(() => 42)).resolves.toBe(42);
  });
});

// SQLite engine only: PostgreSQL reads do not share a snapshot per turn.
describeSqlite('shared reads of one event-loop turn', () => {
  const insert = (tx: Parameters<Parameters<Harness['services']['store']['tx']>[0]>[0], slug: string) =>
    tx.tenants.insert({ id: slug, slug, managedPath: `/t/${slug}`, createdAt: 'x', updatedAt: 'x' });

  it('a request sees its own commit at once', async () => {
    const { store } = h.services;
    store.shareReadsThisTurn();
    expect((await store.tenants.findBySlug('mine'))).toBeUndefined(); // the shared snapshot is open now
    await store.tx(async (tx) => insert(tx, 'mine'));
    expect((await store.tenants.findBySlug('mine'))?.id).toBe('mine');
  });

  it("sees another connection's commit from the next turn on", async () => {
    const { store } = h.services;
    const other = h.db.write.$client; // stands in for another process's connection
    store.shareReadsThisTurn();
    expect((await store.tenants.findBySlug('theirs'))).toBeUndefined();
    other.prepare(`INSERT INTO tenants (id, slug, managed_path, created_at, updated_at) VALUES ('theirs', 'theirs', '/t/theirs', 'x', 'x')`).run();
    expect((await store.tenants.findBySlug('theirs'))).toBeUndefined(); // same turn, same snapshot
    await new Promise((r) => setImmediate(r));
    expect((await store.tenants.findBySlug('theirs'))?.id).toBe('theirs');
    expect(h.db.read.$client.inTransaction).toBe(false);
  });
});

describe('afterCommit', () => {
  const tenant = (slug: string) => ({ id: slug, slug, managedPath: `/t/${slug}`, createdAt: 'x', updatedAt: 'x' });

  it('runs the hooks once the transaction has committed, in order, with the commit visible', async () => {
    const { store } = h.services;
    const seen: string[] = [];
    let readInFirst: Promise<string> | undefined;
    await store.tx(async (tx) => {
      await tx.tenants.insert(tenant('hooked'));
      tx.afterCommit(() => {
        seen.push('first');
        readInFirst = store.tenants.findBySlug('hooked').then((r) => r?.id ?? 'absent');
      });
      await new Promise((r) => setTimeout(r, 2));
      tx.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['first', 'second']);
    expect(await readInFirst).toBe('hooked');
  });

  it('never runs the hooks of a rolled-back transaction', async () => {
    let ran = false;
    await expect(
      h.services.store.tx((tx) => {
        tx.afterCommit(() => (ran = true));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await new Promise((r) => setTimeout(r, 5));
    expect(ran).toBe(false);
  });

  // Built on the SQLite engine's factory (postgres-store.test.ts covers the other engine's hooks).
  itSqlite('logs a failing hook instead of failing the committed caller; the other hooks still run', async () => {
    const logged: string[] = [];
    const logger = { ...silentLogger, error: (msg: string) => logged.push(msg) };
    const store = createSqliteStore(h.db, bindStores, logger);
    let later = 0;
    const result = await store.tx(async (tx) => {
      await tx.tenants.insert(tenant('kept'));
      tx.afterCommit(() => {
        throw new Error('hook');
      });
      tx.afterCommit(() => Promise.reject(new Error('async hook')));
      tx.afterCommit(() => later++);
      return 'answer';
    });
    expect(result).toBe('answer');
    expect(later).toBe(1);
    await new Promise((r) => setTimeout(r, 1));
    expect(logged).toEqual(['after-commit hook failed', 'after-commit hook failed']);
    expect((await store.tenants.findBySlug('kept'))?.id).toBe('kept');
  });

  it('a hook may start a transaction of its own', async () => {
    const { store } = h.services;
    let inner: Promise<unknown> | undefined;
    await store.tx(async (tx) => {
      tx.afterCommit(() => (inner = store.tx(async (t) => t.tenants.insert(tenant('from-hook')))));
    });
    await inner;
    expect((await store.tenants.findBySlug('from-hook'))?.id).toBe('from-hook');
  });

  it('drops the hooks of a savepoint that was rolled back, keeps the others', async () => {
    const { store } = h.services;
    const ran: string[] = [];
    await store.tx(async (tx) => {
      tx.afterCommit(() => ran.push('outer'));
      await expect(
        tx.savepoint(async () => {
          await tx.tenants.insert(tenant('undone'));
          tx.afterCommit(() => ran.push('undone'));
          throw new Error('item');
        }),
      ).rejects.toThrow('item');
      await tx.savepoint(async () => {
        await tx.tenants.insert(tenant('kept-too'));
        tx.afterCommit(() => ran.push('kept'));
      });
    });
    expect(ran).toEqual(['outer', 'kept']);
    expect((await store.tenants.findBySlug('undone'))).toBeUndefined();
    expect((await store.tenants.findBySlug('kept-too'))?.id).toBe('kept-too');
  });

  it('is refused outside a transaction', async () => {
    let leaked: { afterCommit(fn: () => unknown): void } | undefined;
    await h.services.store.tx((tx) => {
      leaked = tx;
    });
    expect(() => leaked!.afterCommit(() => 0)).toThrow('afterCommit outside a transaction');
  });
});
