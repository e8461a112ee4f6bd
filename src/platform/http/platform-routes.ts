import { Hono, type Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { Registry } from '../metrics';
import { METRICS_CHALLENGE, METRICS_CONTENT_TYPE, type MetricsRequest, type MetricsVerdict } from '../metrics-access';
import { ApiError, notFoundError } from './errors';
import { T } from './schema';
import { described, openApiDocument, type RouteSource } from './openapi';
import { headerOf, type AppEnv } from './request';

const Status = T.Object({ status: T.String() });

/** Health, readiness and the OpenAPI document: the process's own routes, in no issuer. */
export function createPlatformRoutes(deps: {
  readiness: () => Promise<string>;
  /** Rendered at GET /metrics. */
  metrics: Pick<Registry, 'render'>;
  /** Whether this request may read /metrics on the main port (metricsPolicy(config).main). */
  metricsAccess: (req: MetricsRequest) => MetricsVerdict;
  /** The app whose routes the document describes (the whole composed app). */
  document: () => RouteSource;
  publicUrl: string;
  version?: string;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(
    '/healthz',
    described({ summary: 'Liveness: the process answers', tags: ['platform'], responses: { 200: { description: 'alive', schema: Status } } }, (c) =>
      c.json({ status: 'ok' }),
    ),
  );
  app.get(
    '/readyz',
    described(
      {
        summary: 'Readiness: the database answers and every migration is applied',
        tags: ['platform'],
        responses: { 200: { description: 'ready', schema: Status }, 503: { description: 'not ready', schema: Status } },
      },
      async (c) => {
        const status = await deps.readiness();
        return c.json({ status }, status === 'ready' ? 200 : 503);
      },
    ),
  );
  app.get(
    '/metrics',
    described(
      {
        summary: 'Prometheus metrics of this process (text exposition format 0.0.4): to loopback peers, or bearers of ENGAGE_METRICS_TOKEN; not here with --metrics-listen',
        tags: ['platform'],
        security: ['metricsToken', 'none'],
        responses: { 200: { description: 'requests by route and status, latency histograms, transaction timings, job runs, ingest counters' } },
        errors: { 401: 'ENGAGE_METRICS_TOKEN is set and the bearer token is missing or wrong', 404: 'not served to this peer, or served on --metrics-listen only' },
      },
      async (c) => {
        const verdict = deps.metricsAccess(metricsRequest(c));
        if (verdict === 'not_found') throw notFoundError('api');
        if (verdict === 'unauthorized') throw new ApiError(401, 'invalid_token', { ...METRICS_CHALLENGE });
        return c.body(await deps.metrics.render(), 200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
      },
    ),
  );
  let doc: string | undefined;
  app.get(
    '/openapi.json',
    described({ summary: 'This OpenAPI 3.1 document', tags: ['platform'], responses: { 200: { description: 'the document' } } }, (c) => {
      doc ??= JSON.stringify(openApiDocument(deps.document(), { version: deps.version ?? VERSION, publicUrl: deps.publicUrl }));
      return c.body(doc, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' });
    }),
  );
  return app;
}

/** The TCP peer (from @hono/node-server's `incoming`) and headers of a request. */
function metricsRequest(c: Context<AppEnv>): MetricsRequest {
  const peer = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;
  return { peer, header: (name) => headerOf(c, name) };
}

declare const __ENGAGE_VERSION__: string | undefined;
const VERSION = typeof __ENGAGE_VERSION__ === 'string' ? __ENGAGE_VERSION__ : '0.0.0-dev';
