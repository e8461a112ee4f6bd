/**
 * What a run reads (issue 28): `{{reference}}` placeholders in step fields (push variables,
 * webhook bodies, profile updates) and the entry event's property conditions. A string that is one
 * placeholder and nothing else takes the value as it is (a number stays a number); placeholders
 * inside a longer string are written as text (a missing value as nothing).
 */
import { createHash } from 'node:crypto';
import { tooDeep } from '../../platform/http/json-bounds';
import type { Static } from '../../platform/http/schema';
import type { PropertyCondition } from '../in-app/schemas';
import type { Entry } from './entry';
import { AutomationBounds } from './schemas';

export interface RunScope {
  context: Record<string, unknown>;
  entry: Entry;
  /** The run's profile, read once when a step needs it (null: erased meanwhile). */
  profile(): Promise<{ id: string; externalId: string | null; attributes: Record<string, unknown>; tags: string[] } | null>;
}

const WHOLE = /^\{\{\s*([^}\s]+)\s*\}\}$/;
const ANY = /\{\{\s*([^}\s]+)\s*\}\}/g;

/**
 * The value at a dotted path of a webhook's JSON answer (a step's `responseMapping`), undefined
 * when absent, or when it is no value a trigger's context could hold: nested more than
 * AutomationBounds.contextDepth levels, over contextBytes as JSON, or holding a NUL or a lone
 * surrogate in a string or key (README "Input every API holds to"). The receiver is outside the
 * server: what it answers reaches the run's context, placeholders, conditions and, through a
 * profile-update step, the profile's attributes, which accept no such value from any other source.
 */
export function placeholderValue(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v === undefined || contextFault(v) ? undefined : v;
}

/**
 * A webhook step's answer mapped into the run's context (`responseMapping`: context key → path
 * in the answer), in the mapping's order. A value that is missing, or would make the context break
 * a trigger context's bounds (16 KB, 8 levels: the context as a whole, as the trigger checks it),
 * is left out: its key is then absent, as for a missing field.
 */
export function mapResponse(context: Record<string, unknown>, answer: unknown, mapping: Record<string, string>): Record<string, unknown> {
  let out = context;
  for (const [key, path] of Object.entries(mapping)) {
    const value = placeholderValue(answer, path);
    const next = { ...out, [key]: value };
    out = value === undefined || !contextFault(next) ? next : { ...out, [key]: undefined };
  }
  return out;
}

const UNFIT_TEXT = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a value breaks the bounds of a trigger's context (depth first: the walk and JSON.stringify below are then bounded). */
function contextFault(value: unknown): boolean {
  if (tooDeep(value, AutomationBounds.contextDepth) !== undefined) return true;
  const json = JSON.stringify(value);
  if (json === undefined || Buffer.byteLength(json) > AutomationBounds.contextBytes) return true;
  const texts: unknown[] = [value];
  while (texts.length > 0) {
    const x = texts.pop();
    if (typeof x === 'string' && UNFIT_TEXT.test(x)) return true;
    if (typeof x === 'number' && !Number.isFinite(x)) return true;
    if (Array.isArray(x)) texts.push(...(x as unknown[]));
    else if (typeof x === 'object' && x !== null) for (const [k, inner] of Object.entries(x)) texts.push(k, inner);
  }
  return false;
}

async function lookup(ref: string, scope: RunScope): Promise<unknown> {
  if (ref.startsWith('context.')) return scope.context[ref.slice('context.'.length)];
  if (ref.startsWith('event.properties.')) return scope.entry.type === 'EVENT' ? scope.entry.properties[ref.slice('event.properties.'.length)] : undefined;
  const p = await scope.profile();
  if (!p) return undefined;
  if (ref === 'profile.externalId') return p.externalId ?? undefined;
  if (ref.startsWith('profile.attributes.')) return p.attributes[ref.slice('profile.attributes.'.length)];
  return undefined;
}

/** `value` with its placeholders replaced (recursively through objects and arrays). */
export async function resolveTemplated(value: unknown, scope: RunScope): Promise<unknown> {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return (await lookup(whole[1], scope)) ?? null;
    if (!value.includes('{{')) return value;
    let out = '';
    let last = 0;
    for (const m of value.matchAll(ANY)) {
      const v = await lookup(m[1], scope);
      out += value.slice(last, m.index) + (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
      last = m.index! + m[0].length;
    }
    return out + value.slice(last);
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveTemplated(v, scope)));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await resolveTemplated(v, scope);
    return out;
  }
  return value;
}

/** Whether an event's properties meet every condition (the in-app triggers' language, evaluated here on the server). */
export function propertiesMatch(conditions: readonly Static<typeof PropertyCondition>[], properties: Record<string, unknown>): boolean {
  return conditions.every((c) => {
    const v = properties[c.property];
    const values = c.values ?? [];
    switch (c.operator) {
      case 'exists':
        return v !== undefined && v !== null;
      case 'equals':
        return v === values[0];
      case 'in':
        return values.includes(v as never);
      case 'notIn':
        return v !== undefined && v !== null && !values.includes(v as never);
      case 'contains':
        return typeof v === 'string' && values.some((x) => typeof x === 'string' && v.includes(x));
      case 'startsWith':
        return typeof v === 'string' && values.some((x) => typeof x === 'string' && v.startsWith(x));
      case 'lt':
        return typeof v === 'number' && v < (values[0] as number);
      case 'lte':
        return typeof v === 'number' && v <= (values[0] as number);
      case 'gt':
        return typeof v === 'number' && v > (values[0] as number);
      case 'gte':
        return typeof v === 'number' && v >= (values[0] as number);
    }
  });
}

/** A UUID derived from `text` (the same text, the same id). */
export function derivedId(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
