import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/helpers/harness';

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
