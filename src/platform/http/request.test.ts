import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors';
import { ApiError, OAuthError, ProblemError } from './errors';
import { createFamilyApp, familyOnError } from './family';
import { described } from './openapi';
import { clientAddress, requestContext, type AppEnv } from './request';
import { createLogger } from '../logger';

function appWith(lines: string[]) {
  const app = new Hono<AppEnv>();
  app.use(requestContext(createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) })));
  for (const family of ['problem', 'oauth', 'api'] as const) {
    const sub = createFamilyApp<AppEnv>(family, { prefixes: [`/${family}/*`], ...(family === 'api' ? { apiCode: (e: DomainError) => (e.kind === 'conflict' ? 'directory_operation_rejected' : e.code) } : {}) });
    sub.app.get(`/${family}/boom`, () => {
      throw new Error('secret internal detail: password=hunter2');
    });
    sub.app.get(`/${family}/domain`, () => {
      throw new DomainError('conflict', 'client_conflict', 'slug acme is taken');
    });
    // A guard (middleware) of the family that fails before its documented handler runs.
    sub.app.use(`/${family}/guarded`, () => {
      throw new DomainError('conflict', 'client_conflict', 'slug acme is taken');
    });
    sub.app.get(`/${family}/guarded`, described({ summary: 'guarded', tags: [], responses: {} }, (c) => c.text('unreachable')));
    app.route('/', sub.close());
  }
  app.get('/known/problem', () => {
    throw new ProblemError(401, 'unauthorized', 'The credential is not valid.');
  });
  app.get('/known/oauth', () => {
    throw new OAuthError(401, 'invalid_token', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  });
  app.get('/known/api', () => {
    throw new ApiError(409, 'tenant_conflict', undefined, 'slug acme is taken');
  });
  app.onError(familyOnError);
  return app;
}

describe('family sub-apps', () => {
  it.each([
    ['problem', 'application/problem+json', { code: 'client_conflict', message: 'slug acme is taken' }],
    ['oauth', 'application/json', { error: 'client_conflict', error_description: 'slug acme is taken' }],
    ['api', 'application/json', { error: 'directory_operation_rejected' }],
  ])('map a service DomainError in the %s family, from a handler or a guard', async (family, type, body) => {
    for (const path of [`/${family}/domain`, `/${family}/guarded`]) {
      const res = await appWith([]).request(path);
      expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([409, type, body]);
    }
  });

  it.each([
    ['problem', 'application/problem+json', { code: 'not_found', message: 'No such route.' }],
    ['oauth', 'application/json', { error: 'not_found' }],
    ['api', 'application/json', { error: 'not_found' }],
  ])('answer an unknown path under their prefix with the %s family 404', async (family, type, body) => {
    const res = await appWith([]).request(`/${family}/nothing-here`);
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([404, type, body]);
  });
});

describe('error rendering', () => {
  it.each([
    ['problem', 'application/problem+json', { code: 'internal_error', message: 'An internal error occurred.' }],
    ['oauth', 'application/json', { error: 'server_error' }],
    ['api', 'application/json', { error: 'server_error' }],
  ])('renders an unexpected exception as a %s 500 with no internal detail', async (family, type, body) => {
    const lines: string[] = [];
    const res = await appWith(lines).request(`/${family}/boom`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe(type);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(body);
    expect(text).not.toContain('hunter2');
    expect(lines.some((l) => l.includes('"level":"error"') && l.includes(res.headers.get('x-request-id')!))).toBe(true);
  });

  it('renders each family in its own format', async () => {
    const app = appWith([]);
    const p = await app.request('/known/problem');
    expect([p.status, p.headers.get('content-type'), await p.json()]).toEqual([401, 'application/problem+json', { code: 'unauthorized', message: 'The credential is not valid.' }]);
    const o = await app.request('/known/oauth');
    expect([o.status, o.headers.get('www-authenticate'), o.headers.get('cache-control'), await o.json()]).toEqual([401, 'Bearer error="invalid_token"', 'no-store', { error: 'invalid_token' }]);
    const a = await app.request('/known/api');
    const body = await a.text();
    expect([a.status, JSON.parse(body)]).toEqual([409, { error: 'tenant_conflict' }]);
    expect(body).not.toContain('acme'); // the internal detail stays in logs
  });
});

describe('clientAddress', () => {
  const app = new Hono();
  app.get('/:hops', (c) => c.text(clientAddress(c, Number(c.req.param('hops')))));
  /** As on the Node server: hono's env carries the IncomingMessage with its socket and headers. */
  const ask = async (hops: number, xff?: string) => {
    const incoming = { socket: { remoteAddress: '10.0.0.2' }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } };
    return (await app.request(`/${hops}`, {}, { incoming })).text();
  };

  it.each([
    [0, '198.51.100.7', '10.0.0.2'],
    [0, undefined, '10.0.0.2'],
    [1, '198.51.100.7', '198.51.100.7'],
    [1, 'forged, 198.51.100.7', '198.51.100.7'],
    [2, 'forged, 198.51.100.7, 10.0.0.9', '198.51.100.7'],
    [3, '198.51.100.7, 10.0.0.9', '198.51.100.7'],
    [1, undefined, '10.0.0.2'],
    [1, ' , ', '10.0.0.2'],
  ])('with %i trusted proxies and X-Forwarded-For %j: %s', async (hops, xff, expected) => {
    expect(await ask(hops, xff)).toBe(expected);
  });
});
