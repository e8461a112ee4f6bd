import { describe, expect, it } from 'vitest';
import { ATTRIBUTE_PATTERN, BUCKETING_UNITS, FLAG_KINDS, OPERATORS, OPERATORS_FOR, attributeType, flagViolations, type FlagDefinition } from '../engage/flags/schemas';
import * as M from './web/pages/engage/flag-model';

/**
 * The console's flag form (src/console/web/pages/engage/flag-model.ts) against the server's flag
 * schema: its copied lists are the server's, and a definition read into the form and written back
 * unchanged is the same definition (each condition value of its type), valid for the server.
 */
const base: FlagDefinition = {
  key: 'new-checkout',
  description: 'The new checkout',
  kind: 'BOOLEAN',
  variants: { on: true, off: false },
  defaultVariant: 'off',
  offVariant: 'off',
  status: 'ACTIVE',
  bucketBy: 'profile-sticky',
  targetApps: ['0b5f1c44-6c3e-4a8e-9f00-3a3b1c2d4e5f'],
  seed: 'seed-1',
  rules: [
    { conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }, { attribute: 'platform', operator: 'in', values: ['IOS'], negate: true }], rollout: { variants: [{ variant: 'on', weight: 3000 }, { variant: 'off', weight: 7000 }] } },
    { conditions: [{ attribute: 'installation.attributes.level', operator: 'in', values: [5, 7] }, { attribute: 'profile.attributes.plan', operator: 'equals', values: ['5'] }], variant: 'on' },
    { conditions: [{ attribute: 'profile.attributes.beta', operator: 'equals', values: [true] }, { attribute: 'profile.attributes.score', operator: 'gte', values: [2.5] }], rollout: { seed: 'r', variants: [{ variant: 'on', weight: 10000 }] } },
    { conditions: [{ attribute: 'profile', operator: 'exists' }, { attribute: 'profile.tags', operator: 'contains', values: ['vip', 'staff'] }], experiment: { experimentId: 'exp-1', seed: 'x', variants: [{ variant: 'on', weight: 5000 }, { variant: 'off', weight: 5000 }], coverage: 2500 } },
    { variant: 'off' },
  ],
};

describe('console flag form', () => {
  it('copies the server’s kinds, units, operators and attribute references', () => {
    expect([...M.FLAG_KINDS]).toEqual([...FLAG_KINDS]);
    expect([...M.BUCKETING_UNITS]).toEqual([...BUCKETING_UNITS]);
    expect([...M.OPERATORS]).toEqual([...OPERATORS]);
    const pattern = new RegExp(ATTRIBUTE_PATTERN);
    for (const a of M.ATTRIBUTES) {
      const ref = M.KEYED_ATTRIBUTES.includes(a) ? `${a}level` : a;
      expect(pattern.test(ref), ref).toBe(true);
      expect([...M.operatorsFor(ref)], ref).toEqual([...OPERATORS_FOR[attributeType(ref)]]);
    }
  });

  it('writes back a definition read into the form unchanged, each value of its type', () => {
    const { status: _status, ...file } = base;
    expect(M.fileOf(M.draftOf(base))).toEqual(file);
    expect(flagViolations({ ...M.fileOf(M.draftOf(base)), status: 'ACTIVE' })).toEqual([]);
    for (const kind of [
      { kind: 'STRING' as const, variants: { a: 'hello', b: '5' } },
      { kind: 'NUMBER' as const, variants: { a: 1.5, b: -2 } },
      { kind: 'JSON' as const, variants: { a: { n: [1, 'x'] }, b: 'text' } },
    ]) {
      const def = { ...base, ...kind, defaultVariant: 'a', offVariant: 'b', rules: [] };
      expect(M.fileOf(M.draftOf(def)).variants).toEqual(kind.variants);
    }
  });

  it('types what is typed into the form, and refuses a value of the wrong kind in words', () => {
    const d = M.newDraft();
    d.key = 'k';
    d.rules = [M.newRule(['on', 'off'])];
    d.rules[0].conditions = [
      { attribute: 'installation.attributes.', attributeKey: 'level', operator: 'in', values: '5, "6", true, gold', negate: false },
      { attribute: 'locale', attributeKey: '', operator: 'in', values: 'en, 5', negate: false },
      { attribute: 'profile.attributes.', attributeKey: 'score', operator: 'lt', values: '3', negate: false },
    ];
    expect(M.fileOf(d).rules[0].conditions).toEqual([
      { attribute: 'installation.attributes.level', operator: 'in', values: [5, '6', true, 'gold'] },
      { attribute: 'locale', operator: 'in', values: ['en', '5'] },
      { attribute: 'profile.attributes.score', operator: 'lt', values: [3] },
    ]);
    expect(M.newRule(['on', 'off']).split).toEqual([{ variant: 'on', weight: 0 }, { variant: 'off', weight: 10000 }]);
    expect(M.newRule(['only']).split).toEqual([{ variant: 'only', weight: 10000 }]);
    d.variants[0].value = 'yes';
    expect(() => M.fileOf(d)).toThrow('Variant on: a BOOLEAN flag\'s value is true or false.');
    expect(() => M.fileOf({ ...M.newDraft(), kind: 'NUMBER', variants: [{ key: 'a', value: 'x' }] })).toThrow('a NUMBER flag\'s value is a number');
  });
});
