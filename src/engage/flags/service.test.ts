import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { flagFile } from '../../../test/fixtures/flags';
import { bootstrap, ingest, op, setupEnvironment } from '../../../test/fixtures/engage';
import { docsExample } from '../../../test/helpers/docs-examples';
import type { FlagDefinition } from './schemas';

describe('feature flags administration (create, update, archive, restore, rollback, versions)', () => {
  let h: Harness;
  let env: string;
  let iosId: string;
  let otherEnvApp: string;
  beforeAll(async () => {
    h = await createHarness();
    const e = h.services.engage.environments;
    env = (await e.create({ name: 'flags' }, ACTOR)).id;
    iosId = (await e.createApp({ environment: env, platform: 'IOS', name: 'shop-ios' }, ACTOR)).id;
    const other = (await e.create({ name: 'flags-other' }, ACTOR)).id;
    otherEnvApp = (await e.createApp({ environment: other, platform: 'IOS', name: 'other-ios' }, ACTOR)).id;
  });
  afterAll(() => h.close());
  const f = () => h.services.engage.flags;
  const revision = async () => Number((await h.sql.get<{ revision: number }>('SELECT revision FROM sync_environments WHERE environment_id = ?', [env]))?.revision ?? 0);
  const versions = (key: string) =>
    h.sql.all<{ version: number; origin: string; actor: string }>('SELECT version, origin, actor FROM flag_versions WHERE environment_id = ? AND flag_key = ? ORDER BY version', [env, key]);
  const events = async (action: string) =>
    (await h.services.admin.auditEvents({ actorSubject: ACTOR.subject, page: 0, size: 200 })).items.filter((x) => x.action === action);

  it('refuses a file that breaks a rule, naming the fields, and writes nothing', async () => {
    const before = await revision();
    const cases: [Record<string, unknown>, string][] = [
      [{ defaultVariant: 'maybe' }, 'defaultVariant: names no variant of the flag (maybe)'],
      [{ kind: 'NUMBER' }, 'variants.on: must be a finite number (the flag is NUMBER)'],
      [{ targetApps: ['nope'] }, 'targetApps[0]: no app nope in this environment'],
      // An app of another environment is unknown here.
      [{ targetApps: [otherEnvApp] }, `targetApps[0]: no app ${otherEnvApp} in this environment`],
      [{ status: 'PAUSED' }, 'status: must be one of ACTIVE, ARCHIVED'],
      [{ extra: 1 }, 'extra: is not an allowed property'],
    ];
    for (const [over, message] of cases) {
      const err = await f().create({ environment: env, file: flagFile(over) }, ACTOR).catch((e: Error & { code: string }) => e);
      expect(err).toMatchObject({ code: 'invalid_request' });
      expect((err as Error).message).toContain(message);
    }
    await expect(f().create({ environment: env, file: [] }, ACTOR)).rejects.toThrow('body: must be a JSON object');
    expect(await revision()).toBe(before);
    expect((await f().page(env, { page: 0, size: 50 })).items).toEqual([]);
  });

  it('creates version 1 (ACTIVE unless given), apps by name stored as ids, under a new definitions revision, audited with its diff', async () => {
    const before = await revision();
    const created = await f().create({ environment: 'flags', file: flagFile({ targetApps: ['shop-ios'] }) }, ACTOR, { origin: 'CLI' });
    expect(created).toMatchObject({ key: 'new-checkout', kind: 'BOOLEAN', status: 'ACTIVE', version: 1, revision: before + 1, configurationManaged: false });
    expect(created.definition.targetApps).toEqual([iosId]);
    expect(created.definition.status).toBe('ACTIVE');
    expect(await revision()).toBe(before + 1);
    expect(await versions('new-checkout')).toEqual([{ version: 1, origin: 'CLI', actor: 'os:test' }]);
    const [ev] = await events('flag.created');
    expect(ev.details).toMatchObject({ environmentId: env, key: 'new-checkout', version: 1, origin: 'CLI' });
    expect((ev.details as { changes: { field: string }[] }).changes.map((c) => c.field)).toContain('rules[1]');
    await expect(f().create({ environment: env, file: flagFile() }, ACTOR)).rejects.toMatchObject({ code: 'flag_exists' });
    expect(await revision()).toBe(before + 1);
  });

  it('updates into a new version with the diff in the audit trail; an unchanged file makes none; If-Match conflicts', async () => {
    const r0 = await revision();
    const file = flagFile({ targetApps: [iosId], description: 'Checkout v2' });
    const up = await f().update({ environment: env, key: 'new-checkout', file }, ACTOR, { expectedVersion: 1 });
    expect(up).toMatchObject({ changed: true, view: { version: 2, revision: r0 + 1, description: 'Checkout v2' } });
    const ev = (await events('flag.updated'))[0];
    expect(ev.details).toMatchObject({ version: 2, origin: 'API', changes: [{ field: 'description', change: 'changed', from: 'The new checkout flow', to: 'Checkout v2' }] });
    // The same file again: no version, no revision.
    expect(await f().update({ environment: env, key: 'new-checkout', file }, ACTOR)).toMatchObject({ changed: false, view: { version: 2 } });
    expect(await revision()).toBe(r0 + 1);
    await expect(f().update({ environment: env, key: 'new-checkout', file: { ...file, description: 'x' } }, ACTOR, { expectedVersion: 1 })).rejects.toMatchObject({
      code: 'flag_version_conflict',
      message: 'flag new-checkout is at version 2, not 1; read it again and retry',
    });
    await expect(f().update({ environment: env, key: 'new-checkout', file: { ...file, key: 'other' } }, ACTOR)).rejects.toThrow('key: is immutable');
    // The key may be left out.
    const { key: _k, ...noKey } = file;
    expect(await f().update({ environment: env, key: 'new-checkout', file: noKey }, ACTOR)).toMatchObject({ changed: false });
    await expect(f().update({ environment: env, key: 'nope', file }, ACTOR)).rejects.toMatchObject({ code: 'flag_not_found' });
    expect((await f().versions(env, 'new-checkout', { page: 0, size: 50 })).items.map((v) => v.version)).toEqual([2, 1]);
    expect((await f().version(env, 'new-checkout', 1)).definition.description).toBe('The new checkout flow');
    await expect(f().version(env, 'new-checkout', 9)).rejects.toMatchObject({ code: 'version_not_found' });
  });

  it('archives and restores as new versions; rolls back to an earlier definition as a new ROLLBACK version', async () => {
    expect((await f().archive(env, 'new-checkout', ACTOR)).view).toMatchObject({ status: 'ARCHIVED', version: 3 });
    expect((await f().archive(env, 'new-checkout', ACTOR)).changed).toBe(false);
    const restored = (await f().restore(env, 'new-checkout', ACTOR)).view;
    expect(restored).toMatchObject({ status: 'ACTIVE', version: 4, description: 'Checkout v2' });
    const rolled = (await f().rollback(env, 'new-checkout', 1, ACTOR, { origin: 'CLI' })).view;
    expect(rolled).toMatchObject({ version: 5, status: 'ACTIVE', description: 'The new checkout flow' });
    expect(rolled.definition).toEqual((await f().version(env, 'new-checkout', 1)).definition);
    expect((await versions('new-checkout')).map((v) => v.origin)).toEqual(['CLI', 'API', 'API', 'API', 'ROLLBACK']);
    expect((await events('flag.rolled_back'))[0].details).toMatchObject({ toVersion: 1, version: 5, by: 'CLI' });
    await expect(f().rollback(env, 'new-checkout', 42, ACTOR)).rejects.toMatchObject({ code: 'version_not_found' });
    // The flags row, its version rows and the counter agree.
    const row = await h.sql.get<{ version: number; revision: number; definition: string }>('SELECT version, revision, definition FROM flags WHERE environment_id = ? AND key = ?', [env, 'new-checkout']);
    const v5 = await h.sql.get<{ definition: string }>('SELECT definition FROM flag_versions WHERE environment_id = ? AND flag_key = ? AND version = 5', [env, 'new-checkout']);
    expect(Number(row!.version)).toBe(5);
    expect(Number(row!.revision)).toBe(await revision());
    expect(row!.definition).toBe(v5!.definition);
  });

  it('refuses to change a configuration-managed flag unless apply asks', async () => {
    await f().create({ environment: env, file: flagFile({ key: 'managed' }) }, ACTOR);
    expect(await f().markManaged(env, 'managed', ACTOR)).toBe(true);
    await expect(f().archive(env, 'managed', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(f().update({ environment: env, key: 'managed', file: flagFile({ key: 'managed', description: 'x' }) }, ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    expect((await f().update({ environment: env, key: 'managed', file: flagFile({ key: 'managed', description: 'x' }) }, ACTOR, { allowManaged: true, origin: 'APPLY' })).view.version).toBe(2);
  });

  it('accepts the flag file and the experiment rule of docs/flags.md', async () => {
    await h.services.engage.environments.createApp({ environment: env, platform: 'ANDROID', name: 'shop-android' }, ACTOR);
    const file = docsExample('flags.md', 'flag-file');
    const rules = [...(file.rules as unknown[]), docsExample('flags.md', 'experiment-rule')];
    const created = await f().create({ environment: env, file: { ...file, key: 'docs-example', rules } }, ACTOR);
    expect(created.definition.targetApps).toHaveLength(2);
    expect(created.definition.rules[2].experiment?.experimentId).toBe('checkout-2026-03');
  });

  it("keeps environments apart: another environment's flag is not found from this one", async () => {
    const other = (await h.services.engage.environments.create({ name: 'flags-iso' }, ACTOR)).id;
    await f().create({ environment: other, file: flagFile({ key: 'theirs' }) }, ACTOR);
    await expect(f().show(env, 'theirs')).rejects.toMatchObject({ code: 'flag_not_found' });
    await expect(f().rollback(env, 'theirs', 1, ACTOR)).rejects.toMatchObject({ code: 'flag_not_found' });
    await expect(f().exposures(env, 'theirs')).rejects.toMatchObject({ code: 'flag_not_found' });
    expect((await f().page(other, { page: 0, size: 50 })).items.map((x) => x.key)).toEqual(['theirs']);
  });
});

describe('scheduled flag changes (durable work) and exposures', () => {
  let h: Harness;
  let env: string;
  beforeAll(async () => {
    h = await createHarness();
    env = (await h.services.engage.environments.create({ name: 'sched' }, ACTOR)).id;
    await h.services.engage.flags.create({ environment: env, file: flagFile() }, ACTOR);
  });
  afterAll(() => h.close());
  const f = () => h.services.engage.flags;
  const s = () => h.services.engage.flagSchedules;
  const at = (seconds: number) => new Date(h.clock.now().getTime() + seconds * 1000).toISOString();

  it('applies a scheduled definition at its time, once, as a SCHEDULE version by whoever scheduled it', async () => {
    const [change] = await s().schedule(env, 'new-checkout', { at: at(3600), definition: flagFile({ description: 'scheduled' }) }, ACTOR);
    expect(change).toMatchObject({ status: 'PENDING', at: at(3600), appliedVersion: null });
    await h.services.work.runDue();
    expect((await f().show(env, 'new-checkout')).version).toBe(1);
    h.clock.advance(3601);
    await h.services.work.runDue();
    const shown = await f().show(env, 'new-checkout');
    expect(shown).toMatchObject({ version: 2, description: 'scheduled' });
    const listed = (await s().list(env, 'new-checkout', undefined, { page: 0, size: 50 })).items;
    expect(listed).toMatchObject([{ id: change.id, status: 'APPLIED', appliedVersion: 2 }]);
    const v = await h.sql.get<{ origin: string; actor: string }>('SELECT origin, actor FROM flag_versions WHERE environment_id = ? AND flag_key = ? AND version = 2', [env, 'new-checkout']);
    expect(v).toEqual({ origin: 'SCHEDULE', actor: 'os:test' });
    // A second run of the same item (a lost settle, another process) changes nothing.
    expect(await s().apply({ environmentId: env, scheduleId: change.id })).toBe('skipped');
    expect((await f().show(env, 'new-checkout')).version).toBe(2);
  });

  it('expands a rollout plan into one change per step, the rest shared by the other variants', async () => {
    const steps = await s().schedule(env, 'new-checkout', { rollout: { rule: 0, variant: 'on', steps: [{ at: at(60), percentage: 25 }, { at: at(120), percentage: 50.5 }, { at: at(180), percentage: 100 }] } }, ACTOR);
    expect(steps.map((x) => (x.definition as FlagDefinition).rules[0].rollout!.variants)).toEqual([
      [{ variant: 'on', weight: 2500 }, { variant: 'off', weight: 7500 }],
      [{ variant: 'on', weight: 5050 }, { variant: 'off', weight: 4950 }],
      [{ variant: 'on', weight: 10000 }, { variant: 'off', weight: 0 }],
    ]);
    // The last step cancelled: the first two apply, the third never does.
    expect(await s().cancel(env, 'new-checkout', steps[2].id, ACTOR)).toMatchObject({ status: 'CANCELLED' });
    await expect(s().cancel(env, 'new-checkout', steps[2].id, ACTOR)).rejects.toMatchObject({ code: 'schedule_not_pending' });
    h.clock.advance(200);
    await h.services.work.runDue();
    const shown = await f().show(env, 'new-checkout');
    expect(shown.definition.rules[0].rollout!.variants).toEqual([{ variant: 'on', weight: 5050 }, { variant: 'off', weight: 4950 }]);
    expect(shown.version).toBe(4);
    expect((await s().list(env, 'new-checkout', 'PENDING', { page: 0, size: 50 })).items).toEqual([]);
  });

  it('applies a change as stated even when the flag was edited after it was scheduled (docs/decisions.md)', async () => {
    const [change] = await s().schedule(env, 'new-checkout', { at: at(60), definition: flagFile({ description: 'as scheduled' }) }, ACTOR);
    const edited = (await f().update({ environment: env, key: 'new-checkout', file: flagFile({ description: 'edited meanwhile' }) }, ACTOR)).view;
    h.clock.advance(61);
    await h.services.work.runDue();
    const shown = await f().show(env, 'new-checkout');
    expect([shown.version, shown.description]).toEqual([edited.version + 1, 'as scheduled']);
    expect((await s().list(env, 'new-checkout', 'APPLIED', { page: 0, size: 50 })).items.map((x) => x.id)).toContain(change.id);
  });

  it('applies a change once when two processes run it at the same time', async () => {
    const [change] = await s().schedule(env, 'new-checkout', { at: at(60), definition: flagFile({ description: 'once' }) }, ACTOR);
    const before = (await f().show(env, 'new-checkout')).version;
    const scheduled = async () =>
      Number((await h.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM flag_versions WHERE environment_id = ? AND flag_key = 'new-checkout' AND origin = 'SCHEDULE'", [env]))!.n);
    const n = await scheduled();
    h.clock.advance(61);
    const other = await h.otherProcess();
    const run = (x: typeof s) => () => x().apply({ environmentId: env, scheduleId: change.id });
    // PostgreSQL: at once, as two serve processes would. SQLite: one after the other (both "processes" share
    // this test's event loop, and a second writer on the file waits synchronously for the first).
    const outcomes = TEST_ENGINE === 'postgres' ? await Promise.all([run(s)(), run(() => other.engage.flagSchedules)()]) : [await run(s)(), await run(() => other.engage.flagSchedules)()];
    expect(outcomes.sort()).toEqual(['applied', 'skipped']);
    expect((await f().show(env, 'new-checkout')).version).toBe(before + 1);
    expect(await scheduled()).toBe(n + 1);
  });

  it('applies rollout steps due together in their order, whichever work item runs first', async () => {
    const steps = await s().schedule(env, 'new-checkout', { rollout: { rule: 0, variant: 'on', steps: [{ at: at(60), percentage: 30 }, { at: at(120), percentage: 70 }] } }, ACTOR);
    h.clock.advance(200);
    // The later step's item first: it applies the earlier one before itself.
    expect(await s().apply({ environmentId: env, scheduleId: steps[1].id })).toBe('applied');
    expect(await s().apply({ environmentId: env, scheduleId: steps[0].id })).toBe('skipped');
    const shown = await f().show(env, 'new-checkout');
    expect(shown.definition.rules[0].rollout!.variants).toEqual([{ variant: 'on', weight: 7000 }, { variant: 'off', weight: 3000 }]);
    const applied = (await s().list(env, 'new-checkout', 'APPLIED', { page: 0, size: 50 })).items.filter((x) => steps.some((y) => y.id === x.id));
    expect(applied.map((x) => [x.id, x.appliedVersion])).toEqual([[steps[0].id, shown.version - 1], [steps[1].id, shown.version]]);
    await h.services.work.runDue();
    expect((await f().show(env, 'new-checkout')).version).toBe(shown.version);
  });

  it('refuses a change in the past, a bad step, a rule without rollout, an unknown schedule', async () => {
    await expect(s().schedule(env, 'new-checkout', { at: at(-1), definition: flagFile() }, ACTOR)).rejects.toThrow('at: must be in the future');
    await expect(s().schedule(env, 'new-checkout', { at: 'tomorrow', definition: flagFile() }, ACTOR)).rejects.toThrow('at: must be an RFC 3339 date-time');
    await expect(s().schedule(env, 'new-checkout', { at: at(60), definition: flagFile({ defaultVariant: 'x' }) }, ACTOR)).rejects.toThrow('defaultVariant: names no variant');
    await expect(s().schedule(env, 'new-checkout', { rollout: { rule: 1, variant: 'on', steps: [{ at: at(60), percentage: 10 }] } }, ACTOR)).rejects.toThrow('rule 1 serves no rollout');
    await expect(s().schedule(env, 'new-checkout', { rollout: { rule: 0, variant: 'on', steps: [{ at: at(60), percentage: 101 }] } }, ACTOR)).rejects.toThrow('percentage');
    await expect(s().schedule(env, 'new-checkout', { rollout: { rule: 0, variant: 'on', steps: [{ at: at(60), percentage: 10 }, { at: at(30), percentage: 20 }] } }, ACTOR)).rejects.toThrow('must be later than the step before');
    await expect(s().cancel(env, 'new-checkout', '00000000-0000-4000-8000-000000000000', ACTOR)).rejects.toMatchObject({ code: 'schedule_not_found' });
    expect((await s().list(env, 'new-checkout', 'PENDING', { page: 0, size: 50 })).items).toEqual([]);
  });

  it('counts FLAG_EXPOSED once per installation per experiment version; an unknown flag is accepted and counted nowhere', async () => {
    const { environment, accessKey: _k, app } = await setupEnvironment(h, 'expo');
    await f().create({ environment: environment.id, file: flagFile() }, ACTOR);
    // Version 2 serves the same experiment: its exposures are counted apart from version 1's.
    await f().update({ environment: environment.id, key: 'new-checkout', file: flagFile({ description: 'v2' }) }, ACTOR);
    const appKey = (await h.services.engage.environments.listApps(environment.id)).find((a) => a.id === app.id)!.appKey;
    const a = await bootstrap(h, appKey);
    const b = await bootstrap(h, appKey);
    const exposed = (variantKey: string, revision = 1, flagKey = 'new-checkout') => op('FLAG_EXPOSED', { flagKey, experimentId: 'checkout-exp', variantKey, revision });
    // Version 2 exists (an exposure of a version the flag never had counts nowhere: exposures.test.ts).
    await f().update({ environment: environment.id, key: 'new-checkout', file: flagFile({ description: 'version 2' }) }, ACTOR);
    const first = await ingest(h, a, [exposed('on'), exposed('on'), exposed('on', 2), exposed('on', 1, 'unknown-flag')]);
    expect(first.results.map((r) => r.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'ACCEPTED']);
    await ingest(h, a, [exposed('on')]);
    await ingest(h, b, [exposed('off')]);
    const counted = (await f().exposures(environment.id, 'new-checkout')).items;
    expect(counted, JSON.stringify(counted)).toEqual([
      { experimentId: 'checkout-exp', revision: 1, variantKey: 'off', exposures: 1 },
      { experimentId: 'checkout-exp', revision: 1, variantKey: 'on', exposures: 1 },
      { experimentId: 'checkout-exp', revision: 2, variantKey: 'on', exposures: 1 },
    ]);
    expect(Number((await h.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM flag_exposures WHERE flag_key = 'unknown-flag'"))!.n)).toBe(0);
  });
});
