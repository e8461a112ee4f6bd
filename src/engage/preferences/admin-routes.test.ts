import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { openAppStore } from '../../open-store';
import { silentLogger } from '../../platform/logger';
import { createListReadStore } from './read-store';
import { createPreferenceService } from './service';
import { createPreferenceStore } from './store';

/**
 * Subscription lists on the engagement administration API (issue 26 PREFERENCES): the status
 * table, the stored ListDefinition, revisions in commit order, soft deletion and revival, audit,
 * the change notice after commit, configuration-managed lists, isolation between environments.
 */
let h: Harness;
let a: EngageAdminFixture;
let all: string;
let readOnly: string;
const { read } = ENGAGE_ADMIN_API.scopes;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  await setupEnvironment(h, 'shop');
  await setupEnvironment(h, 'other');
  all = await a.token();
  readOnly = await a.token([read]);
}, 60_000);
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
const body = async (res: Response): Promise<[number, any]> => [res.status, res.status === 204 ? null : await res.json()];
const file = (over: Record<string, unknown> = {}) => ({ key: 'order-updates', displayName: 'Order updates', channels: ['PUSH', 'EMAIL'], ...over });
const envId = async (name: string) => (await h.services.engage.environments.resolve(name)).id;
const revisionOf = async (name: string) => Number((await h.sql.get<{ r: number }>('SELECT revision AS r FROM sync_environments WHERE environment_id = ?', [await envId(name)]))?.r ?? 0);

describe('subscription lists over the administration API', () => {
  it('status table: 401, 403, 400 naming the field, 404, 409', async () => {
    const path = '/environments/shop/lists';
    expect((await a.call('GET', path, undefined)).status).toBe(401);
    expect(await body(await a.call('POST', path, readOnly, file()))).toEqual([403, { error: 'insufficient_scope' }]);
    const cases: [Record<string, unknown>, string][] = [
      [file({ key: 'Bad Key' }), 'key'],
      [file({ displayName: '' }), 'displayName'],
      [file({ displayName: 'x'.repeat(101) }), 'displayName'],
      [file({ description: 'x'.repeat(501) }), 'description'],
      [file({ channels: [] }), 'channels'],
      [file({ channels: ['PUSH', 'PUSH'] }), 'channels'],
      [file({ channels: ['FAX'] }), 'channels'],
      [file({ extra: 1 }), 'extra'],
      [file({ critical: true, defaultSubscribed: false }), 'defaultSubscribed'],
    ];
    for (const [f, field] of cases) {
      const [status, b] = await body(await a.call('POST', path, all, f));
      expect([status, b.error], JSON.stringify(f)).toEqual([400, 'invalid_request']);
      expect(b.error_description).toContain(field);
    }
    expect(await body(await a.call('GET', `${path}/nothing`, readOnly))).toEqual([404, { error: 'list_not_found' }]);
    expect((await a.call('POST', path, all, file({ key: 'dup' }))).status).toBe(201);
    expect(await body(await a.call('POST', path, all, file({ key: 'dup' })))).toEqual([409, { error: 'list_exists' }]);
    expect((await body(await a.call('PUT', `${path}/dup`, all, file({ key: 'other' }))))[1]).toMatchObject({ error: 'invalid_request' });
    expect(await body(await a.call('DELETE', `${path}/nothing`, all))).toEqual([404, { error: 'list_not_found' }]);
  });

  it('create, update, delete: the stored definition, a new revision each, audit, tombstone and revival', async () => {
    const path = '/environments/shop/lists';
    const before = await revisionOf('shop');
    const [s1, created] = await body(await a.call('POST', path, all, file({ description: 'Shipping news' })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({
      key: 'order-updates', displayName: 'Order updates', description: 'Shipping news', channels: ['PUSH', 'EMAIL'],
      defaultSubscribed: true, critical: false, environmentId: await envId('shop'), revision: before + 1, configurationManaged: false,
    });
    const reads = createListReadStore(h.sql);
    const stored = (await reads.lists(await envId('shop'))).find((l) => l.key === 'order-updates')!;
    expect(JSON.parse(stored.definition)).toEqual({ key: 'order-updates', displayName: 'Order updates', description: 'Shipping news', channels: ['PUSH', 'EMAIL'], defaultSubscribed: true, critical: false });
    expect(stored.revision).toBe(before + 1);

    const [s2, updated] = await body(await a.call('PUT', `${path}/order-updates`, all, { displayName: 'Orders', channels: ['PUSH'], critical: true }));
    expect(s2).toBe(200);
    expect(updated).toMatchObject({ key: 'order-updates', displayName: 'Orders', channels: ['PUSH'], critical: true, defaultSubscribed: true, revision: before + 2 });
    expect(updated.description).toBeUndefined();
    expect((await body(await a.call('GET', `${path}/order-updates`, readOnly)))[1]).toEqual(updated);

    const [s3] = await body(await a.call('DELETE', `${path}/order-updates`, all));
    expect(s3).toBe(204);
    expect(await body(await a.call('GET', `${path}/order-updates`, readOnly))).toEqual([404, { error: 'list_not_found' }]);
    const tomb = (await reads.lists(await envId('shop'))).find((l) => l.key === 'order-updates')!;
    expect({ deleted: tomb.deleted, revision: tomb.revision }).toEqual({ deleted: true, revision: before + 3 });
    expect((await body(await a.call('GET', path, readOnly)))[1].items.map((l: { key: string }) => l.key)).not.toContain('order-updates');

    // Re-creating a deleted key revives the row as a new list, under a new revision.
    const [s4, revived] = await body(await a.call('POST', path, all, file({ defaultSubscribed: false })));
    expect(s4).toBe(201);
    expect(revived).toMatchObject({ key: 'order-updates', defaultSubscribed: false, critical: false, revision: before + 4 });
    expect(revived.description).toBeUndefined();

    const events = await h.sql.all<{ action: string; targetId: string; details: string }>(
      `SELECT action, target_id AS "targetId", details FROM audit_events WHERE action LIKE 'list.%' AND target_id = 'order-updates' ORDER BY created_at, id`);
    expect(events.map((e) => e.action)).toEqual(['list.created', 'list.updated', 'list.deleted', 'list.created']);
    expect(JSON.parse(events[0].details)).toMatchObject({ environmentId: await envId('shop'), key: 'order-updates' });
  });

  it('ETag and If-Match: the revision read, an edit or deletion refused with 409 list_version_conflict once the list moved on', async () => {
    const path = '/environments/shop/lists';
    const ifMatch = (method: string, url: string, tag: string, payload?: unknown) =>
      h.request(`${a.root}${url}`, {
        method,
        headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json', 'if-match': tag },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
    const createdRes = await a.call('POST', path, all, file({ key: 'etagged' }));
    const created = (await createdRes.json()) as { revision: number };
    expect(createdRes.headers.get('etag')).toBe(`"${created.revision}"`);
    expect((await a.call('GET', `${path}/etagged`, readOnly)).headers.get('etag')).toBe(`"${created.revision}"`);
    const first = `"${created.revision}"`;
    const okRes = await ifMatch('PUT', `${path}/etagged`, first, file({ key: 'etagged', displayName: 'Second' }));
    const [s1, edited] = await body(okRes);
    expect([s1, edited.displayName]).toEqual([200, 'Second']);
    expect(okRes.headers.get('etag')).toBe(`"${edited.revision}"`);
    // A second editor that read the first revision: refused, nothing written.
    expect(await body(await ifMatch('PUT', `${path}/etagged`, first, file({ key: 'etagged', displayName: 'Stale' })))).toEqual([409, { error: 'list_version_conflict' }]);
    expect(await body(await ifMatch('DELETE', `${path}/etagged`, first))).toEqual([409, { error: 'list_version_conflict' }]);
    expect((await body(await a.call('GET', `${path}/etagged`, readOnly)))[1]).toMatchObject({ displayName: 'Second', revision: edited.revision });
    // Malformed: 400 naming the header; `*` is unconditional.
    for (const bad of ['W/"1"', '7', '"0"', '"x"', '']) expect((await body(await ifMatch('PUT', `${path}/etagged`, bad, file({ key: 'etagged' }))))[1], bad).toMatchObject({ error: 'invalid_request' });
    const [s2, any] = await body(await ifMatch('PUT', `${path}/etagged`, '*', file({ key: 'etagged', displayName: 'Third' })));
    expect([s2, any.displayName]).toEqual([200, 'Third']);
    expect(await body(await ifMatch('DELETE', `${path}/etagged`, `"${any.revision}"`))).toEqual([204, null]);
    // The store's conditional write holds inside a transaction too (a change between the read and the write).
    const stores = createPreferenceStore(h.sql);
    await h.services.engage.lists.create({ environment: 'shop', file: file({ key: 'raced' }) }, ACTOR);
    const row = (await stores.findList(await envId('shop'), 'raced'))!;
    expect(await stores.updateList(await envId('shop'), 'raced', row.revision + 100, row.definition, row.updatedAt, row.revision - 1)).toBe(false);
    expect(await stores.deleteList(await envId('shop'), 'raced', row.revision + 100, row.updatedAt, row.revision - 1)).toBe(false);
    expect(await stores.updateList(await envId('shop'), 'raced', row.revision + 100, row.definition, row.updatedAt, row.revision)).toBe(true);
  });

  it('pages by key', async () => {
    for (const k of ['p-a', 'p-b', 'p-c']) await h.services.engage.lists.create({ environment: 'other', file: file({ key: k }) }, ACTOR);
    const [, p0] = await body(await a.call('GET', '/environments/other/lists?size=2', readOnly));
    expect(p0).toMatchObject({ page: 0, size: 2, hasMore: true });
    expect(p0.items.map((l: { key: string }) => l.key)).toEqual(['p-a', 'p-b']);
    const [, p1] = await body(await a.call('GET', '/environments/other/lists?size=2&page=1', readOnly));
    expect(p1.items.map((l: { key: string }) => l.key)).toEqual(['p-c']);
    expect(p1.hasMore).toBe(false);
  });

  it('another environment’s list is 404 from this one, and a change there moves only its revision', async () => {
    await h.services.engage.lists.create({ environment: 'other', file: file({ key: 'theirs' }) }, ACTOR);
    const shopRevision = await revisionOf('shop');
    expect(await body(await a.call('GET', '/environments/shop/lists/theirs', readOnly))).toEqual([404, { error: 'list_not_found' }]);
    expect(await body(await a.call('PUT', '/environments/shop/lists/theirs', all, file({ key: 'theirs' })))).toEqual([404, { error: 'list_not_found' }]);
    expect(await body(await a.call('DELETE', '/environments/shop/lists/theirs', all))).toEqual([404, { error: 'list_not_found' }]);
    // The same key may exist in both.
    expect((await a.call('POST', '/environments/shop/lists', all, file({ key: 'theirs' }))).status).toBe(201);
    const tombstone = await h.services.engage.lists.delete('other', 'theirs', ACTOR);
    expect(tombstone).toMatchObject({ key: 'theirs', environmentId: await envId('other'), revision: (await revisionOf('other')) });
    expect(await revisionOf('shop')).toBe(shopRevision + 1);
    expect((await a.call('GET', '/environments/shop/lists/theirs', readOnly)).status).toBe(200);
  });

  it('a configuration-managed list is refused to the API (409) and changed with allowManaged', async () => {
    await h.services.engage.lists.create({ environment: 'shop', file: file({ key: 'managed' }) }, ACTOR);
    await h.sql.run(`UPDATE subscription_lists SET configuration_managed = 1 WHERE key = 'managed'`);
    await new Promise((r) => setImmediate(r));
    expect(await body(await a.call('PUT', '/environments/shop/lists/managed', all, file({ key: 'managed' })))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await body(await a.call('DELETE', '/environments/shop/lists/managed', all))).toEqual([409, { error: 'configuration_managed' }]);
    expect((await h.services.engage.lists.update({ environment: 'shop', key: 'managed', file: file({ key: 'managed', displayName: 'M' }) }, ACTOR, { allowManaged: true })).displayName).toBe('M');
  });

  it('says definitionsChanged after the commit, never for a refused write', async () => {
    const opened = await openAppStore(h.config, { logger: silentLogger, poolSize: 2 });
    try {
      const said: string[] = [];
      const lists = createPreferenceService({
        store: opened.store, clock: h.clock, environments: h.services.engage.environments,
        notices: { definitionsChanged: (e) => said.push(e), installationChanged: () => undefined, profileChanged: () => undefined },
      });
      await lists.create({ environment: 'shop', file: file({ key: 'noticed' }) }, ACTOR);
      await expect(lists.create({ environment: 'shop', file: file({ key: 'noticed' }) }, ACTOR)).rejects.toMatchObject({ code: 'list_exists' });
      await lists.delete('shop', 'noticed', ACTOR);
      expect(said).toEqual([await envId('shop'), await envId('shop')]);
    } finally {
      await opened.store.close();
    }
  });
});
