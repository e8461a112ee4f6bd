import { describe, expect, it } from 'vitest';
import { flagFile } from '../../../test/fixtures/flags';
import { diffFlags, MAX_DIFF_ENTRIES } from './diff';
import type { FlagDefinition } from './schemas';

const def = (over: Record<string, unknown> = {}) => ({ ...flagFile(over), status: 'ACTIVE' }) as unknown as FlagDefinition;
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

describe('the audit diff of a flag edit', () => {
  it('names changed scalars with their values, variants by key, rules by position, apps added and removed', () => {
    const before = def({ targetApps: [A] });
    const after = def({
      description: 'v2',
      targetApps: [B],
      variants: { on: true, off: false, maybe: true },
      rules: [(before.rules as unknown[])[0], { variant: 'maybe' }, { variant: 'on' }],
    });
    expect(diffFlags(before, after)).toEqual([
      { field: 'description', change: 'changed', from: 'The new checkout flow', to: 'v2' },
      { field: 'rules[1]', change: 'changed' },
      { field: 'rules[2]', change: 'added' },
      { field: 'targetApps', change: 'added', to: B },
      { field: 'targetApps', change: 'removed', from: A },
      { field: 'variants.maybe', change: 'added' },
    ]);
    expect(diffFlags(after, after)).toEqual([]);
  });

  it('a new flag lists what it sets; a large edit is cut at the bound with the count left out', () => {
    expect(diffFlags(null, def()).map((c) => c.field)).toEqual(['bucketBy', 'defaultVariant', 'description', 'key', 'kind', 'offVariant', 'rules[0]', 'rules[1]', 'status', 'variants.off', 'variants.on']);
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`v${i}`, true]));
    const out = diffFlags(def(), def({ variants: { ...many, on: true, off: false } }));
    expect(out).toHaveLength(MAX_DIFF_ENTRIES);
    expect(out.at(-1)).toEqual({ field: '… 31 more changes', change: 'changed' });
  });
});
