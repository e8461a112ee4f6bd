import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const slugs = () => h.services.tenants.list(0, 100).items.map((t) => t.slug).sort();

describe('store.tx', () => {
  it('rolls back every write when the callback throws', async () => {
    const { store } = h.services;
    const before = slugs();
    await expect(
      store.tx(async (tx) => {
        tx.tenants.insert({ id: 'a', slug: 'first', managedPath: '/t/first', createdAt: 'x', updatedAt: 'x' });
        tx.tenants.insert({ id: 'b', slug: 'second', managedPath: '/t/second', createdAt: 'x', updatedAt: 'x' });
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(slugs()).toEqual(before);
  });

  it('never interleaves two concurrent transactions', async () => {
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
      tx.tenants.insert({ id: 'c', slug: 'pending', managedPath: '/t/pending', createdAt: 'x', updatedAt: 'x' });
      seenInside = tx.tenants.findBySlug('pending')?.id;
      seenOutside = h.services.store.tenants.findBySlug('pending');
    });
    expect(seenInside).toBe('c');
    expect(seenOutside).toBeUndefined();
    expect(h.services.store.tenants.findBySlug('pending')?.id).toBe('c');
  });

  it('a failed transaction does not block the next one', async () => {
    await expect(h.services.store.tx(() => Promise.reject(new Error('x')))).rejects.toThrow();
    await expect(h.services.store.tx(() => 42)).resolves.toBe(42);
  });
});

describe('shared reads of one event-loop turn', () => {
  const insert = (tx: Parameters<Parameters<Harness['services']['store']['tx']>[0]>[0], slug: string) =>
    tx.tenants.insert({ id: slug, slug, managedPath: `/t/${slug}`, createdAt: 'x', updatedAt: 'x' });

  it('a request sees its own commit at once', async () => {
    const { store } = h.services;
    store.shareReadsThisTurn();
    expect(store.tenants.findBySlug('mine')).toBeUndefined(); // the shared snapshot is open now
    await store.tx((tx) => insert(tx, 'mine'));
    expect(store.tenants.findBySlug('mine')?.id).toBe('mine');
  });

  it("sees another connection's commit from the next turn on", async () => {
    const { store } = h.services;
    const other = h.db.write.$client; // stands in for another process's connection
    store.shareReadsThisTurn();
    expect(store.tenants.findBySlug('theirs')).toBeUndefined();
    other.prepare(`INSERT INTO tenants (id, slug, managed_path, created_at, updated_at) VALUES ('theirs', 'theirs', '/t/theirs', 'x', 'x')`).run();
    expect(store.tenants.findBySlug('theirs')).toBeUndefined(); // same turn, same snapshot
    await new Promise((r) => setImmediate(r));
    expect(store.tenants.findBySlug('theirs')?.id).toBe('theirs');
    expect(h.db.read.$client.inTransaction).toBe(false);
  });
});
