import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxPage, putEntry } from '../../../test/fixtures/inbox';
import { writeEntryIn } from './service';

/**
 * Paging stability (issue 27 "Tests"): a reader pages an inbox of 10,000 entries (both scopes,
 * several entries per millisecond) both ways while a writer adds entries: no entry is skipped or
 * repeated; the entries written meanwhile are newer than all others, so newest first they can
 * only come before the old ones and oldest first they come after them, in order, every one
 * committed before the last page was asked for.
 */
const N = 10_000;
let h: Harness;
let s: Session;
let profile: string;
let environmentId: string;
beforeAll(async () => {
  h = await createHarness();
  const env = await setupEnvironment(h);
  environmentId = env.environment.id;
  s = await bootstrap(h, env.app.appKey);
  await bind(h, env.accessKey, s, 'pager');
  profile = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
  const content = { payloads: { en: { n: 1 } }, defaultLocale: 'en' };
  for (let i = 0; i < N; i += 500)
    await h.services.store.tx(async (tx) => {
      for (let k = i; k < i + 500; k++) {
        if (k % 3 === 0) h.clock.advance(1);
        const scope = k % 2 ? 'PROFILE' : 'INSTALLATION';
        await writeEntryIn(tx, { id: crypto.randomUUID(), environmentId, scope, ownerId: scope === 'PROFILE' ? profile : s.installationId, key: `k${k}`, content, sentAt: h.clock.now(), expiresAt: null });
      }
    });
}, 120_000);
afterAll(async () => h.close());

async function walk(sortOrder: 'NEWEST_FIRST' | 'OLDEST_FIRST', pageSize: number, beforeEachPage: () => void = () => {}): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    beforeEachPage();
    const page = await inboxPage(h, s, { pageSize, sortOrder, ...(cursor ? { cursor } : {}) });
    out.push(...page.entries.map((x) => x.id));
    cursor = page.nextCursor;
    expect(page.hasMore).toBe(cursor !== null);
  } while (cursor);
  return out;
}

describe(`paging ${N.toLocaleString('en')} entries while a writer adds more`, () => {
  it.each(['NEWEST_FIRST', 'OLDEST_FIRST'] as const)('%s: no skip, no repeat', { timeout: 120_000 }, async (sortOrder) => {
    const before = await walk('NEWEST_FIRST', 100);
    expect(before.length).toBeGreaterThanOrEqual(N);
    // The writer: one entry at a time, each in a later millisecond, both scopes, until the reader is done.
    const written: string[] = [];
    let reading = true;
    const writer = (async () => {
      for (let i = 0; reading; i++) {
        h.clock.advance(1);
        const scope = i % 2 ? 'PROFILE' : 'INSTALLATION';
        written.push(await putEntry(h, { environmentId, scope, ownerId: scope === 'PROFILE' ? profile : s.installationId }));
      }
    })();
    let committedBeforeLastPage = 0;
    const seen = await walk(sortOrder, 100, () => (committedBeforeLastPage = written.length));
    reading = false;
    await writer;
    expect(written.length).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    const isNew = new Set(written);
    const old = seen.filter((id) => !isNew.has(id));
    const fresh = seen.filter((id) => isNew.has(id));
    if (sortOrder === 'NEWEST_FIRST') {
      // Every old entry in order; new ones only ahead of them (those written before the first page), newest first.
      expect(old).toEqual(before);
      expect(seen.slice(fresh.length)).toEqual(before);
      expect(fresh).toEqual([...written.slice(0, fresh.length)].reverse());
    } else {
      expect(old).toEqual([...before].reverse());
      expect(seen.slice(0, old.length)).toEqual(old);
      // Then the new ones in the order written: none skipped up to the last that was committed before the last page.
      expect(fresh).toEqual(written.slice(0, fresh.length));
      expect(fresh.length).toBeGreaterThanOrEqual(committedBeforeLastPage);
    }
  });
});
