/**
 * FLAG_EXPOSED from an adversarial installation (docs/decisions.md "The sync surface, reviewed as
 * an attacker (r6)"): only an exposure the flag's version could have served is counted, so one
 * installation cannot grow flag_exposures without end nor write its own text into the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { flagFile } from '../../../test/fixtures/flags';
import { bootstrap, ingest, op, setupEnvironment } from '../../../test/fixtures/engage';

describe('FLAG_EXPOSED counting under a flood of made-up experiments', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const rows = async (environmentId: string) =>
    Number((await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM flag_exposures WHERE environment_id = ?', [environmentId]))!.n);

  it('counts only an experiment, variant and flag version the flag has had; the rest stays ACCEPTED and counts nowhere', async () => {
    const { environment, app } = await setupEnvironment(h, 'expo-flood');
    const f = h.services.engage.flags;
    await f.create({ environment: environment.id, file: flagFile() }, ACTOR);
    // Version 2 runs another experiment; version 1's stays countable (a device may report it late).
    await f.update({ environment: environment.id, key: 'new-checkout', file: flagFile({ rules: [{ experiment: { experimentId: 'checkout-exp-2', variants: [{ variant: 'on', weight: 10000 }], coverage: 10000 } }] }) }, ACTOR);
    const appKey = (await h.services.engage.environments.listApps(environment.id)).find((a) => a.id === app.id)!.appKey;
    const a = await bootstrap(h, appKey);
    const exposed = (experimentId: string, variantKey: string, revision: number) => op('FLAG_EXPOSED', { flagKey: 'new-checkout', experimentId, variantKey, revision });

    for (let round = 0; round < 3; round++) {
      const flood = Array.from({ length: 100 }, (_, i) => {
        if (i % 3 === 0) return exposed(`fake-${round}-${i}`, 'on', 1); // no such experiment
        if (i % 3 === 1) return exposed('checkout-exp', `<b>${round}-${i}</b>`, 1); // no such variant
        return exposed('checkout-exp', 'on', 1_000_000 + round * 100 + i); // no such version
      });
      const answer = await ingest(h, a, flood);
      expect(answer.results.every((r) => r.status === 'ACCEPTED')).toBe(true);
    }
    expect(await rows(environment.id)).toBe(0);

    const real = await ingest(h, a, [exposed('checkout-exp', 'on', 1), exposed('checkout-exp-2', 'on', 2), exposed('checkout-exp', 'off', 2), exposed('checkout-exp-2', 'on', 1)]);
    expect(real.results.map((r) => r.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'ACCEPTED']);
    expect((await f.exposures(environment.id, 'new-checkout')).items).toEqual([
      { experimentId: 'checkout-exp', revision: 1, variantKey: 'on', exposures: 1 },
      { experimentId: 'checkout-exp-2', revision: 2, variantKey: 'on', exposures: 1 },
    ]);
    expect(await rows(environment.id)).toBe(2);
  });

  it('does not count a version of the same flag key in another environment', async () => {
    const one = await setupEnvironment(h, 'expo-one');
    const two = await setupEnvironment(h, 'expo-two');
    await h.services.engage.flags.create({ environment: two.environment.id, file: flagFile() }, ACTOR);
    await h.services.engage.flags.create({ environment: one.environment.id, file: flagFile({ rules: [] }) }, ACTOR);
    const appKey = (await h.services.engage.environments.listApps(one.environment.id)).find((x) => x.id === one.app.id)!.appKey;
    const a = await bootstrap(h, appKey);
    await ingest(h, a, [op('FLAG_EXPOSED', { flagKey: 'new-checkout', experimentId: 'checkout-exp', variantKey: 'on', revision: 1 })]);
    expect(await rows(one.environment.id)).toBe(0);
    expect(await rows(two.environment.id)).toBe(0);
  });
});
