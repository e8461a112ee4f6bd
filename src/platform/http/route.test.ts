import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors';
import { readJsonBody } from './body';
import { createFamilyApp, familyOnError } from './family';
import { docOf } from './openapi';
import { pageQuery } from './pagination';
import { declaredRoutes, type InputRules } from './route';
import { describeViolations, Strict, T, Uuid } from './schema';

const invalid = (message: string) => new DomainError('invalid', 'invalid_request', message);
const rules = (violations: InputRules['violations']): InputRules => ({
  readBody: (c) => readJsonBody(c, { maxBytes: 64, fail: (f) => invalid(f.kind === 'too_large' ? 'too large' : `${f.field}: ${f.reason}`) }),
  violations,
  invalid: (list) => invalid(violations === 'first' ? list[0].message : describeViolations(list)),
});

const Body = Strict({ name: T.String({ minLength: 1 }), n: T.Integer() });
const doc = {
  summary: 'declared',
  params: { id: Uuid() },
  query: { ...pageQuery, q: { schema: T.String({ maxLength: 3 }) } },
  headers: { 'X-Key': { schema: T.String({ pattern: '^k' }), required: true } },
  body: { schema: Body },
  responses: { 200: { description: 'echo' } },
};

function appOf() {
  const app = new Hono();
  for (const family of ['problem', 'api'] as const) {
    const sub = createFamilyApp(family, { prefixes: [`/${family}/*`] });
    const route = declaredRoutes(rules(family === 'problem' ? 'first' : 'all'));
    // The handler sees only checked, typed input.
    sub.app.post(`/${family}/things/:id`, route(doc, (c, input) => c.json({ id: input.params.id, page: input.query.page, q: input.query.q ?? null, key: input.headers['X-Key'], name: input.body.name })));
    app.route('/', sub.close());
  }
  app.onError(familyOnError);
  return app;
}

const ID = '0b3c6f58-7c1e-4d7e-9b43-3f2f5a1d7c10';
const post = (app: Hono, path: string, body: unknown, headers: Record<string, string> = { 'X-Key': 'k1' }) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('route declarations that validate (platform/http/route.ts)', () => {
  it('hands the handler its parameters, query, headers and body, checked and typed', async () => {
    const res = await post(appOf(), `/api/things/${ID}?page=2&q=ab`, { name: 'x', n: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: ID, page: 2, q: 'ab', key: 'k1', name: 'x' });
  });

  it('the document is the declaration: the handler carries the doc it validates with', () => {
    const route = declaredRoutes(rules('first'));
    expect(docOf(route(doc, (c) => c.text('')))).toBe(doc);
  });

  it('the problem family names the first violation (path, then query, headers, body) in a Problem', async () => {
    const app = appOf();
    const cases: [string, unknown, Record<string, string> | undefined, string][] = [
      ['/problem/things/nope?q=abcd', { name: '' }, {}, 'id: must be a UUID'],
      [`/problem/things/${ID}?q=abcd`, { name: '' }, {}, 'q: must be at most 3 characters'],
      [`/problem/things/${ID}?q=a&q=b`, { name: 'x', n: 1 }, undefined, 'q: must be given once'],
      [`/problem/things/${ID}`, { name: '' }, {}, 'X-Key header: is required'],
      [`/problem/things/${ID}`, { name: '' }, { 'X-Key': 'nope' }, 'X-Key header: must match ^k'],
      [`/problem/things/${ID}`, { name: '', n: 1 }, undefined, 'name: must be at least 1 character'],
    ];
    for (const [path, body, headers, message] of cases) {
      const res = await post(app, path, body, headers);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toEqual({ code: 'invalid_request', message });
    }
  });

  it('the api family names every violation; a query parameter with rules of its own keeps its wording', async () => {
    const app = appOf();
    const res = await post(app, '/api/things/nope', { name: '', extra: 1 }, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'id: must be a UUID; X-Key header: is required; n: is required; extra: is not an allowed property; name: must be at least 1 character',
    });
    const page = await post(app, `/api/things/${ID}?size=0`, { name: 'x', n: 1 });
    expect(await page.json()).toEqual({ error: 'invalid_request', error_description: 'size: must be an integer from 1 to 200' });
  });

  it('an unreadable body is the family reader’s failure, before any other check', async () => {
    const res = await post(appOf(), '/problem/things/nope', '{', {});
    expect(await res.json()).toEqual({ code: 'invalid_request', message: 'body: is not valid JSON' });
  });
});
