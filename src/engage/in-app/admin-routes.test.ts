import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { messageFile, variantFile } from '../../../test/fixtures/in-app-messages';
import { ACTOR } from '../../../test/fixtures/actor';
import { docsExample } from '../../../test/helpers/docs-examples';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/**
 * In-app messages over the engagement administration API (issue 27): the status table of every
 * route, If-Match, the lifecycle DRAFT → ACTIVE → edit → publish → PAUSED → publish → ARCHIVED,
 * the audit trail, isolation between environments, the results' shape.
 */
let h: Harness;
let a: EngageAdminFixture;
let all: string;
let readOnly: string;
let iosId: string;
let shopId: string;
const { read } = ENGAGE_ADMIN_API.scopes;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  const shop = await setupEnvironment(h, 'shop');
  iosId = shop.app.id;
  shopId = shop.environment.id;
  await setupEnvironment(h, 'other');
  all = await a.token();
  readOnly = await a.token([read]);
}, 60_000);
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
const body = async (res: Response): Promise<[number, any]> => [res.status, res.status === 204 ? null : await res.json()];
const withIfMatch = (method: string, path: string, ifMatch: string, payload?: unknown) =>
  h.request(`${a.root}${path}`, {
    method,
    headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json', 'if-match': ifMatch },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
const base = '/environments/shop/in-app-messages';

describe('in-app messages over the administration API: the status table', () => {
  it('401 without a token and 403 with the read scope on every change; reads need only read', async () => {
    expect((await body(await a.call('POST', base, all, messageFile({ key: 'table' }))))[0]).toBe(201);
    const routes: [string, string, unknown?][] = [
      ['GET', base], ['POST', base, messageFile({ key: 'x' })], ['GET', `${base}/table`], ['PUT', `${base}/table`, messageFile({ key: 'table' })],
      ['POST', `${base}/table/publish`], ['POST', `${base}/table/pause`], ['POST', `${base}/table/archive`], ['GET', `${base}/table/results`],
    ];
    for (const [method, path, payload] of routes) {
      expect((await a.call(method, path, undefined, payload)).status, `${method} ${path}`).toBe(401);
      const [status, b] = await body(await a.call(method, path, readOnly, payload));
      if (method === 'GET') expect(status, `${method} ${path}`).toBe(200);
      else expect([status, b], `${method} ${path}`).toEqual([403, { error: 'insufficient_scope' }]);
    }
  });

  it('400 naming the field: shape, rules across fields, unknown apps, query and If-Match', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [messageFile({ key: 'Bad Key' }), 'key'],
      [messageFile({ triggers: [] }), 'triggers'],
      [messageFile({ extra: 1 }), 'extra'],
      [messageFile({ defaultLocale: 'de' }), 'content: must hold the default locale de'],
      [{ ...variantFile(), content: messageFile().content }, 'content: give exactly one of content and variants'],
      [variantFile({ variants: [{ key: 'a', weight: 5000, content: { en: { title: 'A', body: 'A' } } }, { key: 'b', weight: 4000, content: { en: { title: 'B', body: 'B' } } }] }), 'variants: weights must sum to 10000'],
      [messageFile({ content: { en: { title: 't', body: 'b', buttons: [{ label: 'Go', action: 'DEEP_LINK' }] } } }), 'content.en.buttons[0].deepLink'],
      [messageFile({ content: { en: { title: 't', body: 'b', buttons: [{ label: 'Go', action: 'DEEP_LINK', deepLink: 'JavaScript:alert(1)' }] } } }), 'content.en.buttons[0].deepLink: the javascript: scheme is refused'],
      [messageFile({ content: { en: { title: 't', body: 'b', buttons: [{ label: 'Go', action: 'DEEP_LINK', deepLink: 'data:text/html,<script>alert(1)</script>' }] } } }), 'content.en.buttons[0].deepLink: the data: scheme is refused'],
      [messageFile({ triggers: [{ type: 'EVENT' }] }), 'triggers[0].eventName'],
      [messageFile({ triggers: [{ type: 'APP_OPEN', screenKey: 'home' }] }), 'triggers[0].screenKey: must be absent for APP_OPEN'],
      [messageFile({ schedule: { startsAt: '2027-03-02T00:00:00Z', endsAt: '2027-03-01T00:00:00Z' } }), 'schedule.endsAt: must be after startsAt'],
      [messageFile({ targetApps: ['other-ios'] }), 'targetApps[0]: no app other-ios in this environment'],
      [messageFile({ audience: [{ attribute: 'appVersion', operator: 'semverGte', values: ['not-a-version'] }] }), 'audience[0]'],
      [messageFile({ frequencyCap: { impressions: 1, periodSeconds: 10 } }), 'frequencyCap.periodSeconds'],
    ];
    for (const [f, field] of cases) {
      const [status, b] = await body(await a.call('POST', base, all, f));
      expect([status, b.error], JSON.stringify(f)).toEqual([400, 'invalid_request']);
      expect(b.error_description, JSON.stringify(f)).toContain(field);
    }
    expect((await body(await a.call('POST', base, all, '[1]')))[1]).toMatchObject({ error: 'invalid_request' });
    expect((await body(await a.call('POST', base, all, '{"key":')))[1]).toMatchObject({ error: 'invalid_request' });
    for (const q of ['?status=LIVE', '?size=0', '?page=-1']) expect((await body(await a.call('GET', `${base}${q}`, readOnly)))[0], q).toBe(400);
    for (const q of ['?days=0', '?days=367', '?days=ten', '?days=1&days=2']) {
      const [status, b] = await body(await a.call('GET', `${base}/table/results${q}`, readOnly));
      expect([status, b.error, b.error_description], q).toEqual([400, 'invalid_request', expect.stringContaining('days')]);
    }
    expect((await body(await a.call('GET', `${base}/Bad%20Key`, readOnly)))[1]).toMatchObject({ error: 'invalid_request' });
    const [s1, b1] = await body(await withIfMatch('PUT', `${base}/table`, 'seven', messageFile({ key: 'table' })));
    expect([s1, b1.error, b1.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('If-Match')]);
    const [s2, b2] = await body(await a.call('PUT', `${base}/table`, all, messageFile({ key: 'renamed' })));
    expect([s2, b2.error, b2.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('key: is immutable')]);
  });

  it('404 for an unknown message or environment; 409 for a duplicate, a stale If-Match, a wrong status, a managed message', async () => {
    for (const [method, path] of [['GET', `${base}/nothing`], ['PUT', `${base}/nothing`], ['POST', `${base}/nothing/publish`], ['POST', `${base}/nothing/pause`], ['POST', `${base}/nothing/archive`], ['GET', `${base}/nothing/results`]] as const) {
      expect(await body(await a.call(method, path, all, method === 'PUT' ? messageFile({ key: 'nothing' }) : undefined)), `${method} ${path}`).toEqual([404, { error: 'message_not_found' }]);
    }
    expect(await body(await a.call('GET', '/environments/nowhere/in-app-messages', readOnly))).toEqual([404, { error: 'unknown_environment' }]);
    expect((await a.call('POST', base, all, messageFile({ key: 'dup' }))).status).toBe(201);
    expect(await body(await a.call('POST', base, all, messageFile({ key: 'dup' })))).toEqual([409, { error: 'message_exists' }]);
    expect(await body(await withIfMatch('POST', `${base}/dup/publish`, '"2"'))).toEqual([409, { error: 'message_version_conflict' }]);
    expect(await body(await a.call('POST', `${base}/dup/pause`, all))).toEqual([409, { error: 'message_status_conflict' }]);
    expect((await body(await a.call('POST', `${base}/dup/archive`, all)))[0]).toBe(200);
    expect(await body(await a.call('POST', `${base}/dup/publish`, all))).toEqual([409, { error: 'message_status_conflict' }]);
    expect(await body(await a.call('PUT', `${base}/dup`, all, messageFile({ key: 'dup', description: 'again' })))).toEqual([409, { error: 'message_status_conflict' }]);
    expect((await a.call('POST', base, all, messageFile({ key: 'managed' }))).status).toBe(201);
    expect(await h.services.engage.inApp.markManaged(shopId, 'managed', ACTOR)).toBe(true);
    for (const [method, path] of [['PUT', `${base}/managed`], ['POST', `${base}/managed/publish`], ['POST', `${base}/managed/archive`]] as const) {
      expect(await body(await a.call(method, path, all, method === 'PUT' ? messageFile({ key: 'managed', description: 'x' }) : undefined)), path).toEqual([409, { error: 'configuration_managed' }]);
    }
    expect((await body(await a.call('GET', `${base}/managed`, readOnly)))[1]).toMatchObject({ configurationManaged: true, status: 'DRAFT' });
  });
});

describe('in-app messages over the administration API: lifecycle', () => {
  it('DRAFT → ACTIVE → edit (devices unchanged) → publish → PAUSED → publish → ARCHIVED, with ETags and If-Match', async () => {
    const [s1, created] = await body(await a.call('POST', base, all, messageFile({ targetApps: ['shop-ios'] })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({ key: 'spring-sale', status: 'DRAFT', version: 1, publishedVersion: null, draftPending: true, published: null, definition: { targetApps: [iosId] } });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const r1 = await a.call('GET', `${base}/spring-sale`, readOnly);
    expect(r1.headers.get('etag')).toBe('"1"');

    const [s2, live] = await body(await withIfMatch('POST', `${base}/spring-sale/publish`, '"1"'));
    expect([s2, live.status, live.publishedVersion, live.draftPending, live.changed]).toEqual([200, 'ACTIVE', 1, false, true]);
    expect(live.published).toEqual(created.definition);
    expect(live.publishedAt).not.toBeNull();
    const [, again] = await body(await a.call('POST', `${base}/spring-sale/publish`, all));
    expect([again.status, again.changed]).toEqual(['ACTIVE', false]);

    const edit = messageFile({ targetApps: ['shop-ios'], description: 'Spring sale, v2' });
    const e1 = await withIfMatch('PUT', `${base}/spring-sale`, '"1"', edit);
    expect(e1.headers.get('etag')).toBe('"2"');
    const [, edited] = await body(e1);
    expect(edited).toMatchObject({ status: 'ACTIVE', version: 2, publishedVersion: 1, draftPending: true, changed: true, description: 'Spring sale, v2' });
    expect(edited.published.description).toBe('Spring sale');
    expect(await body(await withIfMatch('PUT', `${base}/spring-sale`, '"1"', messageFile({ description: 'v3' })))).toEqual([409, { error: 'message_version_conflict' }]);
    const { key: _key, ...keyless } = edit;
    const [, same] = await body(await withIfMatch('PUT', `${base}/spring-sale`, '*', keyless));
    expect([same.version, same.changed]).toEqual([2, false]);

    const [, republished] = await body(await withIfMatch('POST', `${base}/spring-sale/publish`, '"2"'));
    expect(republished).toMatchObject({ status: 'ACTIVE', version: 2, publishedVersion: 2, draftPending: false, changed: true, published: { description: 'Spring sale, v2' } });
    const [, paused] = await body(await a.call('POST', `${base}/spring-sale/pause`, all));
    expect([paused.status, paused.changed]).toEqual(['PAUSED', true]);
    expect((await body(await a.call('POST', `${base}/spring-sale/pause`, all)))[1]).toMatchObject({ status: 'PAUSED', changed: false });
    const [, resumed] = await body(await a.call('POST', `${base}/spring-sale/publish`, all));
    expect(resumed).toMatchObject({ status: 'ACTIVE', publishedVersion: 2, changed: true, publishedAt: republished.publishedAt });
    const [, archived] = await body(await withIfMatch('POST', `${base}/spring-sale/archive`, '"2"'));
    expect([archived.status, archived.changed]).toEqual(['ARCHIVED', true]);
    expect((await body(await a.call('POST', `${base}/spring-sale/archive`, all)))[1]).toMatchObject({ status: 'ARCHIVED', changed: false });

    const [, page] = await body(await a.call('GET', `${base}?size=2`, readOnly));
    expect(page).toMatchObject({ page: 0, size: 2, hasMore: true });
    expect(page.items.map((m: { key: string }) => m.key)).toEqual(['dup', 'managed']);
    expect(page.items[0].definition).toBeUndefined();
    const [, archivedOnly] = await body(await a.call('GET', `${base}?status=ARCHIVED`, readOnly));
    expect(archivedOnly.items.map((m: { key: string }) => m.key)).toEqual(['dup', 'spring-sale']);
    const [, drafts] = await body(await a.call('GET', `${base}?status=DRAFT`, readOnly));
    expect(drafts.items.map((m: { key: string }) => m.key)).toEqual(['managed', 'table']);
  });

  it('records each change in the audit trail with the operator, and no event for a change that changed nothing', async () => {
    const [, audit] = await body(await a.call('GET', `/environments/shop/audit-events?size=200`, readOnly));
    const mine = audit.items.filter((e: { targetId: string; targetType: string }) => e.targetType === 'in_app_message' && e.targetId === 'spring-sale');
    expect(mine.map((e: { action: string }) => e.action).reverse()).toEqual([
      'in_app_message.created', 'in_app_message.published', 'in_app_message.updated', 'in_app_message.published',
      'in_app_message.paused', 'in_app_message.published', 'in_app_message.archived',
    ]);
    for (const e of mine) expect(e).toMatchObject({ environmentId: shopId, actorSubject: a.operator.subject });
  });
});

describe('in-app messages over the administration API: isolation and results', () => {
  it("accepts docs/in-app.md's examples as they are written", async () => {
    await h.services.engage.environments.createApp({ environment: 'shop', platform: 'ANDROID', name: 'shop-android' }, ACTOR);
    for (const name of ['message-file', 'variants']) {
      const [status, m] = await body(await a.call('POST', '/environments/other/in-app-messages', all, { ...docsExample('in-app.md', name), targetApps: undefined }));
      expect([status, m.status], name).toEqual([201, 'DRAFT']);
    }
    const [status, m] = await body(await a.call('POST', base, all, { ...docsExample('in-app.md', 'message-file'), key: 'docs-example' }));
    expect([status, m.definition.targetApps.length]).toEqual([201, 2]);
  });

  it("keeps environments apart: another environment's message is 404 from this one, for every route", async () => {
    expect((await a.call('POST', '/environments/other/in-app-messages', all, messageFile({ key: 'theirs' }))).status).toBe(201);
    const theirs = `${base}/theirs`;
    const calls: [string, string, unknown?][] = [
      ['GET', theirs], ['PUT', theirs, messageFile({ key: 'theirs' })], ['POST', `${theirs}/publish`], ['POST', `${theirs}/pause`],
      ['POST', `${theirs}/archive`], ['GET', `${theirs}/results`],
    ];
    for (const [method, path, payload] of calls) expect(await body(await a.call(method, path, all, payload)), `${method} ${path}`).toEqual([404, { error: 'message_not_found' }]);
    const [, list] = await body(await a.call('GET', base, readOnly));
    expect(list.items.map((m: { key: string }) => m.key)).not.toContain('theirs');
    expect((await body(await a.call('GET', '/environments/other/in-app-messages/theirs', readOnly)))[1]).toMatchObject({ key: 'theirs', status: 'DRAFT' });
  });

  it('answers the counts per variant and type with the daily series, over the days asked for', async () => {
    const [, m] = await body(await a.call('POST', base, all, variantFile()));
    await a.call('POST', `${base}/sale-test/publish`, all);
    const day = (back: number) => new Date(h.clock.now().getTime() - back * 86_400_000).toISOString().slice(0, 10);
    const rows: [string, string, string, number][] = [
      ['a', 'IMPRESSION', day(0), 10], ['a', 'CLICK', day(0), 3], ['a', 'IMPRESSION', day(2), 5], ['a', 'IMPRESSION', day(40), 100],
      ['b', 'DISMISS', day(1), 2], ['old', 'IMPRESSION', day(3), 1],
    ];
    for (const [variant, type, d, n] of rows) {
      await h.sql.run('INSERT INTO in_app_interactions (environment_id, message_id, variant_id, type, day, count) VALUES (?, ?, ?, ?, ?, ?)', [shopId, m.id, variant, type, d, n]);
    }
    // Another message's counts never mix in.
    await h.sql.run('INSERT INTO in_app_interactions (environment_id, message_id, variant_id, type, day, count) VALUES (?, ?, ?, ?, ?, ?)', [shopId, '00000000-0000-4000-8000-000000000000', 'a', 'IMPRESSION', day(0), 999]);
    const zero = { IMPRESSION: 0, CLICK: 0, DISMISS: 0, CONVERSION: 0 };
    const [s, results] = await body(await a.call('GET', `${base}/sale-test/results`, readOnly));
    expect(s).toBe(200);
    expect(results).toEqual({
      environmentId: shopId, key: 'sale-test', id: m.id, fromDay: day(29),
      variants: [
        { variantId: 'a', totals: { ...zero, IMPRESSION: 15, CLICK: 3 }, daily: [{ day: day(2), counts: { ...zero, IMPRESSION: 5 } }, { day: day(0), counts: { ...zero, IMPRESSION: 10, CLICK: 3 } }] },
        { variantId: 'b', totals: { ...zero, DISMISS: 2 }, daily: [{ day: day(1), counts: { ...zero, DISMISS: 2 } }] },
        { variantId: 'old', totals: { ...zero, IMPRESSION: 1 }, daily: [{ day: day(3), counts: { ...zero, IMPRESSION: 1 } }] },
      ],
    });
    const [, today] = await body(await a.call('GET', `${base}/sale-test/results?days=1`, readOnly));
    expect(today.fromDay).toBe(day(0));
    expect(today.variants.map((v: { totals: object }) => v.totals)).toEqual([{ ...zero, IMPRESSION: 10, CLICK: 3 }, zero]);
    const [, year] = await body(await a.call('GET', `${base}/sale-test/results?days=366`, readOnly));
    expect(year.variants[0].totals.IMPRESSION).toBe(115);
    const [, plain] = await body(await a.call('GET', `${base}/table/results`, readOnly));
    expect(plain.variants).toEqual([{ variantId: null, totals: zero, daily: [] }]);
  });
});
