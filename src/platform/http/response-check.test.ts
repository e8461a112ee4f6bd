import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors';
import { ClientClosedError } from './errors';
import { createFamilyApp, familyOnError } from './family';
import { described } from './openapi';
import { checkResponses, responseCheck, responseFindings } from './response-check';
import { Strict, T } from './schema';

function appOf(answer: (c: import('hono').Context) => Response) {
  checkResponses();
  const app = new Hono();
  app.use(responseCheck()!);
  const sub = createFamilyApp('problem', { prefixes: ['/v1/*'] });
  sub.app.get(
    '/v1/thing',
    described({ summary: 'a thing', responses: { 200: { description: 'the thing', schema: Strict({ name: T.String() }) } }, errors: { 409: 'conflict' } }, answer),
  );
  app.route('/', sub.close());
  app.onError(familyOnError);
  return app;
}

describe('the response check of the in-process suite (response-check.ts)', () => {
  it('finds a body that breaks the schema of its status, and a media type that is not the documented one', async () => {
    await appOf((c) => c.json({ name: 1, extra: true })).request('/v1/thing');
    await appOf((c) => c.text('hello')).request('/v1/thing');
    expect(responseFindings()).toEqual([
      'GET /v1/thing → 200: extra: is not an allowed property; name: must be a string',
      'GET /v1/thing → 200: Content-Type text/plain, documented application/json',
    ]);
  });

  it('checks a documented failure against its family’s error schema, and lets a conforming answer pass', async () => {
    await appOf((c) => c.json({ name: 'ok' })).request('/v1/thing');
    await appOf(() => {
      throw new DomainError('conflict', 'conflict', 'taken');
    }).request('/v1/thing');
    expect(responseFindings()).toEqual([]);
    await appOf((c) => c.json({ error: 'conflict' }, 409, { 'Content-Type': 'application/problem+json' })).request('/v1/thing');
    expect(responseFindings()).toEqual(['GET /v1/thing → 409: code: is required; message: is required']);
  });

  it('finds a status the route does not document; a 500 any route may answer is checked against the family’s error form, a 499 nobody hears is not', async () => {
    await appOf((c) => c.json({ name: 'ok' }, 201)).request('/v1/thing');
    await appOf(() => {
      throw new DomainError('forbidden', 'access_denied', 'no');
    }).request('/v1/thing');
    expect(responseFindings()).toEqual(['GET /v1/thing → 201: the status is not documented', 'GET /v1/thing → 403: the status is not documented']);
    await appOf(() => {
      throw new ClientClosedError();
    }).request('/v1/thing');
    expect(responseFindings()).toEqual([]);
    await appOf(() => {
      throw new Error('boom');
    }).request('/v1/thing');
    expect(responseFindings()).toEqual([]);
    await appOf((c) => c.json({ error: 'boom' }, 500, { 'Content-Type': 'application/problem+json' })).request('/v1/thing');
    expect(responseFindings()).toEqual(['GET /v1/thing → 500: code: is required; message: is required']);
  });
});
