import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { messageFile } from '../../../test/fixtures/in-app-messages';
import { applyAll, applyFileProblemAll, type ApplyFile } from '../../apply';

/**
 * `engage apply` with `inAppMessages` and `inAppMinIntervalSeconds` (issue 27): the file is what
 * runs (created and published; a changed file is a new version, published), unchanged files write
 * nothing, `status: PAUSED`, configuration-managed, a dry run lists the changes and writes nothing,
 * errors named by their place before anything is written.
 */
describe('engage apply: in-app messages', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const files: Record<string, string> = {};
  const run = (file: ApplyFile, dryRun = false) =>
    applyAll(h.services, file, { dryRun, env: {}, readFile: (p) => files[p] ?? (() => { throw Object.assign(new Error('no'), { code: 'ENOENT' }); })(), actor: ACTOR, clock: h.clock });
  const config = (inAppMessages: unknown[], extra: Record<string, unknown> = {}): ApplyFile =>
    ({ version: 1, environments: [{ name: 'applied', apps: [{ name: 'shop-ios', platform: 'IOS' }], inAppMessages, ...extra }] }) as ApplyFile;
  const steps = (r: Awaited<ReturnType<typeof run>>, kind = 'in_app_message') =>
    r.steps.filter((s) => 'kind' in s && s.kind === kind).map((s) => [s.action, (s as { key: string }).key, (s as { changes: string[] }).changes]);
  const show = (key: string) => h.services.engage.inApp.show('applied', key);
  const events = async (key: string) =>
    (await h.services.admin.auditEvents({ actorSubject: ACTOR.subject, page: 0, size: 200 })).items.filter((x) => x.targetType === 'in_app_message' && x.targetId === key).map((x) => x.action).reverse();

  it('plans, then creates and publishes the declared messages (apps by name, in a new environment); an unchanged file writes nothing', async () => {
    files['in-app/sale.json'] = JSON.stringify(messageFile({ targetApps: ['shop-ios'] }));
    const declared = config([{ key: 'spring-sale', file: 'in-app/sale.json' }, { key: 'inline', definition: { ...messageFile(), key: undefined } }], { inAppMinIntervalSeconds: 45 });
    const plan = await run(declared, true);
    expect(steps(plan)).toEqual([['create', 'spring-sale', []], ['create', 'inline', []]]);
    expect(await h.services.engage.environments.find('applied')).toBeUndefined();
    expect(steps(await run(declared))).toEqual([['create', 'spring-sale', []], ['create', 'inline', []]]);
    const ios = (await h.services.engage.environments.listApps('applied'))[0];
    expect(await show('spring-sale')).toMatchObject({ status: 'ACTIVE', version: 1, publishedVersion: 1, configurationManaged: true, published: { targetApps: [ios.id] } });
    expect((await show('inline')).status).toBe('ACTIVE');
    expect((await h.services.engage.syncSettings.show('applied')).inAppMinIntervalSeconds).toBe(45);
    const again = await run(declared);
    expect(again.changed).toBe(false);
    expect(steps(again)).toEqual([['unchanged', 'spring-sale', []], ['unchanged', 'inline', []]]);
    expect(await events('spring-sale')).toEqual(['in_app_message.created', 'in_app_message.published', 'in_app_message.configuration_managed']);
  });

  it('a changed file is a new version, published; the interval changes alone; the API and the CLI may not change a declared message', async () => {
    files['in-app/sale.json'] = JSON.stringify(messageFile({ targetApps: ['shop-ios'], description: 'v2' }));
    const declared = config([{ key: 'spring-sale', file: 'in-app/sale.json' }], { inAppMinIntervalSeconds: 0 });
    const plan = await run(declared, true);
    expect(steps(plan)).toEqual([['update', 'spring-sale', ['definition', 'publish']]]);
    expect(steps(plan, 'environment')).toEqual([['update', 'applied', ['inAppMinIntervalSeconds']]]);
    expect((await show('spring-sale')).version).toBe(1);
    expect(steps(await run(declared))).toEqual([['update', 'spring-sale', ['definition', 'publish']]]);
    expect(await show('spring-sale')).toMatchObject({ version: 2, publishedVersion: 2, draftPending: false, published: { description: 'v2' } });
    expect((await h.services.engage.syncSettings.show('applied')).inAppMinIntervalSeconds).toBe(0);
    await expect(h.services.engage.inApp.pause('applied', 'spring-sale', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.engage.inApp.update({ environment: 'applied', key: 'spring-sale', file: messageFile() }, ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
  });

  it('status PAUSED pauses a running message and keeps the file as its latest edit; ACTIVE again publishes it', async () => {
    files['in-app/sale.json'] = JSON.stringify(messageFile({ targetApps: ['shop-ios'], description: 'v3' }));
    const paused = config([{ key: 'spring-sale', file: 'in-app/sale.json', status: 'PAUSED' }, { key: 'later', definition: messageFile({ key: 'later' }), status: 'PAUSED' }]);
    expect(steps(await run(paused))).toEqual([['update', 'spring-sale', ['definition', 'pause']], ['create', 'later', []]]);
    expect(await show('spring-sale')).toMatchObject({ status: 'PAUSED', version: 3, publishedVersion: 2, draftPending: true });
    // A new message declared PAUSED never reaches a device: it stays a draft.
    expect(await show('later')).toMatchObject({ status: 'DRAFT', publishedVersion: null, configurationManaged: true });
    expect(steps(await run(paused))).toEqual([['unchanged', 'spring-sale', []], ['unchanged', 'later', []]]);
    const active = config([{ key: 'spring-sale', file: 'in-app/sale.json' }]);
    expect(steps(await run(active))).toEqual([['update', 'spring-sale', ['publish']]]);
    expect(await show('spring-sale')).toMatchObject({ status: 'ACTIVE', version: 3, publishedVersion: 3 });
  });

  it('adopts a message made by hand: publishes the file and marks it managed', async () => {
    await h.services.engage.inApp.create({ environment: 'applied', file: messageFile({ key: 'by-hand' }) }, ACTOR);
    const declared = config([{ key: 'by-hand', definition: messageFile({ key: 'by-hand' }) }]);
    expect(steps(await run(declared, true))).toEqual([['update', 'by-hand', ['publish', 'adopt']]]);
    expect(steps(await run(declared))).toEqual([['update', 'by-hand', ['publish', 'adopt']]]);
    expect(await show('by-hand')).toMatchObject({ status: 'ACTIVE', version: 1, publishedVersion: 1, configurationManaged: true });
  });

  it('names the place of a bad message before anything is written; an archived message cannot be declared', async () => {
    files['in-app/bad.json'] = JSON.stringify(messageFile({ defaultLocale: 'de' }));
    const bad = config([{ key: 'fresh', definition: messageFile({ key: 'fresh' }) }, { key: 'spring-sale', file: 'in-app/bad.json' }]);
    await expect(run(bad)).rejects.toThrow('environments[0].inAppMessages[1]: content: must hold the default locale de');
    await expect(show('fresh')).rejects.toMatchObject({ code: 'message_not_found' });
    await expect(run(config([{ key: 'x', file: 'in-app/none.json' }]))).rejects.toThrow('environments[0].inAppMessages[0].file: cannot read in-app/none.json');
    await expect(run(config([{ key: 'x', definition: messageFile({ key: 'y' }) }]))).rejects.toThrow("environments[0].inAppMessages[0].definition: the message's key y is not x");
    await expect(run(config([{ key: 'x', definition: messageFile({ key: 'x', targetApps: ['nope'] }) }]))).rejects.toThrow('environments[0].inAppMessages[0]: targetApps[0]: no app nope in this environment');
    // The file's own checks (engage apply runs them before reading anything).
    const problems: [ApplyFile, string][] = [
      [config([{ key: 'x', file: 'in-app/sale.json', definition: messageFile({ key: 'x' }) }]), 'environments[0].inAppMessages[0]: must have exactly one of file and definition'],
      [config([{ key: 'x', definition: messageFile({ key: 'y' }) }]), 'environments[0].inAppMessages[0].definition.key: must be x (or left out)'],
      [config([{ key: 'x', file: 'a.json' }, { key: 'x', file: 'b.json' }]), 'environments[0].inAppMessages[1].key: duplicate x'],
      [config([{ key: 'x', file: 'a.json', status: 'ARCHIVED' }]), 'environments[0].inAppMessages[0].status'],
      [config([], { inAppMinIntervalSeconds: 86_401 }), 'environments[0].inAppMinIntervalSeconds'],
    ];
    for (const [file, problem] of problems) expect(applyFileProblemAll(file), problem).toContain(problem);
    expect(applyFileProblemAll(config([{ key: 'x', file: 'a.json', status: 'PAUSED' }], { inAppMinIntervalSeconds: 0 }))).toBeNull();
    await h.services.engage.inApp.create({ environment: 'applied', file: messageFile({ key: 'gone' }) }, ACTOR);
    await h.services.engage.inApp.archive('applied', 'gone', ACTOR);
    await expect(run(config([{ key: 'gone', definition: messageFile({ key: 'gone' }) }]))).rejects.toThrow('environments[0].inAppMessages[0]: in-app message gone is archived');
  });
});
