/**
 * Issue 27, CLI parity for in-app messages on the built executable: `engage in-app …` on the
 * database (`--json`) and `/t/control/engage/admin/environments/{e}/in-app-messages…` of an
 * `engage serve` on the same database give the same answers (keys, ids and times aside), the same
 * errors for the same bad input, and each door reads what the other made; the sync settings'
 * minimum interval set by the CLI is what the API reads.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';
import { messageFile, variantFile } from '../fixtures/in-app-messages';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = any;
const PASSWORD = 'correct horse battery staple';
const E = ['--environment', 'shop'];

describe('in-app messages: the CLI and the API give the same results', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-in-app-' });
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
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
    const res = await fetch(`${server.url}/t/control/engage/admin/environments/shop${route}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const M = '/in-app-messages';
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
  /** What differs between two messages made the same way by the two doors. */
  const same = (m: Json) => {
    const { key: _k, id: _i, createdAt: _c, updatedAt: _u, publishedAt: p, definition, published, ...rest } = m;
    const keyless = (d: Json) => (d === null ? null : { ...d, key: undefined });
    return { ...rest, publishedAt: p === null ? null : 'set', definition: keyless(definition), published: keyless(published) };
  };

  it('create, edit, publish, pause, archive alike; each door reads what the other made', async () => {
    const byCli = await ok(['in-app', 'create', ...E, '--file', fileOf('a.json', messageFile({ key: 'by-cli', targetApps: ['shop-ios'] }))]);
    const byApi = await api('POST', M, messageFile({ key: 'by-api', targetApps: ['shop-ios'] }));
    expect(byApi.status).toBe(201);
    expect(byCli).toMatchObject({ status: 'DRAFT', version: 1, publishedVersion: null });
    expect(same(byCli)).toEqual(same(byApi.body));
    expect((await api('GET', `${M}/by-cli`)).body).toEqual(byCli);
    expect(await ok(['in-app', 'show', 'by-api', ...E])).toEqual(byApi.body);

    const p1 = await ok(['in-app', 'publish', 'by-cli', ...E, '--expected-version', '1']);
    const p2 = await api('POST', `${M}/by-api/publish`, undefined, { 'if-match': '"1"' });
    expect([p1.status, p1.changed]).toEqual(['ACTIVE', true]);
    expect(same(p1)).toEqual(same(p2.body));

    const u1 = await ok(['in-app', 'update', 'by-cli', ...E, '--file', fileOf('a2.json', messageFile({ key: 'by-cli', description: 'v2' })), '--expected-version', '1']);
    const u2 = await api('PUT', `${M}/by-api`, messageFile({ key: 'by-api', description: 'v2' }), { 'if-match': '"1"' });
    expect([u1.version, u1.publishedVersion, u1.draftPending, u1.changed]).toEqual([2, 1, true, true]);
    expect(same(u1)).toEqual(same(u2.body));
    const unchanged = await ok(['in-app', 'update', 'by-api', ...E, '--file', fileOf('a3.json', messageFile({ key: 'by-api', description: 'v2' }))]);
    expect([unchanged.version, unchanged.changed]).toEqual([2, false]);

    for (const verb of ['publish', 'pause', 'publish', 'archive']) {
      const c = await ok(['in-app', verb, 'by-cli', ...E]);
      const h = await api('POST', `${M}/by-api/${verb}`);
      expect(same(c), verb).toEqual(same(h.body));
    }
    expect((await ok(['in-app', 'show', 'by-cli', ...E])).status).toBe('ARCHIVED');

    const listed = await ok(['in-app', 'list', ...E, '--status', 'ARCHIVED']);
    expect(listed.map((m: Json) => m.key)).toEqual(['by-api', 'by-cli']);
    expect(listed).toEqual((await api('GET', `${M}?status=ARCHIVED`)).body.items);
    expect(await ok(['in-app', 'results', 'by-cli', ...E, '--days', '7'])).toEqual((await api('GET', `${M}/by-cli/results?days=7`)).body);
  }, 60_000);

  it('the same errors for the same bad input', async () => {
    const bad = variantFile({ key: 'bad', variants: [{ key: 'a', weight: 1, content: { en: { title: 'A', body: 'A' } } }, { key: 'b', weight: 1, content: { fr: { title: 'B', body: 'B' } } }] });
    await sameError(['in-app', 'create', ...E, '--file', fileOf('bad.json', bad)], 'POST', M, bad, 400);
    await sameError(['in-app', 'create', ...E, '--file', fileOf('dup.json', messageFile({ key: 'by-cli' }))], 'POST', M, messageFile({ key: 'by-cli' }), 409);
    await sameError(['in-app', 'show', 'nope', ...E], 'GET', `${M}/nope`, undefined, 404);
    await sameError(['in-app', 'results', 'nope', ...E], 'GET', `${M}/nope/results`, undefined, 404);
    await sameError(['in-app', 'publish', 'by-cli', ...E], 'POST', `${M}/by-cli/publish`, undefined, 409);
    await api('POST', M, messageFile({ key: 'late' }));
    const edit = messageFile({ key: 'late', description: 'late' });
    await api('PUT', `${M}/late`, edit);
    await sameError(['in-app', 'update', 'late', ...E, '--file', fileOf('late.json', messageFile({ key: 'late', description: 'later' })), '--expected-version', '1'], 'PUT', `${M}/late`, messageFile({ key: 'late', description: 'later' }), 409, { 'if-match': '"1"' });
    const r = await sb.run(['in-app', 'results', 'late', ...E, '--days', '400']);
    // A usage error (exit 64), as commander reports a bad option value.
    expect([r.code, r.stderr]).toEqual([64, expect.stringContaining('--days must be an integer from 1 to 366')]);
  }, 60_000);

  it('the environment’s minimum interval: set by the CLI, read by the API, refused alike when out of range', async () => {
    const set = await ok(['environments', 'sync-settings', 'shop', '--in-app-min-interval', '60']);
    expect(set).toMatchObject({ inAppMinIntervalSeconds: 60 });
    expect((await api('GET', '/sync-settings')).body).toEqual(set);
    const both = await ok(['environments', 'sync-settings', 'shop', '--in-app-min-interval', '0', '--refresh-after', '600']);
    expect(both).toMatchObject({ inAppMinIntervalSeconds: 0, refreshAfterSeconds: 600 });
    await sameError(['environments', 'sync-settings', 'shop', '--in-app-min-interval', '86401'], 'PUT', '/sync-settings', { inAppMinIntervalSeconds: 86_401 }, 400);
    const text = await sb.run(['environments', 'sync-settings', 'shop']);
    expect(text.stdout).toMatch(/inAppMinIntervalSeconds[\s\S]*\n.*\b0\b/);
  }, 60_000);
});
