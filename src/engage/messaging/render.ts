/**
 * Template rendering: variable validation (each failure names the variable), locale resolution
 * (spec 01: requested, then the template default, then the fallback) and `{{variable}}`
 * substitution with locale-aware number and date formatting (Intl).
 */
import { createHash } from 'node:crypto';
import { parseDateTime } from '../../platform/http/schema';
import { MessagingErrors } from './errors';
import type { InboxContent } from '../inbox/content';
import type { InboxPart, VariableType } from './schemas';

export interface TemplateDefinition {
  key: string;
  appIds: string[];
  defaultLocale: string;
  fallbackLocale?: string;
  variables: Record<string, { type: VariableType; required: boolean; default?: string | number | boolean }>;
  localizations: Record<string, { title: string; body: string; deepLink?: string; customData?: Record<string, unknown> }>;
  ttlSeconds: number;
  priority: 'normal' | 'high';
  rateLimitPerMinute: number;
  dedupWindowSeconds: number;
  collapseId?: string;
  /** The subscription list the template sends for (issue 26): recipients unsubscribed from it are skipped. */
  list?: string;
  /** The inbox part (issue 27): a send writes one inbox entry from it. No `localizations` (`{}`): an inbox-only template. */
  inbox?: InboxPart;
}

/** Whether the template sends a push (an inbox-only template has no localizations). */
export const hasPush = (def: TemplateDefinition): boolean => Object.keys(def.localizations).length > 0;

export interface Rendered {
  resolvedLocale: string;
  title: string;
  body: string;
  deepLink: string;
  customData: Record<string, unknown>;
}

export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** RFC 3339 §5.6 full-date is the date-time's first 10 characters. */
const FULL_DATE_LENGTH = 10;
const MAX_STRING = 1024;

type Value = string | number | boolean;

/** Every placeholder of a template's texts, for checking them against its declared variables. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** Checks one supplied value against its declared type; the reason, or null. */
export function typeProblem(type: VariableType, v: unknown): string | null {
  switch (type) {
    case 'string':
      return typeof v !== 'string' ? 'must be a string' : v.length > MAX_STRING ? `must be at most ${MAX_STRING} characters` : null;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return typeof v === 'string' && !Number.isNaN(dateValue(v)) ? null : 'must be an RFC 3339 date (YYYY-MM-DD) or date-time';
    case 'url':
      return typeof v === 'string' && v.length <= 2048 && URL.canParse(v) && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(v) ? null : 'must be an absolute URL';
  }
}

/**
 * A date variable's instant (epoch ms), or NaN: an RFC 3339 full-date (midnight UTC) or
 * date-time, read strictly by the mobile edge's parser (platform/http/schema.ts): a real
 * calendar day (no 2026-02-30, Feb 29 only in leap years), hours 00–23, seconds required.
 * Date.parse rolled 2026-02-30 over to March 2 (issue 21 point 13).
 */
function dateValue(v: string): number {
  if (v.length !== FULL_DATE_LENGTH) return parseDateTime(v);
  return parseDateTime(`${v}T00:00:00Z`);
}

/** The supplied variables checked and completed with defaults; throws naming the first bad one. */
export function resolveVariables(def: TemplateDefinition, supplied: Record<string, unknown>): Map<string, Value | undefined> {
  const out = new Map<string, Value | undefined>();
  for (const name of Object.keys(supplied)) {
    if (!Object.hasOwn(def.variables, name)) throw MessagingErrors.invalidVariable(`variables.${name}: is not a variable of template ${def.key}`);
  }
  for (const [name, d] of Object.entries(def.variables)) {
    const v = supplied[name];
    if (v === undefined || v === null) {
      if (d.required) throw MessagingErrors.invalidVariable(`variables.${name}: is required`);
      out.set(name, d.default);
      continue;
    }
    const problem = typeProblem(d.type, v);
    if (problem) throw MessagingErrors.invalidVariable(`variables.${name}: ${problem}`);
    out.set(name, v as Value);
  }
  return out;
}

/** Spec 01: the requested locale (exact, then its language), then the default, then the fallback. */
export function resolveLocale(def: TemplateDefinition, requested: string | undefined, keys: readonly string[] = Object.keys(def.localizations)): string[] {
  const find = (tag: string | undefined) => (tag === undefined ? undefined : keys.find((k) => k.toLowerCase() === tag.toLowerCase()));
  const chain: string[] = [];
  const push = (k: string | undefined) => {
    if (k !== undefined && !chain.includes(k)) chain.push(k);
  };
  if (requested) {
    push(find(requested));
    push(find(requested.split('-')[0]));
  }
  push(find(def.defaultLocale));
  push(find(def.fallbackLocale));
  return chain;
}

const formatters = new Map<string, { number: Intl.NumberFormat; date: Intl.DateTimeFormat; dateTime: Intl.DateTimeFormat }>();
function formattersFor(locale: string) {
  let f = formatters.get(locale);
  if (!f) {
    let tag = locale;
    try {
      new Intl.NumberFormat(tag);
    } catch {
      tag = 'en';
    }
    // Dates in UTC: one rendering per send, whatever the installations' time zones (docs/decisions.md).
    f = {
      number: new Intl.NumberFormat(tag),
      date: new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' }),
      dateTime: new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }),
    };
    if (formatters.size > 500) formatters.clear();
    formatters.set(locale, f);
  }
  return f;
}

function display(def: TemplateDefinition, name: string, v: Value | undefined, locale: string): string {
  if (v === undefined) return '';
  const f = formattersFor(locale);
  switch (def.variables[name]?.type) {
    case 'number':
      return f.number.format(v as number);
    case 'date':
      return ((v as string).length === FULL_DATE_LENGTH ? f.date : f.dateTime).format(dateValue(v as string));
    default:
      return String(v);
  }
}

/** Title and body: formatted for the locale. */
const substitute = (text: string, fill: (name: string) => string) => text.replace(PLACEHOLDER, (_m, name: string) => fill(name));

/** Renders the template for the request; the locale chain decides each field (a missing deep link or data falls back). */
export function render(def: TemplateDefinition, requestedLocale: string | undefined, vars: Map<string, Value | undefined>): Rendered {
  // An inbox-only template: no push to render; the locale is resolved among the inbox part's.
  if (!hasPush(def)) return { resolvedLocale: resolveLocale(def, requestedLocale, Object.keys(def.inbox?.localizations ?? {}))[0] ?? def.defaultLocale, title: '', body: '', deepLink: '', customData: {} };
  const chain = resolveLocale(def, requestedLocale);
  const resolvedLocale = chain[0];
  const l10n = def.localizations[resolvedLocale];
  const shown = (name: string) => display(def, name, vars.get(name), resolvedLocale);
  // Deep links: the raw value, percent-encoded unless it is itself a URL.
  const inLink = (name: string) => {
    const v = vars.get(name);
    if (v === undefined) return '';
    return def.variables[name]?.type === 'url' ? String(v) : encodeURIComponent(String(v));
  };
  // Custom data is read by the app, not by a person: raw values.
  const raw = (name: string) => {
    const v = vars.get(name);
    return v === undefined ? '' : String(v);
  };
  const deepLinkSource = chain.map((k) => def.localizations[k].deepLink).find((d) => d !== undefined);
  const dataSource = chain.map((k) => def.localizations[k].customData).find((d) => d !== undefined) ?? {};
  const fillData = (v: unknown): unknown =>
    typeof v === 'string' ? substitute(v, raw) : Array.isArray(v) ? v.map(fillData) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillData(x)])) : v;
  return {
    resolvedLocale,
    title: substitute(l10n.title, shown),
    body: substitute(l10n.body, shown),
    deepLink: deepLinkSource === undefined ? '' : substitute(deepLinkSource, inLink),
    customData: fillData(dataSource) as Record<string, unknown>,
  };
}

/**
 * The inbox entry's content (issue 27): every locale of the template's inbox part, each string of
 * its payload and LAYOUT surfaces substituted as title and body are (the locale's number and date
 * formats), so the installation's locale picks one when the entry is read. Undefined without an inbox part.
 */
export function renderInbox(def: TemplateDefinition, vars: Map<string, Value | undefined>): InboxContent | undefined {
  if (!def.inbox) return undefined;
  const payloads: InboxContent['payloads'] = {};
  const layouts: NonNullable<InboxContent['layouts']> = {};
  for (const [locale, l] of Object.entries(def.inbox.localizations)) {
    // Each variable formatted once per locale, however many strings name it (Intl formatting is most of a rendering).
    const formatted = new Map<string, string>();
    const shown = (name: string) => {
      let text = formatted.get(name);
      if (text === undefined) formatted.set(name, (text = display(def, name, vars.get(name), locale)));
      return text;
    };
    const fill = (v: unknown): unknown =>
      typeof v === 'string' ? substitute(v, shown) : Array.isArray(v) ? v.map(fill) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)])) : v;
    payloads[locale] = fill(l.payload) as Record<string, unknown>;
    if (l.layout) layouts[locale] = { SUMMARY: fill(l.layout.SUMMARY) as Record<string, unknown>, DETAIL: fill(l.layout.DETAIL) as Record<string, unknown> };
  }
  return {
    payloads,
    ...(Object.keys(layouts).length > 0 ? { layouts } : {}),
    defaultLocale: def.defaultLocale,
    ...(def.fallbackLocale !== undefined ? { fallbackLocale: def.fallbackLocale } : {}),
  };
}

/** What the deduplication window compares: the rendered content. */
export function contentHash(r: Rendered): string {
  return createHash('sha256').update(JSON.stringify([r.title, r.body, r.deepLink, r.customData])).digest('hex');
}
