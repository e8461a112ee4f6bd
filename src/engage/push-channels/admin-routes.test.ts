import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { createPushChannelReadStore } from './read-store';
import { createPushChannelStore } from './store';

/**
 * Push channels (ANDROID apps) and categories (IOS apps) on the engagement administration API
 * (issue 26 PUSH): the status table, the kind against the app's platform, the stored
 * PushChannelDefinition, revisions, soft deletion, audit, isolation between environments and apps.
 */
let h: Harness;
let a: EngageAdminFixture;
let all: string;
let readOnly: string;
let shopId: string;
let androidId: string;
const { read } = ENGAGE_ADMIN_API.scopes;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  const shop = await setupEnvironment(h, 'shop'); // app shop-ios
  shopId = shop.environment.id;
  androidId = (await h.services.engage.environments.createApp({ environment: 'shop', platform: 'ANDROID', name: 'shop-android' }, ACTOR)).id;
  await setupEnvironment(h, 'other'); // app other-ios
  all = await a.token();
  readOnly = await a.token([read]);
}, 60_000);
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
const body = async (res: Response): Promise<[number, any]> => [res.status, res.status === 204 ? null : await res.json()];
const channel = (over: Record<string, unknown> = {}) => ({ key: 'orders', kind: 'ANDROID_CHANNEL', name: 'Orders', importance: 'HIGH', ...over });
const category = (over: Record<string, unknown> = {}) => ({
  key: 'order-actions', kind: 'IOS_CATEGORY', actions: [{ id: 'track', title: 'Track', foreground: true }, { id: 'cancel', title: 'Cancel', destructive: true, authenticationRequired: true }], ...over,
});
const ANDROID = '/environments/shop/apps/shop-android/push-channels';
const IOS = '/environments/shop/apps/shop-ios/push-channels';

describe('push channels and categories over the administration API', () => {
  it('status table: 401, 403, 400 naming the field, the kind against the platform, 404, 409', async () => {
    expect((await a.call('GET', ANDROID, undefined)).status).toBe(401);
    expect(await body(await a.call('POST', ANDROID, readOnly, channel()))).toEqual([403, { error: 'insufficient_scope' }]);
    const cases: [string, unknown, string][] = [
      [ANDROID, channel({ key: 'Nope!' }), 'key'],
      [ANDROID, channel({ importance: 'URGENT' }), 'importance'],
      [ANDROID, channel({ name: '' }), 'name'],
      [ANDROID, channel({ sound: 'a b' }), 'sound'],
      [ANDROID, channel({ actions: [] }), 'actions'],
      [ANDROID, { key: 'x', name: 'X', importance: 'LOW' }, 'kind'],
      [ANDROID, [], 'must be an object'],
      [ANDROID, category(), 'kind'],
      [IOS, channel(), 'kind'],
      [IOS, category({ actions: Array.from({ length: 11 }, (_, i) => ({ id: `a${i}`, title: 'A' })) }), 'actions'],
      [IOS, category({ actions: [{ id: 'x', title: 'X' }, { id: 'x', title: 'Y' }] }), 'actions[1].id'],
      [IOS, category({ actions: [{ id: 'x', title: 'X', colour: 'red' }] }), 'colour'],
    ];
    for (const [path, f, field] of cases) {
      const [status, b] = await body(await a.call('POST', path, all, f));
      expect([status, b.error], JSON.stringify(f)).toEqual([400, 'invalid_request']);
      expect(b.error_description, JSON.stringify(f)).toContain(field);
    }
    expect(await body(await a.call('GET', '/environments/shop/apps/nope/push-channels', readOnly))).toEqual([404, { error: 'unknown_app' }]);
    expect(await body(await a.call('GET', `${ANDROID}/nothing`, readOnly))).toEqual([404, { error: 'push_channel_not_found' }]);
    expect((await a.call('POST', ANDROID, all, channel({ key: 'dup' }))).status).toBe(201);
    expect(await body(await a.call('POST', ANDROID, all, channel({ key: 'dup' })))).toEqual([409, { error: 'push_channel_exists' }]);
    expect((await body(await a.call('PUT', `${ANDROID}/dup`, all, channel({ key: 'other' }))))[1]).toMatchObject({ error: 'invalid_request' });
  });

  it('an Android channel and an iOS category: stored exactly, revised, deleted as tombstones, audited', async () => {
    const reads = createPushChannelReadStore(h.sql);
    const [s1, created] = await body(await a.call('POST', ANDROID, all, channel({ description: 'Shipping', sound: null })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({ key: 'orders', kind: 'ANDROID_CHANNEL', name: 'Orders', description: 'Shipping', importance: 'HIGH', sound: null, appId: androidId, environmentId: shopId });
    const [s2, cat] = await body(await a.call('POST', IOS, all, category()));
    expect(s2).toBe(201);
    expect(cat.revision).toBe(created.revision + 1);
    const rows = await reads.channels(shopId);
    expect(JSON.parse(rows.find((r) => r.key === 'orders')!.definition)).toEqual({ key: 'orders', kind: 'ANDROID_CHANNEL', name: 'Orders', description: 'Shipping', importance: 'HIGH', sound: null });
    expect(JSON.parse(rows.find((r) => r.key === 'order-actions')!.definition)).toEqual(category());

    // By app id as well as name; the key may be left out of an update.
    const [s3, updated] = await body(await a.call('PUT', `/environments/${shopId}/apps/${androidId}/push-channels/orders`, all, { kind: 'ANDROID_CHANNEL', name: 'Orders!', importance: 'DEFAULT', sound: 'chime' }));
    expect(s3).toBe(200);
    expect(updated).toMatchObject({ key: 'orders', name: 'Orders!', importance: 'DEFAULT', sound: 'chime', revision: cat.revision + 1 });
    expect(updated.description).toBeUndefined();
    expect((await body(await a.call('GET', `${ANDROID}/orders`, readOnly)))[1]).toEqual(updated);
    expect((await body(await a.call('GET', IOS, readOnly)))[1].items.map((c: { key: string }) => c.key)).toEqual(['order-actions']);

    expect((await a.call('DELETE', `${IOS}/order-actions`, all)).status).toBe(204);
    expect(await body(await a.call('GET', `${IOS}/order-actions`, readOnly))).toEqual([404, { error: 'push_channel_not_found' }]);
    const tomb = (await reads.channels(shopId)).find((r) => r.key === 'order-actions')!;
    expect({ deleted: tomb.deleted, revision: tomb.revision }).toEqual({ deleted: true, revision: updated.revision + 1 });
    expect((await a.call('POST', IOS, all, category({ actions: [] }))).status).toBe(201);

    const events = await h.sql.all<{ action: string }>(`SELECT action FROM audit_events WHERE action LIKE 'push_channel.%' AND target_id LIKE '%/order%' ORDER BY created_at, id`);
    expect(events.map((e) => e.action)).toEqual(['push_channel.created', 'push_channel.created', 'push_channel.updated', 'push_channel.deleted', 'push_channel.created']);
  });

  it('ETag and If-Match: the revision read, an edit or deletion refused with 409 push_channel_version_conflict once it moved on', async () => {
    const ifMatch = (method: string, url: string, tag: string, payload?: unknown) =>
      h.request(`${a.root}${url}`, {
        method,
        headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json', 'if-match': tag },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
    const createdRes = await a.call('POST', ANDROID, all, channel({ key: 'tagged' }));
    const created = (await createdRes.json()) as { revision: number };
    const first = `"${created.revision}"`;
    expect(createdRes.headers.get('etag')).toBe(first);
    expect((await a.call('GET', `${ANDROID}/tagged`, readOnly)).headers.get('etag')).toBe(first);
    const okRes = await ifMatch('PUT', `${ANDROID}/tagged`, first, channel({ key: 'tagged', name: 'Second' }));
    const [s1, edited] = await body(okRes);
    expect([s1, edited.name]).toEqual([200, 'Second']);
    expect(okRes.headers.get('etag')).toBe(`"${edited.revision}"`);
    expect(await body(await ifMatch('PUT', `${ANDROID}/tagged`, first, channel({ key: 'tagged', name: 'Stale' })))).toEqual([409, { error: 'push_channel_version_conflict' }]);
    expect(await body(await ifMatch('DELETE', `${ANDROID}/tagged`, first))).toEqual([409, { error: 'push_channel_version_conflict' }]);
    expect((await body(await a.call('GET', `${ANDROID}/tagged`, readOnly)))[1]).toMatchObject({ name: 'Second', revision: edited.revision });
    for (const bad of ['W/"1"', '12', '"-1"']) expect((await body(await ifMatch('DELETE', `${ANDROID}/tagged`, bad)))[1], bad).toMatchObject({ error: 'invalid_request' });
    expect(await body(await ifMatch('DELETE', `${ANDROID}/tagged`, `"${edited.revision}"`))).toEqual([204, null]);
    // The store's conditional write: a revision that moved on between the read and the write writes nothing.
    const stores = createPushChannelStore(h.sql);
    await h.services.engage.pushChannels.create({ environment: 'shop', app: 'shop-android', file: channel({ key: 'raced' }) }, ACTOR);
    const row = (await stores.findChannel(shopId, androidId, 'raced'))!;
    expect(await stores.updateChannel(shopId, androidId, 'raced', row.revision, row.definition, row.updatedAt, row.revision - 1)).toBe(false);
    expect(await stores.deleteChannel(shopId, androidId, 'raced', row.revision, row.updatedAt, row.revision - 1)).toBe(false);
    expect(await stores.deleteChannel(shopId, androidId, 'raced', row.revision, row.updatedAt, row.revision)).toBe(true);
  });

  it('another environment’s app and channels are 404 from this one; a channel belongs to its app', async () => {
    await h.services.engage.pushChannels.create({ environment: 'other', app: 'other-ios', file: category({ key: 'theirs' }) }, ACTOR);
    expect(await body(await a.call('GET', '/environments/shop/apps/other-ios/push-channels', readOnly))).toEqual([404, { error: 'unknown_app' }]);
    expect(await body(await a.call('GET', '/environments/shop/apps/other-ios/push-channels/theirs', readOnly))).toEqual([404, { error: 'unknown_app' }]);
    expect(await body(await a.call('GET', `${IOS}/theirs`, readOnly))).toEqual([404, { error: 'push_channel_not_found' }]);
    expect(await body(await a.call('DELETE', `${IOS}/theirs`, all))).toEqual([404, { error: 'push_channel_not_found' }]);
    expect(await body(await a.call('GET', `${ANDROID}/order-actions`, readOnly))).toEqual([404, { error: 'push_channel_not_found' }]);
    expect((await a.call('GET', '/environments/other/apps/other-ios/push-channels/theirs', readOnly)).status).toBe(200);
  });
});
