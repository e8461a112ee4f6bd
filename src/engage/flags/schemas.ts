/**
 * A feature flag's definition (issue 26 "FEATURE_FLAGS"): the shape (TypeBox, checked by ajv like
 * every other schema) and the rules a schema cannot state (variant references, weights that sum,
 * values of the flag's kind, operators fit for their attribute and values). Conditions are data:
 * an attribute reference, an operator, values and a negation; evaluate.ts compiles them.
 * Every bound is named here and in docs/decisions.md "Flag evaluation core".
 */
import { checker, Enum, FreeValue, parseDateTime, Strict, T, Uuid, violation, ViolationCode, type Static, type Violation } from '../../platform/http/schema';
import { freeFormFault, hasNul, NUL_REASON } from '../../platform/http/json-bounds';
import { FreeObject, Key, KEY_PATTERN, PLATFORMS } from '../shared/schemas';
import { parseSemVer } from './semver';
import { BUCKETS } from './bucketing';

export const FlagBounds = {
  descriptionLength: 1_000,
  variants: 50,
  /** A STRING variant's value, in characters. */
  stringValueLength: 4_096,
  /** A JSON variant's value, as JSON in UTF-8. */
  jsonValueBytes: 16 * 1024,
  /** All of a flag's variant values together, as JSON in UTF-8. */
  variantsBytes: 64 * 1024,
  targetApps: 50,
  rules: 100,
  conditionsPerRule: 20,
  /** Values of one condition (an explicit installation or external-id list is one condition). */
  valuesPerCondition: 1_000,
  /** Values of all a flag's conditions together. */
  valuesPerFlag: 10_000,
  /** One condition value (a string), in characters. */
  valueLength: 255,
} as const;

export const FLAG_KINDS = ['BOOLEAN', 'STRING', 'NUMBER', 'JSON'] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];
export const FLAG_STATUSES = ['ACTIVE', 'ARCHIVED'] as const;
/** Whose identifier a split hashes (docs/decisions.md "Flag evaluation core": the unit rule). */
export const BUCKETING_UNITS = ['installation', 'profile', 'profile-sticky'] as const;
export type BucketingUnit = (typeof BUCKETING_UNITS)[number];
export const SUBSCRIPTION_CHANNELS = ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] as const;

export const OPERATORS = [
  'equals', 'in', 'notIn', 'contains', 'startsWith',
  'lt', 'lte', 'gt', 'gte',
  'before', 'after',
  'semverEq', 'semverLt', 'semverLte', 'semverGt', 'semverGte',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

/**
 * What an attribute reference names, and so which operators fit it:
 * string (a built-in text of the installation or the profile's external id), version (app and
 * OS version: text and semver), set (subscriptions and tags: contains, exists), presence
 * (`profile`: bound or not), free (an installation or profile attribute: any operator, the
 * value's type decides at evaluation).
 */
export type AttributeType = 'string' | 'version' | 'set' | 'presence' | 'free';

const KEY = KEY_PATTERN.slice(1, -1);
const CHANNEL = SUBSCRIPTION_CHANNELS.join('|');
/** Attribute references (docs/decisions.md lists them). */
export const ATTRIBUTE_PATTERN =
  `^(?:installationId|app|platform|appVersion|osVersion|locale|timeZone|installation\\.subscriptions|profile|profile\\.externalId|profile\\.tags|profile\\.subscriptions(?:\\.(?:${CHANNEL}))?|(?:installation|profile)\\.attributes\\.${KEY})$`;

export function attributeType(ref: string): AttributeType {
  switch (ref) {
    case 'installationId':
    case 'app':
    case 'platform':
    case 'locale':
    case 'timeZone':
    case 'profile.externalId':
      return 'string';
    case 'appVersion':
    case 'osVersion':
      return 'version';
    case 'profile':
      return 'presence';
    default:
      return ref.includes('.attributes.') ? 'free' : 'set';
  }
}

const STRING_OPS: readonly Operator[] = ['equals', 'in', 'notIn', 'contains', 'startsWith', 'exists'];
const SEMVER_OPS: readonly Operator[] = ['semverEq', 'semverLt', 'semverLte', 'semverGt', 'semverGte'];
export const OPERATORS_FOR: Record<AttributeType, readonly Operator[]> = {
  string: STRING_OPS,
  version: [...STRING_OPS, ...SEMVER_OPS],
  set: ['contains', 'exists'],
  presence: ['exists'],
  free: OPERATORS,
};

/** Seeds and experiment ids are hashed: printable ASCII only (bucketing.ts). */
const AsciiId = (description: string) => T.String({ pattern: '^[\\x21-\\x7E]{1,255}$', description });
const Weight = () => T.Integer({ minimum: 0, maximum: BUCKETS, description: 'parts of 10,000' });

const ConditionValue = T.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'], maxLength: FlagBounds.valueLength });

export const FlagCondition = Strict({
  attribute: T.String({ pattern: ATTRIBUTE_PATTERN, description: 'what the condition reads (docs/decisions.md "Flag evaluation core")' }),
  operator: Enum(OPERATORS),
  values: T.Optional(T.Array(ConditionValue, { maxItems: FlagBounds.valuesPerCondition })),
  negate: T.Optional(T.Boolean({ description: 'inverts the operator on a present value of the right type; never makes a missing one match' })),
});
export type FlagCondition = Static<typeof FlagCondition>;

const Split = T.Array(Strict({ variant: Key(), weight: Weight() }), { minItems: 1, maxItems: FlagBounds.variants });

export const FlagRule = Strict({
  conditions: T.Optional(T.Array(FlagCondition, { maxItems: FlagBounds.conditionsPerRule, description: 'all must hold; none: every context' })),
  /** Exactly one of variant, rollout, experiment. */
  variant: T.Optional(Key({ description: 'serve this variant (TARGETING_MATCH)' })),
  rollout: T.Optional(Strict({ seed: T.Optional(AsciiId('hash seed; default the flag\'s')), variants: Split })),
  experiment: T.Optional(
    Strict({
      experimentId: AsciiId('reported back by FLAG_EXPOSED; also the default hash seed'),
      seed: T.Optional(AsciiId('hash seed; default the experimentId')),
      variants: Split,
      coverage: T.Integer({ minimum: 0, maximum: BUCKETS, description: 'parts of 10,000 in the experiment' }),
    }),
  ),
});
export type FlagRule = Static<typeof FlagRule>;

export const FlagDefinition = Strict({
  key: Key(),
  description: T.Optional(T.String({ maxLength: FlagBounds.descriptionLength })),
  kind: Enum(FLAG_KINDS),
  variants: FreeObject({
    propertyNames: { pattern: KEY_PATTERN },
    maxProperties: FlagBounds.variants,
    values: FreeValue(),
    description: 'variant key → value of the flag\'s kind',
  }),
  defaultVariant: Key(),
  offVariant: Key(),
  status: Enum(FLAG_STATUSES),
  targetApps: T.Optional(T.Array(Uuid(), { maxItems: FlagBounds.targetApps, uniqueItems: true, description: 'app ids; absent or empty: every app' })),
  bucketBy: Enum(BUCKETING_UNITS),
  seed: T.Optional(AsciiId('hash seed of the flag\'s rollouts; default the flag key')),
  rules: T.Array(FlagRule, { maxItems: FlagBounds.rules }),
});
export type FlagDefinition = Static<typeof FlagDefinition>;

const checkShape = checker(FlagDefinition);

/** Every violation of `value` as a flag definition: its shape first, then the rules across fields. */
export function flagViolations(value: unknown, at = ''): Violation[] {
  const shape = checkShape.all(value, at);
  if (shape.length > 0) return shape;
  const nul = nulAt(value, at);
  if (nul !== undefined) return [violation(ViolationCode.value, nul, NUL_REASON)];
  return crossFieldViolations(value as FlagDefinition, at);
}

/**
 * The path of the first string or property name holding NUL (U+0000), which PostgreSQL's text and
 * jsonb cannot store: the HTTP body reader refuses it, a CLI file or a service call must too.
 * Recursion is safe: the shape (free-form values included) is already bounded in depth.
 */
function nulAt(v: unknown, at: string): string | undefined {
  if (typeof v === 'string') return hasNul(v) ? at : undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = nulAt(v[i], `${at}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v)) {
    const here = field(at, k.replaceAll('\0', '\\u0000'));
    if (hasNul(k)) return here;
    const found = nulAt(x, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

const field = (at: string, name: string) => (at === '' ? name : `${at}.${name}`);

function crossFieldViolations(flag: FlagDefinition, at: string): Violation[] {
  const out: Violation[] = [];
  const variants = flag.variants;
  const names = Object.keys(variants);
  if (names.length === 0) out.push(violation(ViolationCode.range, field(at, 'variants'), 'must have at least 1 property'));
  let bytes = 0;
  for (const name of names) {
    const v = variants[name];
    const where = field(at, `variants.${name}`);
    const wrong = kindProblem(flag.kind, v);
    if (wrong) out.push(violation(wrong.code, where, wrong.reason));
    bytes += Buffer.byteLength(JSON.stringify(v) ?? '');
  }
  if (bytes > FlagBounds.variantsBytes) out.push(violation(ViolationCode.range, field(at, 'variants'), `must be at most ${FlagBounds.variantsBytes} bytes as JSON together`));
  const known = (key: string) => Object.prototype.hasOwnProperty.call(variants, key);
  for (const name of ['defaultVariant', 'offVariant'] as const) {
    if (!known(flag[name])) out.push(violation(ViolationCode.value, field(at, name), `names no variant of the flag (${flag[name]})`));
  }
  const experiments = new Set<string>();
  let values = 0;
  flag.rules.forEach((rule, i) => {
    const r = field(at, `rules[${i}]`);
    const serves = [rule.variant, rule.rollout, rule.experiment].filter((x) => x !== undefined).length;
    if (serves !== 1) out.push(violation(ViolationCode.value, r, 'must have exactly one of variant, rollout, experiment'));
    if (rule.variant !== undefined && !known(rule.variant)) out.push(violation(ViolationCode.value, `${r}.variant`, `names no variant of the flag (${rule.variant})`));
    if (rule.rollout) out.push(...splitViolations(rule.rollout.variants, `${r}.rollout.variants`, known));
    if (rule.experiment) {
      out.push(...splitViolations(rule.experiment.variants, `${r}.experiment.variants`, known));
      const id = rule.experiment.experimentId;
      if (experiments.has(id)) out.push(violation(ViolationCode.unique, `${r}.experiment.experimentId`, 'is the experimentId of an earlier rule'));
      experiments.add(id);
    }
    (rule.conditions ?? []).forEach((c, j) => {
      values += c.values?.length ?? 0;
      out.push(...conditionViolations(c, `${r}.conditions[${j}]`));
    });
  });
  if (values > FlagBounds.valuesPerFlag) out.push(violation(ViolationCode.range, field(at, 'rules'), `must hold at most ${FlagBounds.valuesPerFlag} condition values together`));
  return out;
}

function kindProblem(kind: FlagKind, v: unknown): { code: string; reason: string } | undefined {
  switch (kind) {
    case 'BOOLEAN':
      return typeof v === 'boolean' ? undefined : { code: ViolationCode.type, reason: 'must be a boolean (the flag is BOOLEAN)' };
    case 'NUMBER':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : { code: ViolationCode.type, reason: 'must be a finite number (the flag is NUMBER)' };
    case 'STRING':
      if (typeof v !== 'string') return { code: ViolationCode.type, reason: 'must be a string (the flag is STRING)' };
      return v.length > FlagBounds.stringValueLength ? { code: ViolationCode.range, reason: `must be at most ${FlagBounds.stringValueLength} characters` } : undefined;
    case 'JSON': {
      if (v === null || v === undefined) return { code: ViolationCode.type, reason: 'must be a JSON value other than null (null is no variant)' };
      if (freeFormFault(v) !== null) return undefined; // the schema's FreeValue reported it already
      return Buffer.byteLength(JSON.stringify(v)) > FlagBounds.jsonValueBytes ? { code: ViolationCode.range, reason: `must be at most ${FlagBounds.jsonValueBytes} bytes as JSON` } : undefined;
    }
  }
}

function splitViolations(split: readonly { variant: string; weight: number }[], at: string, known: (k: string) => boolean): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  let sum = 0;
  split.forEach((s, i) => {
    if (!known(s.variant)) out.push(violation(ViolationCode.value, `${at}[${i}].variant`, `names no variant of the flag (${s.variant})`));
    if (seen.has(s.variant)) out.push(violation(ViolationCode.unique, `${at}[${i}].variant`, 'appears twice in the split'));
    seen.add(s.variant);
    sum += s.weight;
  });
  if (sum !== BUCKETS) out.push(violation(ViolationCode.value, at, `weights must sum to ${BUCKETS} (parts of 10,000), not ${sum}`));
  return out;
}

/** How many values an operator takes, and of which type. */
type ValueRule = { count: 'none' | 'one' | 'some'; of: 'scalar' | 'string' | 'number' | 'date' | 'semver' };
export const OPERATOR_VALUES: Record<Operator, ValueRule> = {
  equals: { count: 'one', of: 'scalar' },
  in: { count: 'some', of: 'scalar' },
  notIn: { count: 'some', of: 'scalar' },
  contains: { count: 'some', of: 'string' },
  startsWith: { count: 'some', of: 'string' },
  lt: { count: 'one', of: 'number' },
  lte: { count: 'one', of: 'number' },
  gt: { count: 'one', of: 'number' },
  gte: { count: 'one', of: 'number' },
  before: { count: 'one', of: 'date' },
  after: { count: 'one', of: 'date' },
  semverEq: { count: 'one', of: 'semver' },
  semverLt: { count: 'one', of: 'semver' },
  semverLte: { count: 'one', of: 'semver' },
  semverGt: { count: 'one', of: 'semver' },
  semverGte: { count: 'one', of: 'semver' },
  exists: { count: 'none', of: 'scalar' },
};

/** The violations of one condition: its operator fits the attribute, its values fit the operator (in-app audiences reuse it). */
export function conditionViolations(c: FlagCondition, at: string): Violation[] {
  const type = attributeType(c.attribute);
  if (!OPERATORS_FOR[type].includes(c.operator)) {
    return [violation(ViolationCode.value, `${at}.operator`, `${c.operator} does not apply to ${c.attribute} (allowed: ${OPERATORS_FOR[type].join(', ')})`)];
  }
  const rule = OPERATOR_VALUES[c.operator];
  const values = c.values ?? [];
  if (rule.count === 'none') return values.length === 0 ? [] : [violation(ViolationCode.value, `${at}.values`, `must be absent or empty for ${c.operator}`)];
  if (rule.count === 'one' && values.length !== 1) return [violation(ViolationCode.range, `${at}.values`, `must hold exactly 1 value for ${c.operator}`)];
  if (values.length === 0) return [violation(ViolationCode.range, `${at}.values`, `must hold at least 1 value for ${c.operator}`)];
  // Text attributes only ever hold strings: a number or boolean could never match.
  const of = rule.of === 'scalar' && type !== 'free' ? 'string' : rule.of;
  const out: Violation[] = [];
  values.forEach((v, i) => {
    const reason = valueProblem(of, v);
    if (reason) out.push(violation(ViolationCode.type, `${at}.values[${i}]`, reason));
    else if (c.attribute === 'platform' && !(PLATFORMS as readonly unknown[]).includes(v)) {
      out.push(violation(ViolationCode.value, `${at}.values[${i}]`, `must be one of ${PLATFORMS.join(', ')}`));
    }
  });
  if (of === 'scalar' && values.length > 1 && new Set(values.map((v) => typeof v)).size > 1) {
    out.push(violation(ViolationCode.type, `${at}.values`, 'must all be of one type'));
  }
  return out;
}

function valueProblem(of: ValueRule['of'], v: string | number | boolean): string | undefined {
  switch (of) {
    case 'scalar':
      return typeof v === 'number' && !Number.isFinite(v) ? 'must be a finite number' : undefined;
    case 'string':
      return typeof v === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a finite number';
    case 'date':
      return typeof v === 'string' && !Number.isNaN(parseDateTime(v)) ? undefined : 'must be an RFC 3339 date-time';
    case 'semver':
      return parseSemVer(v) ? undefined : 'must be a strict semantic version (MAJOR.MINOR.PATCH[-pre][+build])';
  }
}
