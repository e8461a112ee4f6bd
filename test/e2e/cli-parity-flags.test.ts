/**
 * Issue 26, CLI parity for feature flags on the built executable: `engage flags …` on the
 * database (`--json`) and `/t/control/engage/admin/environments/{e}/flags…` of an `engage serve`
 * on the same database give the same answers (keys, revisions and times aside), the same errors
 * for the same bad input, and each door reads what the other made; the CLI's versions are origin
 * CLI by `os:<user>`, the API's origin API by the token's subject.
 */
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';
import { flagFile } from '../fixtures/flags';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = any;
const PASSWORD = 'correct horse battery staple';
const E = ['--environment', 'shop'];

describe('feature flags: the CLI and the API give the same results', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;
  let subject: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-flags-' });
    subject = (await sb.cliJson<{ subject: string }>(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` })).subject;
    await sb.cliJson(['environments', 'create', '--name', 'shop']);
    await sb.cliJson(['apps', 'create', '--environment', 'shop', '--platform', 'IOS', '--name', 'shop-ios']);
    server = await sb.serve();
    token = await engageAdminToken(server.url, 'ops@example.com', PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await sb?.cleanup();
  });

  const cli = async (args: string[]): Promise<{ ok: boolean; body: Json }> => {
    const r = await sb.run([...args, '--json']);
    if (r.code === 0) return { ok: true, body: r.stdout.trim() ? JSON.parse(r.stdout) : null };
    expect(r.code, `engage ${args.join(' ')}: ${r.stderr}`).toBe(1);
    return { ok: false, body: JSON.parse(r.stderr) };
  };
  const ok = async (args: string[]): Promise<Json> => {
    const r = await cli(args);
    expect(r.ok, `engage ${args.join(' ')} failed: ${JSON.stringify(r.body)}`).toBe(true);
    return r.body;
  };
  const api = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${server.url}/t/control/engage/admin/environments/shop/flags${route}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const sameError = async (args: string[], method: string, route: string, body: unknown, status: number, headers?: Record<string, string>) => {
    const c = await cli(args);
    const h = await api(method, route, body, headers);
    expect(c.ok).toBe(false);
    expect(h.status).toBe(status);
    expect(c.body.error).toBe(h.body.error);
    if (h.body.error_description !== undefined) expect(c.body.message).toBe(h.body.error_description);
  };
  const fileOf = (name: string, content: unknown) => {
    const p = path.join(sb.dir, name);
    writeFileSync(p, JSON.stringify(content));
    return p;
  };
  /** What differs between two flags made the same way by the two doors. */
  const same = (f: Json) => {
    const { key: _k, revision: _r, createdAt: _c, updatedAt: _u, definition, ...rest } = f;
    return { ...rest, definition: { ...definition, key: undefined } };
  };

  it('create, edit, archive, restore, roll back alike; each door reads what the other made', async () => {
    const byCli = await ok(['flags', 'create', ...E, '--file', fileOf('a.json', flagFile({ key: 'by-cli', targetApps: ['shop-ios'] }))]);
    const byApi = await api('POST', '', flagFile({ key: 'by-api', targetApps: ['shop-ios'] }));
    expect(byApi.status).toBe(201);
    expect(same(byCli)).toEqual(same(byApi.body));
    expect((await api('GET', '/by-cli')).body).toEqual(byCli);
    expect(await ok(['flags', 'show', 'by-api', ...E])).toEqual(byApi.body);

    const u1 = await ok(['flags', 'update', 'by-cli', ...E, '--file', fileOf('a2.json', flagFile({ key: 'by-cli', description: 'v2' })), '--expected-version', '1']);
    const u2 = await api('PUT', '/by-api', flagFile({ key: 'by-api', description: 'v2' }), { 'if-match': '"1"' });
    expect([u1.version, u1.changed, u2.body.version, u2.body.changed]).toEqual([2, true, 2, true]);
    expect(same(u1)).toEqual(same(u2.body));
    const unchanged = await ok(['flags', 'update', 'by-api', ...E, '--file', fileOf('a3.json', flagFile({ key: 'by-api', description: 'v2' }))]);
    expect([unchanged.version, unchanged.changed]).toEqual([2, false]);

    for (const verb of ['archive', 'restore']) {
      const c = await ok(['flags', verb, 'by-cli', ...E]);
      const h = await api('POST', `/by-api/${verb}`);
      expect(same(c)).toEqual(same(h.body));
    }
    const r1 = await ok(['flags', 'rollback', 'by-cli', ...E, '--to-version', '1']);
    const r2 = await api('POST', '/by-api/rollback', { version: 1 });
    expect(same(r1)).toEqual(same(r2.body));
    expect(r1).toMatchObject({ version: 5, description: 'The new checkout flow' });

    const v1 = await ok(['flags', 'versions', 'by-cli', ...E]);
    const v2 = (await api('GET', '/by-api/versions')).body.items;
    expect(v1.map((v: Json) => [v.version, v.origin, v.actor])).toEqual([[5, 'ROLLBACK', `os:${userInfo().username}`], [4, 'CLI', `os:${userInfo().username}`], [3, 'CLI', `os:${userInfo().username}`], [2, 'CLI', `os:${userInfo().username}`], [1, 'CLI', `os:${userInfo().username}`]]);
    expect(v2.map((v: Json) => [v.version, v.origin, v.actor])).toEqual([[5, 'ROLLBACK', subject], [4, 'API', subject], [3, 'API', subject], [2, 'API', subject], [1, 'API', subject]]);
    const one = await ok(['flags', 'show', 'by-cli', ...E, '--flag-version', '2']);
    expect(one.definition.description).toBe('v2');
    expect((await api('GET', '/by-cli/versions/2')).body).toEqual(one);
    expect(await ok(['flags', 'exposures', 'by-cli', ...E])).toEqual((await api('GET', '/by-cli/exposures')).body);
  }, 60_000);

  it('the same errors for the same bad input', async () => {
    const bad = flagFile({ key: 'bad', defaultVariant: 'nope' });
    await sameError(['flags', 'create', ...E, '--file', fileOf('bad.json', bad)], 'POST', '', bad, 400);
    await sameError(['flags', 'create', ...E, '--file', fileOf('dup.json', flagFile({ key: 'by-cli' }))], 'POST', '', flagFile({ key: 'by-cli' }), 409);
    await sameError(['flags', 'show', 'nope', ...E], 'GET', '/nope', undefined, 404);
    const edit = flagFile({ key: 'by-cli', description: 'late' });
    await sameError(['flags', 'update', 'by-cli', ...E, '--file', fileOf('late.json', edit), '--expected-version', '1'], 'PUT', '/by-cli', edit, 409, { 'if-match': '"1"' });
    await sameError(['flags', 'rollback', 'by-cli', ...E, '--to-version', '99'], 'POST', '/by-cli/rollback', { version: 99 }, 404);
    await sameError(['flags', 'cancel-schedule', 'by-cli', '00000000-0000-4000-8000-000000000000', ...E], 'POST', '/by-cli/schedules/00000000-0000-4000-8000-000000000000/cancel', undefined, 404);
  }, 60_000);

  it('schedules from either door, listed and cancelled by the other', async () => {
    const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const c = await ok(['flags', 'schedule', 'by-cli', ...E, '--rule', '0', '--variant', 'on', '--step', `${at(1)}=50`, '--step', `${at(2)}=100`]);
    expect(c.map((s: Json) => s.status)).toEqual(['PENDING', 'PENDING']);
    const listed = (await api('GET', '/by-cli/schedules?status=PENDING')).body.items;
    expect(listed.map((s: Json) => s.id)).toEqual(c.map((s: Json) => s.id));
    const h = await api('POST', '/by-cli/schedules', { at: at(3), definition: flagFile({ key: 'by-cli', description: 'later' }) });
    expect(h.status).toBe(201);
    expect(await ok(['flags', 'cancel-schedule', 'by-cli', h.body.items[0].id, ...E])).toMatchObject({ id: h.body.items[0].id, status: 'CANCELLED' });
    expect((await api('POST', `/by-cli/schedules/${c[0].id}/cancel`)).body.status).toBe('CANCELLED');
    expect((await ok(['flags', 'schedules', 'by-cli', ...E, '--status', 'PENDING'])).map((s: Json) => s.id)).toEqual([c[1].id]);
  }, 60_000);
});
