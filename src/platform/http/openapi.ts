/**
 * The OpenAPI 3.1 document, built from the routes actually mounted: each handler carries its
 * RouteDoc (`described(doc, handler)`, or a declaration that validates with it: route.ts), whose
 * schemas are the same objects the routes validate with (schema.ts). A route without a doc, or
 * a doc without a route, cannot happen silently: src/app.test.ts compares the document with the
 * app's route table.
 */
import type { Handler } from 'hono';
import type { TSchema } from '@sinclair/typebox';
import type { ErrorFamily } from './errors';
import { exampleOf } from './openapi-example';

/**
 * The schemes of components.securitySchemes, and `none`: the credential is optional (an
 * alternative of no requirement, `{}`).
 */
export type SecurityName = 'appKey' | 'installation' | 'revocation' | 'accessKey' | 'clientBasic' | 'resourceServerBasic' | 'bearerToken' | 'metricsToken' | 'none';

export type BodyType = 'json' | 'form' | 'html' | 'ndjson' | 'event-stream' | 'empty';

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
  /** Default `json` when a schema is given, `empty` otherwise. */
  type?: BodyType;
  headers?: Record<string, string>;
}

export interface RouteDoc {
  /** One line: the operation's description in the document. */
  summary: string;
  /** Stable name of the operation; by default made from the method and path (operationIdOf). */
  operationId?: string;
  tags?: string[];
  /**
   * Alternatives, any one of which authenticates. Absent: the route is public (`security: []`),
   * which the browser pages are too (their session cookie and CSRF field are not API credentials).
   */
  security?: SecurityName[];
  /** Path parameters, by name. */
  params?: Record<string, TSchema>;
  /**
   * `read`: how the route turns the parameter's values (every occurrence) into its value, for a
   * parameter with rules of its own (pagination.ts); by default one string, checked by `schema`.
   */
  query?: Record<string, { schema: TSchema; required?: boolean; description?: string; read?: (values: string[]) => unknown }>;
  headers?: Record<string, { schema: TSchema; required?: boolean; description?: string }>;
  /**
   * `example` overrides the one made from the schema (openapi-example.ts). `check`: the schema
   * the route validates with, when it is not the documented one (a batch whose items are
   * checked one by one, each answered on its own). `bounds: 'per-item'`: the body reader leaves
   * depth and NUL to that per-item check (route.ts).
   */
  body?: { schema: TSchema; type?: 'json' | 'form'; required?: boolean; example?: unknown; check?: TSchema; bounds?: 'per-item' };
  responses: Record<number, ResponseDoc>;
  /** Failure statuses, each answered in the route's error family. */
  errors?: Record<number, string>;
  /** Set when the route's family app is mounted (stampFamily). */
  family?: ErrorFamily;
}

const DOC = Symbol.for('engage.routeDoc');
/** hono's marker on a handler it wrapped with a sub-app's error handler (hono/utils/constants). */
const COMPOSED = '__COMPOSED_HANDLER';

type Documented = { [DOC]?: RouteDoc; [COMPOSED]?: unknown };

/** What the document is built from: a hono app's route table. */
export interface RouteSource {
  routes: readonly { method: string; path: string; handler: unknown }[];
}

/** Attaches `doc` to the route's final handler; costs nothing per request. */
export function described<H extends Handler>(doc: RouteDoc, handler: H): H {
  (handler as Documented)[DOC] = doc;
  return handler;
}

export function docOf(handler: unknown): RouteDoc | undefined {
  let h = handler as Documented | undefined;
  while (h) {
    if (h[DOC]) return h[DOC];
    h = h[COMPOSED] as Documented | undefined;
  }
  return undefined;
}

/** Records the family that renders each documented route's failures (for its error schemas). */
export function stampFamily(app: RouteSource, family: ErrorFamily): void {
  for (const r of app.routes) {
    const d = docOf(r.handler);
    if (d) d.family = family;
  }
}

/** Issuer-scoped routes are mounted under this prefix and again at the root (custom hosts). */
export const ISSUER_PREFIX = '/t/:tenantSegment';

export interface DocumentedRoute {
  method: string;
  /** OpenAPI form: `{param}`; issuer routes relative to `{issuer}`. */
  path: string;
  issuer: boolean;
  doc: RouteDoc;
}

/** hono's `/:name` and `/:name{regex}` as OpenAPI's `/{name}`. */
const toOpenApiPath = (p: string) => p.replace(/\/:([A-Za-z0-9_]+)(\{[^/]*\})?/g, '/{$1}');

/**
 * The app's routes (middleware and catch-alls, registered as `ALL`, are not routes), each with
 * the doc one of its handlers carries (a guard before the documented handler shares its method
 * and path), issuer routes once although mounted twice; and the routes that have no doc.
 */
export function routeTable(app: RouteSource): { documented: DocumentedRoute[]; undocumented: string[] } {
  const groups = new Map<string, { method: string; path: string; doc?: RouteDoc }>();
  for (const r of app.routes) {
    if (r.method === 'ALL') continue;
    const key = `${r.method} ${r.path}`;
    const g = groups.get(key) ?? { method: r.method, path: r.path };
    g.doc ??= docOf(r.handler);
    groups.set(key, g);
  }
  const documented: DocumentedRoute[] = [];
  const undocumented: string[] = [];
  const issuerDocs = new Set<RouteDoc>();
  const isIssuer = (p: string) => p.startsWith(`${ISSUER_PREFIX}/`);
  for (const g of groups.values()) if (isIssuer(g.path) && g.doc) issuerDocs.add(g.doc);
  for (const g of groups.values()) {
    const issuer = isIssuer(g.path);
    const path = toOpenApiPath(issuer ? g.path.slice(ISSUER_PREFIX.length) : g.path);
    if (!g.doc) undocumented.push(`${g.method} ${path}`);
    else if (issuer || !issuerDocs.has(g.doc)) documented.push({ method: g.method.toLowerCase(), path, issuer, doc: g.doc });
  }
  return { documented, undocumented };
}

export const ERROR_SCHEMAS: Record<ErrorFamily, { type: string; schema: object }> = {
  problem: {
    type: 'application/problem+json',
    schema: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
  oauth: {
    type: 'application/json',
    schema: {
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'string' }, error_description: { type: 'string' } },
    },
  },
  api: {
    type: 'application/json',
    schema: {
      type: 'object',
      required: ['error'],
      properties: {
        error: { type: 'string' },
        // Issue 23: only with invalid_request, naming each field and the rule it breaks.
        error_description: { type: 'string', description: 'with invalid_request only: every field and the rule it breaks (field: reason; ...)' },
      },
    },
  },
};

/**
 * How a documented failure of `doc` is answered: `empty` on a documented route of the OAuth
 * family for 404, the unknown or disabled issuer (spec 02; errors.ts EmptyNotFound); `page`
 * (text/html) when the route answers a browser with pages (one of its responses is html: the
 * authorization, account and logout pages render their refusals as pages); otherwise `family`,
 * the family's JSON error.
 */
/**
 * What every route answers 400 for, whatever it declares (request.ts refuseNulInUrl, before any
 * route): documented on each operation that declares no 400 of its own, as clients generated
 * from the document expect every status they can get.
 */
export const URL_REFUSAL = 'invalid_request: a NUL character (%00) in the path or query (any route)';

export function failureForm(doc: RouteDoc, status: number): 'empty' | 'page' | 'family' {
  if (doc.family === 'oauth' && status === 404) return 'empty';
  if (Object.values(doc.responses).some((r) => r.type === 'html')) return 'page';
  return 'family';
}

export const MEDIA: Record<Exclude<BodyType, 'empty'>, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  html: 'text/html',
  // Newline-delimited JSON streams (the user export download, spec 03).
  ndjson: 'application/x-ndjson',
  // Server-Sent Events (the sync's change notices, issue 26).
  'event-stream': 'text/event-stream',
};

const SECURITY_SCHEMES = {
  appKey: { type: 'apiKey', in: 'header', name: 'X-Service-App-Key', description: 'Public app key (svc_app_...), bootstrap only.' },
  installation: { type: 'http', scheme: 'bearer', description: 'Installation credential.' },
  revocation: { type: 'http', scheme: 'bearer', description: 'Revocation credential (privacy revocation only).' },
  accessKey: { type: 'http', scheme: 'bearer', description: 'Environment access key.' },
  clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client (client_secret_basic); public clients send client_id in the form.' },
  resourceServerBasic: { type: 'http', scheme: 'basic', description: 'Resource-server credential issued for a resource.' },
  bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token issued by the tenant.' },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'ENGAGE_METRICS_TOKEN, when set (loopback peers need none otherwise).' },
};

/** Descriptions of path parameters a route's doc leaves undeclared (each is a string). */
const PATH_PARAMETERS: Record<string, string> = {
  tenantSegment: 'The tenant’s slug: the path segment of its managed issuer {publicUrl}/t/{slug}.',
};

/**
 * The default operationId: the method, then each path segment in camelCase, a parameter as
 * `By<Name>` (`GET /v1/sdk/installation` → `getV1SdkInstallation`, `PUT
 * /identity/admin/tenants/{tenantId}` → `putIdentityAdminTenantsByTenantId`). Stable while the
 * route keeps its method and path; openApiDocument refuses two operations with one name.
 */
export function operationIdOf(method: string, path: string): string {
  const words = [method.toLowerCase()];
  for (const seg of path.split('/')) {
    const param = /^\{(.+)\}$/.exec(seg);
    if (param) words.push('by', param[1]);
    else words.push(...seg.split(/[^A-Za-z0-9]+/).filter(Boolean));
  }
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

/** Drops TypeBox's symbol keys and `undefined`s: a plain JSON Schema 2020-12 object. */
function plain(schema: TSchema): object {
  return JSON.parse(JSON.stringify(schema));
}

function response(r: ResponseDoc) {
  const type = r.type ?? (r.schema ? 'json' : 'empty');
  const out: Record<string, unknown> = { description: r.description };
  if (type !== 'empty') out.content = { [MEDIA[type]]: r.schema ? { schema: plain(r.schema) } : {} };
  if (r.headers) out.headers = Object.fromEntries(Object.entries(r.headers).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }]));
  return out;
}

function operation(d: RouteDoc, method: string, path: string) {
  const parameters: object[] = [];
  for (const [name, schema] of Object.entries(d.params ?? {})) parameters.push({ name, in: 'path', required: true, schema: plain(schema) });
  // Every {name} of the path is a parameter of the operation, declared or not (OpenAPI 3.1 §4.8.12.1).
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!d.params?.[name]) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' }, ...(PATH_PARAMETERS[name] ? { description: PATH_PARAMETERS[name] } : {}) });
  }
  for (const [name, q] of Object.entries(d.query ?? {}))
    parameters.push({ name, in: 'query', required: q.required ?? false, schema: plain(q.schema), ...(q.description ? { description: q.description } : {}) });
  for (const [name, h] of Object.entries(d.headers ?? {}))
    parameters.push({ name, in: 'header', required: h.required ?? false, schema: plain(h.schema), ...(h.description ? { description: h.description } : {}) });
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(d.responses)) responses[status] = response(r);
  const err = ERROR_SCHEMAS[d.family ?? 'api'];
  // refuseNulInUrl answers before any route, in the family's error form (never a page).
  if (!d.responses[400] && !d.errors?.[400]) responses[400] = { description: URL_REFUSAL, content: { [err.type]: { schema: err.schema } } };
  for (const [status, description] of Object.entries(d.errors ?? {})) {
    const form = failureForm(d, Number(status));
    if (form === 'empty') responses[status] = { description };
    else if (form === 'page') responses[status] = { description, content: { [MEDIA.html]: {} } };
    else responses[status] = { description, content: { [err.type]: { schema: err.schema } } };
  }
  const body = d.body && plain(d.body.schema);
  return {
    operationId: d.operationId ?? operationIdOf(method, path),
    summary: d.summary,
    ...(d.tags ? { tags: d.tags } : {}),
    security: (d.security ?? []).map((s) => (s === 'none' ? {} : { [s]: [] })),
    ...(parameters.length ? { parameters } : {}),
    ...(d.body && body
      ? {
          requestBody: {
            required: d.body.required ?? true,
            content: { [MEDIA[d.body.type ?? 'json']]: { schema: body, example: d.body.example ?? exampleOf(body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of `app` (GET /openapi.json). */
export function openApiDocument(app: RouteSource, info: { version: string; publicUrl: string }): object {
  const paths: Record<string, Record<string, unknown>> = {};
  const { documented } = routeTable(app);
  documented.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  const operationIds = new Map<string, string>();
  for (const r of documented) {
    const item = (paths[r.path] ??= {});
    if (r.issuer) {
      // Spec 02 and 03 write these paths relative to the tenant's issuer.
      item.servers = [
        {
          url: '{issuer}',
          description: 'The tenant’s issuer: {publicUrl}/t/{slug}, or its custom issuer.',
          variables: { issuer: { default: `${info.publicUrl}/t/control` } },
        },
      ];
    }
    const op = operation(r.doc, r.method, r.path);
    const other = operationIds.get(op.operationId);
    if (other) throw new Error(`operationId ${op.operationId} names both ${other} and ${r.method.toUpperCase()} ${r.path}: declare one explicitly`);
    operationIds.set(op.operationId, `${r.method.toUpperCase()} ${r.path}`);
    item[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'engage', version: info.version },
    servers: [{ url: info.publicUrl }],
    paths,
    components: { securitySchemes: SECURITY_SCHEMES },
  };
}
