import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, json, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxOps, inboxPage, putEntry } from '../../../test/fixtures/inbox';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const profileOf = async (s: Session) => (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
const results = async (res: Response) => ((await res.json()) as { results: { status: string; errorCode: string | null }[] }).results.map((r) => (r.errorCode ? `${r.status} ${r.errorCode}` : r.status));

describe('GET /v1/sdk/inbox', () => {
  it('pages the installation’s and its profile’s entries in a total order, both ways, without skipping or repeating while entries arrive', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [s, other] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    expect(await inboxPage(h, s)).toEqual({ entries: [], nextCursor: null, hasMore: false, unreadCount: 0 });
    const profile = await profileOf(s);
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) {
      // Several entries per millisecond, and both scopes.
      if (i % 3 === 0) h.clock.advance(1);
      ids.push(await putEntry(h, { environmentId: e, scope: i % 2 ? 'PROFILE' : 'INSTALLATION', ownerId: i % 2 ? profile : s.installationId, key: `k${i}` }));
    }
    await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: other.installationId });
    expect(await allIds(s)).toHaveLength(45);
    for (const sortOrder of ['NEWEST_FIRST', 'OLDEST_FIRST'] as const) {
      // The inbox in one page of 100 (newest first), before paging it 10 at a time.
      const before = await allIds(s);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await inboxPage(h, s, { pageSize: 10, sortOrder, ...(cursor ? { cursor } : {}) });
        expect(page.unreadCount).toBe(before.length + pages * 2);
        seen.push(...page.entries.map((x) => x.id));
        cursor = page.nextCursor;
        expect(page.hasMore).toBe(cursor !== null);
        // Two entries arrive after each page, newer than any seen, one of each scope.
        h.clock.advance(1);
        await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile });
        await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId });
        pages++;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      if (sortOrder === 'NEWEST_FIRST') expect(seen).toEqual(before);
      // Oldest first: every entry there was, in order, then those written while it paged (all but the last two).
      else expect(seen).toEqual([...[...before].reverse(), ...(await allIds(s)).slice(2, 2 * pages).reverse()]);
    }
    // Default page: 20, newest first, with the entry's fields.
    const first = await inboxPage(h, s);
    expect(first.entries).toHaveLength(20);
    expect(first.entries[0]).toEqual({ id: expect.any(String), key: 'welcome', payload: { title: 'Hello' }, scope: expect.stringMatching(/^(PROFILE|INSTALLATION)$/), sentAt: expect.any(String), expiresAt: null, readAt: null });
  });

  it('answers 400 invalid_cursor to a cursor of another installation, sort order or generation, or an edited one; 400 invalid_request to bad query parameters', async () => {
    const env = await setupEnvironment(h);
    const [s, other] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    for (let i = 0; i < 3; i++) await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: s.installationId });
    await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: other.installationId });
    await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: other.installationId });
    const cursor = (await inboxPage(h, s, { pageSize: 1 })).nextCursor!;
    const foreign = (await inboxPage(h, other, { pageSize: 1 })).nextCursor!;
    const code = async (sess: Session, q: string) => {
      const res = await h.request(`/v1/sdk/inbox?${q}`, { headers: bearer(sess.credential) });
      return [res.status, ((await res.json()) as { code: string }).code];
    };
    expect(await code(s, `cursor=${foreign}`)).toEqual([400, 'invalid_cursor']);
    expect(await code(s, `cursor=${cursor}&sortOrder=OLDEST_FIRST`)).toEqual([400, 'invalid_cursor']);
    expect(await code(s, `cursor=${cursor.slice(0, -2)}AA`)).toEqual([400, 'invalid_cursor']);
    expect(await code(s, `cursor=${'A'.repeat(300)}`)).toEqual([400, 'invalid_cursor']);
    for (const q of ['pageSize=0', 'pageSize=101', 'pageSize=2.5', 'pageSize=x', 'sortOrder=RANDOM', 'pageSize=1&pageSize=2', 'cursor=a&cursor=b']) expect(await code(s, q), q).toEqual([400, 'invalid_request']);
    await bind(h, env.accessKey, s, 'user-1');
    expect(await code(s, `cursor=${cursor}`)).toEqual([400, 'invalid_cursor']);
    expect((await h.request('/v1/sdk/inbox')).status).toBe(401);
  });

  it('shows a profile’s entries to every installation bound to it in its current generation, never the previous profile’s; leaves out deleted and expired entries', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [a, b] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    const anonymous = await profileOf(a);
    await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: anonymous, key: 'before' });
    await bind(h, env.accessKey, a, 'user-1');
    await bind(h, env.accessKey, b, 'user-1');
    const profile = await profileOf(a);
    await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile, key: 'shared' });
    await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile, key: 'soon-gone', expiresAt: new Date(h.clock.now().getTime() + 60_000) });
    for (const s of [a, b]) expect((await inboxPage(h, s)).entries.map((x) => x.key).sort()).toEqual(['shared', 'soon-gone']);
    expect((await inboxPage(h, a)).unreadCount).toBe(2);
    h.clock.advance(61);
    expect(await inboxPage(h, b)).toMatchObject({ entries: [{ key: 'shared' }], unreadCount: 1 });
  });
});

describe('POST /v1/sdk/inbox/operations:batch', () => {
  it('marks read and unread, deletes, marks all read as a watermark; rejects what it must, replays, conflicts', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [s, other] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    const profile = await profileOf(s);
    const [x, y, z] = [await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId }), await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile }), await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile })];
    const theirs = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: other.installationId });
    const batchId = randomUUID();
    const ops = [
      { type: 'MARK_READ', entryId: x },
      { type: 'DELETE', entryId: z },
      { type: 'MARK_READ' },
      { type: 'MARK_ALL_READ', entryId: y },
      { type: 'MARK_READ', entryId: theirs },
      { type: 'MARK_READ', entryId: randomUUID() },
    ].map((o) => ({ ...o, operationId: randomUUID() }));
    const first = await inboxOps(h, s, 0, ops, batchId);
    expect(first.status).toBe(202);
    const body = await first.text();
    expect(JSON.parse(body).results.map((r: { status: string; errorCode: string | null }) => (r.errorCode ? `${r.status} ${r.errorCode}` : r.status))).toEqual([
      'ACCEPTED',
      'ACCEPTED',
      'REJECTED entry_id_required',
      'REJECTED entry_id_not_allowed',
      'REJECTED entry_not_found',
      'REJECTED entry_not_found',
    ]);
    let page = await inboxPage(h, s);
    expect(page.unreadCount).toBe(1);
    expect(Object.fromEntries(page.entries.map((p) => [p.id, p.readAt !== null]))).toEqual({ [y]: false, [x]: true });
    // The same batch again: its first answer, byte for byte; another body under its id: 409.
    const replay = await inboxOps(h, s, 0, ops, batchId);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(body);
    expect((await inboxOps(h, s, 0, [{ type: 'MARK_ALL_READ' }], batchId)).status).toBe(409);
    // An operation id used before, in another batch: DUPLICATE, nothing done again.
    expect(await results(await inboxOps(h, s, 0, [{ type: 'MARK_UNREAD', entryId: x }, { type: 'MARK_READ', entryId: x, operationId: ops[0].operationId }]))).toEqual(['ACCEPTED', 'DUPLICATE']);
    expect((await inboxPage(h, s)).unreadCount).toBe(2);
    // Read all, then one back to unread: the watermark, then a state set after it.
    expect(await results(await inboxOps(h, s, 0, [{ type: 'MARK_ALL_READ', entryId: null }, { type: 'MARK_UNREAD', entryId: y }]))).toEqual(['ACCEPTED', 'ACCEPTED']);
    page = await inboxPage(h, s);
    expect(page.unreadCount).toBe(1);
    expect(Object.fromEntries(page.entries.map((p) => [p.id, p.readAt !== null]))).toEqual({ [y]: false, [x]: true });
    // An older generation never touches the current profile's inbox.
    await bind(h, env.accessKey, s, 'user-9');
    expect(await results(await inboxOps(h, s, 0, [{ type: 'MARK_ALL_READ' }]))).toEqual(['REJECTED stale_generation']);
    // The other installation's inbox is as it was.
    expect((await inboxPage(h, other)).unreadCount).toBe(1);
  });

  it('refuses malformed batches with 400', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    const post = (b: unknown) => h.request('/v1/sdk/inbox/operations:batch', json(b, bearer(s.credential)));
    for (const b of [
      {},
      { batchId: randomUUID(), generation: 0, operations: [] },
      { batchId: randomUUID(), generation: -1, operations: [{ operationId: randomUUID(), type: 'MARK_ALL_READ' }] },
      { batchId: randomUUID(), generation: 0, operations: [{ operationId: randomUUID(), type: 'ARCHIVE' }] },
      { batchId: randomUUID(), generation: 0, operations: [{ operationId: 'x', type: 'MARK_ALL_READ' }] },
      { batchId: randomUUID(), generation: 0, operations: Array.from({ length: 101 }, () => ({ operationId: randomUUID(), type: 'MARK_ALL_READ' })) },
    ])
      expect((await post(b)).status, JSON.stringify(b).slice(0, 80)).toBe(400);
  });
});

describe('the unread count never drifts', () => {
  it('equals a recount after random operations from two installations of one profile', { timeout: 120_000 }, async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [a, b] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    await bind(h, env.accessKey, a, 'u');
    await bind(h, env.accessKey, b, 'u');
    const profile = await profileOf(a);
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // The model: entry id → {read, deleted, owner}.
    const model = new Map<string, { read: boolean; deleted: boolean; owner: string }>();
    const visible = (inst: Session) => [...model.entries()].filter(([, m]) => !m.deleted && (m.owner === profile || m.owner === inst.installationId));
    for (let step = 0; step < 400; step++) {
      const who = rnd(2) ? a : b;
      const k = rnd(10);
      if (k < 3 || model.size === 0) {
        const owner = rnd(3) ? profile : who.installationId;
        model.set(await putEntry(h, { environmentId: e, scope: owner === profile ? 'PROFILE' : 'INSTALLATION', ownerId: owner }), { read: false, deleted: false, owner });
        continue;
      }
      const ids = [...model.keys()];
      const id = ids[rnd(ids.length)];
      const type = ['MARK_READ', 'MARK_UNREAD', 'DELETE', 'MARK_ALL_READ', 'MARK_READ', 'MARK_UNREAD'][rnd(6)];
      const res = await results(await inboxOps(h, who, 1, [type === 'MARK_ALL_READ' ? { type } : { type, entryId: id }]));
      const m = model.get(id)!;
      const sees = !m.deleted && (m.owner === profile || m.owner === who.installationId);
      if (type === 'MARK_ALL_READ') {
        for (const [, v] of visible(who)) v.read = true;
      } else if (!sees) {
        expect(res).toEqual(['REJECTED entry_not_found']);
        continue;
      } else if (type === 'MARK_READ') m.read = true;
      else if (type === 'MARK_UNREAD') m.read = false;
      else m.deleted = true;
      expect(res).toEqual(['ACCEPTED']);
      if (step % 20 === 0)
        for (const s of [a, b]) {
          const count = visible(s).filter(([, v]) => !v.read).length;
          expect((await inboxPage(h, s, { pageSize: 1 })).unreadCount, `step ${step}`).toBe(count);
        }
    }
    for (const s of [a, b]) expect((await inboxPage(h, s)).unreadCount).toBe(visible(s).filter(([, v]) => !v.read).length);
  });
});

describe('POST /v1/sdk/inbox/renderings:resolve', () => {
  it('answers the LAYOUT of visible entries in the installation’s locale or the fallbacks, and omits the rest', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [s, other] = [await bootstrap(h, env.app.appKey, { locale: 'fr-CA' }), await bootstrap(h, env.app.appKey)];
    const layout = (t: string) => ({ SUMMARY: { title: t }, DETAIL: { body: t } });
    const french = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId, content: { payloads: { en: {} }, layouts: { en: layout('en'), fr: layout('fr') }, defaultLocale: 'en' } });
    const fallback = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId, content: { payloads: { en: {} }, layouts: { de: layout('de') }, defaultLocale: 'en', fallbackLocale: 'de' } });
    const headless = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId, content: { payloads: { en: {} }, defaultLocale: 'en' } });
    const deleted = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId });
    const expired = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: s.installationId, expiresAt: new Date(h.clock.now().getTime() + 1_000) });
    const theirs = await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: other.installationId });
    await inboxOps(h, s, 0, [{ type: 'DELETE', entryId: deleted }]);
    h.clock.advance(2);
    const resolve = async (entryIds: string[]) => {
      const res = await h.request('/v1/sdk/inbox/renderings:resolve', json({ entryIds }, bearer(s.credential)));
      expect(res.status).toBe(200);
      return ((await res.json()) as { renderings: { entryId: string; renderer: string; revision: number; surfaces: unknown; expiresAt: string | null }[] }).renderings;
    };
    const got = await resolve([french, fallback, headless, deleted, expired, theirs, randomUUID()]);
    expect(got.map((r) => [r.entryId, r.surfaces])).toEqual([[french, layout('fr')], [fallback, layout('de')]]);
    expect(got[0]).toMatchObject({ renderer: 'LAYOUT', expiresAt: null });
    expect(got[0].revision).toBeGreaterThanOrEqual(1);
    expect((await resolve([french]))[0].revision).toBe(got[0].revision);
    for (const bad of [{ entryIds: [] }, { entryIds: [french, french] }, { entryIds: ['x'] }, { entryIds: Array.from({ length: 101 }, () => randomUUID()) }]) {
      expect((await h.request('/v1/sdk/inbox/renderings:resolve', json(bad, bearer(s.credential)))).status).toBe(400);
    }
  });
});

async function allIds(s: Session): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await inboxPage(h, s, { pageSize: 100, ...(cursor ? { cursor } : {}) });
    out.push(...page.entries.map((x) => x.id));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
