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
    expect(events).toEqual([expect.objectContaining({ refreshAfterSeconds: 600, previous: 900 })]);
    expect((await a.call('GET', '/environments/nowhere/sync-settings', all)).status).toBe(404);
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
