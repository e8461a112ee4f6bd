import type { Context } from 'hono';
import { headerOf, readBodyText } from '../../platform/http/request';
import { hasNul } from '../../platform/http/json-bounds';
import type { Checker, TSchema } from '../../platform/http/schema';
import { invalidRequest } from './errors';

/**
 * A strictly parsed `application/x-www-form-urlencoded` body (RFC 6749 §3.2 and §B):
 * another content type, or any parameter repeated, is invalid_request; a parameter sent
 * without a value is treated as omitted (RFC 6749 §3.1).
 */
export interface Form {
  get(name: string): string | null;
  required(name: string): string;
  names(): string[];
  /** Every parameter sent with a value, as an object (what the route's schema checks). */
  values(): Record<string, string>;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;
const MAX_BODY = 64 * 1024;

export function parseForm(text: string): Form {
  // One null-prototype object (no Map to convert): it is also what the route's schema checks.
  const values = Object.create(null) as Record<string, string>;
  const seen = new Set<string>();
  const encoded = /[%+]/.test(text);
  // Decoded, %00 would reach lookups as text PostgreSQL cannot hold (docs/decisions.md "Input bounds").
  const nul = encoded && text.includes('%00');
  for (const [k, v] of encoded ? new URLSearchParams(text) : plainPairs(text)) {
    if (nul && (hasNul(k) || hasNul(v))) throw invalidRequest(`${hasNul(k) ? 'form' : k}: holds a NUL character (%00), which text values may not contain`);
    if (seen.has(k)) throw invalidRequest(`${k} is duplicated`);
    seen.add(k);
    if (v !== '') values[k] = v;
  }
  return {
    get: (name) => (Object.hasOwn(values, name) ? values[name] : null),
    required(name) {
      if (!Object.hasOwn(values, name)) throw invalidRequest(`${name} is required`);
      return values[name];
    },
    names: () => Object.keys(values),
    values: () => values,
  };
}

/** The pairs URLSearchParams would give for a body with nothing to decode (no `%`, no `+`). */
function plainPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const i = part.indexOf('=');
    out.push(i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)]);
  }
  return out;
}

/**
 * Where readForm leaves the form on the request (see formRead): a context variable, not a
 * WeakMap keyed by the context, whose ephemeron entries cost the garbage collector on every request.
 */
const FORM_VAR = 'oauthForm';

/**
 * Reads the form and checks it against the route's schema (schemas.ts): a missing, empty or
 * malformed field is invalid_request naming the field.
 */
export async function readForm(c: Context, check?: Checker<TSchema>): Promise<Form> {
  const type = headerOf(c, 'content-type') ?? '';
  if (!FORM_TYPE.test(type)) throw invalidRequest('Content-Type must be application/x-www-form-urlencoded');
  const text = await readBodyText(c, MAX_BODY);
  if (text === undefined) throw invalidRequest('request body too large');
  const form = parseForm(text);
  c.set(FORM_VAR as never, form as never);
  if (check) checkForm(form, check);
  return form;
}

export function checkForm(form: Form, check: Checker<TSchema>): void {
  const bad = check(form.values());
  if (bad) throw invalidRequest(bad.message);
}

/** The form readForm returned for this request, if it read one (the body can be read once). */
export function formRead(c: Context): Form | undefined {
  return c.get(FORM_VAR as never) as Form | undefined;
}
