import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createPushWorld, device, send, sendBody, templateFile, VARS, type PushWorld } from '../../../test/fixtures/messaging';
import { randomUUID } from 'node:crypto';
import { bearer, setupEnvironment, bootstrap } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/**
 * Templates, previews, test groups and test sends on the engagement administration API (issue 24
 * point 4): each route's status table, the state afterwards, isolation between environments, and
 * a test send delivered to the loopback APNs and FCM fakes outside the template's rate limit.
 */
let w: PushWorld;
let a: EngageAdminFixture;
let other: Awaited<ReturnType<typeof setupEnvironment>>;
let otherInstallation: string;
const { read, manage, send: sendScope } = ENGAGE_ADMIN_API.scopes;
let all: string;
let readOnly: string;
let manageOnly: string;
let sendOnly: string;

beforeAll(async () => {
  w = await createPushWorld();
  a = await createEngageAdminFixture(w.h);
  other = await setupEnvironment(w.h, 'other');
  otherInstallation = (await bootstrap(w.h, other.app.appKey)).installationId;
  all = await a.token();
  readOnly = await a.token([read]);
  manageOnly = await a.token([manage]);
  sendOnly = await a.token([sendScope]);
}, 60_000);
afterAll(() => w.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
const body = async (res: Response): Promise<[number, any]> => [res.status, await res.json()];
const tpl = (over: Record<string, unknown> = {}) => templateFile({ key: 'promo.spring', ...over });
const audit = (action: string) =>
  w.h.sql.all<{ environmentId: string; targetId: string; details: string }>(
    `SELECT environment_id AS "environmentId", target_id AS "targetId", details FROM audit_events WHERE action = ? ORDER BY created_at, id`, [action]);
/** What `engage apply` would mark, written "by another process": the services see it from the next turn (sqlite-store's shared reads). */
const managed = async (sql: string) => {
  await w.h.sql.run(sql);
  await new Promise((r) => setImmediate(r));
};
const count = async (table: string) => Number((await w.h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n);

describe('templates over the administration API', () => {
  it('status table: 401, 403 per scope and narrowed permission, 400, 404, 409', async () => {
    const path = `/environments/shop/templates`;
    expect(await body(await a.call('GET', path, undefined))).toEqual([401, { error: 'invalid_token' }]);
    expect(await body(await a.call('GET', path, sendOnly))).toEqual([403, { error: 'insufficient_scope' }]);
    expect(await body(await a.call('POST', path, readOnly, tpl()))).toEqual([403, { error: 'insufficient_scope' }]);
    const otherOnly = await a.newOperator('other-manager@example.com', [`${manage}:other`, `${read}:other`]);
    const otherToken = await a.token([read, manage], otherOnly.id);
    expect(await body(await a.call('GET', path, otherToken))).toEqual([403, { error: 'access_denied' }]);
    expect(await body(await a.call('POST', path, otherToken, tpl()))).toEqual([403, { error: 'access_denied' }]);
    expect((await a.call('GET', '/environments/other/templates', otherToken)).status).toBe(200);
    const bad = await a.call('POST', path, manageOnly, tpl({ priority: 'urgent' }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('priority') });
    expect((await body(await a.call('POST', path, manageOnly, tpl({ apps: ['nope'] }))))[1]).toMatchObject({ error: 'invalid_request' });
    expect(await body(await a.call('GET', `${path}/nothing.here`, readOnly))).toEqual([404, { error: 'template_not_found' }]);
    expect((await a.call('GET', `${path}/Not A Key`, readOnly)).status).toBe(400);
    expect((await a.call('POST', path, manageOnly, tpl())).status).toBe(201);
    expect(await body(await a.call('POST', path, manageOnly, tpl()))).toEqual([409, { error: 'template_exists' }]);
    expect(await body(await a.call('POST', `${path}/promo.spring/publish`, readOnly))).toEqual([403, { error: 'insufficient_scope' }]);
  });

  it('create, update, publish, versions, archive: the state afterwards and one audit event each naming the environment', async () => {
    const path = `/environments/${w.envId}/templates`;
    const [s1, created] = await body(await a.call('POST', path, all, tpl({ key: 'welcome' })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({ key: 'welcome', status: 'DRAFT', publishedVersion: null, latestVersion: 1, configurationManaged: false, environmentId: w.envId });
    expect((await body(await a.call('POST', `${path}/welcome/publish`, all)))[1]).toMatchObject({ status: 'ACTIVE', publishedVersion: 1 });
    expect(await body(await a.call('POST', `${path}/welcome/publish`, all))).toEqual([409, { error: 'no_draft' }]);
    // An update is a new draft; the published version keeps serving; the key may be left out.
    const { key: _k, ...withoutKey } = tpl({ priority: 'normal' });
    expect((await body(await a.call('PUT', `${path}/welcome`, all, withoutKey)))[1]).toMatchObject({ status: 'ACTIVE', publishedVersion: 1, latestVersion: 2 });
    expect((await body(await a.call('PUT', `${path}/welcome`, all, tpl({ key: 'renamed' }))))).toEqual([400, { error: 'invalid_request', error_description: 'key: is immutable (template welcome)' }]);
    const [, shown] = await body(await a.call('GET', `${path}/welcome`, readOnly));
    expect(shown).toMatchObject({ key: 'welcome', versions: [{ version: 1, state: 'PUBLISHED' }, { version: 2, state: 'DRAFT' }], draft: { priority: 'normal' }, published: { priority: 'high' }, sends: 0, testSends: 0, deliveries: {} });
    expect((await body(await a.call('GET', `${path}/welcome/versions`, readOnly)))[1]).toMatchObject({ items: [{ version: 1, state: 'PUBLISHED' }, { version: 2, state: 'DRAFT' }] });
    expect((await body(await a.call('GET', `${path}/welcome/versions/draft`, readOnly)))[1]).toMatchObject({ version: 2, state: 'DRAFT', definition: { key: 'welcome', priority: 'normal' } });
    expect((await body(await a.call('GET', `${path}/welcome/versions/1`, readOnly)))[1]).toMatchObject({ version: 1, state: 'PUBLISHED' });
    expect(await body(await a.call('GET', `${path}/welcome/versions/9`, readOnly))).toEqual([404, { error: 'version_not_found' }]);
    expect((await a.call('GET', `${path}/welcome/versions/zero`, readOnly)).status).toBe(400);
    const [, page] = await body(await a.call('GET', `${path}?size=1`, readOnly));
    expect(page).toMatchObject({ items: [{ key: 'order.shipped' }], page: 0, size: 1, hasMore: true });
    expect((await body(await a.call('POST', `${path}/welcome/archive`, all)))[1]).toMatchObject({ status: 'ARCHIVED' });
    expect(await body(await a.call('PUT', `${path}/welcome`, all, tpl({ key: 'welcome' })))).toEqual([409, { error: 'template_archived' }]);
    const id = created.id as string;
    for (const action of ['template.created', 'template.published', 'template.updated', 'template.archived']) {
      const events = (await audit(action)).filter((e) => e.targetId === id);
      expect(events.length, action).toBeGreaterThan(0);
      for (const e of events) expect(e.environmentId).toBe(w.envId);
    }
  });

  it('a configuration-managed template refuses update, publish and archive (409 configuration_managed); apply passes allowManaged', async () => {
    const path = `/environments/shop/templates`;
    await a.call('POST', path, all, tpl({ key: 'managed.one' }));
    await managed("UPDATE push_templates SET configuration_managed = 1 WHERE key = 'managed.one'");
    expect((await body(await a.call('GET', `${path}/managed.one`, readOnly)))[1]).toMatchObject({ configurationManaged: true });
    expect(await body(await a.call('PUT', `${path}/managed.one`, all, tpl({ key: 'managed.one' })))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await body(await a.call('POST', `${path}/managed.one/publish`, all))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await body(await a.call('POST', `${path}/managed.one/archive`, all))).toEqual([409, { error: 'configuration_managed' }]);
    const t = w.h.services.engage.messaging.templates;
    expect(await t.publish(w.envId, 'managed.one', ACTOR, { allowManaged: true })).toMatchObject({ status: 'ACTIVE' });
  });

  it("another environment's template is not found, even by an operator of both", async () => {
    expect(await body(await a.call('GET', '/environments/other/templates/order.shipped', all))).toEqual([404, { error: 'template_not_found' }]);
    expect(await body(await a.call('POST', '/environments/other/templates/order.shipped/publish', all))).toEqual([404, { error: 'template_not_found' }]);
    expect((await body(await a.call('GET', '/environments/other/templates', all)))[1]).toMatchObject({ items: [] });
  });
});

describe('preview', () => {
  const path = `/environments/shop/templates/order.shipped/preview`;
  it('renders the published version for a locale, per app with its provider payload, and writes nothing', async () => {
    const before = [await count('push_sends'), await count('push_deliveries'), await count('audit_events')];
    const [status, p] = await body(await a.call('POST', path, readOnly, { version: 'published', locale: 'de-AT', variables: VARS }));
    expect(status).toBe(200);
    expect(p).toMatchObject({ templateKey: 'order.shipped', version: 1, state: 'PUBLISHED', resolvedLocale: 'de', title: 'Bestellung A-17 versandt' });
    expect(p.body).toContain('1.234,5');
    expect(p.targets.map((t: { platform: string; provider: string }) => [t.platform, t.provider]).sort()).toEqual([['ANDROID', 'FCM'], ['IOS', 'APNS']]);
    const ios = p.targets.find((t: { provider: string }) => t.provider === 'APNS');
    expect(ios.payload).toMatchObject({ aps: { alert: { title: 'Bestellung A-17 versandt' } }, deepLink: 'shop://orders/A-17' });
    expect(ios.payloadBytes).toBe(Buffer.byteLength(JSON.stringify(ios.payload)));
    const fcm = p.targets.find((t: { provider: string }) => t.provider === 'FCM');
    expect(fcm.payload).toMatchObject({ message: { notification: { title: 'Bestellung A-17 versandt' }, android: { priority: 'HIGH', collapse_key: 'order' } } });
    expect([await count('push_sends'), await count('push_deliveries'), await count('audit_events')]).toEqual(before);
  });

  it('renders a draft beside the published version, and answers the 400s of a send', async () => {
    await a.call('PUT', '/environments/shop/templates/order.shipped', all, templateFile({ localizations: { en: { title: 'Draft {{orderId}}', body: 'b {{amount}} {{shippedOn}}' } } }));
    expect((await body(await a.call('POST', path, readOnly, { version: 'draft', variables: VARS })))[1]).toMatchObject({ version: 2, state: 'DRAFT', title: 'Draft A-17' });
    expect((await body(await a.call('POST', path, readOnly, { version: 1, variables: VARS })))[1]).toMatchObject({ version: 1, title: 'Order A-17 shipped' });
    const missing = await a.call('POST', path, readOnly, { version: 'published', variables: { orderId: 'x' } });
    expect(await body(missing)).toEqual([400, { error: 'invalid_variables' }]);
    expect(await body(await a.call('POST', path, readOnly, { variables: { ...VARS, amount: 'ten' } }))).toEqual([400, { error: 'invalid_variables' }]);
    expect(await body(await a.call('POST', path, readOnly, { variables: { ...VARS, extra: 1 } }))).toEqual([400, { error: 'invalid_variables' }]);
    expect((await a.call('POST', path, readOnly, { version: 'soon' })).status).toBe(400);
    expect((await a.call('POST', path, readOnly, { unknown: 1 })).status).toBe(400);
    expect(await body(await a.call('POST', path, readOnly, { version: 7, variables: VARS }))).toEqual([404, { error: 'version_not_found' }]);
    expect(await body(await a.call('POST', '/environments/shop/templates/none/preview', readOnly, {}))).toEqual([404, { error: 'template_not_found' }]);
    expect(await body(await a.call('POST', path, sendOnly, {}))).toEqual([403, { error: 'insufficient_scope' }]);
    // Back to one published version for the tests below.
    await a.call('POST', '/environments/shop/templates/order.shipped/publish', all);
  });

  it('renders an unsaved file as an edit would be checked, storing nothing (the console\'s live preview, issue 25)', async () => {
    const before = [await count('push_template_versions'), await count('audit_events')];
    const file = templateFile({ localizations: { en: { title: 'Unsaved {{orderId}}', body: 'b {{amount}}' }, de: { title: 'Ungespeichert {{orderId}}', body: 'b {{amount}}' } } });
    const [status, p] = await body(await a.call('POST', path, readOnly, { file, locale: 'de', variables: VARS }));
    expect([status, p]).toMatchObject([200, { templateKey: 'order.shipped', version: null, state: 'UNSAVED', resolvedLocale: 'de', title: 'Ungespeichert A-17', body: 'b 1.234,5' }]);
    expect(p.targets.map((t: { provider: string }) => t.provider).sort()).toEqual(['APNS', 'FCM']);
    const { key: _key, ...keyless } = file;
    expect((await body(await a.call('POST', path, readOnly, { file: keyless, variables: VARS })))[1]).toMatchObject({ state: 'UNSAVED', title: 'Unsaved A-17' });
    expect([await count('push_template_versions'), await count('audit_events')]).toEqual(before);
    const refused = async (b: unknown) => {
      const [s, e] = await body(await a.call('POST', path, readOnly, b));
      return [s, e.error, e.error_description];
    };
    expect(await refused({ file: { ...file, key: 'other.key' } })).toEqual([400, 'invalid_request', expect.stringContaining('immutable')]);
    expect(await refused({ file, version: 'draft' })).toEqual([400, 'invalid_request', 'give version or file, not both']);
    expect(await refused({ file: templateFile({ localizations: { en: { title: '{{nope}}', body: 'b' } } }) })).toEqual([400, 'invalid_request', expect.stringContaining('{{nope}} is not a declared variable')]);
    expect(await refused({ file: { ...file, apps: ['no-such-app'] } })).toEqual([400, 'invalid_request', expect.stringContaining('no app no-such-app')]);
    expect((await refused({ file: { ...file, priority: 'urgent' } }))[0]).toBe(400);
    expect((await refused({ file, variables: { orderId: 'x' } })).slice(0, 2)).toEqual([400, 'invalid_variables']);
  });
});

describe('test groups', () => {
  const path = '/environments/shop/test-groups';
  it('CRUD with the state afterwards; bounds, foreign installations, duplicate names, managed groups', async () => {
    expect(await body(await a.call('GET', path, undefined))).toEqual([401, { error: 'invalid_token' }]);
    expect(await body(await a.call('GET', path, sendOnly))).toEqual([403, { error: 'insufficient_scope' }]);
    const otherReader = await a.newOperator('other-reader@example.com', [`${read}:other`]);
    expect(await body(await a.call('GET', path, await a.token([read], otherReader.id)))).toEqual([403, { error: 'access_denied' }]);
    const d1 = await device(w);
    const [s1, g] = await body(await a.call('POST', path, manageOnly, { name: 'team', members: [{ installationId: d1.installationId }, { externalId: 'qa-1' }] }));
    expect(s1).toBe(201);
    expect(g).toMatchObject({ name: 'team', memberCount: 2, configurationManaged: false, members: [{ installationId: d1.installationId }, { externalId: 'qa-1' }] });
    expect(await body(await a.call('POST', path, manageOnly, { name: 'team', members: [] }))).toEqual([409, { error: 'test_group_exists' }]);
    const foreign = await a.call('POST', path, manageOnly, { name: 'x', members: [{ installationId: otherInstallation }] });
    expect(await body(foreign)).toEqual([400, { error: 'invalid_request', error_description: `members[0].installationId: no installation ${otherInstallation} in this environment` }]);
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ externalId: `u${i}` }));
    expect((await a.call('POST', path, manageOnly, { name: 'x', members: tooMany })).status).toBe(400);
    expect((await body(await a.call('POST', path, manageOnly, { name: 'x', members: [{ installationId: d1.installationId, externalId: 'a' }] })))[1]).toMatchObject({ error: 'invalid_request' });
    expect((await a.call('POST', path, manageOnly, { name: 'x', members: [{ externalId: 'a' }, { externalId: 'a' }] })).status).toBe(400);
    expect((await a.call('POST', path, readOnly, { name: 'x', members: [] })).status).toBe(403);
    expect(await body(await a.call('GET', `${path}/team`, readOnly))).toEqual([200, g]);
    expect((await body(await a.call('GET', `${path}/${g.id}`, readOnly)))[1]).toMatchObject({ name: 'team' });
    expect((await body(await a.call('GET', path, readOnly)))[1]).toMatchObject({ items: [{ name: 'team', memberCount: 2 }], hasMore: false });
    const [s2, renamed] = await body(await a.call('PATCH', `${path}/team`, manageOnly, { name: 'qa', members: [{ externalId: 'qa-2' }] }));
    expect(s2).toBe(200);
    expect(renamed).toMatchObject({ id: g.id, name: 'qa', memberCount: 1, members: [{ externalId: 'qa-2' }] });
    await a.call('POST', path, manageOnly, { name: 'second', members: [] });
    expect(await body(await a.call('PATCH', `${path}/qa`, manageOnly, { name: 'second' }))).toEqual([409, { error: 'test_group_exists' }]);
    expect((await a.call('PATCH', `${path}/qa`, manageOnly, {})).status).toBe(400);
    // Another environment's group is unknown here, by id or name.
    expect(await body(await a.call('GET', `/environments/other/test-groups/${g.id}`, all))).toEqual([404, { error: 'test_group_not_found' }]);
    expect(await body(await a.call('DELETE', `/environments/other/test-groups/${g.id}`, all))).toEqual([404, { error: 'test_group_not_found' }]);
    await managed("UPDATE test_groups SET configuration_managed = 1 WHERE name = 'second'");
    expect(await body(await a.call('PATCH', `${path}/second`, manageOnly, { members: [] }))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await body(await a.call('DELETE', `${path}/second`, manageOnly))).toEqual([409, { error: 'configuration_managed' }]);
    await w.h.services.engage.messaging.testGroups.delete(w.envId, 'second', ACTOR, { allowManaged: true });
    const del = await a.call('DELETE', `${path}/qa`, manageOnly);
    expect(del.status).toBe(204);
    expect(await body(await a.call('GET', `${path}/qa`, readOnly))).toEqual([404, { error: 'test_group_not_found' }]);
    expect(await count('test_group_members')).toBe(0);
    for (const action of ['test_group.created', 'test_group.updated', 'test_group.deleted']) {
      const events = await audit(action);
      expect(events.length, action).toBeGreaterThan(0);
      for (const e of events) expect(e.environmentId).toBe(w.envId);
    }
  });

  it('erasing an installation deletes its memberships', async () => {
    const d = await device(w);
    const [, g] = await body(await a.call('POST', path, all, { name: 'erasable', members: [{ installationId: d.installationId }, { externalId: 'keep' }] }));
    // The installation's own privacy revocation (spec 01): the same erasure as an operator's.
    const res = await w.h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(d.revocationCredential) });
    expect(res.status).toBeLessThan(300);
    expect((await body(await a.call('GET', `${path}/${g.id}`, readOnly)))[1]).toMatchObject({ memberCount: 1, members: [{ externalId: 'keep' }] });
  });
});

describe('test sends', () => {
  const path = '/environments/shop/test-sends';
  it('reach the provider fakes, are marked as tests, stay outside the rate limit and the counts', async () => {
    const t = w.h.services.engage.messaging.templates;
    await t.create({ environment: w.envId, file: templateFile({ key: 'limited', rateLimitPerMinute: 1, dedupWindowSeconds: 3600 }) }, ACTOR);
    const ios = await device(w, { externalId: 'tester-1' });
    const android = await device(w, { platform: 'ANDROID' });
    await a.call('POST', '/environments/shop/test-groups', all, { name: 'devices', members: [{ externalId: 'tester-1' }, { installationId: android.installationId }, { externalId: 'nobody' }] });
    // The draft (never published) can be tested; twice in the same minute, despite a limit of 1 and the dedup window.
    for (let i = 0; i < 2; i++) {
      const [status, r] = await body(await a.call('POST', path, sendOnly, { template: 'limited', testGroup: 'devices', variables: VARS }));
      expect(status).toBe(202);
      expect(r).toMatchObject({ isTest: true, accepted: true, unresolvedMembers: 1, renderedTitle: 'Order A-17 shipped' });
      expect(r.diagnostics.map((d: { code: string }) => d.code)).toEqual(['TARGETED', 'TARGETED']);
    }
    await w.h.services.engage.messaging.deliveries.run();
    expect(w.apns.requests.filter((r) => r.token === ios.token)).toHaveLength(2);
    expect(w.fcm.sends.filter((s) => s.token === android.token)).toHaveLength(2);
    const rows = await w.h.sql.all<{ isTest: number; accessKeyId: string; recipientType: string }>(
      `SELECT is_test AS "isTest", access_key_id AS "accessKeyId", recipient_type AS "recipientType" FROM push_sends s JOIN push_templates t ON t.id = s.template_id WHERE t.key = 'limited'`);
    expect(rows).toEqual([1, 2].map(() => ({ isTest: 1, accessKeyId: `operator:${a.operator.subject}`, recipientType: 'TEST_GROUP' })));
    // Published, the template's one send a minute is still there for a real send, then the limit holds.
    // (A device outside the group: a test delivery counts for the template's duplicate window, docs/decisions.md.)
    await t.publish(w.envId, 'limited', ACTOR);
    const outsider = await device(w);
    expect((await send(w, sendBody({ type: 'INSTALLATION_ID', value: outsider.installationId }), { template: 'limited' })).status).toBe(202);
    expect((await send(w, sendBody({ type: 'INSTALLATION_ID', value: outsider.installationId }), { template: 'limited' })).status).toBe(429);
    // Tests are outside the template's counts.
    expect(await t.show(w.envId, 'limited')).toMatchObject({ sends: 1, testSends: 2 });
    expect((await t.show(w.envId, 'limited')).deliveries).toEqual({ PENDING: 1 });
    const events = (await audit('template.test_sent')).filter((e) => JSON.parse(e.details).key === 'limited');
    expect(events).toHaveLength(2);
    expect(events[0].environmentId).toBe(w.envId);
  }, 30_000);

  it('status table: scope, 400, 404, 409, idempotency; the server API still refuses TEST_GROUP', async () => {
    await a.call('POST', '/environments/shop/test-groups', all, { name: 'empty', members: [] });
    const ok = { template: 'order.shipped', testGroup: 'empty', variables: VARS };
    expect(await body(await a.call('POST', path, undefined, ok))).toEqual([401, { error: 'invalid_token' }]);
    expect(await body(await a.call('POST', path, manageOnly, ok))).toEqual([403, { error: 'insufficient_scope' }]);
    const noSend = await a.newOperator('no-send@example.com', [read, manage]);
    expect(await body(await a.call('POST', path, await a.token([sendScope], noSend.id), ok))).toEqual([403, { error: 'access_denied' }]);
    expect((await a.call('POST', path, sendOnly, { ...ok, testGroup: undefined })).status).toBe(400);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, variables: {} }))).toEqual([400, { error: 'invalid_variables' }]);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, template: 'none' }))).toEqual([404, { error: 'template_not_found' }]);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, testGroup: 'none' }))).toEqual([404, { error: 'test_group_not_found' }]);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, version: 'draft' }))).toEqual([404, { error: 'version_not_found' }]);
    expect(await body(await a.call('POST', '/environments/other/test-sends', sendOnly, ok))).toEqual([404, { error: 'template_not_found' }]);
    // A send permission narrowed to shop: shop only; other answers 403 as an unknown environment would.
    const shopSender = await a.newOperator('shop-sender@example.com', [`${sendScope}:shop`]);
    const narrowed = await a.token([sendScope], shopSender.id);
    expect((await a.call('POST', path, narrowed, ok)).status).toBe(202);
    expect(await body(await a.call('POST', '/environments/other/test-sends', narrowed, ok))).toEqual([403, { error: 'access_denied' }]);
    expect(await body(await a.call('POST', '/environments/nowhere/test-sends', narrowed, ok))).toEqual([403, { error: 'access_denied' }]);
    expect(await body(await a.call('POST', '/environments/nowhere/test-sends', sendOnly, ok))).toEqual([404, { error: 'unknown_environment' }]);
    // Idempotent with a key; the same key for another request is refused.
    const first = await body(await a.call('POST', path, sendOnly, { ...ok, idempotencyKey: 'test-1' }));
    expect(first[0]).toBe(202);
    expect(first[1]).toMatchObject({ accepted: false, diagnostics: [], isTest: true });
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, idempotencyKey: 'test-1' }))).toEqual(first);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, locale: 'de', idempotencyKey: 'test-1' }))).toEqual([409, { error: 'idempotency_key_reused' }]);
    // A test send's key is its own: the backend's real send with the same key is admitted (an outside review).
    const outsider = await device(w);
    const real = await send(w, { ...sendBody({ type: 'INSTALLATION_ID', value: outsider.installationId }), idempotencyKey: 'test-1' });
    expect(real.status).toBe(202);
    expect((await send(w, { ...sendBody({ type: 'INSTALLATION_ID', value: outsider.installationId }), idempotencyKey: 'test-1' })).status).toBe(202);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, idempotencyKey: 'test-1' }))).toEqual(first);
    await a.call('POST', '/environments/shop/templates', all, tpl({ key: 'gone' }));
    await a.call('POST', '/environments/shop/templates/gone/archive', all);
    expect(await body(await a.call('POST', path, sendOnly, { ...ok, template: 'gone' }))).toEqual([409, { error: 'template_archived' }]);
    // A disabled environment sends nothing, tests included (an outside review); enabled again, it does.
    const shop = (await w.h.services.engage.environments.find('shop'))!;
    await w.h.services.engage.environments.update(shop.id, { status: 'DISABLED' }, ACTOR);
    expect(await body(await a.call('POST', path, sendOnly, ok))).toEqual([409, { error: 'environment_disabled' }]);
    await w.h.services.engage.environments.update(shop.id, { status: 'ACTIVE' }, ACTOR);
    expect((await a.call('POST', path, sendOnly, ok)).status).toBe(202);
    const server = await send(w, sendBody({ type: 'TEST_GROUP', value: 'empty' }));
    expect(server.status).toBe(400);
    expect(await server.json()).toMatchObject({ code: 'recipient_type_not_allowed' });
  });
});
