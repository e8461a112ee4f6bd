import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, itSqlite, type Harness } from '../../../test/helpers/harness';
import { createGroupCommit } from './group-commit';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const row = (slug: string) => ({ id: slug, slug, managedPath: `/t/${slug}`, createdAt: 'x', updatedAt: 'x' });
const exists = async (slug: string) => (await h.services.store.tenants.findBySlug(slug)) !== undefined;
const overflow = (n: number): number => overflow(n + 1) + 1;

describe('group commit', () => {
  it('items of one event-loop turn share one transaction; one throwing mid-way fails only itself', async () => {
    const { store } = h.services;
    const txSpy = vi.spyOn(store, 'tx');
    const hooks: number[] = [];
    const grouped = createGroupCommit(store, async (tx, i: number) => {
      await tx.tenants.insert(row(`item-${i}-a`));
      tx.afterCommit(() => hooks.push(i));
      // A stack overflow after the item has written (the bug: it failed the whole group).
      if (i === 17) overflow(0);
      await tx.tenants.insert(row(`item-${i}-b`));
      return `answer-${i}`;
    });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => grouped(i)));

    expect(txSpy).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 30; i++) {
      const r = results[i];
      if (i === 17) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
        expect(await exists(`item-${i}-a`)).toBe(false);
        expect(await exists(`item-${i}-b`)).toBe(false);
      } else {
        expect(r).toEqual({ status: 'fulfilled', value: `answer-${i}` });
        expect(await exists(`item-${i}-a`)).toBe(true);
        expect(await exists(`item-${i}-b`)).toBe(true);
      }
    }
    expect(hooks).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 17));
  });

  it('each item answers only after the shared commit', async () => {
    const { store } = h.services;
    const seenAtAnswer: boolean[] = [];
    const grouped = createGroupCommit(store, (tx, slug: string) => tx.tenants.insert(row(slug)));
    await Promise.all(
      ['x1', 'x2', 'x3'].map((slug) =>
        grouped(slug).then(async () => {
          // The read connection sees only committed data: every item of the group is there.
          seenAtAnswer.push((await exists('x1')) && (await exists('x2')) && (await exists('x3')));
        }),
      ),
    );
    expect(seenAtAnswer).toEqual([true, true, true]);
  });

  it('items of a later turn form the next group; an async item is awaited before the next starts', async () => {
    const { store } = h.services;
    const order: string[] = [];
    const grouped = createGroupCommit(store, async (tx, slug: string) => {
      order.push(`${slug}:start`);
      await new Promise((r) => setTimeout(r, 2));
      await tx.tenants.insert(row(slug));
      order.push(`${slug}:end`);
    });
    const first = [grouped('g1'), grouped('g2')];
    await new Promise((r) => setImmediate(r));
    const second = grouped('g3');
    await Promise.all([...first, second]);
    expect(order).toEqual(['g1:start', 'g1:end', 'g2:start', 'g2:end', 'g3:start', 'g3:end']);
    expect(await Promise.all(['g1', 'g2', 'g3'].map(exists))).toEqual([true, true, true]);
  });

  itSqlite('when the database rolls the whole transaction back, every item of the group fails', async () => {
    const { store } = h.services;
    // SQLite engine only: PostgreSQL's own rollbacks come with a lost connection (postgres-store tests).
    const grouped = createGroupCommit(store, async (tx, slug: string) => {
      await tx.tenants.insert(row(slug));
      if (slug === 'lost-2') {
        // What SQLite does itself on SQLITE_FULL or SQLITE_IOERR.
        h.db.write.$client.exec('ROLLBACK');
        throw new Error('disk full');
      }
    });
    const results = await Promise.allSettled(['lost-1', 'lost-2', 'lost-3'].map(grouped));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await Promise.all(['lost-1', 'lost-2', 'lost-3'].map(exists))).toEqual([false, false, false]);
    // The store is usable afterwards.
    await grouped('after');
    expect(await exists('after')).toBe(true);
  });

  it('runs a group in lock order when given one (stable: one key keeps its arrival order); answers go to their callers', async () => {
    const ran: string[] = [];
    const grouped = createGroupCommit(
      h.services.store,
      async (_tx, item: { key: string; name: string }) => {
        ran.push(item.name);
        return item.name;
      },
      (item) => item.key,
    );
    const items = [
      { key: 'b', name: 'b1' },
      { key: 'a', name: 'a1' },
      { key: 'b', name: 'b2' },
      { key: 'a', name: 'a2' },
    ];
    expect(await Promise.all(items.map(grouped))).toEqual(['b1', 'a1', 'b2', 'a2']);
    expect(ran).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('an item that loses a deadlock (40P01) is undone and runs again in a later group; one that keeps losing gets the error after 3 reruns', async () => {
    const { store } = h.services;
    const txSpy = vi.spyOn(store, 'tx');
    const runs = new Map<string, number>();
    const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const grouped = createGroupCommit(store, async (tx, slug: string) => {
      const n = (runs.get(slug) ?? 0) + 1;
      runs.set(slug, n);
      await tx.tenants.insert(row(`${slug}-${n}`));
      if (slug === 'victim' && n === 1) throw deadlock();
      if (slug === 'always') throw deadlock();
      return n;
    });
    const [calm, victim, always] = await Promise.allSettled([grouped('calm'), grouped('victim'), grouped('always')]);

    expect(calm).toEqual({ status: 'fulfilled', value: 1 });
    expect(victim).toEqual({ status: 'fulfilled', value: 2 });
    expect(await exists('victim-1')).toBe(false);
    expect(await exists('victim-2')).toBe(true);
    expect(always.status).toBe('rejected');
    expect((always as PromiseRejectedResult).reason).toMatchObject({ code: '40P01' });
    expect(runs.get('always')).toBe(4);
    for (let n = 1; n <= 4; n++) expect(await exists(`always-${n}`)).toBe(false);
    // The first group, then one per rerun of the item that kept losing.
    expect(txSpy).toHaveBeenCalledTimes(4);
  });
});

