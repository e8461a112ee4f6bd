/**
 * The response check of the in-process test suite (issue 22 point 4): with it on, every answer
 * of a documented route is checked against the document, a body against the schema declared
 * for its status (a success's `responses`, a failure's family error schema for the statuses in
 * `errors`), and a documented status's media type against the one declared. A status the
 * route does not document is a finding too, except those any route may answer (GENERIC). What
 * does not match is kept as a finding (`responseFindings`); the suite's setup file
 * (test/helpers/response-check-setup.ts) fails the test file that produced any.
 *
 * Off unless a test process turns it on (`checkResponses()`): createApp then installs it as its
 * first middleware. The served executable never does, and pays nothing for it.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { docOf, failureForm, ERROR_SCHEMAS, MEDIA, type RouteDoc } from './openapi';
import { checker, describeViolations, type Checker, type TSchema } from './schema';

let on = false;
const findings: string[] = [];
const checkers = new WeakMap<object, Checker<TSchema>>();

/**
 * Statuses every route may answer without documenting them: 500, the failure nobody planned
 * (renderError: the family's error, no detail), checked against the family's error form; a
 * 400 for a NUL character in the URL (openapi.ts URL_REFUSAL documents it on every operation); and
 * 499, a client gone before its body arrived (errors.ts ClientClosedError: nobody hears it).
 */
const GENERIC = new Set([500]);
const UNHEARD = 499;

/** Turns the check on for the apps created from now on in this process. */
export function checkResponses(): void {
  on = true;
}

/** What the check found since the last call, and forgets it. */
export function responseFindings(): string[] {
  return findings.splice(0);
}

/** The middleware createApp installs first, or undefined when the check is off. */
export function responseCheck(): MiddlewareHandler | undefined {
  if (!on) return undefined;
  return async (c, next) => {
    await next();
    const doc = documentOf(c);
    if (!doc) return;
    const finding = await check(c, doc);
    if (finding) findings.push(`${c.req.method} ${routePath(c)} → ${c.res.status}: ${finding}`);
  };
}

/**
 * The doc of the route that answered: its final handler's, found among the handlers registered
 * for the same method and path (a guard before it, which may have answered, shares them).
 */
function documentOf(c: Context): RouteDoc | undefined {
  const matched = matchedRoutes(c);
  const answered = matched[c.req.routeIndex];
  if (!answered) return undefined;
  for (const r of matched) {
    if (r.path !== answered.path || (r.method !== answered.method && answered.method !== 'ALL')) continue;
    const d = docOf(r.handler);
    if (d) return d;
  }
  return undefined;
}

function checkerOf(schema: object): Checker<TSchema> {
  let k = checkers.get(schema);
  if (!k) checkers.set(schema, (k = checker(schema as TSchema)));
  return k;
}

async function check(c: Context, doc: RouteDoc): Promise<string | undefined> {
  const status = c.res.status;
  if (status === UNHEARD) return undefined;
  const declared = doc.responses[status];
  let schema: object | undefined;
  let media: string;
  if (declared) {
    const type = declared.type ?? (declared.schema ? 'json' : 'empty');
    if (type === 'empty') return undefined;
    media = MEDIA[type];
    schema = declared.schema;
  } else if (doc.errors?.[status] !== undefined || GENERIC.has(status) || (status === 400 && c.req.url.includes('%00'))) {
    const form = doc.errors?.[status] === undefined && status === 400 ? 'family' : failureForm(doc, status);
    if (form === 'empty') return c.res.headers.get('content-type') ? 'a body, documented empty' : undefined;
    const err = ERROR_SCHEMAS[doc.family ?? 'api'];
    media = form === 'page' ? MEDIA.html : err.type;
    schema = form === 'page' ? undefined : err.schema;
  } else return 'the status is not documented';
  const contentType = (c.res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== media) return `Content-Type ${contentType || '(none)'}, documented ${media}`;
  if (!schema || !media.endsWith('json')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(await c.res.clone().text());
  } catch {
    return 'the body is not JSON';
  }
  const bad = checkerOf(schema).all(body);
  return bad.length > 0 ? describeViolations(bad) : undefined;
}
