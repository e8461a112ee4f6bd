import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test/helpers/harness';
import { routeTable } from './platform/http/openapi';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }>; requestBody?: { content: Record<string, { schema: object }> } }>>;
};

async function document(): Promise<Doc> {
  const res = await h.request('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  return (await res.json()) as Doc;
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths)
    .flatMap(([p, item]) => Object.keys(item).filter((k) => k !== 'servers').map((m) => `${m.toUpperCase()} ${p}`))
    .sort();

describe('GET /openapi.json', () => {
  it('documents every mounted route, and no route that is not mounted', async () => {
    const table = routeTable(h.app);
    expect(table.undocumented).toEqual([]);
    const mounted = table.documented.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(operations(await document())).toEqual(mounted);
  });

  it('names the contract’s paths exactly (spec 01 edge, spec 02 issuer-relative)', async () => {
    const ops = operations(await document());
    for (const op of [
      'POST /v1/sdk/installations',
      'GET /v1/sdk/installation',
      'POST /v1/sdk/installation/binding-code',
      'POST /v1/installation-binding-transitions',
      'POST /v1/sdk/operations:batch',
      'PUT /v1/sdk/privacy/revocations/{operationId}',
      'GET /.well-known/openid-configuration',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/oauth-authorization-server/t/{tenantSegment}',
      'GET /oauth2/authorize',
      'POST /oauth2/token',
      'GET /oauth2/userinfo',
      'POST /oauth2/userinfo',
      'POST /oauth2/introspect',
      'GET /oauth2/jwks',
      'POST /oauth2/revoke',
      'POST /oauth2/revoke-application-grants',
    ]) {
      expect(ops, op).toContain(op);
    }
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.paths['/oauth2/token'] as unknown as { servers: { url: string }[] }).servers[0].url).toBe('{issuer}');
  });

  it('carries schemas that are valid JSON Schema 2020-12', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const doc = await document();
    let n = 0;
    for (const item of Object.values(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'servers') continue;
        const schemas = [
          ...Object.values(op.requestBody?.content ?? {}).map((c) => c.schema),
          ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema)),
        ].filter((s): s is object => !!s);
        for (const s of schemas) {
          expect(() => ajv.compile(s)).not.toThrow();
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(20);
  });

  it('states the contract’s bounds (locale max 35 characters; 1 to 100 operations)', async () => {
    const doc = await document();
    const bootstrap = doc.paths['/v1/sdk/installations'].post.requestBody!.content['application/json'].schema as {
      properties: Record<string, { maxLength?: number }>;
      additionalProperties: boolean;
    };
    expect(bootstrap.properties.locale.maxLength).toBe(35);
    expect(bootstrap.additionalProperties).toBe(false);
    const batch = doc.paths['/v1/sdk/operations:batch'].post.requestBody!.content['application/json'].schema as {
      properties: { operations: { minItems: number; maxItems: number } };
    };
    expect([batch.properties.operations.minItems, batch.properties.operations.maxItems]).toEqual([1, 100]);
  });
});

describe('GET /readyz', () => {
  it('is 200 while serving and 503 "shutting down" once a graceful shutdown has begun', async () => {
    const own = await createHarness();
    try {
      const before = await own.request('/readyz');
      expect([before.status, await before.json()]).toEqual([200, { status: 'ready' }]);
      own.services.drain();
      const after = await own.request('/readyz');
      expect([after.status, await after.json()]).toEqual([503, { status: 'shutting down' }]);
      expect((await own.request('/healthz')).status).toBe(200); // alive, just not taking new work
    } finally {
      await own.close();
    }
  });
});
