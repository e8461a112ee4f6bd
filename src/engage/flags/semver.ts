/**
 * A strict Semantic Versioning 2.0.0 parser and its precedence (semver.org §2, §9–§11), for the
 * flags' semver operators. Strict means what the grammar says: three numeric parts without
 * leading zeros, an optional pre-release of dot-separated identifiers (numeric ones without
 * leading zeros), an optional build that precedence ignores. `1.2`, `v1.2.3` and `1.2.3.4` are
 * not versions: a condition on them does not match (docs/decisions.md).
 */

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release identifiers: numbers for numeric ones, strings otherwise; empty for a release. */
  pre: readonly (string | number)[];
}

/** Longest version text read (a version is a few characters; a bound keeps a hostile one cheap). */
export const MAX_SEMVER_LENGTH = 256;

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** The version `text` states, or undefined when it is not strict SemVer 2.0.0 (or a part exceeds 2^53 − 1). */
export function parseSemVer(text: unknown): SemVer | undefined {
  if (typeof text !== 'string' || text.length > MAX_SEMVER_LENGTH) return undefined;
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const patch = Number(m[3]);
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor) || !Number.isSafeInteger(patch)) return undefined;
  const pre: (string | number)[] = [];
  if (m[4] !== undefined) {
    for (const id of m[4].split('.')) {
      if (/^\d+$/.test(id)) {
        const n = Number(id);
        if (!Number.isSafeInteger(n)) return undefined;
        pre.push(n);
      } else pre.push(id);
    }
  }
  return { major, minor, patch, pre };
}

/** Precedence (semver.org §11): negative, zero or positive as `a` is lower than, equal to or higher than `b`. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
  // §11.3: a pre-release version has lower precedence than the release.
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  const n = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < n; i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === y) continue;
    const xn = typeof x === 'number';
    const yn = typeof y === 'number';
    // §11.4.3: numeric identifiers have lower precedence than alphanumeric ones.
    if (xn !== yn) return xn ? -1 : 1;
    // §11.4.1 numerically, §11.4.2 lexically in ASCII order.
    return x < y ? -1 : 1;
  }
  // §11.4.4: a larger set of pre-release fields has higher precedence when all before are equal.
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}
