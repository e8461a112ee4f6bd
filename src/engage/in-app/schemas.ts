/**
 * An in-app message's definition (issue 27 "In-app messages"): the shape (TypeBox, checked by ajv
 * like every other schema) and the rules a schema cannot state (variant weights that sum, content
 * in the default locale, audience conditions fit for their attributes, a schedule that ends after
 * it starts). The audience is the flags' condition language (flags/schemas.ts) and is evaluated on
 * the server only; triggers, caps and content go to the device. Every bound is named here and in
 * docs/in-app.md.
 */
import { checker, DateTime, Enum, parseDateTime, Strict, T, Uuid, violation, ViolationCode, type Static, type Violation } from '../../platform/http/schema';
import { NUL_REASON } from '../../platform/http/json-bounds';
import { BUCKETS } from '../flags/bucketing';
import { conditionViolations, FlagCondition } from '../flags/schemas';
import { LOCALE_PATTERN } from '../messaging/schemas';
import { Key } from '../shared/schemas';
import { refusedLinkReason, refusedLinkScheme } from '../shared/links';

export const InAppBounds = {
  descriptionLength: 1_000,
  targetApps: 50,
  audienceConditions: 20,
  triggers: 10,
  triggerConditions: 10,
  locales: 50,
  variants: 10,
  buttons: 3,
  titleLength: 255,
  bodyLength: 4_096,
  labelLength: 64,
  urlLength: 2_048,
  /** Priority: higher shows first when several messages fire on one trigger. */
  priority: 1_000,
  capImpressions: 1_000,
  capPeriodSeconds: { min: 60, max: 366 * 86_400 },
  minIntervalSeconds: { min: 0, max: 86_400, default: 30 },
} as const;

export const MESSAGE_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export const INTERACTION_TYPES = ['IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION'] as const;
export type InteractionType = (typeof INTERACTION_TYPES)[number];
export const TRIGGER_TYPES = ['APP_OPEN', 'EVENT', 'SCREEN'] as const;
/** Operators a device evaluates on an event's properties (a subset of the flags' that needs no dates or versions). */
export const PROPERTY_OPERATORS = ['equals', 'in', 'notIn', 'contains', 'startsWith', 'lt', 'lte', 'gt', 'gte', 'exists'] as const;

const Url = (description: string) => T.String({ minLength: 1, maxLength: InAppBounds.urlLength, pattern: '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]+$', description });
const PropertyValue = T.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'], maxLength: 255 });

export const Button = Strict({
  label: T.String({ minLength: 1, maxLength: InAppBounds.labelLength }),
  action: Enum(['DEEP_LINK', 'DISMISS'] as const, { description: 'DEEP_LINK opens deepLink; DISMISS closes the message' }),
  deepLink: T.Optional(Url('a URI the app opens (DEEP_LINK only)')),
});

/** The LAYOUT document of one locale: what the device shows. */
export const Layout = Strict({
  title: T.String({ minLength: 1, maxLength: InAppBounds.titleLength }),
  body: T.String({ minLength: 1, maxLength: InAppBounds.bodyLength }),
  imageUrl: T.Optional(T.String({ minLength: 1, maxLength: InAppBounds.urlLength, pattern: '^https://[^\\s]+$', description: 'an https URL' })),
  buttons: T.Optional(T.Array(Button, { maxItems: InAppBounds.buttons })),
});
export type Layout = Static<typeof Layout>;

const Content = T.Record(T.String({ pattern: LOCALE_PATTERN, maxLength: 35 }), Layout, {
  minProperties: 1,
  maxProperties: InAppBounds.locales,
  description: 'locale → LAYOUT; must hold the default locale',
});

export const PropertyCondition = Strict({
  property: T.String({ minLength: 1, maxLength: 64, description: 'a key of the event\'s properties' }),
  operator: Enum(PROPERTY_OPERATORS),
  values: T.Optional(T.Array(PropertyValue, { maxItems: 100 })),
});

export const Trigger = Strict({
  type: Enum(TRIGGER_TYPES, { description: 'APP_OPEN: the app comes to the foreground; EVENT: an EVENT_TRACKED of that name; SCREEN: a SCREEN_VIEWED of that screen key' }),
  eventName: T.Optional(T.String({ pattern: '^[a-z][a-z0-9_]{1,63}$', description: 'EVENT only: the EVENT_TRACKED name' })),
  conditions: T.Optional(T.Array(PropertyCondition, { maxItems: InAppBounds.triggerConditions, description: 'EVENT only: all must hold on the event\'s properties' })),
  screenKey: T.Optional(Key({ description: 'SCREEN only: the SCREEN_VIEWED screen_key' })),
});
export type Trigger = Static<typeof Trigger>;

export const Variant = Strict({
  key: T.String({ pattern: '^[\\x21-\\x7E]{1,255}$', description: 'reported back as INTERACTION_TRACKED variantId' }),
  weight: T.Integer({ minimum: 0, maximum: BUCKETS, description: 'parts of 10,000' }),
  content: Content,
});

export const MessageDefinition = Strict({
  key: Key(),
  description: T.Optional(T.String({ maxLength: InAppBounds.descriptionLength })),
  targetApps: T.Optional(T.Array(Uuid(), { maxItems: InAppBounds.targetApps, uniqueItems: true, description: 'app ids; absent or empty: every app' })),
  audience: T.Optional(T.Array(FlagCondition, { maxItems: InAppBounds.audienceConditions, description: 'all must hold (the flags\' condition language); absent: everyone' })),
  schedule: T.Optional(Strict({ startsAt: T.Optional(DateTime()), endsAt: T.Optional(DateTime()) })),
  triggers: T.Array(Trigger, { minItems: 1, maxItems: InAppBounds.triggers }),
  priority: T.Optional(T.Integer({ minimum: 0, maximum: InAppBounds.priority, description: 'higher shows first; default 0' })),
  frequencyCap: T.Optional(
    Strict({
      impressions: T.Integer({ minimum: 1, maximum: InAppBounds.capImpressions }),
      periodSeconds: T.Integer({ minimum: InAppBounds.capPeriodSeconds.min, maximum: InAppBounds.capPeriodSeconds.max }),
    }),
  ),
  defaultLocale: T.String({ pattern: LOCALE_PATTERN, maxLength: 35 }),
  fallbackLocale: T.Optional(T.String({ pattern: LOCALE_PATTERN, maxLength: 35 })),
  content: T.Optional(Content),
  variants: T.Optional(T.Array(Variant, { minItems: 2, maxItems: InAppBounds.variants, description: 'an experiment: each installation sees one, bucketed by weight' })),
  bucketBy: T.Optional(Enum(['installation', 'profile'] as const, { description: 'whose id the variant split hashes; default installation' })),
  automationOnly: T.Optional(T.Boolean({ description: 'shown only to profiles an automation\'s in-app step made it eligible for, for that step\'s period (and in the audience)' })),
});
export type MessageDefinition = Static<typeof MessageDefinition>;

const checkShape = checker(MessageDefinition);

/** Every violation of `value` as a message definition: its shape first, then the rules across fields. */
export function messageViolations(value: unknown, at = ''): Violation[] {
  const shape = checkShape.all(value, at);
  if (shape.length > 0) return shape;
  // PostgreSQL's text cannot hold NUL; JSON writes it as \u0000.
  if (JSON.stringify(value).includes('\\u0000')) return [violation(ViolationCode.value, at || 'body', NUL_REASON)];
  return crossFieldViolations(value as MessageDefinition, at);
}

const field = (at: string, name: string) => (at === '' ? name : `${at}.${name}`);

function crossFieldViolations(m: MessageDefinition, at: string): Violation[] {
  const out: Violation[] = [];
  const hasLocale = (c: Record<string, unknown>, l: string) => Object.keys(c).some((k) => k.toLowerCase() === l.toLowerCase());
  if ((m.content === undefined) === (m.variants === undefined)) out.push(violation(ViolationCode.value, field(at, 'content'), 'give exactly one of content and variants'));
  if (m.content && !hasLocale(m.content, m.defaultLocale)) out.push(violation(ViolationCode.value, field(at, 'content'), `must hold the default locale ${m.defaultLocale}`));
  if (m.variants) {
    const seen = new Set<string>();
    let sum = 0;
    m.variants.forEach((v, i) => {
      if (seen.has(v.key)) out.push(violation(ViolationCode.unique, field(at, `variants[${i}].key`), 'appears twice'));
      seen.add(v.key);
      sum += v.weight;
      if (!hasLocale(v.content, m.defaultLocale)) out.push(violation(ViolationCode.value, field(at, `variants[${i}].content`), `must hold the default locale ${m.defaultLocale}`));
    });
    if (sum !== BUCKETS) out.push(violation(ViolationCode.value, field(at, 'variants'), `weights must sum to ${BUCKETS} (parts of 10,000), not ${sum}`));
  }
  for (const [locale, layout] of allLayouts(m)) {
    (layout.buttons ?? []).forEach((b, i) => {
      if (b.action === 'DEEP_LINK' && b.deepLink === undefined) out.push(violation(ViolationCode.required, field(at, `${locale}.buttons[${i}].deepLink`), 'is required for DEEP_LINK'));
      if (b.action === 'DISMISS' && b.deepLink !== undefined) out.push(violation(ViolationCode.value, field(at, `${locale}.buttons[${i}].deepLink`), 'must be absent for DISMISS'));
      const scheme = b.deepLink === undefined ? undefined : refusedLinkScheme(b.deepLink);
      if (scheme) out.push(violation(ViolationCode.value, field(at, `${locale}.buttons[${i}].deepLink`), refusedLinkReason(scheme)));
    });
  }
  (m.audience ?? []).forEach((c, i) => out.push(...conditionViolations(c, field(at, `audience[${i}]`))));
  m.triggers.forEach((t, i) => {
    const w = field(at, `triggers[${i}]`);
    const has = { eventName: t.eventName !== undefined, conditions: t.conditions !== undefined, screenKey: t.screenKey !== undefined };
    const allowed = t.type === 'EVENT' ? ['eventName', 'conditions'] : t.type === 'SCREEN' ? ['screenKey'] : [];
    for (const [name, present] of Object.entries(has)) if (present && !allowed.includes(name)) out.push(violation(ViolationCode.value, `${w}.${name}`, `must be absent for ${t.type}`));
    if (t.type === 'EVENT' && !has.eventName) out.push(violation(ViolationCode.required, `${w}.eventName`, 'is required for EVENT'));
    if (t.type === 'SCREEN' && !has.screenKey) out.push(violation(ViolationCode.required, `${w}.screenKey`, 'is required for SCREEN'));
    (t.conditions ?? []).forEach((c, j) => {
      const n = c.values?.length ?? 0;
      const want = c.operator === 'exists' ? n === 0 : c.operator === 'in' || c.operator === 'notIn' || c.operator === 'contains' || c.operator === 'startsWith' ? n >= 1 : n === 1;
      if (!want) out.push(violation(ViolationCode.range, `${w}.conditions[${j}].values`, c.operator === 'exists' ? 'must be absent or empty for exists' : `wrong number of values for ${c.operator}`));
      if (['lt', 'lte', 'gt', 'gte'].includes(c.operator) && c.values?.some((v) => typeof v !== 'number')) out.push(violation(ViolationCode.type, `${w}.conditions[${j}].values`, 'must be numbers'));
    });
  });
  const starts = m.schedule?.startsAt !== undefined ? parseDateTime(m.schedule.startsAt) : undefined;
  const ends = m.schedule?.endsAt !== undefined ? parseDateTime(m.schedule.endsAt) : undefined;
  if (starts !== undefined && ends !== undefined && !(ends > starts)) out.push(violation(ViolationCode.value, field(at, 'schedule.endsAt'), 'must be after startsAt'));
  return out;
}

/** Every LAYOUT of a definition, named by where it sits. */
function allLayouts(m: MessageDefinition): [string, Layout][] {
  const out: [string, Layout][] = [];
  for (const [l, layout] of Object.entries(m.content ?? {})) out.push([`content.${l}`, layout]);
  (m.variants ?? []).forEach((v, i) => {
    for (const [l, layout] of Object.entries(v.content)) out.push([`variants[${i}].content.${l}`, layout]);
  });
  return out;
}

export const InteractionCounts = Strict({
  IMPRESSION: T.Integer({ minimum: 0 }),
  CLICK: T.Integer({ minimum: 0 }),
  DISMISS: T.Integer({ minimum: 0 }),
  CONVERSION: T.Integer({ minimum: 0 }),
});
