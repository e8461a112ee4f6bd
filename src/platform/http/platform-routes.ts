import { Hono } from 'hono';
import type { Registry } from '../metrics';
import { T } from './schema';
import { described, openApiDocument, type RouteSource } from './openapi';
import type { AppEnv } from './request';

const Status = T.Object({ status: T.String() });

/** Health, readiness and the OpenAPI document: the process's own routes, in no issuer. */
export function createPlatformRoutes(deps: {
  readiness: () => Promise<string>;
  /** Rendered at GET /metrics. */
  metrics: Pick<Registry, 'render'>;
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
        summary: 'Prometheus metrics of this process (text exposition format 0.0.4)',
        tags: ['platform'],
        responses: { 200: { description: 'requests by route and status, latency histograms, transaction timings, job runs, ingest counters' } },
      },
      async (c) => c.body(await deps.metrics.render(), 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' }),
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

declare const __ENGAGE_VERSION__: string | undefined;
const VERSION = typeof __ENGAGE_VERSION__ === 'string' ? __ENGAGE_VERSION__ : '0.0.0-dev';
