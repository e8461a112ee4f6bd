import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { bearer, json } from '../../../test/fixtures/engage';
import { createPushWorld, device, type PushWorld } from '../../../test/fixtures/messaging';
import { TEST_ENGINE } from '../../../test/helpers/harness';
import { lockWaits } from '../../../test/helpers/lock-waits';

/**
 * A profile erasure racing an automation's writes for the profile leaves no run or step row
 * naming it (docs/decisions.md "Sends and erasures: one lock order"), on PostgreSQL with two real
 * connections (SQLite has one writer):
 * - an entry (a run inserted) while the erasure is under way: the entry keeps the profile from
 *   erasure (FOR KEY SHARE) before inserting, so it waits and finds the profile gone; without it,
 *   the run inserted after the erasure deleted the profile's runs survived;
 * - a step's transaction (its step row, then its run moved on, as the engine writes them) in
 *   flight when the erasure starts: the erasure deletes the runs before the steps, so it waits for
 *   the step's commit and then erases its row; with the steps deleted first, the row survived.
 * The erasure is held by a third connection on the row it deletes last (the test group member
 * naming the external id), or the step by a promise.
 */
describe.skipIf(TEST_ENGINE !== 'postgres')('a profile erasure racing an automation (PostgreSQL, two connections)', () => {
  let w: PushWorld;
  let apiKey: string;
  beforeAll(async () => {
    w = await createPushWorld();
    const a = w.h.services.engage.automations;
    const created = await a.create({ environment: w.envId, file: { key: 'race', name: 'Race', entries: { api: true }, start: 'welcome', steps: { welcome: { type: 'exit' } } } }, ACTOR);
    await a.publish(w.envId, 'race', ACTOR);
    apiKey = created.automationApiKey ?? '';
  }, 60_000);
  afterAll(() => w?.close());

  const settledOrWaiting = (p: Promise<unknown>, n: number) => lockWaits(w.h.sql).settledOrWaiting(p, n);

  async function person() {
    const externalId = `race-${crypto.randomUUID()}`;
    await device(w, { externalId });
    const profileId = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, externalId))!;
    return { externalId, profileId };
  }
  const trigger = (profileId: string) => Promise.resolve(w.h.request(`/api/v1/environments/${w.envId}/automations/${apiKey}/trigger`, json({ profileId }, bearer(w.accessKey))));
  const rowsNaming = async (profileId: string) => ({
    runs: await w.h.sql.all('SELECT id FROM automation_runs WHERE profile_id = ?', [profileId]),
    steps: await w.h.sql.all('SELECT run_id FROM automation_steps WHERE profile_id = ?', [profileId]),
  });

  it('an entry during the erasure waits for it and finds the profile gone: no run names the profile', { timeout: 60_000 }, async () => {
    const p = await person();
    // A test group member naming the external id: the last row the erasure deletes, held by a third connection.
    const group = crypto.randomUUID();
    await w.h.sql.run(`INSERT INTO test_groups (id, environment_id, name, configuration_managed, created_at, updated_at) VALUES (?, ?, ?, 0, '2026-01-01', '2026-01-01')`, [group, w.envId, `race-${group}`]);
    await w.h.sql.run('INSERT INTO test_group_members (group_id, environment_id, position, installation_id, external_id) VALUES (?, ?, 0, NULL, ?)', [group, w.envId, p.externalId]);
    const third = new pg.Client({ connectionString: w.h.config.databaseUrl });
    await third.connect();
    await third.query('BEGIN');
    await third.query('SELECT 1 FROM test_group_members WHERE external_id = $1 FOR UPDATE', [p.externalId]);
    const erased = w.h.services.engage.privacy.eraseProfile(w.envId, { externalId: p.externalId }, ACTOR);
    // The erasure has deleted the profile's runs (and the profile row) and waits for the member row.
    expect(await settledOrWaiting(erased, 1)).toBe('waiting');
    const entered = trigger(p.profileId);
    await settledOrWaiting(entered, 2);
    await third.query('ROLLBACK');
    await third.end();
    await erased;
    const res = await entered;
    expect(await rowsNaming(p.profileId)).toEqual({ runs: [], steps: [] });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([404, 'profile_not_found']);
  });

  it('a step committed during the erasure is erased with its run: no step row names the profile', { timeout: 60_000 }, async () => {
    const p = await person();
    expect((await trigger(p.profileId)).status).toBeLessThan(300);
    const run = (await w.h.sql.get<{ id: string; dueMs: string }>('SELECT id, due_ms AS "dueMs" FROM automation_runs WHERE profile_id = ?', [p.profileId]))!;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const ready = new Promise<void>((r) => (started = r));
    const at = w.h.clock.now().toISOString();
    // The engine's write of an exit step (engine.ts): the step's row, then the run ended, conditional on its lease.
    const step = w.h.services.store.tx(async (tx) => {
      await tx.automations.putStep({ runId: run.id, seq: 0, environmentId: w.envId, profileId: p.profileId, stepId: 'welcome', kind: 'exit', status: 'SUCCEEDED', attempts: 1, startedAt: at, finishedAt: at, error: null, output: null });
      expect(await tx.automations.advance(run.id, Number(run.dueMs), { status: 'EXITED', stepId: null, stepSeq: 1, dueMs: null, waitingEvent: null, context: '{}', error: null, endedAt: at, endedMs: 0 })).toBe(true);
      started();
      await gate;
    });
    await ready;
    const erased = w.h.services.engage.privacy.eraseProfile(w.envId, { externalId: p.externalId }, ACTOR);
    // The erasure waits for the step's run row.
    expect(await settledOrWaiting(erased, 1)).toBe('waiting');
    release();
    await step;
    await erased;
    expect(await rowsNaming(p.profileId)).toEqual({ runs: [], steps: [] });
  });
});
