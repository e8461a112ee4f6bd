import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxPage, putEntry } from '../../../test/fixtures/inbox';
import { writeEntryIn } from './service';

/**
 * The inbox's order is each owner's commit order (docs/decisions.md "The inbox's commit order"):
 * an entry whose send started first (earlier sent time) but committed after a later one, which a
 * reader walking oldest first has already passed, is still shown, once. On PostgreSQL the two sends
 * are real concurrent transactions on two connections: the first writes (or is about to write) its
 * entry and waits, the second commits, the reader pages past it, then the first commits. SQLite has
 * one writer, so there the first one's entry is written after the reader passed the second's, with
 * its earlier sent time: the same order of commits and times.
 */
let h: Harness;
let s: Session;
let profile: string;
let environmentId: string;
beforeAll(async () => {
  h = await createHarness();
  const env = await setupEnvironment(h);
  environmentId = env.environment.id;
  s = await bootstrap(h, env.app.appKey);
  await bind(h, env.accessKey, s, 'commit-order');
  profile = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
}, 60_000);
afterAll(async () => h.close());

const ownerOf = (scope: 'PROFILE' | 'INSTALLATION') => (scope === 'PROFILE' ? profile : s.installationId);

/**
 * A send that starts now (its sent time read now) and commits when `commit()` is called. With
 * `early`, its entry is written at once and the transaction then waits holding its owner's row
 * (PostgreSQL); otherwise it waits first and writes at `commit()`.
 */
function slowSend(scope: 'PROFILE' | 'INSTALLATION', early: boolean) {
  const id = crypto.randomUUID();
  const sentAt = h.clock.now();
  const entry = { id, environmentId, scope, ownerId: ownerOf(scope), key: 'slow', content: { payloads: { en: { n: 0 } }, defaultLocale: 'en' }, sentAt, expiresAt: null };
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  let done: Promise<void>;
  if (TEST_ENGINE === 'postgres') {
    done = h.services.store.tx(async (tx) => {
      // A statement, so the transaction holds its connection (and with `early`, the owner's row) from here.
      await tx.inbox.owner(entry.ownerId);
      if (early) await writeEntryIn(tx, entry);
      started();
      await gate;
      if (!early) await writeEntryIn(tx, entry);
    });
  } else {
    started();
    done = gate.then(() => h.services.store.tx((tx) => writeEntryIn(tx, entry)));
  }
  return { id, ready, commit: async () => (release(), done) };
}

/** Walks `sortOrder` by pages of `pageSize`, calling `between` once after the page that showed `marker`. */
async function walk(sortOrder: 'NEWEST_FIRST' | 'OLDEST_FIRST', pageSize: number, marker: string, between: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  let called = false;
  do {
    const page = await inboxPage(h, s, { pageSize, sortOrder, ...(cursor ? { cursor } : {}) });
    seen.push(...page.entries.map((e) => e.id));
    cursor = page.nextCursor;
    if (!called && seen.includes(marker)) {
      expect(cursor, 'the walk has more to show after the marker').not.toBeNull();
      called = true;
      await between();
    }
  } while (cursor);
  expect(called).toBe(true);
  return seen;
}

describe(`entries committed out of their sent order (${TEST_ENGINE}${TEST_ENGINE === 'postgres' ? ': two connections' : ''})`, () => {
  const cases = [
    // The late entry's owner, the passed entry's owner, whether the late send holds its owner's row while the other commits.
    { late: 'PROFILE', passed: 'PROFILE', early: false },
    { late: 'INSTALLATION', passed: 'INSTALLATION', early: false },
    { late: 'INSTALLATION', passed: 'PROFILE', early: true },
    { late: 'PROFILE', passed: 'INSTALLATION', early: true },
  ] as const;
  it.each(cases)('OLDEST_FIRST: a $late entry sent before a $passed one the reader passed, committed after it, is shown once', { timeout: 60_000 }, async ({ late, passed, early }) => {
    const old: string[] = [];
    for (let i = 0; i < 6; i++) {
      h.clock.advance(1);
      old.push(await putEntry(h, { environmentId, scope: i % 2 ? 'PROFILE' : 'INSTALLATION', ownerId: ownerOf(i % 2 ? 'PROFILE' : 'INSTALLATION') }));
    }
    h.clock.advance(1);
    const slow = slowSend(late, early);
    await slow.ready;
    // Sent after the slow one, committed before it; then one more, so the walk goes on past it.
    h.clock.advance(5);
    const passedId = await putEntry(h, { environmentId, scope: passed, ownerId: ownerOf(passed) });
    h.clock.advance(1);
    const after = await putEntry(h, { environmentId, scope: passed, ownerId: ownerOf(passed) });
    const before = (await inboxPage(h, s, { pageSize: 100, sortOrder: 'OLDEST_FIRST' })).entries.map((e) => e.id);
    expect(before).not.toContain(slow.id);
    const seen = await walk('OLDEST_FIRST', 1, passedId, async () => slow.commit());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id !== slow.id)).toEqual(before);
    expect(seen).toContain(slow.id);
    expect(seen.indexOf(slow.id)).toBeGreaterThan(seen.indexOf(passedId));
    expect(seen).toContain(after);
    for (const id of old) expect(seen).toContain(id);
  });

  it.each(cases)('NEWEST_FIRST: a $late entry committed during the walk neither repeats nor hides an entry; it waits for the next walk', { timeout: 60_000 }, async ({ late, passed, early }) => {
    for (let i = 0; i < 6; i++) {
      h.clock.advance(1);
      await putEntry(h, { environmentId, scope: i % 2 ? 'PROFILE' : 'INSTALLATION', ownerId: ownerOf(i % 2 ? 'PROFILE' : 'INSTALLATION') });
    }
    h.clock.advance(1);
    const slow = slowSend(late, early);
    await slow.ready;
    h.clock.advance(5);
    const passedId = await putEntry(h, { environmentId, scope: passed, ownerId: ownerOf(passed) });
    const before = (await inboxPage(h, s, { pageSize: 100, sortOrder: 'NEWEST_FIRST' })).entries.map((e) => e.id);
    const seen = await walk('NEWEST_FIRST', 2, passedId, async () => slow.commit());
    expect(seen).toEqual(before);
    expect((await inboxPage(h, s, { pageSize: 100, sortOrder: 'NEWEST_FIRST' })).entries.map((e) => e.id)).toContain(slow.id);
  });
});
