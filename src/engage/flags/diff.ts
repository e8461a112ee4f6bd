import type { FlagDefinition } from './schemas';

/**
 * The audit trail's diff of a flag edit (issue 26 "who, when, the diff"): one entry per changed
 * top-level field; for `variants` one per variant key, for `rules` one per rule position, for
 * `targetApps` the ids added and removed. Scalars carry their values (`from`, `to`); a variant's
 * value, a rule and an app list only say what happened, so an event stays small whatever the
 * flag holds (the version itself is in flag_versions). A flag holds no secret.
 */
export interface FlagChange {
  field: string;
  change: 'added' | 'removed' | 'changed';
  from?: string | number | boolean;
  to?: string | number | boolean;
}

/** At most this many entries; the last then says how many were left out. */
export const MAX_DIFF_ENTRIES = 50;

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** What changed from `before` (null: the flag is new) to `after`. */
export function diffFlags(before: FlagDefinition | null, after: FlagDefinition): FlagChange[] {
  const out: FlagChange[] = [];
  const b = (before ?? {}) as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
  for (const f of fields) {
    const x = b[f];
    const y = a[f];
    if (same(x, y)) continue;
    if (f === 'variants') out.push(...keyed('variants', (x ?? {}) as Record<string, unknown>, (y ?? {}) as Record<string, unknown>));
    else if (f === 'rules') out.push(...positional('rules', (x ?? []) as unknown[], (y ?? []) as unknown[]));
    else if (f === 'targetApps') {
      const xs = (x ?? []) as string[];
      const ys = (y ?? []) as string[];
      for (const id of ys) if (!xs.includes(id)) out.push({ field: 'targetApps', change: 'added', to: id });
      for (const id of xs) if (!ys.includes(id)) out.push({ field: 'targetApps', change: 'removed', from: id });
    } else {
      const e: FlagChange = { field: f, change: x === undefined ? 'added' : y === undefined ? 'removed' : 'changed' };
      if (scalar(x)) e.from = x;
      if (scalar(y)) e.to = y;
      out.push(e);
    }
  }
  if (out.length <= MAX_DIFF_ENTRIES) return out;
  const kept = out.slice(0, MAX_DIFF_ENTRIES - 1);
  kept.push({ field: `… ${out.length - kept.length} more changes`, change: 'changed' });
  return kept;
}

function keyed(name: string, x: Record<string, unknown>, y: Record<string, unknown>): FlagChange[] {
  const out: FlagChange[] = [];
  for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
    if (!(k in x)) out.push({ field: `${name}.${k}`, change: 'added' });
    else if (!(k in y)) out.push({ field: `${name}.${k}`, change: 'removed' });
    else if (!same(x[k], y[k])) out.push({ field: `${name}.${k}`, change: 'changed' });
  }
  return out;
}

function positional(name: string, x: unknown[], y: unknown[]): FlagChange[] {
  const out: FlagChange[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (i >= x.length) out.push({ field: `${name}[${i}]`, change: 'added' });
    else if (i >= y.length) out.push({ field: `${name}[${i}]`, change: 'removed' });
    else if (!same(x[i], y[i])) out.push({ field: `${name}[${i}]`, change: 'changed' });
  }
  return out;
}
