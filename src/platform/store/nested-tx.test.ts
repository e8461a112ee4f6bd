import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { createGroupCommit } from './group-commit';

// Composable transactions (issue 22 point 5): a `store.tx` (or `store.write`) called inside
// another of the same store joins it as a savepoint, on both engines; work that merely started
// inside a transaction (after-commit hooks, timers) opens transactions of its own.

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const row = (slug: string) => ({ id: slug, slug, managedPath: `/t/${slug}`, createdAt: 'x', updatedAt: 'x' });
const exists = async (slug: string) => (await h.services.store.tenants.findBySlug(slug)) !== undefined;

/** `p`, or a failure after `ms`: a nested call that waits on its outer transaction fails fast instead of hanging. */
const within = <T>(ms: number, p: Promise<T>): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms (deadlock)`)), ms).unref())]);

describe('nested store.tx', () => {
  it('joins the outer transaction: the inner call sees its writes, and both commit together', async () => {
    const { store } = h.services;
    let seenInside: string | undefined;
    let seenOutside: boolean | undefined;
    await within(
      2_000,
      store.tx(async (outer) => {
        await outer.tenants.insert(row('outer'));
        await store.tx(async (inner) => {
          seenInside = (await inner.tenants.findBySlug('outer'))?.id;
          await inner.tenants.insert(row('inner'));
        });
        seenOutside = await exists('inner');
      }),
    );
    expect(seenInside).toBe('outer');
    expect(seenOutside).toBe(false); // not committed before the outer transaction is
    expect(await exists('outer')).toBe(true);
    expect(await exists('inner')).toBe(true);
  });

  it('an inner throw the outer does not catch rolls back both', async () => {
    const { store } = h.services;
    await expect(
      within(
        2_000,
        store.tx(async (outer) => {
          await outer.tenants.insert(row('outer'));
          await store.tx(async (inner) => {
            await inner.tenants.insert(row('inner'));
            throw new Error('inner failed');
          });
        }),
      ),
    ).rejects.toThrow('inner failed');
    expect(await exists('outer')).toBe(false);
    expect(await exists('inner')).toBe(false);
  });

  it('an inner throw the outer catches undoes the inner writes and hooks only (a savepoint)', async () => {
    const { store } = h.services;
    const hooks: string[] = [];
    await within(
      2_000,
      store.tx(async (outer) => {
        await outer.tenants.insert(row('outer'));
        outer.afterCommit(() => hooks.push('outer'));
        await expect(
          store.tx(async (inner) => {
            await inner.tenants.insert(row('inner'));
            inner.afterCommit(() => hooks.push('inner'));
            throw new Error('inner failed');
          }),
        ).rejects.toThrow('inner failed');
        await store.tx((again) => again.tenants.insert(row('again')));
      }),
    );
    expect(await exists('outer')).toBe(true);
    expect(await exists('inner')).toBe(false);
    expect(await exists('again')).toBe(true);
    expect(hooks).toEqual(['outer']);
  });

  it('nests at any depth, and store.write joins too', async () => {
    const { store } = h.services;
    await within(
      2_000,
      store.tx(async () => {
        await store.tx(async () => {
          await store.write((w) => w.tenants.insert(row('deep')));
          await expect(
            store.tx(async (t) => {
              await t.tenants.insert(row('deeper'));
              throw new Error('deepest');
            }),
          ).rejects.toThrow('deepest');
        });
        expect(await exists('deep')).toBe(false);
      }),
    );
    expect(await exists('deep')).toBe(true);
    expect(await exists('deeper')).toBe(false);
  });

  it('nested calls started together run one after the other in the outer transaction', async () => {
    const { store } = h.services;
    const events: string[] = [];
    await within(
      2_000,
      store.tx(() =>
        Promise.all(
          ['a', 'b', 'c'].map((n) =>
            store.tx(async (t) => {
              events.push(`${n}:start`);
              await t.tenants.insert(row(n));
              await new Promise((r) => setTimeout(r, 5));
              events.push(`${n}:end`);
            }),
          ),
        ),
      ),
    );
    expect(events).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    for (const n of ['a', 'b', 'c']) expect(await exists(n)).toBe(true);
  });

  it('a nested call the outer did not await fails the outer transaction with a clear error, nothing committed', async () => {
    const { store } = h.services;
    let stray: Promise<unknown> | undefined;
    await expect(
      within(
        2_000,
        store.tx(async (outer) => {
          await outer.tenants.insert(row('outer'));
          stray = store
            .tx(async (t) => {
              await new Promise((r) => setTimeout(r, 20));
              await t.tenants.insert(row('stray'));
            })
            .catch(() => {}); // refused too, unless it had begun: then the outer waited for it
        }),
      ),
    ).rejects.toThrow(/not awaited/);
    await stray;

    expect(await exists('outer')).toBe(false);
    expect(await exists('stray')).toBe(false);
  });

  it('a nested call may not ask for a stronger isolation than the outer transaction has (PostgreSQL)', async () => {
    const { store } = h.services;
    const nested = store.tx(() => store.tx((t) => t.tenants.insert(row('iso')), { isolation: 'serializable' }));
    if (TEST_ENGINE === 'postgres') {
      await expect(within(2_000, nested)).rejects.toThrow(/isolation/);
      expect(await exists('iso')).toBe(false);
    } else {
      await within(2_000, nested); // SQLite's single writer is serializable already
      expect(await exists('iso')).toBe(true);
    }
    // The other way round is fine: the outer's stronger level covers the inner call.
    await within(2_000, store.tx(() => store.tx((t) => t.tenants.insert(row('iso2')), { isolation: 'read committed' }), { isolation: 'serializable' }));
    expect(await exists('iso2')).toBe(true);
  });

  it('a group commit called inside a transaction runs in it instead of waiting for the next group', async () => {
    const { store } = h.services;
    const grouped = createGroupCommit(store, async (tx, slug: string) => {
      await tx.tenants.insert(row(slug));
      return slug;
    });
    await expect(
      within(
        2_000,
        store.tx(async (outer) => {
          await outer.tenants.insert(row('outer'));
          expect(await grouped('grouped')).toBe('grouped');
          throw new Error('outer failed');
        }),
      ),
    ).rejects.toThrow('outer failed');
    expect(await exists('grouped')).toBe(false); // it was part of the rolled-back transaction
    // Outside a transaction the group commits on its own, as before.
    expect(await within(2_000, grouped('alone'))).toBe('alone');
    expect(await exists('alone')).toBe(true);
  });
});

describe('transactions started from inside another one that has ended', () => {
  it('an after-commit hook, and a timer set inside the transaction, open transactions of their own', async () => {
    const { store } = h.services;
    let fromHook: Promise<unknown> | undefined;
    let fromTimer: Promise<unknown> | undefined;
    let timerRan!: () => void;
    const timerDone = new Promise<void>((r) => (timerRan = r));
    await within(
      2_000,
      store.tx(async (tx) => {
        await tx.tenants.insert(row('first'));
        tx.afterCommit(() => {
          fromHook = store.tx(async (t) => {
            await t.tenants.insert(row('hooked'));
            throw new Error('hook tx failed');
          });
          fromHook.catch(() => {});
        });
        setTimeout(() => {
          fromTimer = store.tx((t) => t.tenants.insert(row('timed')));
          timerRan();
        }, 30);
      }),
    );
    await expect(within(2_000, fromHook!)).rejects.toThrow('hook tx failed');
    await timerDone;
    await within(2_000, fromTimer!);
    // The hook's failure undid only its own transaction; the timer's committed by itself.
    expect(await exists('first')).toBe(true);
    expect(await exists('hooked')).toBe(false);
    expect(await exists('timed')).toBe(true);
  });

  it('concurrent independent transactions do not join each other', async () => {
    const { store } = h.services;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let began!: () => void;
    const started = new Promise<void>((r) => (began = r));
    const a = store.tx(async (tx) => {
      await tx.tenants.insert(row('a'));
      began();
      await gate;
      throw new Error('a failed');
    });
    await started;
    const b = store.tx((tx) => tx.tenants.insert(row('b')));
    open();
    await expect(within(2_000, a)).rejects.toThrow('a failed');
    await within(2_000, b);
    expect(await exists('a')).toBe(false);
    expect(await exists('b')).toBe(true);
  });
});
