import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { applyAll, type ApplyFile } from '../../apply';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/** An environment's sync settings (issue 26 point 4): the administration API, audit, engage apply, isolation. */
let h: Harness;
let a: EngageAdminFixture;
beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  await setupEnvironment(h, 'shop');
  await setupEnvironment(h, 'other');
}, 60_000);
afterAll(() => h.close());

describe('sync settings', () => {
  it('reads 900 by default; PUT changes it (audited once), refuses what spec 01 does not allow, 403 without manage; another environment keeps its own', async () => {
    const all = await a.token();
    const readOnly = await a.token([ENGAGE_ADMIN_API.scopes.read]);
    const path = '/environments/shop/sync-settings';
    const get = async (p = path) => (await a.call('GET', p, all)).json();
    expect(await get()).toMatchObject({ refreshAfterSeconds: 900 });
    expect((await a.call('PUT', path, readOnly, { refreshAfterSeconds: 600 })).status).toBe(403);
    for (const bad of [{ refreshAfterSeconds: 29 }, { refreshAfterSeconds: 86_401 }, { refreshAfterSeconds: '600' }, {}, { refreshAfterSeconds: 600, extra: 1 }]) {
      const res = await a.call('PUT', path, all, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
    const put = await a.call('PUT', path, all, { refreshAfterSeconds: 600 });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ refreshAfterSeconds: 600 });
    expect((await a.call('PUT', path, all, { refreshAfterSeconds: 600 })).status).toBe(200);
    expect(await get()).toMatchObject({ refreshAfterSeconds: 600 });
    expect(await get('/environments/other/sync-settings')).toMatchObject({ refreshAfterSeconds: 900 });
    const events = (await h.sql.all<{ details: string }>("SELECT details FROM audit_events WHERE action = 'environment.sync_settings.updated'")).map((r) => JSON.parse(r.details));
    expect(events).toEqual([expect.objectContaining({ refreshAfterSeconds: 600, previous: expect.objectContaining({ refreshAfterSeconds: 900 }) })]);
    expect((await a.call('GET', '/environments/nowhere/sync-settings', all)).status).toBe(404);
  });

  it('the in-app minimum interval: 30 by default, 0 to 86,400; a change moves the definitions revision (devices get it in the IN_APP settings document), the refresh interval stays', async () => {
    const all = await a.token();
    const path = '/environments/other/sync-settings';
    expect(await (await a.call('GET', path, all)).json()).toMatchObject({ refreshAfterSeconds: 900, inAppMinIntervalSeconds: 30 });
    for (const bad of [{ inAppMinIntervalSeconds: -1 }, { inAppMinIntervalSeconds: 86_401 }, { inAppMinIntervalSeconds: 1.5 }]) {
      expect((await a.call('PUT', path, all, bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const env = await h.services.engage.environments.resolve('other');
    const revision = async () => Number((await h.sql.get<{ r: number }>('SELECT revision AS r FROM sync_environments WHERE environment_id = ?', [env.id]))?.r ?? 0);
    const before = await revision();
    const put = await a.call('PUT', path, all, { inAppMinIntervalSeconds: 0 });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ refreshAfterSeconds: 900, inAppMinIntervalSeconds: 0 });
    expect(await revision()).toBe(before + 1);
    expect((await a.call('PUT', path, all, { inAppMinIntervalSeconds: 0 })).status).toBe(200);
    expect(await revision()).toBe(before + 1);
  });

  it('engage apply declares it: planned, set, then unchanged; the API then refuses to edit a managed environment’s', async () => {
    const file = (seconds: number) => ({ version: 1, environments: [{ name: 'declared', syncRefreshAfterSeconds: seconds }] }) as unknown as ApplyFile;
    const run = (f: ApplyFile, dryRun = false) => applyAll(h.services, f, { dryRun, env: {}, readFile: () => '', actor: ACTOR });
    await run(file(300));
    expect((await h.services.engage.syncSettings.show('declared')).refreshAfterSeconds).toBe(300);
    expect((await run(file(300))).changed).toBe(false);
    const plan = await run(file(120), true);
    expect(plan.steps.filter((s) => s.kind === 'environment')).toEqual([expect.objectContaining({ action: 'update', changes: ['syncRefreshAfterSeconds'] })]);
    expect((await h.services.engage.syncSettings.show('declared')).refreshAfterSeconds).toBe(300);
    await run(file(120));
    expect((await h.services.engage.syncSettings.show('declared')).refreshAfterSeconds).toBe(120);
    await expect(h.services.engage.syncSettings.update('declared', { refreshAfterSeconds: 60 }, ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
  });
});
