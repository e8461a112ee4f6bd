import { describe, expect, it } from 'vitest';
import { FlagBounds, flagViolations, type FlagDefinition } from './schemas';

const valid = (): FlagDefinition => ({
  key: 'new-checkout',
  description: 'The new checkout flow',
  kind: 'BOOLEAN',
  variants: { on: true, off: false },
  defaultVariant: 'off',
  offVariant: 'off',
  status: 'ACTIVE',
  targetApps: ['22222222-2222-4222-8222-222222222222'],
  bucketBy: 'profile-sticky',
  rules: [
    {
      conditions: [
        { attribute: 'platform', operator: 'in', values: ['IOS'] },
        { attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] },
        { attribute: 'profile.tags', operator: 'contains', values: ['beta'], negate: true },
      ],
      variant: 'on',
    },
    { rollout: { variants: [{ variant: 'on', weight: 2500 }, { variant: 'off', weight: 7500 }] } },
    { experiment: { experimentId: 'checkout-2026', variants: [{ variant: 'on', weight: 5000 }, { variant: 'off', weight: 5000 }], coverage: 2000 } },
  ],
});

type Edit = (f: FlagDefinition & Record<string, unknown>) => void;
const cond = (c: Record<string, unknown>) => (f: FlagDefinition) => {
  f.rules[0].conditions = [c as never];
};

describe('flag definitions (schemas.ts)', () => {
  it('a definition of every feature passes; each kind with values of its type', () => {
    expect(flagViolations(valid())).toEqual([]);
    const kinds: [FlagDefinition['kind'], Record<string, unknown>][] = [
      ['STRING', { on: 'yes', off: '' }],
      ['NUMBER', { on: 1.5, off: 0 }],
      ['JSON', { on: { layout: ['a', 'b'] }, off: [] }],
    ];
    for (const [kind, variants] of kinds) expect(flagViolations({ ...valid(), kind, variants }), kind).toEqual([]);
  });

  // Each row: what is wrong, the edit, the field the violation names, a piece of its message.
  const table: [string, Edit, string, string][] = [
    ['an unknown operator', cond({ attribute: 'locale', operator: 'matches', values: ['fr'] }), 'rules[0].conditions[0].operator', 'must be one of'],
    ['an unknown attribute', cond({ attribute: 'country', operator: 'equals', values: ['fr'] }), 'rules[0].conditions[0].attribute', 'must match'],
    ['an operator that does not apply to the attribute', cond({ attribute: 'platform', operator: 'lt', values: [3] }), 'rules[0].conditions[0].operator', 'does not apply to platform'],
    ['semver on a text attribute', cond({ attribute: 'locale', operator: 'semverGt', values: ['1.0.0'] }), 'rules[0].conditions[0].operator', 'does not apply'],
    ['a number compared with a string', cond({ attribute: 'installation.attributes.level', operator: 'gt', values: ['3'] }), 'rules[0].conditions[0].values[0]', 'must be a finite number'],
    ['a date that is not RFC 3339', cond({ attribute: 'profile.attributes.since', operator: 'before', values: ['2026-13-01'] }), 'rules[0].conditions[0].values[0]', 'RFC 3339'],
    ['a version that is not strict semver', cond({ attribute: 'appVersion', operator: 'semverLt', values: ['2.0'] }), 'rules[0].conditions[0].values[0]', 'semantic version'],
    ['a number for a text attribute', cond({ attribute: 'locale', operator: 'in', values: [1] }), 'rules[0].conditions[0].values[0]', 'must be a string'],
    ['a platform that does not exist', cond({ attribute: 'platform', operator: 'equals', values: ['WEB'] }), 'rules[0].conditions[0].values[0]', 'ANDROID, IOS'],
    ['mixed types in a list', cond({ attribute: 'installation.attributes.x', operator: 'in', values: ['1', 1] }), 'rules[0].conditions[0].values', 'of one type'],
    ['equals with two values', cond({ attribute: 'locale', operator: 'equals', values: ['a', 'b'] }), 'rules[0].conditions[0].values', 'exactly 1'],
    ['in without values', cond({ attribute: 'locale', operator: 'in', values: [] }), 'rules[0].conditions[0].values', 'at least 1'],
    ['exists with values', cond({ attribute: 'profile', operator: 'exists', values: [true] }), 'rules[0].conditions[0].values', 'absent or empty'],
    ['weights that sum to 9999', (f) => void (f.rules[1].rollout!.variants[0].weight = 2499), 'rules[1].rollout.variants', 'sum to 10000'],
    ['an experiment whose weights overshoot', (f) => void (f.rules[2].experiment!.variants[0].weight = 5001), 'rules[2].experiment.variants', 'sum to 10000'],
    ['a weight above 10000', (f) => void (f.rules[1].rollout!.variants[0].weight = 10001), 'rules[1].rollout.variants[0].weight', '<= 10000'],
    ['coverage above 10000', (f) => void (f.rules[2].experiment!.coverage = 10001), 'rules[2].experiment.coverage', '<= 10000'],
    ['a split variant twice', (f) => void (f.rules[1].rollout!.variants = [{ variant: 'on', weight: 5000 }, { variant: 'on', weight: 5000 }]), 'rules[1].rollout.variants[1].variant', 'twice'],
    ['an unknown variant in a split', (f) => void (f.rules[1].rollout!.variants[0].variant = 'maybe'), 'rules[1].rollout.variants[0].variant', 'names no variant'],
    ['an unknown variant in a rule', (f) => void (f.rules[0].variant = 'maybe'), 'rules[0].variant', 'names no variant'],
    ['an unknown default variant', (f) => void (f.defaultVariant = 'maybe'), 'defaultVariant', 'names no variant'],
    ['an unknown off variant', (f) => void (f.offVariant = 'maybe'), 'offVariant', 'names no variant'],
    ['a rule with two outcomes', (f) => void (f.rules[0].rollout = f.rules[1].rollout), 'rules[0]', 'exactly one of'],
    ['a rule with no outcome', (f) => void delete f.rules[0].variant, 'rules[0]', 'exactly one of'],
    ['one experiment id twice', (f) => void f.rules.push(structuredClone(f.rules[2])), 'rules[3].experiment.experimentId', 'earlier rule'],
    ['a non-ASCII experiment id', (f) => void (f.rules[2].experiment!.experimentId = 'expé'), 'rules[2].experiment.experimentId', 'must match'],
    ['a BOOLEAN flag with a string value', (f) => void (f.variants.on = 'yes'), 'variants.on', 'must be a boolean'],
    ['a NUMBER flag with a string value', (f) => void Object.assign(f, { kind: 'NUMBER', variants: { on: '1', off: 0 } }), 'variants.on', 'finite number'],
    ['a STRING value too long', (f) => void Object.assign(f, { kind: 'STRING', variants: { on: 'x'.repeat(4097), off: '' } }), 'variants.on', 'at most 4096'],
    ['a JSON value too large', (f) => void Object.assign(f, { kind: 'JSON', variants: { on: { s: 'x'.repeat(17_000) }, off: {} } }), 'variants.on', 'at most 16384 bytes'],
    ['a JSON null value', (f) => void Object.assign(f, { kind: 'JSON', variants: { on: null, off: {} } }), 'variants.on', 'other than null'],
    ['variants too large together', (f) => void Object.assign(f, { kind: 'JSON', variants: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`v${i}`, 'x'.repeat(15_000)])), defaultVariant: 'v0', offVariant: 'v0', rules: [] }), 'variants', 'together'],
    ['no variant', (f) => void Object.assign(f, { variants: {}, rules: [] }), 'variants', 'at least 1'],
    ['a variant key outside pattern K', (f) => void (f.variants.On = true), 'variants.On', 'property name must match'],
    ['too many variants', (f) => void (f.variants = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, true]))), 'variants', 'at most 50'],
    ['too many rules', (f) => void (f.rules = Array.from({ length: FlagBounds.rules + 1 }, () => ({ variant: 'on' }))), 'rules', 'at most 100'],
    ['too many conditions', (f) => void (f.rules[0].conditions = Array.from({ length: 21 }, () => ({ attribute: 'profile', operator: 'exists' as const }))), 'rules[0].conditions', 'at most 20'],
    ['too many values in a condition', cond({ attribute: 'installationId', operator: 'in', values: Array.from({ length: 1001 }, (_, i) => `i${i}`) }), 'rules[0].conditions[0].values', 'at most 1000'],
    ['too many values in the flag', (f) => void (f.rules = Array.from({ length: 11 }, () => ({ conditions: [{ attribute: 'installationId' as const, operator: 'in' as const, values: Array.from({ length: 1000 }, (_, i) => `i${i}`) }], variant: 'on' }))), 'rules', '10000 condition values'],
    ['a condition value too long', cond({ attribute: 'profile.externalId', operator: 'in', values: ['x'.repeat(256)] }), 'rules[0].conditions[0].values[0]', 'at most 255'],
    ['a NUL in a condition value', cond({ attribute: 'locale', operator: 'in', values: ['fr\u0000'] }), 'rules[0].conditions[0].values[0]', 'NUL'],
    ['a NUL deep in a JSON value', (f) => void Object.assign(f, { kind: 'JSON', variants: { on: { a: [{ b: 'x\u0000' }] }, off: {} } }), 'variants.on.a[0].b', 'NUL'],
    ['an unknown property', (f) => void (f.colour = 'red'), 'colour', 'not an allowed property'],
    ['an unknown bucketing unit', (f) => void (f.bucketBy = 'device' as never), 'bucketBy', 'must be one of'],
    ['a key outside pattern K', (f) => void (f.key = 'New'), 'key', 'must match'],
    ['a target app that is not an id', (f) => void (f.targetApps = ['my app']), 'targetApps[0]', 'UUID'],
  ];
  for (const [what, edit, field, message] of table) {
    it(`refuses ${what}`, () => {
      const f = valid() as FlagDefinition & Record<string, unknown>;
      edit(f);
      const found = flagViolations(f);
      const hit = found.find((v) => v.field === field);
      expect(hit, JSON.stringify(found)).toBeDefined();
      expect(hit!.message).toContain(message);
      expect(hit!.message.startsWith(`${field}: `)).toBe(true);
    });
  }

  it('refuses what is not an object at all, naming the root', () => {
    expect(flagViolations(null).length).toBeGreaterThan(0);
    expect(flagViolations('flag', 'body')[0].field).toBe('body');
  });
});
