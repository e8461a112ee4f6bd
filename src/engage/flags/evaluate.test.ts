import { describe, expect, it } from 'vitest';
import { bucketV2, chooseVariant } from './bucketing';
import { compileCondition, evaluate, type FlagContext } from './evaluate';
import { flagViolations, type FlagCondition, type FlagDefinition, type Operator } from './schemas';
import { uuidStream } from '../../../test/helpers/uuid-stream';

const INSTALLATION = '11111111-1111-4111-8111-111111111111';
const APP = '22222222-2222-4222-8222-222222222222';
const base: FlagContext = { installationId: INSTALLATION, app: APP, platform: 'IOS' };

/** The test's population of installation ids (seed 7 unless told). */
const ids = (n: number, seed = 7) => uuidStream(n, seed);

/** A flag definition that must pass validation (so the tests only evaluate what could be stored). */
function flag(over: Partial<FlagDefinition>): FlagDefinition {
  const f: FlagDefinition = {
    key: 'checkout',
    kind: 'STRING',
    variants: { a: 'A', b: 'B', c: 'C', off: 'OFF' },
    defaultVariant: 'a',
    offVariant: 'off',
    status: 'ACTIVE',
    bucketBy: 'installation',
    rules: [],
    ...over,
  };
  expect(flagViolations(f)).toEqual([]);
  return f;
}

const holds = (c: FlagCondition, ctx: FlagContext) => {
  expect(flagViolations(flag({ rules: [{ conditions: [c], variant: 'b' }] }))).toEqual([]);
  return compileCondition(c)(ctx);
};
const withAttr = (x: unknown): FlagContext => (x === undefined ? base : { ...base, attributes: { x } });

describe('operators (a table: match, non-match, missing, type mismatch, each negated)', () => {
  // [operator, values, a value that matches, one that does not, one of another type]
  const table: [Operator, (string | number | boolean)[], unknown, unknown, unknown][] = [
    ['equals', ['gold'], 'gold', 'silver', 5],
    ['equals', [3], 3, 4, '3'],
    ['equals', [true], true, false, 'true'],
    ['in', ['a', 'b'], 'b', 'c', 1],
    ['in', [1, 2], 2, 3, '2'],
    ['notIn', ['a', 'b'], 'c', 'a', true],
    ['contains', ['ell', 'zz'], 'hello', 'world', 42],
    ['contains', ['vip'], ['x', 'vip'], ['x'], { vip: true }],
    ['startsWith', ['he', 'ha'], 'hello', 'oh', 7],
    ['lt', [10], 9, 10, '9'],
    ['lte', [10], 10, 11, '10'],
    ['gt', [10], 11, 10, '11'],
    ['gte', [10], 10, 9, false],
    ['before', ['2026-01-01T00:00:00Z'], '2025-12-31T23:59:59Z', '2026-01-01T00:00:00Z', 1],
    ['before', ['2026-01-01T00:00:00Z'], '2026-01-01T00:30:00+01:00', '2026-01-01T00:00:00.001Z', 'yesterday'],
    ['after', ['2026-01-01T00:00:00Z'], '2026-01-01T00:00:01+00:00', '2025-06-01T00:00:00Z', '2026-02-30T00:00:00Z'],
    ['semverEq', ['1.2.3'], '1.2.3+build.7', '1.2.4', '1.2'],
    ['semverLt', ['2.0.0'], '2.0.0-rc.1', '2.0.0', 'v1.0.0'],
    ['semverLte', ['2.0.0'], '2.0.0', '2.0.1', 2],
    ['semverGt', ['1.0.0-alpha'], '1.0.0-alpha.1', '1.0.0-alpha', '1.0'],
    ['semverGte', ['1.0.0-beta'], '1.0.0-beta', '1.0.0-alpha.beta', '01.0.0'],
  ];
  for (const [operator, values, yes, no, wrong] of table) {
    const c: FlagCondition = { attribute: 'installation.attributes.x', operator, values };
    const n: FlagCondition = { ...c, negate: true };
    it(`${operator} ${JSON.stringify(values)}, one compiled condition over alternating values (what it keeps of the last value)`, () => {
      const once = compileCondition(c);
      for (const [x, want] of [[yes, true], [yes, true], [no, false], [yes, true], [wrong, false], [wrong, false], [no, false], [no, false], [yes, true]] as const) {
        expect(once(withAttr(x)), JSON.stringify(x)).toBe(want);
      }
    });
    it(`${operator} ${JSON.stringify(values)}`, () => {
      expect(holds(c, withAttr(yes)), 'match').toBe(true);
      expect(holds(c, withAttr(no)), 'non-match').toBe(false);
      expect(holds(c, withAttr(undefined)), 'missing').toBe(false);
      expect(holds(c, withAttr(null)), 'null').toBe(false);
      expect(holds(c, withAttr(wrong)), 'type mismatch').toBe(false);
      expect(holds(n, withAttr(yes)), 'negated match').toBe(false);
      expect(holds(n, withAttr(no)), 'negated non-match').toBe(true);
      expect(holds(n, withAttr(undefined)), 'negated missing').toBe(false);
      expect(holds(n, withAttr(wrong)), 'negated type mismatch').toBe(false);
    });
  }

  it('exists: present or not; negated, exactly the contexts without it', () => {
    const c: FlagCondition = { attribute: 'installation.attributes.x', operator: 'exists' };
    expect(holds(c, withAttr('v'))).toBe(true);
    expect(holds(c, withAttr(0))).toBe(true);
    expect(holds(c, withAttr(undefined))).toBe(false);
    expect(holds(c, withAttr(null))).toBe(false);
    expect(holds({ ...c, negate: true }, withAttr(undefined))).toBe(true);
    expect(holds({ ...c, negate: true }, withAttr('v'))).toBe(false);
  });

  it('built-in attributes: platform, app version (semver), locale, time zone, explicit installation and external-id lists', () => {
    const ctx: FlagContext = { ...base, appVersion: '3.1.0', osVersion: '17.4.1', locale: 'fr-FR', timeZone: 'Europe/Paris' };
    expect(holds({ attribute: 'platform', operator: 'in', values: ['IOS'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'platform', operator: 'equals', values: ['ANDROID'] }, ctx)).toBe(false);
    expect(holds({ attribute: 'appVersion', operator: 'semverGte', values: ['3.0.0'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'osVersion', operator: 'semverLt', values: ['17.4.1'] }, ctx)).toBe(false);
    expect(holds({ attribute: 'locale', operator: 'startsWith', values: ['fr'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'timeZone', operator: 'equals', values: ['Europe/Paris'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'app', operator: 'equals', values: [APP] }, ctx)).toBe(true);
    expect(holds({ attribute: 'installationId', operator: 'in', values: [INSTALLATION, 'other'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'installationId', operator: 'notIn', values: [INSTALLATION] }, ctx)).toBe(false);
    // Anonymous: every profile condition is false, whatever the operator, except a negated exists.
    expect(holds({ attribute: 'profile.externalId', operator: 'notIn', values: ['u-1'] }, ctx)).toBe(false);
    expect(holds({ attribute: 'profile', operator: 'exists', negate: true }, ctx)).toBe(true);
    expect(holds({ attribute: 'osVersion', operator: 'semverGt', values: ['1.0.0'] }, { ...ctx, osVersion: '17.4' })).toBe(false);
  });

  it('profile attributes, tags and subscriptions when bound; installation subscriptions', () => {
    const ctx: FlagContext = {
      ...base,
      subscriptions: ['news'],
      profile: {
        id: '33333333-3333-4333-8333-333333333333',
        externalId: 'user-1',
        attributes: { plan: 'pro', seats: 12, renews_at: '2027-01-01T00:00:00Z' },
        tags: ['beta', 'vip'],
        subscriptions: { offers: ['EMAIL'], digest: [] },
      },
    };
    expect(holds({ attribute: 'installation.subscriptions', operator: 'contains', values: ['news'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile', operator: 'exists' }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.externalId', operator: 'in', values: ['user-1', 'user-2'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.attributes.plan', operator: 'equals', values: ['pro'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.attributes.seats', operator: 'gte', values: [10] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.attributes.renews_at', operator: 'after', values: ['2026-11-26T00:00:00Z'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.tags', operator: 'contains', values: ['vip'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.tags', operator: 'contains', values: ['gold'], negate: true }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.subscriptions', operator: 'contains', values: ['offers'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.subscriptions', operator: 'contains', values: ['digest'] }, ctx)).toBe(false);
    expect(holds({ attribute: 'profile.subscriptions.EMAIL', operator: 'contains', values: ['offers'] }, ctx)).toBe(true);
    expect(holds({ attribute: 'profile.subscriptions.PUSH', operator: 'contains', values: ['offers'] }, ctx)).toBe(false);
    // An attribute named like an Object.prototype member is not "present".
    expect(holds({ attribute: 'profile.attributes.constructor', operator: 'exists' }, ctx)).toBe(false);
  });
});

describe('reasons (OpenFeature)', () => {
  const vip: FlagCondition = { attribute: 'installation.attributes.tier', operator: 'equals', values: ['vip'] };
  it('STATIC without rules, DEFAULT when no rule serves, TARGETING_MATCH, SPLIT with the experimentId', () => {
    expect(evaluate(flag({}), base)).toEqual({ variantKey: 'a', value: 'A', reason: 'STATIC' });
    const f = flag({ rules: [{ conditions: [vip], variant: 'b' }] });
    expect(evaluate(f, base)).toEqual({ variantKey: 'a', value: 'A', reason: 'DEFAULT' });
    expect(evaluate(f, { ...base, attributes: { tier: 'vip' } })).toEqual({ variantKey: 'b', value: 'B', reason: 'TARGETING_MATCH' });
    const e = flag({ rules: [{ experiment: { experimentId: 'exp-7', variants: [{ variant: 'c', weight: 10000 }], coverage: 10000 } }] });
    expect(evaluate(e, base)).toEqual({ variantKey: 'c', value: 'C', reason: 'SPLIT', experimentId: 'exp-7' });
    const r = flag({ rules: [{ rollout: { variants: [{ variant: 'b', weight: 0 }, { variant: 'c', weight: 10000 }] } }] });
    expect(evaluate(r, base)).toEqual({ variantKey: 'c', value: 'C', reason: 'SPLIT' });
  });

  it('rules are ordered: the first that serves wins; an experiment that leaves the context out falls through', () => {
    const f = flag({
      rules: [
        { experiment: { experimentId: 'nobody', variants: [{ variant: 'c', weight: 10000 }], coverage: 0 } },
        { conditions: [vip], variant: 'b' },
        { variant: 'c' },
      ],
    });
    expect(evaluate(f, { ...base, attributes: { tier: 'vip' } }).variantKey).toBe('b');
    expect(evaluate(f, base)).toEqual({ variantKey: 'c', value: 'C', reason: 'TARGETING_MATCH' });
  });

  it('DISABLED: an archived flag serves its off variant (the sync sends a tombstone), as does an app it does not target', () => {
    const archived = flag({ status: 'ARCHIVED', rules: [{ variant: 'b' }] });
    expect(evaluate(archived, base)).toEqual({ variantKey: 'off', value: 'OFF', reason: 'DISABLED' });
    const other = flag({ targetApps: ['44444444-4444-4444-8444-444444444444'], rules: [{ variant: 'b' }] });
    expect(evaluate(other, base)).toEqual({ variantKey: 'off', value: 'OFF', reason: 'DISABLED' });
    const mine = flag({ targetApps: [APP.toUpperCase()], rules: [{ variant: 'b' }] });
    expect(evaluate(mine, base).reason).toBe('TARGETING_MATCH');
  });

  it('never throws on odd context data: a missing or mistyped attribute does not match, an unhashable id is not split', () => {
    const f = flag({
      bucketBy: 'profile',
      rules: [
        {
          conditions: [
            { attribute: 'profile.subscriptions.PUSH', operator: 'contains', values: ['x'], negate: true },
            { attribute: 'appVersion', operator: 'semverGte', values: ['1.0.0'] },
          ],
          variant: 'b',
        },
        { conditions: [{ attribute: 'profile.tags', operator: 'contains', values: ['x'] }], variant: 'b' },
        { rollout: { variants: [{ variant: 'c', weight: 10000 }] } },
      ],
    });
    const odd = [
      { ...base, installationId: 'café' },
      { ...base, installationId: '' },
      { ...base, installationId: 42, appVersion: 7, attributes: 'nope', subscriptions: 'news' },
      { ...base, profile: { id: '🦎', externalId: 'x', attributes: null, tags: 'x', subscriptions: { x: 'PUSH' } } },
      { ...base, profile: { id: null, externalId: null, subscriptions: [] } },
      { installationId: 'not-a-uuid' },
      {},
    ] as unknown as FlagContext[];
    for (const ctx of odd) expect(() => evaluate(f, ctx)).not.toThrow();
    expect(evaluate(f, odd[0])).toEqual({ variantKey: 'a', value: 'A', reason: 'DEFAULT' });
    expect(evaluate(f, odd[3]).reason).toBe('DEFAULT');
    expect(evaluate(f, odd[5])).toEqual({ variantKey: 'c', value: 'C', reason: 'SPLIT' });
  });
});

describe('splits', () => {
  const population = ids(10_000);

  it('a 20/30/50 rollout over 10,000 installations lands within 2 points of each weight', () => {
    const f = flag({ rules: [{ rollout: { variants: [{ variant: 'a', weight: 2000 }, { variant: 'b', weight: 3000 }, { variant: 'c', weight: 5000 }] } }] });
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (const id of population) counts[evaluate(f, { ...base, installationId: id }).variantKey]++;
    expect(Math.abs(counts.a - 2000)).toBeLessThan(200);
    expect(Math.abs(counts.b - 3000)).toBeLessThan(200);
    expect(Math.abs(counts.c - 5000)).toBeLessThan(200);
  });

  it('the variant is the hash v2 bucket of seed (the flag key by default) and id, placed in the cumulative ranges', () => {
    const f = flag({ rules: [{ rollout: { variants: [{ variant: 'a', weight: 2000 }, { variant: 'b', weight: 3000 }, { variant: 'c', weight: 5000 }] } }] });
    const seeded = flag({ seed: 'other-seed', rules: f.rules });
    for (const id of population.slice(0, 500)) {
      const expected = ['a', 'b', 'c'][chooseVariant(bucketV2('checkout', id), [2000, 3000, 5000])];
      expect(evaluate(f, { ...base, installationId: id }).variantKey).toBe(expected);
      const other = ['a', 'b', 'c'][chooseVariant(bucketV2('other-seed', id), [2000, 3000, 5000])];
      expect(evaluate(seeded, { ...base, installationId: id }).variantKey).toBe(other);
    }
  });

  it('experiment coverage: 40% enter (split evenly), the rest fall through; raising coverage keeps everyone who was in', () => {
    const at = (coverage: number) =>
      flag({ rules: [{ experiment: { experimentId: 'exp-cov', variants: [{ variant: 'b', weight: 5000 }, { variant: 'c', weight: 5000 }], coverage } }] });
    const forty = at(4000);
    const eighty = at(8000);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (const id of population) {
      const r = evaluate(forty, { ...base, installationId: id });
      counts[r.variantKey]++;
      if (r.reason === 'SPLIT') {
        expect(r.experimentId).toBe('exp-cov');
        expect(evaluate(eighty, { ...base, installationId: id }).variantKey).toBe(r.variantKey);
      } else expect(r).toEqual({ variantKey: 'a', value: 'A', reason: 'DEFAULT' });
    }
    expect(Math.abs(counts.b - 2000)).toBeLessThan(200);
    expect(Math.abs(counts.c - 2000)).toBeLessThan(200);
    expect(Math.abs(counts.a - 6000)).toBeLessThan(200);
  });
});

describe('bucketing unit', () => {
  const experiment = (bucketBy: FlagDefinition['bucketBy']) =>
    flag({ bucketBy, rules: [{ experiment: { experimentId: 'exp-signin', variants: [{ variant: 'b', weight: 5000 }, { variant: 'c', weight: 5000 }], coverage: 10000 } }] });
  const population = ids(400, 99);
  const variantOf = (id: string) => (bucketV2('exp-signin', id) < 5000 ? 'b' : 'c');
  /** An installation and a profile whose ids fall in different variants. */
  const [installationId, profileId] = (() => {
    const i = population[0];
    return [i, population.find((p) => variantOf(p) !== variantOf(i))!];
  })();
  const profile = { id: profileId, externalId: 'user-1' };

  it('installation: the installation id, bound or not', () => {
    const f = experiment('installation');
    expect(evaluate(f, { ...base, installationId }).variantKey).toBe(variantOf(installationId));
    expect(evaluate(f, { ...base, installationId, profile }).variantKey).toBe(variantOf(installationId));
  });

  it('profile: the installation while anonymous, the profile once bound (every device of the profile agrees)', () => {
    const f = experiment('profile');
    expect(evaluate(f, { ...base, installationId }).variantKey).toBe(variantOf(installationId));
    expect(evaluate(f, { ...base, installationId, profile }).variantKey).toBe(variantOf(profileId));
    for (const other of population.slice(1, 50)) expect(evaluate(f, { ...base, installationId: other, profile }).variantKey).toBe(variantOf(profileId));
  });

  it('profile-sticky: a sign-in in the middle of the experiment keeps the variant the installation had while anonymous', () => {
    const f = experiment('profile-sticky');
    // Anonymous: bucketed by the installation, as `profile`.
    const before = evaluate(f, { ...base, installationId });
    expect(before).toMatchObject({ variantKey: variantOf(installationId), reason: 'SPLIT', experimentId: 'exp-signin' });
    // The caller records what it served while anonymous, then the installation binds.
    const anonymousAssignments = { checkout: { variantKey: before.variantKey, experimentId: before.experimentId } };
    const after = evaluate(f, { ...base, installationId, profile, anonymousAssignments });
    expect(after).toEqual(before);
    expect(after.variantKey).not.toBe(variantOf(profileId));
    // Another device of the profile that was never anonymous in the experiment: the profile's variant.
    expect(evaluate(f, { ...base, installationId: population[1], profile }).variantKey).toBe(variantOf(profileId));
    // Without the record the profile decides, as `profile` does.
    expect(evaluate(f, { ...base, installationId, profile }).variantKey).toBe(variantOf(profileId));
  });

  it('profile-sticky keeps nothing from another experiment, a rollout, a variant no longer served, or a targeting rule', () => {
    const f = experiment('profile-sticky');
    const kept = variantOf(installationId);
    const bound = (a: Record<string, { variantKey: string; experimentId?: string }>) => evaluate(f, { ...base, installationId, profile, anonymousAssignments: a });
    expect(bound({ checkout: { variantKey: kept, experimentId: 'exp-older' } }).variantKey).toBe(variantOf(profileId));
    expect(bound({ checkout: { variantKey: kept } }).variantKey).toBe(variantOf(profileId));
    expect(bound({ other: { variantKey: kept, experimentId: 'exp-signin' } }).variantKey).toBe(variantOf(profileId));
    expect(bound({ checkout: { variantKey: 'a', experimentId: 'exp-signin' } }).variantKey).toBe(variantOf(profileId));
    const weightless = flag({
      bucketBy: 'profile-sticky',
      rules: [{ experiment: { experimentId: 'exp-signin', variants: [{ variant: kept, weight: 0 }, { variant: 'a', weight: 10000 }], coverage: 10000 } }],
    });
    expect(evaluate(weightless, { ...base, installationId, profile, anonymousAssignments: { checkout: { variantKey: kept, experimentId: 'exp-signin' } } }).variantKey).toBe('a');
    const targeted = flag({ bucketBy: 'profile-sticky', rules: [{ conditions: [{ attribute: 'profile', operator: 'exists' }], variant: 'a' }, ...f.rules] });
    expect(evaluate(targeted, { ...base, installationId, profile, anonymousAssignments: { checkout: { variantKey: kept, experimentId: 'exp-signin' } } })).toEqual({
      variantKey: 'a',
      value: 'A',
      reason: 'TARGETING_MATCH',
    });
  });
});
