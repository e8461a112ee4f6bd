import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { flagFile } from '../../../test/fixtures/flags';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/**
 * Feature flags on the engagement administration API (issue 26): the status table, If-Match,
 * versions and rollback, scheduled changes, exposures, isolation between environments.
 */
let h: Harness;
let a: EngageAdminFixture;
let all: string;
let readOnly: string;
let iosId: string;
const { read } = ENGAGE_ADMIN_API.scopes;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  iosId = (await setupEnvironment(h, 'shop')).app.id;
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
const base = '/environments/shop/flags';

describe('feature flags over the administration API', () => {
  it('status table: 401, 403, 400 naming the field, 404, 409', async () => {
    expect((await a.call('GET', base, undefined)).status).toBe(401);
    expect(await body(await a.call('POST', base, readOnly, flagFile()))).toEqual([403, { error: 'insufficient_scope' }]);
    const cases: [Record<string, unknown>, string][] = [
      [flagFile({ key: 'Bad Key' }), 'key'],
      [flagFile({ kind: 'DATE' }), 'kind'],
      [flagFile({ defaultVariant: 'nope' }), 'defaultVariant'],
      [flagFile({ targetApps: ['other-ios'] }), 'targetApps[0]: no app other-ios in this environment'],
      [flagFile({ extra: 1 }), 'extra'],
      [flagFile({ rules: [{ variant: 'on', rollout: { variants: [{ variant: 'on', weight: 10000 }] } }] }), 'rules[0]: must have exactly one of variant, rollout, experiment'],
    ];
    for (const [f, field] of cases) {
      const [status, b] = await body(await a.call('POST', base, all, f));
      expect([status, b.error], JSON.stringify(f)).toEqual([400, 'invalid_request']);
      expect(b.error_description).toContain(field);
    }
    expect(await body(await a.call('GET', `${base}/nothing`, readOnly))).toEqual([404, { error: 'flag_not_found' }]);
    expect(await body(await a.call('GET', '/environments/nowhere/flags', readOnly))).toEqual([404, { error: 'unknown_environment' }]);
    expect((await a.call('POST', base, all, flagFile({ key: 'dup' }))).status).toBe(201);
    expect(await body(await a.call('POST', base, all, flagFile({ key: 'dup' })))).toEqual([409, { error: 'flag_exists' }]);
    expect((await body(await a.call('PUT', `${base}/dup`, all, flagFile({ key: 'other' }))))[1]).toMatchObject({ error: 'invalid_request' });
    expect((await body(await withIfMatch('PUT', `${base}/dup`, 'seven', flagFile({ key: 'dup' }))))[1]).toMatchObject({ error: 'invalid_request' });
    expect(await body(await a.call('POST', `${base}/dup/rollback`, all, { version: 9 }))).toEqual([404, { error: 'version_not_found' }]);
    expect(await body(await a.call('GET', `${base}/dup/versions/0`, readOnly))).toMatchObject([400, { error: 'invalid_request' }]);
  });

  it('create, read with its ETag, edit under If-Match, archive, restore, roll back, versions', async () => {
    const [s1, created] = await body(await a.call('POST', base, all, flagFile({ targetApps: ['shop-ios'] })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({ key: 'new-checkout', kind: 'BOOLEAN', status: 'ACTIVE', version: 1, definition: { targetApps: [iosId], status: 'ACTIVE' } });
    const read1 = await a.call('GET', `${base}/new-checkout`, readOnly);
    expect(read1.headers.get('etag')).toBe('"1"');
    const edit = flagFile({ description: 'v2' });
    const [s2, updated] = await body(await withIfMatch('PUT', `${base}/new-checkout`, '"1"', edit));
    expect([s2, updated.version, updated.changed]).toEqual([200, 2, true]);
    expect(await body(await withIfMatch('PUT', `${base}/new-checkout`, '"1"', flagFile({ description: 'v3' })))).toEqual([409, { error: 'flag_version_conflict' }]);
    const [, same] = await body(await withIfMatch('PUT', `${base}/new-checkout`, '*', edit));
    expect([same.version, same.changed]).toEqual([2, false]);
    expect((await body(await a.call('POST', `${base}/new-checkout/archive`, all)))[1]).toMatchObject({ status: 'ARCHIVED', version: 3, changed: true });
    expect((await body(await a.call('POST', `${base}/new-checkout/restore`, all)))[1]).toMatchObject({ status: 'ACTIVE', version: 4, description: 'v2' });
    const [s3, rolled] = await body(await withIfMatch('POST', `${base}/new-checkout/rollback`, '"4"', { version: 1 }));
    expect([s3, rolled.version, rolled.description]).toEqual([200, 5, 'The new checkout flow']);
    const [, versions] = await body(await a.call('GET', `${base}/new-checkout/versions?size=2`, readOnly));
    expect(versions).toMatchObject({ items: [{ version: 5, origin: 'ROLLBACK' }, { version: 4, origin: 'API' }], hasMore: true });
    const [, v1] = await body(await a.call('GET', `${base}/new-checkout/versions/1`, readOnly));
    expect(v1.definition).toEqual(created.definition);
    const [, page] = await body(await a.call('GET', base, readOnly));
    expect(page.items.map((f: { key: string }) => f.key)).toEqual(['dup', 'new-checkout']);
    expect(page.items[0].definition).toBeUndefined();
  });

  it('schedules, lists and cancels changes; exposures per experiment version and variant', async () => {
    const at = (s: number) => new Date(h.clock.now().getTime() + s * 1000).toISOString();
    const plan = { rollout: { rule: 0, variant: 'on', steps: [{ at: at(60), percentage: 50 }, { at: at(120), percentage: 100 }] } };
    const [s1, scheduled] = await body(await a.call('POST', `${base}/new-checkout/schedules`, all, plan));
    expect([s1, scheduled.items.length]).toEqual([201, 2]);
    expect((await body(await a.call('POST', `${base}/new-checkout/schedules`, all, { ...plan, at: at(60) })))[1]).toMatchObject({ error: 'invalid_request' });
    expect((await body(await a.call('POST', `${base}/new-checkout/schedules`, all, { at: at(-60), definition: flagFile() })))[1]).toMatchObject({ error: 'invalid_request' });
    const [, cancelled] = await body(await a.call('POST', `${base}/new-checkout/schedules/${scheduled.items[1].id}/cancel`, all));
    expect(cancelled.status).toBe('CANCELLED');
    expect(await body(await a.call('POST', `${base}/new-checkout/schedules/${scheduled.items[1].id}/cancel`, all))).toEqual([409, { error: 'schedule_not_pending' }]);
    expect(await body(await a.call('POST', `${base}/new-checkout/schedules/nope/cancel`, all))).toEqual([404, { error: 'schedule_not_found' }]);
    const [, pending] = await body(await a.call('GET', `${base}/new-checkout/schedules?status=PENDING`, readOnly));
    expect(pending.items.map((x: { id: string }) => x.id)).toEqual([scheduled.items[0].id]);
    h.clock.advance(61);
    await h.services.work.runDue();
    const [, shown] = await body(await a.call('GET', `${base}/new-checkout`, readOnly));
    expect(shown.definition.rules[0].rollout.variants).toEqual([{ variant: 'on', weight: 5000 }, { variant: 'off', weight: 5000 }]);
    expect(await body(await a.call('GET', `${base}/new-checkout/exposures`, readOnly))).toEqual([200, { environmentId: shown.environmentId, flagKey: 'new-checkout', items: [] }]);
  });

  it("keeps environments apart: another environment's flag is 404 from this one, for every route", async () => {
    expect((await a.call('POST', '/environments/other/flags', all, flagFile({ key: 'theirs' }))).status).toBe(201);
    const theirs = `${base}/theirs`;
    const calls: [string, string, unknown?][] = [
      ['GET', theirs], ['PUT', theirs, flagFile({ key: 'theirs' })], ['POST', `${theirs}/archive`], ['POST', `${theirs}/restore`],
      ['POST', `${theirs}/rollback`, { version: 1 }], ['GET', `${theirs}/versions`], ['GET', `${theirs}/versions/1`],
      ['POST', `${theirs}/schedules`, { at: new Date(h.clock.now().getTime() + 60_000).toISOString(), definition: flagFile({ key: 'theirs' }) }],
      ['GET', `${theirs}/schedules`], ['GET', `${theirs}/exposures`],
    ];
    for (const [method, path, payload] of calls) expect(await body(await a.call(method, path, all, payload)), `${method} ${path}`).toEqual([404, { error: 'flag_not_found' }]);
    expect((await body(await a.call('GET', '/environments/other/flags/theirs', readOnly)))[0]).toBe(200);
  });
});
