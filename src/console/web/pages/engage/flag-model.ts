/**
 * The feature flags' shapes as the engagement administration API answers them (docs/flags.md),
 * the lists a rule is built from, and the form's draft of a flag with its conversion to and from
 * the flag file. The lists are copies of src/engage/flags/schemas.ts (the bundle cannot import
 * server code); the server checks every file it is sent, so a list out of date here is refused
 * there with the field named, never stored.
 */

export const FLAG_KINDS = ['BOOLEAN', 'STRING', 'NUMBER', 'JSON'] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];
export const BUCKETING_UNITS = ['installation', 'profile', 'profile-sticky'] as const;
export const BUCKETS = 10_000;

export const OPERATORS = [
  'equals', 'in', 'notIn', 'contains', 'startsWith',
  'lt', 'lte', 'gt', 'gte',
  'before', 'after',
  'semverEq', 'semverLt', 'semverLte', 'semverGt', 'semverGte',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];
type AttributeType = 'string' | 'version' | 'set' | 'presence' | 'free';

/** The attribute references a condition may name; the two `…attributes.` ones take a key after them. */
export const ATTRIBUTES = [
  'installationId', 'app', 'platform', 'appVersion', 'osVersion', 'locale', 'timeZone', 'installation.subscriptions',
  'profile', 'profile.externalId', 'profile.tags', 'profile.subscriptions',
  'profile.subscriptions.PUSH', 'profile.subscriptions.EMAIL', 'profile.subscriptions.SMS', 'profile.subscriptions.WHATSAPP',
  'installation.attributes.', 'profile.attributes.',
] as const;
export const KEYED_ATTRIBUTES = ['installation.attributes.', 'profile.attributes.'];

function attributeType(ref: string): AttributeType {
  if (['installationId', 'app', 'platform', 'locale', 'timeZone', 'profile.externalId'].includes(ref)) return 'string';
  if (ref === 'appVersion' || ref === 'osVersion') return 'version';
  if (ref === 'profile') return 'presence';
  return ref.includes('.attributes.') ? 'free' : 'set';
}
const STRING_OPS: readonly Operator[] = ['equals', 'in', 'notIn', 'contains', 'startsWith', 'exists'];
const OPERATORS_FOR: Record<AttributeType, readonly Operator[]> = {
  string: STRING_OPS,
  version: [...STRING_OPS, 'semverEq', 'semverLt', 'semverLte', 'semverGt', 'semverGte'],
  set: ['contains', 'exists'],
  presence: ['exists'],
  free: OPERATORS,
};
/** The operators that fit an attribute (as the server checks them). */
export const operatorsFor = (attribute: string): readonly Operator[] => OPERATORS_FOR[attributeType(attribute)];
const NUMERIC_OPS: readonly string[] = ['lt', 'lte', 'gt', 'gte'];

export interface Condition {
  attribute: string;
  operator: Operator;
  values?: (string | number | boolean)[];
  negate?: boolean;
}
export interface Split {
  variant: string;
  weight: number;
}
export interface Rule {
  conditions?: Condition[];
  variant?: string;
  rollout?: { seed?: string; variants: Split[] };
  experiment?: { experimentId: string; seed?: string; variants: Split[]; coverage: number };
}
export interface Definition {
  key: string;
  description?: string;
  kind: FlagKind;
  variants: Record<string, unknown>;
  defaultVariant: string;
  offVariant: string;
  status: 'ACTIVE' | 'ARCHIVED';
  targetApps?: string[];
  bucketBy: (typeof BUCKETING_UNITS)[number];
  seed?: string;
  rules: Rule[];
}
export interface Flag {
  environmentId: string;
  key: string;
  kind: FlagKind;
  description: string | null;
  status: 'ACTIVE' | 'ARCHIVED';
  version: number;
  revision: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}
export interface FlagDetailBody extends Flag {
  definition: Definition;
  changed?: boolean;
}

/** A condition as the form edits it: the attribute split in its reference and key, the values as text. */
export interface ConditionDraft {
  attribute: string;
  attributeKey: string;
  operator: Operator;
  values: string;
  negate: boolean;
}
export type Serve = 'variant' | 'rollout' | 'experiment';
export interface RuleDraft {
  conditions: ConditionDraft[];
  serve: Serve;
  variant: string;
  split: Split[];
  experimentId: string;
  coverage: number;
  /** Seeds are kept as read (the form does not edit them). */
  rolloutSeed?: string;
  experimentSeed?: string;
}
export interface VariantDraft {
  key: string;
  value: string;
}
export interface FlagDraft {
  key: string;
  description: string;
  kind: FlagKind;
  variants: VariantDraft[];
  defaultVariant: string;
  offVariant: string;
  bucketBy: Definition['bucketBy'];
  targetApps: string[];
  seed?: string;
  status: Definition['status'];
  rules: RuleDraft[];
}

export const newDraft = (): FlagDraft => ({
  key: '',
  description: '',
  kind: 'BOOLEAN',
  variants: [
    { key: 'on', value: 'true' },
    { key: 'off', value: 'false' },
  ],
  defaultVariant: 'off',
  offVariant: 'off',
  bucketBy: 'profile-sticky',
  targetApps: [],
  status: 'ACTIVE',
  rules: [],
});

const valueText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export function newCondition(): ConditionDraft {
  return { attribute: 'appVersion', attributeKey: '', operator: 'semverGte', values: '', negate: false };
}

export function newRule(variants: string[]): RuleDraft {
  const [a = '', b] = variants;
  // A rollout starts with its first variant at 0% (the slider then raises it); a flag of one variant has a split of one.
  const split = b === undefined ? [{ variant: a, weight: BUCKETS }] : [{ variant: a, weight: 0 }, { variant: b, weight: BUCKETS }];
  return { conditions: [newCondition()], serve: 'rollout', variant: a, split, experimentId: '', coverage: BUCKETS };
}

/**
 * equals, in and notIn on an installation's or profile's own attribute compare values of any
 * scalar type: there `5` is a number, `true` a boolean and `"5"` the text 5, so a flag read and
 * saved again keeps each value's type. Elsewhere the server takes text only (numbers for lt…gte).
 */
const typedScalars = (attribute: string, operator: string) => attribute.includes('.attributes.') && ['equals', 'in', 'notIn'].includes(operator);
const looksTyped = (t: string) => t === 'true' || t === 'false' || t.startsWith('"') || (t.trim() !== '' && Number.isFinite(Number(t)));

/** A stored condition as the form edits it. */
export function conditionDraft(c: Condition): ConditionDraft {
  const keyed = KEYED_ATTRIBUTES.find((p) => c.attribute.startsWith(p));
  const typed = typedScalars(c.attribute, c.operator);
  const text = (v: string | number | boolean) => (typeof v !== 'string' ? String(v) : typed && looksTyped(v) ? JSON.stringify(v) : v);
  return {
    attribute: keyed ?? c.attribute,
    attributeKey: keyed ? c.attribute.slice(keyed.length) : '',
    operator: c.operator,
    values: (c.values ?? []).map(text).join(', '),
    negate: !!c.negate,
  };
}

export function draftOf(d: Definition): FlagDraft {
  return {
    key: d.key,
    description: d.description ?? '',
    kind: d.kind,
    variants: Object.entries(d.variants).map(([key, v]) => ({ key, value: d.kind === 'JSON' ? JSON.stringify(v) : valueText(v) })),
    defaultVariant: d.defaultVariant,
    offVariant: d.offVariant,
    bucketBy: d.bucketBy,
    targetApps: d.targetApps ?? [],
    seed: d.seed,
    status: d.status,
    rules: d.rules.map((r) => ({
      conditions: (r.conditions ?? []).map(conditionDraft),
      serve: r.experiment ? 'experiment' : r.rollout ? 'rollout' : 'variant',
      variant: r.variant ?? Object.keys(d.variants)[0] ?? '',
      split: (r.rollout ?? r.experiment)?.variants.map((s) => ({ ...s })) ?? [],
      experimentId: r.experiment?.experimentId ?? '',
      coverage: r.experiment?.coverage ?? BUCKETS,
      rolloutSeed: r.rollout?.seed,
      experimentSeed: r.experiment?.seed,
    })),
  };
}

/** A variant's typed value of the flag's kind, or an Error in words naming the variant. */
function variantValue(kind: FlagKind, v: VariantDraft): unknown {
  const where = `Variant ${v.key || '(no key)'}`;
  if (kind === 'STRING') return v.value;
  if (kind === 'BOOLEAN') {
    if (v.value !== 'true' && v.value !== 'false') throw new Error(`${where}: a BOOLEAN flag's value is true or false.`);
    return v.value === 'true';
  }
  if (kind === 'NUMBER') {
    const n = Number(v.value);
    if (v.value.trim() === '' || !Number.isFinite(n)) throw new Error(`${where}: a NUMBER flag's value is a number.`);
    return n;
  }
  try {
    return JSON.parse(v.value) as unknown;
  } catch {
    throw new Error(`${where}: a JSON flag's value is JSON (a string in double quotes, an object, a list, a number).`);
  }
}

/** Comma-separated values: numbers for the numeric comparisons, typed scalars where they apply, text otherwise. */
function conditionValues(c: ConditionDraft, attribute: string): (string | number | boolean)[] | undefined {
  if (c.operator === 'exists') return undefined;
  const parts = c.values.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (NUMERIC_OPS.includes(c.operator)) return parts.map((p) => (Number.isFinite(Number(p)) ? Number(p) : p));
  if (!typedScalars(attribute, c.operator)) return parts;
  return parts.map((p) => {
    if (!looksTyped(p)) return p;
    try {
      return JSON.parse(p) as string | number | boolean;
    } catch {
      return p;
    }
  });
}

/** The condition a form row stands for (a flag rule's, an in-app message's audience). */
export function conditionOf(c: ConditionDraft): Condition {
  const attribute = KEYED_ATTRIBUTES.includes(c.attribute) ? c.attribute + c.attributeKey : c.attribute;
  const values = conditionValues(c, attribute);
  return { attribute, operator: c.operator, ...(values ? { values } : {}), ...(c.negate ? { negate: true } : {}) };
}

function ruleOf(r: RuleDraft): Rule {
  const conditions = r.conditions.map(conditionOf);
  const out: Rule = conditions.length ? { conditions } : {};
  if (r.serve === 'variant') out.variant = r.variant;
  else if (r.serve === 'rollout') out.rollout = { ...(r.rolloutSeed ? { seed: r.rolloutSeed } : {}), variants: r.split };
  else out.experiment = { experimentId: r.experimentId, ...(r.experimentSeed ? { seed: r.experimentSeed } : {}), variants: r.split, coverage: r.coverage };
  return out;
}

/** The flag file of a draft (the server checks the rest and names the field it refuses). */
export function fileOf(d: FlagDraft) {
  const variants: Record<string, unknown> = {};
  for (const v of d.variants) variants[v.key] = variantValue(d.kind, v);
  return {
    key: d.key,
    ...(d.description ? { description: d.description } : {}),
    kind: d.kind,
    variants,
    defaultVariant: d.defaultVariant,
    offVariant: d.offVariant,
    bucketBy: d.bucketBy,
    ...(d.seed ? { seed: d.seed } : {}),
    ...(d.targetApps.length ? { targetApps: d.targetApps } : {}),
    rules: d.rules.map(ruleOf),
  };
}

/** Parts of 10,000 as a percentage in words ("30%", "12.5%"). */
export const percent = (parts: number) => `${Math.round(parts) / 100}%`;
