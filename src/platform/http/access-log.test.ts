import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { createApp } from '../../app';
import { CALLBACK, FORM, createFixture, form, issueCode, pkce, type OAuthFixture } from '../../../test/fixtures/oauth';
import type { Config, LogLevel } from '../config';
import { createLogger } from '../logger';

/** Issue 23 point 5: one access line per request, by route pattern, never a query or a secret. */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Line {
  level: string;
  msg: string;
  [k: string]: unknown;
}

async function setUp(opts: { config?: Partial<Config>; level?: LogLevel } = {}) {
  h = await createHarness(opts.config);
  const f = await createFixture(h);
  const lines: string[] = [];
  const logger = createLogger({ level: opts.level ?? 'info', format: 'json', write: (l) => lines.push(l) });
  const app = createApp({ config: h.config, clock: h.clock, logger, services: h.services });
  const request = async (p: string, init?: RequestInit) => app.request(PUBLIC_URL + p, init);
  const parsed = () => lines.map((l) => JSON.parse(l) as Line);
  const access = () => parsed().filter((l) => l.msg === 'request');
  return { h, f, lines, request, access };
}

/** A code exchange whose URL also carries the code, the verifier and a state in its query. */
async function tokenWithSecretsInQuery(h: Harness, f: OAuthFixture, request: (p: string, init?: RequestInit) => Promise<Response>) {
  const { code, verifier } = await issueCode(h, f);
  const query = form({ code, code_verifier: verifier, state: 'state-secret-9f2c' });
  const body = form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier });
  const res = await request(`${f.issuerPath}/oauth2/token?${query}`, { method: 'POST', headers: { 'content-type': FORM }, body });
  return { res, secrets: [code, verifier, 'state-secret-9f2c'] };
}

describe('access log', () => {
  it('writes exactly one info line per request: method, route pattern, status, ms, request id; no query, code or token', async () => {
    const { h, f, lines, request, access } = await setUp();
    const { res, secrets } = await tokenWithSecretsInQuery(h, f, request);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string; id_token: string };
    // The token endpoint reads its body; the query is ignored, and never logged.
    expect(res.status).toBe(200);
    expect(access()).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        requestId: res.headers.get('x-request-id'),
        method: 'POST',
        route: '/t/:tenantSegment/oauth2/token',
        status: res.status,
        ms: expect.any(Number),
      },
    ]);
    for (const s of [...secrets, ...Object.values(tokens)].filter((x) => typeof x === 'string' && x.length > 8)) {
      expect(lines.join('\n')).not.toContain(s);
    }
    expect(lines.join('\n')).not.toContain('?');
  });

  it('an authorization request: the route, not its query with state, code_challenge and login_hint', async () => {
    const { f, lines, request, access } = await setUp();
    const p = pkce();
    const query = form({ response_type: 'code', client_id: f.publicClient, redirect_uri: CALLBACK, scope: 'openid', state: 'state-secret-77aa', code_challenge: p.challenge, code_challenge_method: 'S256', login_hint: 'ada@example.com' });
    const res = await request(`${f.issuerPath}/oauth2/authorize?${query}`, { headers: { 'x-request-id': 'req-abc.123' } });
    expect(res.status).toBeLessThan(500);
    expect(access()).toEqual([expect.objectContaining({ level: 'info', method: 'GET', route: '/t/:tenantSegment/oauth2/authorize', status: res.status, requestId: 'req-abc.123' })]);
    for (const s of ['state-secret-77aa', p.challenge, 'ada@example.com']) expect(lines.join('\n')).not.toContain(s);
  });

  it('a successful exchange and an error answer each get their line; an unknown path under the catch-all pattern /* (as in the metrics)', async () => {
    const { h, f, request, access } = await setUp();
    const { code, verifier } = await issueCode(h, f);
    const ok = await request(`${f.issuerPath}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier }),
    });
    expect(ok.status).toBe(200);
    const missing = await request('/no/such/path?token=abc');
    expect(missing.status).toBe(404);
    expect(access().map((l) => [l.route, l.status])).toEqual([
      ['/t/:tenantSegment/oauth2/token', 200],
      ['/*', 404],
    ]);
  });

  it('health checks and /metrics are logged at debug only', async () => {
    const quiet = await setUp();
    for (const p of ['/healthz', '/readyz', '/metrics']) await quiet.request(p);
    expect(quiet.access()).toEqual([]);
    await h!.close();
    const verbose = await setUp({ level: 'debug' });
    for (const p of ['/healthz', '/readyz', '/metrics']) await verbose.request(p);
    expect(verbose.access().map((l) => [l.level, l.route])).toEqual([
      ['debug', '/healthz'],
      ['debug', '/readyz'],
      ['debug', '/metrics'],
    ]);
  });

  it('is off with accessLog false (--no-access-log, ENGAGE_ACCESS_LOG=false), even at debug', async () => {
    const { h, f, lines, request } = await setUp({ config: { accessLog: false }, level: 'debug' });
    await tokenWithSecretsInQuery(h, f, request);
    await request('/healthz');
    expect(lines.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
  });
});
