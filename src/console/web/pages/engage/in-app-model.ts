/**
 * In-app messages as the engagement administration API answers them (docs/in-app.md), and the
 * editor's draft of a message with its conversion to and from the message file. The lists and
 * bounds are copies of src/engage/in-app/schemas.ts (the bundle cannot import server code); the
 * server checks every file it is sent and names the field it refuses, never storing a bad one.
 */
import { conditionDraft, conditionOf, type Condition, type ConditionDraft } from './flag-model';

export const MESSAGE_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export const INTERACTION_TYPES = ['IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION'] as const;
export type InteractionType = (typeof INTERACTION_TYPES)[number];
export const TRIGGER_TYPES = ['APP_OPEN', 'EVENT', 'SCREEN'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const PROPERTY_OPERATORS = ['equals', 'in', 'notIn', 'contains', 'startsWith', 'lt', 'lte', 'gt', 'gte', 'exists'] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];
export const MAX_BUTTONS = 3;
export const MAX_VARIANTS = 10;
export const BUCKETS = 10_000;

export interface Button {
  label: string;
  action: 'DEEP_LINK' | 'DISMISS';
  deepLink?: string;
}
export interface Layout {
  title: string;
  body: string;
  imageUrl?: string;
  buttons?: Button[];
}
export interface Trigger {
  type: TriggerType;
  eventName?: string;
  conditions?: { property: string; operator: PropertyOperator; values?: (string | number | boolean)[] }[];
  screenKey?: string;
}
export interface MessageDefinition {
  key: string;
  description?: string;
  targetApps?: string[];
  audience?: Condition[];
  schedule?: { startsAt?: string; endsAt?: string };
  triggers: Trigger[];
  priority?: number;
  frequencyCap?: { impressions: number; periodSeconds: number };
  defaultLocale: string;
  fallbackLocale?: string;
  content?: Record<string, Layout>;
  variants?: { key: string; weight: number; content: Record<string, Layout> }[];
  bucketBy?: 'installation' | 'profile';
}
export interface MessageSummary {
  environmentId: string;
  key: string;
  /** INTERACTION_TRACKED's experienceId. */
  id: string;
  description: string | null;
  status: MessageStatus;
  version: number;
  publishedVersion: number | null;
  /** The latest edit is not the published version yet. */
  draftPending: boolean;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}
export interface MessageView extends MessageSummary {
  definition: MessageDefinition;
  published: MessageDefinition | null;
  changed?: boolean;
}
export type Counts = Record<InteractionType, number>;
export interface MessageResults {
  environmentId: string;
  key: string;
  id: string;
  fromDay: string;
  variants: { variantId: string | null; totals: Counts; daily: { day: string; counts: Counts }[] }[];
}

/** One locale's layout as the form edits it (every field text; empty optional ones left out of the file). */
export interface LayoutDraft {
  title: string;
  body: string;
  imageUrl: string;
  buttons: Button[];
}
export interface PropertyConditionDraft {
  property: string;
  operator: PropertyOperator;
  values: string;
}
export interface TriggerDraft {
  type: TriggerType;
  eventName: string;
  conditions: PropertyConditionDraft[];
  screenKey: string;
}
export interface VariantDraft {
  key: string;
  weight: number;
  content: Record<string, LayoutDraft>;
}
export type PeriodUnit = 'minutes' | 'hours' | 'days';
export const UNIT_SECONDS: Record<PeriodUnit, number> = { minutes: 60, hours: 3_600, days: 86_400 };
export interface MessageDraft {
  key: string;
  description: string;
  targetApps: string[];
  audience: ConditionDraft[];
  /** datetime-local values (the reader's time zone); empty: no bound. */
  startsAt: string;
  endsAt: string;
  triggers: TriggerDraft[];
  priority: string;
  capped: boolean;
  capImpressions: string;
  capPeriod: string;
  capUnit: PeriodUnit;
  /** Every locale the message has, in the order shown; the default first when new. */
  locales: string[];
  defaultLocale: string;
  fallbackLocale: string;
  /** An experiment: each installation sees one variant, by weight. */
  useVariants: boolean;
  content: Record<string, LayoutDraft>;
  variants: VariantDraft[];
  bucketBy: 'installation' | 'profile';
}

export const emptyLayout = (): LayoutDraft => ({ title: '', body: '', imageUrl: '', buttons: [] });
export const newTrigger = (): TriggerDraft => ({ type: 'APP_OPEN', eventName: '', conditions: [], screenKey: '' });
export const newPropertyCondition = (): PropertyConditionDraft => ({ property: '', operator: 'equals', values: '' });

export const newDraft = (): MessageDraft => ({
  key: '',
  description: '',
  targetApps: [],
  audience: [],
  startsAt: '',
  endsAt: '',
  triggers: [newTrigger()],
  priority: '0',
  capped: false,
  capImpressions: '1',
  capPeriod: '1',
  capUnit: 'days',
  locales: ['en'],
  defaultLocale: 'en',
  fallbackLocale: '',
  useVariants: false,
  content: { en: { title: '', body: '', imageUrl: '', buttons: [{ label: 'OK', action: 'DISMISS' }] } },
  variants: [],
  bucketBy: 'installation',
});

/** The datetime-local value (local time, minutes) of an RFC 3339 instant. */
export function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const layoutDraft = (l: Layout): LayoutDraft => ({ title: l.title, body: l.body, imageUrl: l.imageUrl ?? '', buttons: (l.buttons ?? []).map((b) => ({ ...b })) });
const layoutsDraft = (c: Record<string, Layout>) => Object.fromEntries(Object.entries(c).map(([l, layout]) => [l, layoutDraft(layout)]));

/** A period in seconds in the largest unit that divides it. */
function periodOf(seconds: number): { capPeriod: string; capUnit: PeriodUnit } {
  for (const unit of ['days', 'hours', 'minutes'] as const) if (seconds % UNIT_SECONDS[unit] === 0) return { capPeriod: String(seconds / UNIT_SECONDS[unit]), capUnit: unit };
  return { capPeriod: String(seconds / 60), capUnit: 'minutes' };
}

/** A value of an event property condition as text: a string that would read back as another type is quoted. */
const propertyText = (v: string | number | boolean) => (typeof v !== 'string' ? String(v) : looksTyped(v) ? JSON.stringify(v) : v);
const looksTyped = (t: string) => t === 'true' || t === 'false' || t.startsWith('"') || (t.trim() !== '' && Number.isFinite(Number(t)));

export function draftOf(d: MessageDefinition): MessageDraft {
  const locales: string[] = [];
  const add = (c: Record<string, Layout>) => Object.keys(c).forEach((l) => locales.includes(l) || locales.push(l));
  if (d.content) add(d.content);
  for (const v of d.variants ?? []) add(v.content);
  const cap = d.frequencyCap ? periodOf(d.frequencyCap.periodSeconds) : { capPeriod: '1', capUnit: 'days' as const };
  return {
    key: d.key,
    description: d.description ?? '',
    targetApps: d.targetApps ?? [],
    audience: (d.audience ?? []).map(conditionDraft),
    startsAt: localInput(d.schedule?.startsAt),
    endsAt: localInput(d.schedule?.endsAt),
    triggers: d.triggers.map((t) => ({
      type: t.type,
      eventName: t.eventName ?? '',
      conditions: (t.conditions ?? []).map((c) => ({ property: c.property, operator: c.operator, values: (c.values ?? []).map(propertyText).join(', ') })),
      screenKey: t.screenKey ?? '',
    })),
    priority: String(d.priority ?? 0),
    capped: !!d.frequencyCap,
    capImpressions: String(d.frequencyCap?.impressions ?? 1),
    ...cap,
    locales,
    defaultLocale: d.defaultLocale,
    fallbackLocale: d.fallbackLocale ?? '',
    useVariants: !!d.variants,
    content: layoutsDraft(d.content ?? d.variants?.[0]?.content ?? {}),
    variants: (d.variants ?? []).map((v) => ({ key: v.key, weight: v.weight, content: layoutsDraft(v.content) })),
    bucketBy: d.bucketBy ?? 'installation',
  };
}

const blank = (l: LayoutDraft | undefined) => !l || (l.title === '' && l.body === '' && l.imageUrl === '' && l.buttons.length === 0);

export function layoutOf(l: LayoutDraft): Layout {
  return {
    title: l.title,
    body: l.body,
    ...(l.imageUrl ? { imageUrl: l.imageUrl } : {}),
    ...(l.buttons.length ? { buttons: l.buttons.map((b) => ({ label: b.label, action: b.action, ...(b.action === 'DEEP_LINK' ? { deepLink: b.deepLink ?? '' } : {}) })) } : {}),
  };
}

/** The locales of `locales` that have a layout (a locale left blank in one variant is not in it). */
function contentOf(locales: string[], c: Record<string, LayoutDraft>): Record<string, Layout> {
  const out: Record<string, Layout> = {};
  for (const l of locales) if (!blank(c[l])) out[l] = layoutOf(c[l]);
  return out;
}

/** Comma-separated values: numbers for lt…gte; elsewhere true, false, a number or a "quoted" text are typed, the rest text. */
function propertyValues(c: PropertyConditionDraft): (string | number | boolean)[] | undefined {
  if (c.operator === 'exists') return undefined;
  const parts = c.values.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (['lt', 'lte', 'gt', 'gte'].includes(c.operator)) return parts.map((p) => (Number.isFinite(Number(p)) ? Number(p) : p));
  return parts.map((p) => {
    if (!looksTyped(p)) return p;
    try {
      return JSON.parse(p) as string | number | boolean;
    } catch {
      return p;
    }
  });
}

/** An integer typed in a field, or the text itself (the server names the field it refuses). */
const int = (t: string): number => (t.trim() !== '' && Number.isFinite(Number(t)) ? Number(t) : (t as unknown as number));

/** A datetime-local value as an RFC 3339 instant; an unreadable one is sent as typed, for the server to name. */
function instant(local: string): string {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

/** The message file of a draft. */
export function fileOf(d: MessageDraft): MessageDefinition {
  const schedule = { ...(d.startsAt ? { startsAt: instant(d.startsAt) } : {}), ...(d.endsAt ? { endsAt: instant(d.endsAt) } : {}) };
  return {
    key: d.key,
    ...(d.description ? { description: d.description } : {}),
    ...(d.targetApps.length ? { targetApps: d.targetApps } : {}),
    ...(d.audience.length ? { audience: d.audience.map(conditionOf) } : {}),
    ...(Object.keys(schedule).length ? { schedule } : {}),
    triggers: d.triggers.map((t) => {
      if (t.type === 'EVENT') {
        const conditions = t.conditions.map((c) => {
          const values = propertyValues(c);
          return { property: c.property, operator: c.operator, ...(values ? { values } : {}) };
        });
        return { type: t.type, eventName: t.eventName, ...(conditions.length ? { conditions } : {}) };
      }
      return t.type === 'SCREEN' ? { type: t.type, screenKey: t.screenKey } : { type: t.type };
    }),
    ...(d.priority.trim() !== '' && d.priority.trim() !== '0' ? { priority: int(d.priority) } : {}),
    ...(d.capped ? { frequencyCap: { impressions: int(d.capImpressions), periodSeconds: int(d.capPeriod) * UNIT_SECONDS[d.capUnit] } } : {}),
    defaultLocale: d.defaultLocale,
    ...(d.fallbackLocale ? { fallbackLocale: d.fallbackLocale } : {}),
    ...(d.useVariants
      ? { variants: d.variants.map((v) => ({ key: v.key, weight: v.weight, content: contentOf(d.locales, v.content) })), bucketBy: d.bucketBy }
      : { content: contentOf(d.locales, d.content) }),
  };
}

/**
 * The server's refusal of a file, by field: `triggers[0].eventName: is required for EVENT; key:
 * must match…` → { 'triggers[0].eventName': 'is required for EVENT', key: 'must match…' }.
 * A route's own check may name the body (`body.key`): the prefix is dropped.
 */
export function fieldErrors(detail: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (detail ?? '').split('; ')) {
    const m = /^([A-Za-z][\w.[\]-]*): (.+)$/.exec(part);
    if (!m) continue;
    const path = m[1].replace(/^body\./, '');
    out[path] = out[path] ? `${out[path]}; ${m[2]}` : m[2];
  }
  return out;
}

/** Clicks per impression in words ("12.5%", "—" without impressions). */
export const rate = (part: number, whole: number) => (whole === 0 ? '—' : `${Math.round((part / whole) * 1000) / 10}%`);
