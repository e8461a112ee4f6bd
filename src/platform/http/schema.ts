/**
 * The one schema source (CONVENTIONS.md "Validation"). Schemas are written with TypeBox's
 * builders, which give JSON Schema objects and their TypeScript types (`Static`); ajv checks
 * values against them with JSON Schema's own semantics (lengths in code points, not UTF-16
 * units, which TypeBox's compiler counts); the OpenAPI document (openapi.ts) publishes the same
 * objects. Validators are compiled on first use, so start-up pays nothing for routes not yet
 * called (docs/decisions.md "Schemas").
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';

export { Type as T, type Static, type TSchema };

/** Stable codes of a violation: a REJECTED operation's errorCode, and the reason behind a 400. */
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
  /** The offending field as a path (`operations[3].payload.name`), '' for the value itself. */
  field: string;
  /** `field: reason`, fit to show a developer. */
  message: string;
}

export function violation(code: string, field: string, reason: string): Violation {
  return { code, field, message: field ? `${field}: ${reason}` : reason };
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * RFC 3339 §5.6 date-time, strictly: a real calendar day (no 2026-02-30), hours 00–23,
 * minutes 00–59, seconds 00–59 or a leap second 60 at 23:59 UTC, offsets up to ±23:59.
 * Returns epoch milliseconds, or NaN.
 */
export function parseDateTime(v: string): number {
  const m = DATE_TIME.exec(v);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 60) return NaN;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return NaN;
  const ms = Date.parse(s === 60 ? v.replace(/:60(?=[.Zz+-])/, ':59') : v);
  if (s === 60 && new Date(ms).getUTCHours() * 60 + new Date(ms).getUTCMinutes() !== 23 * 60 + 59) return NaN;
  return ms;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

let ajv: Ajv2020 | undefined;
function compiler(): Ajv2020 {
  ajv ??= new Ajv2020({
    allErrors: false,
    strict: true,
    // TypeBox marks its schemas with symbol keys, which ajv does not see; `x-` keywords are ours.
    strictRequired: false,
    allowUnionTypes: true,
    formats: {
      uuid: UUID,
      'date-time': { type: 'string', validate: (v: string) => !Number.isNaN(parseDateTime(v)) },
      uri: { type: 'string', validate: isAbsoluteUri },
    },
  });
  return ajv;
}

function isAbsoluteUri(v: string): boolean {
  if (!URL.canParse(v)) return false;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(v);
}

export interface Checker<S extends TSchema> {
  /** The first violation of `value`, or null when it conforms (and is then a `Static<S>`). */
  (value: unknown, at?: string): Violation | null;
  readonly schema: S;
  /** Narrowing form for callers that only need yes or no. */
  is(value: unknown): value is Static<S>;
}

/** A validator for `schema`, compiled by ajv the first time it is called. */
export function checker<S extends TSchema>(schema: S): Checker<S> {
  let fn: ValidateFunction | undefined;
  const validate = (value: unknown): ValidateFunction => {
    fn ??= compiler().compile(schema);
    fn(value);
    return fn;
  };
  const check = ((value: unknown, at = '') => {
    const f = validate(value);
    return f.errors?.length ? toViolation(f.errors[0], at) : null;
  }) as Checker<S>;
  Object.defineProperties(check, {
    schema: { value: schema },
    is: { value: (value: unknown) => validate(value).errors == null },
  });
  return check;
}

/** `/operations/3/payload/name` under `at` → `at.operations[3].payload.name`. */
export function fieldPath(pointer: string, at = ''): string {
  let out = at;
  if (pointer === '') return out;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

function join(base: string, name: string): string {
  return base === '' ? name : `${base}.${name}`;
}

/** Maps ajv's first error to our codes and wording (the field named, the bound stated). */
export function toViolation(e: ErrorObject, at = ''): Violation {
  const field = fieldPath(e.instancePath, at);
  const p = e.params as Record<string, unknown>;
  // A `propertyNames` failure is reported first as the failing rule on the name itself
  // (ajv sets `propertyName`): name the property, not its object.
  if (e.propertyName !== undefined && e.keyword !== 'propertyNames') {
    const reason = e.keyword === 'pattern' ? `property name must match ${p.pattern}` : 'is not an allowed property name';
    return violation(ViolationCode.format, join(field, e.propertyName), reason);
  }
  switch (e.keyword) {
    case 'required':
      return violation(ViolationCode.required, join(field, String(p.missingProperty)), 'is required');
    case 'additionalProperties':
      return violation(ViolationCode.unknownProperty, join(field, String(p.additionalProperty)), 'is not an allowed property');
    case 'propertyNames':
      return violation(ViolationCode.format, join(field, String(p.propertyName)), 'is not an allowed property name');
    case 'type': {
      const t = String(p.type).split(',');
      return violation(ViolationCode.type, field, `must be ${t.map(article).join(' or ')}`);
    }
    case 'const':
      return violation(ViolationCode.value, field, `must be ${JSON.stringify(p.allowedValue)}`);
    case 'enum':
      return violation(ViolationCode.value, field, `must be one of ${(p.allowedValues as unknown[]).join(', ')}`);
    case 'format':
      return violation(ViolationCode.format, field, `must be ${FORMAT_NAMES[String(p.format)] ?? `a ${p.format}`}`);
    case 'pattern':
      return violation(ViolationCode.format, field, `must match ${p.pattern}`);
    case 'minLength':
      return violation(ViolationCode.range, field, `must be at least ${plural(p.limit, 'character')}`);
    case 'maxLength':
      return violation(ViolationCode.range, field, `must be at most ${plural(p.limit, 'character')}`);
    case 'minItems':
      return violation(ViolationCode.range, field, `must have at least ${plural(p.limit, 'item')}`);
    case 'maxItems':
      return violation(ViolationCode.range, field, `must have at most ${plural(p.limit, 'item')}`);
    case 'minProperties':
      return violation(ViolationCode.range, field, `must have at least ${plural(p.limit, 'property', 'properties')}`);
    case 'maxProperties':
      return violation(ViolationCode.range, field, `must have at most ${plural(p.limit, 'property', 'properties')}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return violation(ViolationCode.range, field, `must be ${p.comparison} ${p.limit}`);
    case 'uniqueItems':
      // ajv names the pair (i, j) in either order; the later one is the duplicate.
      return violation(ViolationCode.unique, `${field}[${Math.max(Number(p.i), Number(p.j))}]`, 'duplicates an earlier item');
    default:
      return violation(ViolationCode.value, field, e.message ?? 'is not valid');
  }
}

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID',
  'date-time': 'an RFC 3339 date-time',
  uri: 'an absolute URI',
};

function plural(n: unknown, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function article(type: string): string {
  return type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : type === 'null' ? 'null' : `a ${type}`;
}

// Builders for shapes the contract repeats.

/** A nullable value: `T | null` (the contract's "string or null"). */
export const Nullable = <S extends TSchema>(s: S) => Type.Union([s, Type.Null()]);
/** A closed object: the contract's "no additional properties". */
export const Strict = <P extends Parameters<typeof Type.Object>[0]>(props: P, opts: Parameters<typeof Type.Object>[1] = {}) =>
  Type.Object(props, { ...opts, additionalProperties: false });
export const Uuid = (opts: { description?: string } = {}) => Type.String({ format: 'uuid', ...opts });
export const DateTime = (opts: { description?: string } = {}) => Type.String({ format: 'date-time', ...opts });
/** int64 as JSON carries it here: integers up to 2^53 − 1 (docs/decisions.md). */
export const Int64 = (min: number, opts: { description?: string } = {}) =>
  Type.Integer({ minimum: min, maximum: Number.MAX_SAFE_INTEGER, ...opts });
export const Enum = <V extends string>(values: readonly V[], opts: { description?: string } = {}) =>
  Type.Unsafe<V>({ type: 'string', enum: [...values], ...opts });
