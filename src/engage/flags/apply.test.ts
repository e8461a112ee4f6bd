import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { flagFile } from '../../../test/fixtures/flags';
import { applyAll, type ApplyFile } from '../../apply';

/** `engage apply` with a `flags` section (issue 26): create, unchanged (no version), update (origin APPLY), managed, errors by place. */
describe('engage apply: flags', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const files: Record<string, string> = {};
  const run = (file: ApplyFile, dryRun = false) => applyAll(h.services, file, { dryRun, env: {}, readFile: (p) => files[p] ?? (() => { throw Object.assign(new Error('no'), { code: 'ENOENT' }); })(), actor: ACTOR, clock: h.clock });
  const config = (flags: unknown[]): ApplyFile => ({ environments: [{ name: 'applied', apps: [{ name: 'shop-ios', platform: 'IOS' }], flags }] }) as ApplyFile;
  const flagSteps = (r: Awaited<ReturnType<typeof run>>) => r.steps.filter((s) => 'kind' in s && s.kind === 'flag').map((s) => [s.action, s.key, (s as { changes: string[] }).changes]);
  const versions = async () =>
    (await h.sql.all<{ version: number; origin: string }>("SELECT version, origin FROM flag_versions WHERE flag_key = 'new-checkout' ORDER BY version")).map((v) => [Number(v.version), v.origin]);

  it('creates the declared flags (apps by name, in a new environment), then leaves an unchanged file alone', async () => {
    files['flags/checkout.json'] = JSON.stringify(flagFile({ targetApps: ['shop-ios'] }));
    const declared = config([{ key: 'new-checkout', file: 'flags/checkout.json' }, { key: 'inline', definition: { ...flagFile(), key: undefined } }]);
    expect(flagSteps(await run(declared, true))).toEqual([['create', 'new-checkout', []], ['create', 'inline', []]]);
    expect(flagSteps(await run(declared))).toEqual([['create', 'new-checkout', []], ['create', 'inline', []]]);
    const shown = await h.services.engage.flags.show('applied', 'new-checkout');
    const ios = (await h.services.engage.environments.listApps('applied'))[0];
    expect(shown).toMatchObject({ configurationManaged: true, version: 1, definition: { targetApps: [ios.id] } });
    expect((await h.services.engage.flags.show('applied', 'inline')).key).toBe('inline');
    const again = await run(declared);
    expect(again.changed).toBe(false);
    expect(flagSteps(again)).toEqual([['unchanged', 'new-checkout', []], ['unchanged', 'inline', []]]);
    expect(await versions()).toEqual([[1, 'APPLY']]);
  });

  it('updates a flag whose file changed into a new APPLY version; the API and the CLI may not change it', async () => {
    files['flags/checkout.json'] = JSON.stringify(flagFile({ targetApps: ['shop-ios'], description: 'v2' }));
    const declared = config([{ key: 'new-checkout', file: 'flags/checkout.json' }]);
    expect(flagSteps(await run(declared))).toEqual([['update', 'new-checkout', ['definition']]]);
    expect(await versions()).toEqual([[1, 'APPLY'], [2, 'APPLY']]);
    await expect(h.services.engage.flags.archive('applied', 'new-checkout', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
  });

  it('names the place of a bad flag before anything is written', async () => {
    files['flags/bad.json'] = JSON.stringify(flagFile({ defaultVariant: 'nope' }));
    const declared = config([{ key: 'other', definition: flagFile({ key: 'other', description: 'new' }) }, { key: 'new-checkout', file: 'flags/bad.json' }]);
    await expect(run(declared)).rejects.toThrow('environments[0].flags[1]: defaultVariant: names no variant of the flag (nope)');
    await expect(h.services.engage.flags.show('applied', 'other')).rejects.toMatchObject({ code: 'flag_not_found' });
    await expect(run(config([{ key: 'x', file: 'flags/none.json' }]))).rejects.toThrow('environments[0].flags[0].file: cannot read flags/none.json');
    await expect(run(config([{ key: 'x', definition: flagFile({ key: 'y' }) }]))).rejects.toThrow("environments[0].flags[0].definition: the flag's key y is not x");
  });
});
