import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { applyAll, applyFileProblemAll, type ApplyFile } from '../../apply';
import { docsExample } from '../../../test/helpers/docs-examples';

/**
 * `engage apply` with `automations` (issue 28): the file is what runs (created and published; a
 * changed file is a new version at once), unchanged files write nothing, `status: PAUSED` and back,
 * configuration-managed (the API and the CLI may not change a declared automation, but may rotate
 * its key: apply does not manage keys), a dry run lists the changes and writes nothing, errors
 * named by their place (the graph's too) before anything is written.
 */
describe('engage apply: automations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const automationFile = (key: string, over: Record<string, unknown> = {}) => ({
    key,
    name: 'Welcome series',
    entries: { api: true },
    start: 'hold',
    steps: { hold: { type: 'wait', seconds: 3600, next: 'tag' }, tag: { type: 'profile-update', addTags: ['welcomed'] } },
    ...over,
  });
  const files: Record<string, string> = {};
  const run = (file: ApplyFile, dryRun = false) =>
    applyAll(h.services, file, { dryRun, env: {}, readFile: (p) => files[p] ?? (() => { throw Object.assign(new Error('no'), { code: 'ENOENT' }); })(), actor: ACTOR, clock: h.clock });
  const config = (automations: unknown[]): ApplyFile =>
    ({ version: 1, environments: [{ name: 'applied', apps: [{ name: 'shop-ios', platform: 'IOS' }], automations }] }) as ApplyFile;
  const steps = (r: Awaited<ReturnType<typeof run>>, kind = 'automation') =>
    r.steps.filter((s) => 'kind' in s && s.kind === kind).map((s) => [s.action, (s as { key: string }).key, (s as { changes: string[] }).changes]);
  const show = (key: string) => h.services.engage.automations.show('applied', key);
  const events = async (key: string) =>
    (await h.services.admin.auditEvents({ actorSubject: ACTOR.subject, page: 0, size: 200 })).items.filter((x) => x.targetType === 'automation' && x.targetId === key).map((x) => x.action).reverse();

  it('plans, then creates and publishes the declared automations (apps by name, in a new environment); an unchanged file writes nothing; no key is printed', async () => {
    files['automations/welcome.json'] = JSON.stringify(automationFile('welcome', { targetApps: ['shop-ios'] }));
    const declared = config([{ key: 'welcome', file: 'automations/welcome.json' }, { key: 'inline', definition: { ...automationFile('inline'), key: undefined } }]);
    const plan = await run(declared, true);
    expect(steps(plan)).toEqual([['create', 'welcome', []], ['create', 'inline', []]]);
    expect(await h.services.engage.environments.find('applied')).toBeUndefined();
    const done = await run(declared);
    expect(steps(done)).toEqual([['create', 'welcome', []], ['create', 'inline', []]]);
    expect(JSON.stringify(done)).not.toContain('aut_');
    const ios = (await h.services.engage.environments.listApps('applied'))[0];
    expect(await show('welcome')).toMatchObject({ status: 'ACTIVE', version: 1, publishedVersion: 1, configurationManaged: true, definition: { targetApps: [ios.id] } });
    expect((await show('inline')).status).toBe('ACTIVE');
    const again = await run(declared);
    expect(again.changed).toBe(false);
    expect(steps(again)).toEqual([['unchanged', 'welcome', []], ['unchanged', 'inline', []]]);
    expect(await events('welcome')).toEqual(['automation.created', 'automation.published', 'automation.configuration_managed']);
  });

  it('a changed file is a new version at once; the API and the CLI may not change a declared automation, but may rotate its key', async () => {
    files['automations/welcome.json'] = JSON.stringify(automationFile('welcome', { targetApps: ['shop-ios'], name: 'Welcome, v2' }));
    const declared = config([{ key: 'welcome', file: 'automations/welcome.json' }]);
    expect(steps(await run(declared, true))).toEqual([['update', 'welcome', ['definition']]]);
    expect((await show('welcome')).version).toBe(1);
    expect(steps(await run(declared))).toEqual([['update', 'welcome', ['definition']]]);
    expect(await show('welcome')).toMatchObject({ status: 'ACTIVE', version: 2, publishedVersion: 2, name: 'Welcome, v2' });
    await expect(h.services.engage.automations.pause('applied', 'welcome', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.engage.automations.update({ environment: 'applied', key: 'welcome', file: automationFile('welcome') }, ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.engage.automations.archive('applied', 'welcome', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    // The key is not the file's: rotate-key (the CLI and the API pass allowManaged) makes the one the backend keeps, and apply leaves it alone.
    const { automationApiKey } = await h.services.engage.automations.rotateKey('applied', 'welcome', ACTOR, { allowManaged: true });
    expect(automationApiKey).toMatch(/^aut_/);
    expect(steps(await run(declared))).toEqual([['unchanged', 'welcome', []]]);
  });

  it('status PAUSED pauses (a new one is published, then paused); ACTIVE again resumes it', async () => {
    const paused = config([{ key: 'welcome', file: 'automations/welcome.json', status: 'PAUSED' }, { key: 'later', definition: automationFile('later'), status: 'PAUSED' }]);
    expect(steps(await run(paused, true))).toEqual([['update', 'welcome', ['pause']], ['create', 'later', []]]);
    expect(steps(await run(paused))).toEqual([['update', 'welcome', ['pause']], ['create', 'later', []]]);
    expect(await show('welcome')).toMatchObject({ status: 'PAUSED', version: 2, publishedVersion: 2 });
    expect(await show('later')).toMatchObject({ status: 'PAUSED', publishedVersion: 1, configurationManaged: true });
    expect(steps(await run(paused))).toEqual([['unchanged', 'welcome', []], ['unchanged', 'later', []]]);
    // An edit of a paused automation is a new version; it stays paused.
    files['automations/welcome.json'] = JSON.stringify(automationFile('welcome', { targetApps: ['shop-ios'], name: 'Welcome, v3' }));
    expect(steps(await run(paused))).toEqual([['update', 'welcome', ['definition']], ['unchanged', 'later', []]]);
    expect(await show('welcome')).toMatchObject({ status: 'PAUSED', version: 3, publishedVersion: 3 });
    const active = config([{ key: 'welcome', file: 'automations/welcome.json' }]);
    expect(steps(await run(active))).toEqual([['update', 'welcome', ['resume']]]);
    expect(await show('welcome')).toMatchObject({ status: 'ACTIVE', version: 3, publishedVersion: 3 });
  });

  it("applies docs/automations.md's example as written (its template declared by hand here)", async () => {
    const example = docsExample('automations.md', 'apply') as ApplyFile;
    expect(applyFileProblemAll(example)).toBeNull();
    const [env] = example.environments!;
    files['automations/order-shipped.json'] = JSON.stringify({ key: 'order-shipped', name: 'Order shipped', entries: { api: true }, start: 'done', steps: { done: { type: 'exit' } } });
    const declared = { version: 1, environments: [{ ...env, name: 'docs', templates: undefined }] } as ApplyFile;
    expect(steps(await run(declared))).toEqual([['create', 'order-shipped', []], ['create', 'win-back', []]]);
    expect((await h.services.engage.automations.show('docs', 'win-back')).status).toBe('PAUSED');
  });

  it('adopts an automation made by hand: brings it to the file, publishes it and marks it managed', async () => {
    await h.services.engage.automations.create({ environment: 'applied', file: automationFile('by-hand', { name: 'by hand' }) }, ACTOR);
    const declared = config([{ key: 'by-hand', definition: automationFile('by-hand') }]);
    expect(steps(await run(declared, true))).toEqual([['update', 'by-hand', ['definition', 'publish', 'adopt']]]);
    expect(steps(await run(declared))).toEqual([['update', 'by-hand', ['definition', 'publish', 'adopt']]]);
    expect(await show('by-hand')).toMatchObject({ status: 'ACTIVE', version: 2, publishedVersion: 2, configurationManaged: true, name: 'Welcome series' });
  });

  it('names the place of every error before writing anything: file rules, the graph, archived, shape', async () => {
    const before = (await h.services.engage.automations.all('applied')).map((x) => [x.key, x.version]);
    const cycle = automationFile('x', { steps: { hold: { type: 'wait', seconds: 5, next: 'tag' }, tag: { type: 'profile-update', addTags: ['x'], next: 'hold' } } });
    const bad = config([{ key: 'welcome', definition: automationFile('welcome', { name: 'changed' }) }, { key: 'x', definition: cycle }]);
    await expect(run(bad)).rejects.toThrow('environments[0].automations[1]: steps.tag: makes a cycle');
    await expect(run(config([{ key: 'x', definition: automationFile('x', { entries: {} }) }]))).rejects.toThrow('environments[0].automations[0]: entries: needs an api entry, an event entry, or both');
    await expect(run(config([{ key: 'x', definition: automationFile('x', { targetApps: ['nope'] }) }]))).rejects.toThrow('environments[0].automations[0]: targetApps[0]: no app nope in this environment');
    // Templates and messages are read at publish, during the write (the plan cannot see those the same file declares):
    // the automation is then left a DRAFT, not managed, which the next apply adopts.
    await expect(run(config([{ key: 'x', definition: automationFile('x', { steps: { hold: { type: 'push', template: 'missing' } } }) }]))).rejects.toThrow('environments[0].automations[0]: steps.hold.template: no active template missing');
    expect(await show('x')).toMatchObject({ status: 'DRAFT', configurationManaged: false });
    await expect(run(config([{ key: 'x', file: 'automations/none.json' }]))).rejects.toThrow('environments[0].automations[0].file: cannot read automations/none.json');
    await expect(run(config([{ key: 'x', definition: automationFile('y') }]))).rejects.toThrow("environments[0].automations[0].definition: the automation's key y is not x");
    await h.services.engage.automations.create({ environment: 'applied', file: automationFile('gone') }, ACTOR);
    await h.services.engage.automations.archive('applied', 'gone', ACTOR);
    await expect(run(config([{ key: 'gone', definition: automationFile('gone') }]))).rejects.toThrow('environments[0].automations[0]: automation gone is archived');
    expect((await h.services.engage.automations.all('applied')).filter((x) => x.key !== 'gone' && x.key !== 'x').map((x) => [x.key, x.version])).toEqual(before);
    for (const [file, problem] of [
      [config([{ key: 'x', file: 'a.json', definition: automationFile('x') }]), 'environments[0].automations[0]: must have exactly one of file and definition'],
      [config([{ key: 'x', definition: automationFile('y') }]), 'environments[0].automations[0].definition.key: must be x (or left out)'],
      [config([{ key: 'x', file: 'a.json' }, { key: 'x', file: 'b.json' }]), 'environments[0].automations[1].key: duplicate x'],
      [config([{ key: 'x', file: 'a.json', status: 'ARCHIVED' }]), 'environments[0].automations[0].status'],
    ] as const) {
      expect(applyFileProblemAll(file), problem).toContain(problem);
    }
  });
});
