import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, json, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxOps, inboxPage, putEntry } from '../../../test/fixtures/inbox';
import type { InboxContent } from './content';
import { INBOX_CURSOR_LENGTH } from './cursor';

/**
 * The inbox routes' contract as tables (issue 27 "Tests"): every route's answers to good and bad
 * requests, with the exact Problem bodies (spec 01: `{code, message}`, application/problem+json,
 * the message naming the field), and the rendering omission table.
 */
let h: Harness;
let s: Session;
let other: Session;
let env: Awaited<ReturnType<typeof setupEnvironment>>;
beforeAll(async () => {
  h = await createHarness();
  env = await setupEnvironment(h);
  [s, other] = [await bootstrap(h, env.app.appKey, { locale: 'fr-CA' }), await bootstrap(h, env.app.appKey)];
  for (let i = 0; i < 120; i++) {
    h.clock.advance(1);
    await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: s.installationId, key: `k${i}` });
  }
});
afterAll(async () => h.close());

/** A Problem: its status, code and that the message names `field`; nothing else in the body. */
async function problem(res: Response, status: number, code: string, field?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'message']);
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  if (field) expect(body.message).toContain(field);
  if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

const AUTH_CASES: [string, Record<string, string>][] = [
  ['no credential', {}],
  ['an unknown credential', bearer('svc_inst_unknown')],
  ['a malformed header', { authorization: 'Basic abc' }],
];

describe('GET /v1/sdk/inbox', () => {
  const get = (q: string, sess: Session = s) => h.request(`/v1/sdk/inbox${q}`, { headers: bearer(sess.credential) });
  const OK: [string, number, string][] = [
    // query, entries on the page, first key (newest first unless OLDEST_FIRST)
    ['', 20, 'k119'],
    ['?pageSize=1', 1, 'k119'],
    ['?pageSize=100', 100, 'k119'],
    ['?pageSize=7&sortOrder=OLDEST_FIRST', 7, 'k0'],
    ['?sortOrder=NEWEST_FIRST', 20, 'k119'],
  ];
  it.each(OK)('200 %s: %i entries from %s', async (q, n, first) => {
    const res = await get(q);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = (await res.json()) as { entries: { key: string }[]; hasMore: boolean; nextCursor: string | null; unreadCount: number };
    expect(Object.keys(page).sort()).toEqual(['entries', 'hasMore', 'nextCursor', 'unreadCount']);
    expect(page.entries).toHaveLength(n);
    expect(page.entries[0].key).toBe(first);
    expect(page.hasMore).toBe(n < 120);
    expect(page.unreadCount).toBe(120);
  });

  const BAD: [string, string, string][] = [
    ['?pageSize=0', 'invalid_request', 'pageSize'],
    ['?pageSize=101', 'invalid_request', 'pageSize'],
    ['?pageSize=-1', 'invalid_request', 'pageSize'],
    ['?pageSize=2.5', 'invalid_request', 'pageSize'],
    ['?pageSize=1e2', 'invalid_request', 'pageSize'],
    ['?pageSize=', 'invalid_request', 'pageSize'],
    ['?pageSize=x', 'invalid_request', 'pageSize'],
    ['?pageSize=1&pageSize=2', 'invalid_request', 'pageSize'],
    ['?sortOrder=RANDOM', 'invalid_request', 'sortOrder'],
    ['?sortOrder=newest_first', 'invalid_request', 'sortOrder'],
    ['?sortOrder=', 'invalid_request', 'sortOrder'],
    ['?sortOrder=NEWEST_FIRST&sortOrder=OLDEST_FIRST', 'invalid_request', 'sortOrder'],
    ['?cursor=a&cursor=b', 'invalid_request', 'cursor'],
    ['?cursor=abc', 'invalid_cursor', 'cursor'],
    [`?cursor=${'A'.repeat(INBOX_CURSOR_LENGTH)}`, 'invalid_cursor', 'cursor'],
    [`?cursor=${'A'.repeat(300)}`, 'invalid_cursor', 'cursor'],
  ];
  it.each(BAD)('400 %s: %s naming %s', async (q, code, field) => problem(await get(q), 400, code, field));

  it('400 invalid_cursor: a cursor of another installation, of the other sort order, edited, or of an earlier generation', async () => {
    const mine = (await inboxPage(h, s, { pageSize: 1 })).nextCursor!;
    await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: other.installationId });
    await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: other.installationId });
    const theirs = (await inboxPage(h, other, { pageSize: 1 })).nextCursor!;
    const edited = `${mine.slice(0, 10)}${mine[10] === 'A' ? 'B' : 'A'}${mine.slice(11)}`;
    for (const q of [`?cursor=${theirs}`, `?cursor=${mine}&sortOrder=OLDEST_FIRST`, `?cursor=${edited}`]) await problem(await get(q), 400, 'invalid_cursor', 'cursor');
    expect((await get(`?cursor=${mine}`)).status).toBe(200);
    // The generation changes between two pages (a sign-in): the old cursor is refused, a new walk works.
    const t = await bootstrap(h, env.app.appKey);
    for (let i = 0; i < 3; i++) await putEntry(h, { environmentId: env.environment.id, scope: 'INSTALLATION', ownerId: t.installationId });
    const before = (await inboxPage(h, t, { pageSize: 1 })).nextCursor!;
    await bind(h, env.accessKey, t, 'contract-user');
    await problem(await get(`?cursor=${before}`, t), 400, 'invalid_cursor', 'generation');
    expect((await inboxPage(h, t, { pageSize: 1 })).entries).toHaveLength(1);
  });

  it.each(AUTH_CASES)('401 with %s', async (_, headers) => problem(await h.request('/v1/sdk/inbox', { headers }), 401, 'unauthorized'));
});

describe('POST /v1/sdk/inbox/operations:batch', () => {
  const post = (body: unknown, sess: Session = s) => h.request('/v1/sdk/inbox/operations:batch', json(body, bearer(sess.credential)));
  const op = (over: Record<string, unknown> = {}) => ({ operationId: randomUUID(), type: 'MARK_ALL_READ', ...over });
  const batch = (over: Record<string, unknown> = {}) => ({ batchId: randomUUID(), generation: 0, operations: [op()], ...over });

  const BAD: [string, unknown, string][] = [
    ['no body', undefined, ''],
    ['an array', [], ''],
    ['no batchId', { generation: 0, operations: [op()] }, 'batchId'],
    ['a batchId that is not a UUID', batch({ batchId: 'b-1' }), 'batchId'],
    ['no generation', { batchId: randomUUID(), operations: [op()] }, 'generation'],
    ['a negative generation', batch({ generation: -1 }), 'generation'],
    ['a fractional generation', batch({ generation: 0.5 }), 'generation'],
    ['no operations', { batchId: randomUUID(), generation: 0 }, 'operations'],
    ['an empty batch', batch({ operations: [] }), 'operations'],
    ['101 operations', batch({ operations: Array.from({ length: 101 }, () => op()) }), 'operations'],
    ['an unknown type', batch({ operations: [op({ type: 'ARCHIVE' })] }), 'type'],
    ['no operationId', batch({ operations: [{ type: 'MARK_ALL_READ' }] }), 'operationId'],
    ['an operationId that is not a UUID', batch({ operations: [op({ operationId: 'x' })] }), 'operationId'],
    ['an entryId that is not a UUID', batch({ operations: [op({ type: 'MARK_READ', entryId: 'e-1' })] }), 'entryId'],
    ['an unknown field in the batch', batch({ extra: 1 }), 'extra'],
    ['an unknown field in an operation', batch({ operations: [op({ extra: 1 })] }), 'extra'],
  ];
  it.each(BAD)('400 invalid_request: %s', async (_, body, field) => {
    const res = body === undefined ? await h.request('/v1/sdk/inbox/operations:batch', { method: 'POST', headers: { ...bearer(s.credential), 'content-type': 'application/json' }, body: '{' }) : await post(body);
    await problem(res, 400, 'invalid_request', field);
  });

  it('202 for 100 operations (the limit), each with its result in order; 200 with the same bytes on replay; 409 batch_conflict for another body under the batchId', async () => {
    const operations = Array.from({ length: 100 }, (_, i) => op(i % 2 ? { type: 'MARK_READ', entryId: randomUUID() } : {}));
    const body = batch({ operations });
    const res = await post(body);
    expect(res.status).toBe(202);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const answer = JSON.parse(text) as { batchId: string; results: { operationId: string; status: string; errorCode: string | null }[]; serverTime: string };
    expect(Object.keys(answer).sort()).toEqual(['batchId', 'results', 'serverTime']);
    expect(answer.batchId).toBe(body.batchId);
    expect(answer.results.map((r) => r.operationId)).toEqual(operations.map((o) => o.operationId));
    expect(new Set(answer.results.map((r) => (r.errorCode ? `${r.status} ${r.errorCode}` : r.status)))).toEqual(new Set(['ACCEPTED', 'REJECTED entry_not_found']));
    const replay = await post(body);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(text);
    await problem(await post({ ...body, operations: operations.slice(1) }), 409, 'batch_conflict', 'batchId');
    // The same batchId from another installation is its own batch.
    expect((await post(body, other)).status).toBe(202);
  });

  it('413 payload_too_large above the request size limit', async () => {
    const big = batch({ pad: 'x'.repeat(h.services.engage.limits.maxRequestBytes + 1) });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
  });

  it.each(AUTH_CASES)('401 with %s', async (_, headers) => problem(await h.request('/v1/sdk/inbox/operations:batch', json(batch(), headers)), 401, 'unauthorized'));
});

describe('POST /v1/sdk/inbox/renderings:resolve', () => {
  const resolve = (body: unknown, sess: Session = s) => h.request('/v1/sdk/inbox/renderings:resolve', json(body, bearer(sess.credential)));
  const BAD: [string, unknown, string][] = [
    ['no entryIds', {}, 'entryIds'],
    ['an empty list', { entryIds: [] }, 'entryIds'],
    ['a duplicate', { entryIds: ['7d1f7a53-1b2c-4d5e-8f90-123456789abc', '7d1f7a53-1b2c-4d5e-8f90-123456789abc'] }, 'entryIds'],
    ['a duplicate in other letter case', { entryIds: ['7d1f7a53-1b2c-4d5e-8f90-123456789abc', '7D1F7A53-1B2C-4D5E-8F90-123456789ABC'] }, 'entryIds[1]'],
    ['an id that is not a UUID', { entryIds: ['x'] }, 'entryIds'],
    ['101 ids', { entryIds: Array.from({ length: 101 }, () => randomUUID()) }, 'entryIds'],
    ['an unknown field', { entryIds: [randomUUID()], locale: 'de' }, 'locale'],
  ];
  it.each(BAD)('400 invalid_request: %s', async (_, body, field) => problem(await resolve(body), 400, 'invalid_request', field));
  it('200 for 100 ids (the limit), none of them visible: no renderings', async () => {
    const res = await resolve({ entryIds: Array.from({ length: 100 }, () => randomUUID()) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ renderings: [] });
  });
  it.each(AUTH_CASES)('401 with %s', async (_, headers) => problem(await h.request('/v1/sdk/inbox/renderings:resolve', json({ entryIds: [randomUUID()] }, headers)), 401, 'unauthorized'));

  it('the omission table: only entries the installation can see now, not deleted or expired, with a LAYOUT in an acceptable locale', async () => {
    const e = env.environment.id;
    const r = await bootstrap(h, env.app.appKey, { locale: 'de-AT' });
    const anonymous = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [r.installationId]))!.p;
    const layout = (t: string) => ({ SUMMARY: { title: t }, DETAIL: { body: t } });
    const content = (layouts: InboxContent['layouts'], over: Partial<InboxContent> = {}): InboxContent => ({ payloads: { en: {} }, ...(layouts ? { layouts } : {}), defaultLocale: 'en', ...over });
    const put = (c: InboxContent, over: Record<string, unknown> = {}) => putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: r.installationId, content: c, ...over });
    const rows: [string, string, string | null][] = [
      // name, entry id, the surfaces' title it resolves to (null: omitted)
      ['its own locale', await put(content({ 'de-AT': layout('de-AT'), de: layout('de'), en: layout('en') })), 'de-AT'],
      ['its language', await put(content({ de: layout('de'), en: layout('en') })), 'de'],
      ['the default locale', await put(content({ en: layout('en'), fr: layout('fr') })), 'en'],
      ['the fallback locale', await put(content({ it: layout('it') }, { fallbackLocale: 'it' })), 'it'],
      ['no LAYOUT in any acceptable locale', await put(content({ ja: layout('ja'), fr: layout('fr') })), null],
      ['unrenderable (headless: no layout at all)', await put(content(undefined)), null],
      ['the profile’s entry', await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: anonymous, content: content({ en: layout('profile') }) }), 'profile'],
      ['deleted', await put(content({ en: layout('deleted') })), null],
      ['expired', await put(content({ en: layout('expired') }), { expiresAt: new Date(h.clock.now().getTime() + 1_000) }), null],
      ['another installation’s', await putEntry(h, { environmentId: e, scope: 'INSTALLATION', ownerId: other.installationId, content: content({ en: layout('theirs') }) }), null],
      ['another profile’s', await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [other.installationId]))!.p, content: content({ en: layout('theirs') }) }), null],
      ['no such entry', randomUUID(), null],
    ];
    const ids = Object.fromEntries(rows.map(([name, id]) => [name, id]));
    expect((await inboxOps(h, r, 0, [{ type: 'DELETE', entryId: ids.deleted }])).status).toBe(202);
    h.clock.advance(2_000);
    const got = async (sess: Session, entryIds: string[]) => {
      const res = await resolve({ entryIds }, sess);
      expect(res.status).toBe(200);
      return ((await res.json()) as { renderings: { entryId: string; surfaces: { SUMMARY: { title: string } } }[] }).renderings;
    };
    const answer = await got(r, rows.map(([, id]) => id));
    expect(Object.fromEntries(answer.map((x) => [x.entryId, x.surfaces.SUMMARY.title]))).toEqual(Object.fromEntries(rows.filter(([, , t]) => t !== null).map(([, id, t]) => [id, t])));
    // In the order asked for.
    expect(answer.map((x) => x.entryId)).toEqual(rows.filter(([, , t]) => t !== null).map(([, id]) => id));
    // Inaccessible after a sign-in: the anonymous profile's entry is no longer this installation's.
    await bind(h, env.accessKey, r, 'omission-user');
    expect((await got(r, [ids['the profile’s entry'], ids['its language']])).map((x) => x.entryId)).toEqual([ids['its language']]);
  });
});

describe('concurrent batches (one group commit on SQLite, a transaction each on PostgreSQL)', () => {
  it('answer as if sequential: the same batch twice at once is one 202 and one 200 with its bytes; counts stay exact', async () => {
    const e = env.environment.id;
    const [a, b] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    const ga = await bind(h, env.accessKey, a, 'concurrent-user');
    const gb = await bind(h, env.accessKey, b, 'concurrent-user');
    const profile = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [a.installationId]))!.p;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await putEntry(h, { environmentId: e, scope: 'PROFILE', ownerId: profile }));
    const twice = { batchId: randomUUID(), generation: ga, operations: ids.slice(0, 5).map((entryId) => ({ operationId: randomUUID(), type: 'MARK_READ', entryId })) };
    const post = (sess: Session, body: unknown) => h.request('/v1/sdk/inbox/operations:batch', json(body, bearer(sess.credential)));
    const answers = await Promise.all([
      post(a, twice),
      post(a, twice),
      // b marks other entries read, and one of a's (counted once).
      post(b, { batchId: randomUUID(), generation: gb, operations: [...ids.slice(4, 10)].map((entryId) => ({ operationId: randomUUID(), type: 'MARK_READ', entryId })) }),
      post(a, { batchId: randomUUID(), generation: ga, operations: [{ operationId: randomUUID(), type: 'DELETE', entryId: ids[19] }] }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 202, 202, 202]);
    const [t0, t1] = [await answers[0].text(), await answers[1].text()];
    expect(t0).toBe(t1);
    expect((JSON.parse(t0) as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(Array(5).fill('ACCEPTED'));
    // 20 entries, 10 read, 1 deleted: 9 unread for both devices.
    for (const sess of [a, b]) expect((await inboxPage(h, sess, { pageSize: 1 })).unreadCount).toBe(9);
  });
});
