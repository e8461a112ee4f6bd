/**
 * The one schema source (CONVENTIONS.md "Validation"). Schemas are written with TypeBox's
 * builders, which give JSON Schema objects and their TypeScript types (`Static`); ajv checks
 * values against them with JSON Schema's own semantics (lengths in code points, not UTF-16
 * units, which TypeBox's compiler counts); the OpenAPI document (openapi.ts) publishes the same
 * objects. Validators are compiled on first use, so start-up pays nothing for routes not yet
 * called (docs/decisions.md "Schemas").
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { nodeRequire } from '../native';
import { freeFormFault, MAX_FREE_FORM_BYTES, MAX_FREE_FORM_DEPTH } from './json-bounds';

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
  /** A free-form value nests deeper than MAX_FREE_FORM_DEPTH (json-bounds.ts). */
  depth: 'NESTING_TOO_DEEP',
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
/**
 * RFC 3339 §5.6 date-time, strictly: a real calendar day (no 2026-02-30), hours 00–23,
 * minutes 00–59, seconds 00–59 or a leap second 60 at 23:59 UTC, offsets up to ±23:59,
 * 1 to 9 fraction digits (milliseconds kept, the rest truncated as Date.parse does).
 * Returns epoch milliseconds, or NaN. Read character by character: it runs twice per
 * ingested operation (the `date-time` format, then the stored time), where a capturing regex
 * and Date.parse cost more than the rest of the operation's validation.
 */
export function parseDateTime(v: string): number {
  const n = v.length;
  if (n < 20 || n > 35) return NaN;
  const y = num(v, 0, 4);
  const mo = num(v, 5, 2);
  const d = num(v, 8, 2);
  const h = num(v, 11, 2);
  const mi = num(v, 14, 2);
  const s = num(v, 17, 2);
  if ((y | mo | d | h | mi | s) < 0) return NaN;
  if (v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || (v.charCodeAt(10) | 32) !== 116 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return NaN;
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 60) return NaN;
  let i = 19;
  let ms = 0;
  if (v.charCodeAt(i) === 46) {
    const start = ++i;
    while (i < n && isDigit(v.charCodeAt(i))) i++;
    const digits = i - start;
    if (digits < 1 || digits > 9) return NaN;
    ms = num(v, start, Math.min(digits, 3)) * (digits === 1 ? 100 : digits === 2 ? 10 : 1);
  }
  let offset = 0;
  const z = v.charCodeAt(i);
  if ((z | 32) === 122) {
    if (i + 1 !== n) return NaN;
  } else if (z === 43 || z === 45) {
    if (i + 6 !== n || v.charCodeAt(i + 3) !== 58) return NaN;
    const oh = num(v, i + 1, 2);
    const om = num(v, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return NaN;
    offset = (z === 43 ? 1 : -1) * (oh * 60 + om);
  } else return NaN;
  // Date.UTC reads years 0–99 as 1900–1999; 400 Gregorian years are exactly 146097 days.
  const early = y < 100;
  const t = Date.UTC(early ? y + 400 : y, mo - 1, d, h, mi, s === 60 ? 59 : s, ms) - (early ? 146097 * DAY : 0) - offset * 60_000;
  // A leap second is only ever inserted at 23:59:60 UTC.
  if (s === 60 && Math.floor((((t % DAY) + DAY) % DAY) / 60_000) !== 23 * 60 + 59) return NaN;
  return t;
}

const DAY = 86_400_000;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The decimal number in v[at, at + len), or -1 when one of them is not a digit. */
function num(v: string, at: number, len: number): number {
  let out = 0;
  for (let i = at; i < at + len; i++) {
    const c = v.charCodeAt(i);
    if (!isDigit(c)) return -1;
    out = out * 10 + (c - 48);
  }
  return out;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * ajv is loaded at the first validation, not at start: evaluating its modules was a fifth of the
 * executable's start-up (bench/startup.mjs). The literal `require` lets esbuild bundle it; under
 * tsx's ESM loader, where `require` does not exist, the module's own require is used.
 */
function loadAjv(): typeof Ajv2020 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred load, see above
  const mod = (typeof require === 'function' ? require('ajv/dist/2020') : nodeRequire()('ajv/dist/2020')) as { default: typeof Ajv2020 };
  return mod.default;
}

/**
 * Two compilers: the first stops at a schema's first failure (the hot paths only ask whether a
 * value conforms); the second collects every failure and compiles a schema only once a value
 * has failed it and a caller wants them all (`Checker.all`: a 400 that names each violation).
 */
let ajv: Ajv2020 | undefined;
let ajvAll: Ajv2020 | undefined;
function compiler(allErrors = false): Ajv2020 {
  if (allErrors) return (ajvAll ??= createAjv(true));
  return (ajv ??= createAjv(false));
}

function createAjv(allErrors: boolean): Ajv2020 {
  return new (loadAjv())({
    allErrors,
    strict: true,
    // TypeBox marks its schemas with symbol keys, which ajv does not see; `x-` keywords are ours.
    strictRequired: false,
    allowUnionTypes: true,
    formats: {
      uuid: UUID,
      'date-time': { type: 'string', validate: (v: string) => !Number.isNaN(parseDateTime(v)) },
      uri: { type: 'string', validate: isAbsoluteUri },
    },
    keywords: [{ keyword: FREE_FORM, schemaType: 'boolean', errors: true, validate: validateFreeForm }],
  });
}

/** Our keyword on a free-form value (FreeValue): the bounds of json-bounds.ts, walked iteratively. */
const FREE_FORM = 'x-freeForm';

function validateFreeForm(on: boolean, data: unknown): boolean {
  const fault = on ? freeFormFault(data) : null;
  (validateFreeForm as { errors?: Partial<ErrorObject>[] }).errors = fault ? [{ keyword: FREE_FORM, params: { fault } }] : [];
  return fault === null;
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
  /** Every violation of `value` (the first one per field), in schema order; empty when it conforms. */
  all(value: unknown, at?: string): Violation[];
}

/** A validator for `schema`, compiled by ajv the first time it is called. */
export function checker<S extends TSchema>(schema: S): Checker<S> {
  let fn: ValidateFunction | undefined;
  const validate = (value: unknown): ValidateFunction => {
    fn ??= compiler().compile(schema);
    fn(value);
    return fn;
  };
  let fnAll: ValidateFunction | undefined;
  const all = (value: unknown, at = ''): Violation[] => {
    if (!validate(value).errors?.length) return [];
    fnAll ??= compiler(true).compile(schema);
    fnAll(value);
    return firstPerField(narrowUnions(fnAll.errors ?? []).map((e) => toViolation(e, at)));
  };
  const check = ((value: unknown, at = '') => {
    const f = validate(value);
    if (!f.errors?.length) return null;
    // A union's first error belongs to whichever branch ajv tried first: report the branch the value chose.
    return f.errors.some((e) => e.keyword === 'anyOf') ? all(value, at)[0] : toViolation(f.errors[0], at);
  }) as Checker<S>;
  Object.defineProperties(check, {
    schema: { value: schema },
    is: { value: (value: unknown) => validate(value).errors == null },
    all: { value: all },
  });
  return check;
}

/**
 * A union of objects told apart by a constant property (an automation step's `type`) fails once
 * per branch: `steps.hook.template: is required; steps.hook.url: is not an allowed property; …`
 * for a webhook step whose only fault is its URL. Keep the errors of the branches whose constant
 * the value matches (the one it chose); when it matches none, one error naming the values allowed.
 */
function narrowUnions(errors: readonly ErrorObject[]): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, ErrorObject>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf' || drop.has(union)) continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const e of errors) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const n = e.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(n, [...(branches.get(n) ?? []), e]);
    }
    // A branch ruled out by the value: a `const` failed on one of the value's own properties.
    const ruledOut = (list: ErrorObject[]) =>
      list.find((e) => e.keyword === 'const' && e.instancePath.startsWith(`${union.instancePath}/`) && !e.instancePath.slice(union.instancePath.length + 1).includes('/'));
    const discriminators = [...branches.values()].map(ruledOut);
    const kept = [...branches.values()].filter((_, i) => !discriminators[i]);
    if (kept.length === branches.size) continue;
    for (const [i, list] of [...branches.values()].entries()) if (discriminators[i]) list.forEach((e) => drop.add(e));
    if (kept.length === 1) drop.add(union);
    if (kept.length === 0) {
      const consts = discriminators.filter((e): e is ErrorObject => e !== undefined && e.instancePath === discriminators[0]!.instancePath);
      if (consts.length === branches.size) {
        const allowedValues = consts.map((e) => (e.params as { allowedValue: unknown }).allowedValue);
        replaced.set(union, { ...consts[0], keyword: 'enum', schemaPath: union.schemaPath, params: { allowedValues } });
      }
    }
  }
  return errors.flatMap((e) => replaced.get(e) ?? (drop.has(e) ? [] : [e]));
}

/**
 * One violation per field: a union (`Nullable`) fails once per branch and once as a whole at
 * the same path, and the first of them is the one `checker` reports alone.
 */
function firstPerField(list: Violation[]): Violation[] {
  const seen = new Set<string>();
  return list.filter((v) => !seen.has(v.field) && seen.add(v.field));
}

/** Longest text `describeViolations` returns (within the api family's error_description bound). */
export const MAX_VIOLATIONS_TEXT = 900;

/**
 * Violations as one line for people (`field: reason; field: reason`), as many as fit in
 * MAX_VIOLATIONS_TEXT characters, then how many were left out.
 */
export function describeViolations(list: readonly Violation[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const next = out === '' ? list[i].message : `${out}; ${list[i].message}`;
    const rest = list.length - i - 1;
    // Room for the count of those left out, should any be.
    const tail = rest > 0 ? `; and ${list.length - i} more violations`.length : 0;
    if (next.length + tail > MAX_VIOLATIONS_TEXT && out !== '') return `${out}; and ${list.length - i} more violations`;
    out = next;
  }
  return out;
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
    case FREE_FORM:
      if (p.fault === 'depth') return violation(ViolationCode.depth, field, `must not nest arrays and objects more than ${MAX_FREE_FORM_DEPTH} levels deep`);
      if (p.fault === 'size') return violation(ViolationCode.range, field, `must be at most ${MAX_FREE_FORM_BYTES} bytes as JSON`);
      return violation(ViolationCode.value, field, 'must hold only finite numbers');
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
/**
 * A free-form JSON value (a template variable, custom data, an import record): any shape within
 * one set of bounds for every API (json-bounds.ts), named by its own path when it breaks them.
 */
export const FreeValue = (opts: { description?: string } = {}) => Type.Unsafe<unknown>({ [FREE_FORM]: true, ...opts });
export const Enum = <V extends string>(values: readonly V[], opts: { description?: string } = {}) =>
  Type.Unsafe<V>({ type: 'string', enum: [...values], ...opts });

/**
 * Checks a service's input against its schema: the HTTP API and the CLI call the same service,
 * so both report the same message for the same bad value, naming every violation (issue 23).
 * Returns the value, now typed.
 */
export function validInput<S extends TSchema>(check: Checker<S>, value: unknown, error: (message: string) => Error): Static<S> {
  const bad = check.all(value);
  if (bad.length > 0) throw error(describeViolations(bad));
  return value as Static<S>;
}

/** RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E, one or more. */
export const ScopeToken = () => Type.String({ pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$', description: 'scope-token (RFC 6749 §3.3)' });
