import type { Context, MiddlewareHandler } from 'hono';
import { headerOf, readBodyText } from '../../platform/http/request';
import { hasNul } from '../../platform/http/json-bounds';
import type { InputRules } from '../../platform/http/route';
import { describeViolations } from '../../platform/http/schema';
import { ApiError } from '../../platform/http/errors';
import { invalidRequest } from './errors';

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;
/** Every native form is a few hundred bytes (an ID token a few kilobytes). */
const MAX_FORM_BYTES = 64 * 1024;

/**
 * Spec 02: a native request carrying Origin, Cookie or Sec-Fetch-Site comes from a browser and is
 * refused (403 browser_request_forbidden): the adapter is for apps, and a browser must use the
 * authorization endpoint's pages, with their CSRF and cookie rules.
 */
export const refuseBrowsers: MiddlewareHandler = (c, next) => {
  if (headerOf(c, 'origin') !== undefined || headerOf(c, 'cookie') !== undefined || headerOf(c, 'sec-fetch-site') !== undefined) {
    throw new ApiError(403, 'browser_request_forbidden');
  }
  return next();
};

/**
 * The form, strictly (RFC 6749 §3.2 and Appendix B, as the token endpoint reads it): another
 * content type or a parameter sent twice is 400 invalid_request. A parameter sent without a value
 * counts as absent (RFC 6749 §3.1). Its schema is the route's declaration's (nativeFormRules).
 */
async function readNativeForm(c: Context): Promise<Record<string, string>> {
  if (!FORM_TYPE.test(headerOf(c, 'content-type') ?? '')) throw invalidRequest('Content-Type must be application/x-www-form-urlencoded');
  const text = await readBodyText(c, MAX_FORM_BYTES);
  if (text === undefined) throw invalidRequest('the form is too large');
  const values = Object.create(null) as Record<string, string>;
  const seen = new Set<string>();
  // Decoded, %00 would reach lookups as text PostgreSQL cannot hold (docs/decisions.md "Input bounds").
  const nul = text.includes('%00');
  for (const [k, v] of new URLSearchParams(text)) {
    if (nul && (hasNul(k) || hasNul(v))) throw invalidRequest(`${hasNul(k) ? 'form' : k}: holds a NUL character (%00), which text values may not contain`);
    if (seen.has(k)) throw invalidRequest(`${k} is duplicated`);
    seen.add(k);
    if (v !== '') values[k] = v;
  }
  return values;
}

/**
 * The native adapter's route declarations (issue 22 point 4): the form read as above, then checked
 * against the route's documented schema, a required parameter missing or empty or a malformed
 * value naming every violation in one invalid_request (issue 23).
 */
export const nativeFormRules: InputRules = {
  readBody: (c) => readNativeForm(c),
  violations: 'all',
  invalid: (list) => invalidRequest(describeViolations(list)),
};
