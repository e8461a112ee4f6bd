/**
 * Hand-written validators for the spec 01 wire shapes. They run on the ingest hot path
 * (100 operations per request), so they allocate only when something is wrong and report
 * the first violation with the path of the offending field (CONVENTIONS.md "Validation").
 */

/** Stable errorCode values of a REJECTED operation and the reason behind a 400 Problem. */
export const ViolationCode = {
  required: 'REQUIRED_FIELD_MISSING',
  unknownProperty: 'UNKNOWN_PROPERTY',
  type: 'INVALID_TYPE',
  format: 'INVALID_FORMAT',
  range: 'OUT_OF_RANGE',
  unique: 'DUPLICATE_ITEM',
  value: 'INVALID_VALUE',
} as const;
export type ViolationCode = (typeof ViolationCode)[keyof typeof ViolationCode];

export interface Violation {
  code: string;
  field: string;
  message: string;
}

export function violation(code: string, field: string, reason: string): Violation {
  return { code, field, message: `${field}: ${reason}` };
}

export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** RFC 3339 date-time (the ISO 8601 profile JSON Schema's `date-time` means). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** Attribute, list, screen and flag keys: pattern K of spec 01. */
export const KEY = /^[a-z][a-z0-9_.-]{0,127}$/;
export const KEY_SOURCE = '^[a-z][a-z0-9_.-]{0,127}$';

/** The first property of `o` not in `allowed`, or undefined. */
export function extraProperty(o: Obj, allowed: ReadonlySet<string>): string | undefined {
  for (const k in o) if (!allowed.has(k)) return k;
  return undefined;
}

export function noExtra(o: Obj, allowed: ReadonlySet<string>, path: string): Violation | null {
  const k = extraProperty(o, allowed);
  return k === undefined ? null : violation(ViolationCode.unknownProperty, path + k, 'is not an allowed property');
}

/** Length in code points (JSON Schema counts characters, not UTF-16 units). */
function charLength(s: string, max: number): number {
  // Only a string longer than the bound in UTF-16 units can hide surrogate pairs that matter.
  return s.length <= max ? s.length : [...s].length;
}

export interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternText?: string;
  values?: readonly string[];
}

/** Validates a present value as a string under `rule`. */
export function checkString(v: unknown, field: string, rule: StringRule): Violation | null {
  if (typeof v !== 'string') return violation(ViolationCode.type, field, 'must be a string');
  if (rule.values !== undefined) {
    return rule.values.includes(v) ? null : violation(ViolationCode.value, field, `must be one of ${rule.values.join(', ')}`);
  }
  if (rule.max !== undefined || rule.min !== undefined) {
    const n = charLength(v, rule.max ?? Infinity);
    if (rule.min !== undefined && n < rule.min) return violation(ViolationCode.range, field, `must be at least ${rule.min} characters`);
    if (rule.max !== undefined && n > rule.max) return violation(ViolationCode.range, field, `must be at most ${rule.max} characters`);
  }
  if (rule.pattern !== undefined && !rule.pattern.test(v))
    return violation(ViolationCode.format, field, `must match ${rule.patternText ?? rule.pattern.source}`);
  return null;
}

export function checkUuid(v: unknown, field: string): Violation | null {
  if (typeof v !== 'string') return violation(ViolationCode.type, field, 'must be a string');
  return UUID.test(v) ? null : violation(ViolationCode.format, field, 'must be a UUID');
}

/** Parses a date-time to epoch ms, or NaN. */
export function parseDateTime(v: string): number {
  return DATE_TIME.test(v) ? Date.parse(v) : NaN;
}

export function checkDateTime(v: unknown, field: string): Violation | null {
  if (typeof v !== 'string') return violation(ViolationCode.type, field, 'must be a string');
  return Number.isNaN(parseDateTime(v)) ? violation(ViolationCode.format, field, 'must be an ISO 8601 date-time') : null;
}

/**
 * int64 with a lower bound. JSON numbers beyond 2^53 cannot be represented exactly in
 * JavaScript, so the accepted range stops at Number.MAX_SAFE_INTEGER (docs/decisions.md).
 */
export function checkInt(v: unknown, field: string, min: number): Violation | null {
  if (typeof v !== 'number' || !Number.isInteger(v)) return violation(ViolationCode.type, field, 'must be an integer');
  if (v < min) return violation(ViolationCode.range, field, `must be at least ${min}`);
  if (v > Number.MAX_SAFE_INTEGER) return violation(ViolationCode.range, field, `must be at most ${Number.MAX_SAFE_INTEGER}`);
  return null;
}

export function checkBoolean(v: unknown, field: string): Violation | null {
  return typeof v === 'boolean' ? null : violation(ViolationCode.type, field, 'must be a boolean');
}

export function checkObject(v: unknown, field: string): Violation | null {
  return isObject(v) ? null : violation(ViolationCode.type, field, 'must be an object');
}

export function missing(field: string): Violation {
  return violation(ViolationCode.required, field, 'is required');
}

/** An array of unique strings each satisfying `rule`. */
export function checkUniqueStrings(v: unknown, field: string, rule: StringRule): Violation | null {
  if (!Array.isArray(v)) return violation(ViolationCode.type, field, 'must be an array');
  const seen = v.length > 16 ? new Set<unknown>() : undefined;
  for (let i = 0; i < v.length; i++) {
    const bad = checkString(v[i], `${field}[${i}]`, rule);
    if (bad) return bad;
    let dup = false;
    if (seen) {
      dup = seen.has(v[i]);
      seen.add(v[i]);
    } else for (let j = 0; j < i && !dup; j++) dup = v[j] === v[i];
    if (dup) return violation(ViolationCode.unique, `${field}[${i}]`, 'duplicates an earlier item');
  }
  return null;
}
