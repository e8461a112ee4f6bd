import { describe, expect, it } from 'vitest';
import { compareSemVer, parseSemVer } from './semver';

const cmp = (a: string, b: string) => compareSemVer(parseSemVer(a)!, parseSemVer(b)!);

describe('strict SemVer 2.0.0 (semver.ts)', () => {
  it('parses the grammar: three parts, pre-release identifiers, build', () => {
    expect(parseSemVer('1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, pre: [] });
    expect(parseSemVer('1.0.0-alpha.1+build.5')).toEqual({ major: 1, minor: 0, patch: 0, pre: ['alpha', 1] });
    expect(parseSemVer('1.0.0-0A.is.legal')).toEqual({ major: 1, minor: 0, patch: 0, pre: ['0A', 'is', 'legal'] });
    expect(parseSemVer('0.0.0-x-y-z.--')?.pre).toEqual(['x-y-z', '--']);
  });

  it('refuses what the grammar does not allow (semver.org §2, §9, §10)', () => {
    for (const bad of ['1.2', '1', 'v1.2.3', '1.2.3.4', '01.2.3', '1.02.3', '1.2.03', '1.2.3-', '1.2.3-01', '1.2.3-a..b', '1.2.3+', '1.2.3+a..b', ' 1.2.3', '1.2.3 ', '1.2.3-é', '99999999999999999999.0.0', '', 7, null]) {
      expect(parseSemVer(bad), String(bad)).toBeUndefined();
    }
    expect(parseSemVer(`1.0.0-${'a'.repeat(300)}`)).toBeUndefined();
  });

  it('orders by precedence: the chain of semver.org §11, and the build ignored', () => {
    const chain = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '2.0.0', '2.1.0', '2.1.1', '10.0.0'];
    for (let i = 0; i + 1 < chain.length; i++) {
      expect(cmp(chain[i], chain[i + 1]), `${chain[i]} < ${chain[i + 1]}`).toBeLessThan(0);
      expect(cmp(chain[i + 1], chain[i]), `${chain[i + 1]} > ${chain[i]}`).toBeGreaterThan(0);
    }
    expect(cmp('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(cmp('1.0.0-rc.1+x', '1.0.0-rc.1')).toBe(0);
    // Numeric identifiers compare as numbers, not text.
    expect(cmp('1.0.0-2', '1.0.0-10')).toBeLessThan(0);
    expect(cmp('1.0.0-10', '1.0.0-a')).toBeLessThan(0);
  });
});
