/**
 * Issue 28, CLI parity for automations on the built executable: `engage automations …` on the
 * database (`--json`) and `/t/control/engage/admin/environments/{e}/automations…` of an `engage
 * serve` on the same database give the same answers (keys, ids and times aside), the same errors
 * for the same bad input, and each door reads what the other made. The API entry's key is printed
 * by create and rotate-key only, and the key each door prints is the one the trigger accepts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = any;
const PASSWORD = 'correct horse battery staple';
const E = ['--environment', 'shop'];

const automationFile = (key: string, over: Record<string, unknown> = {}) => ({
  key,
  name: 'Welcome series',
  entries: { api: true },
  start: 'hold',
  steps: { hold: { type: 'wait', seconds: 3600, next: 'tag' }, tag: { type: 'profile-update', addTags: ['welcomed'] } },
  ...over,
});

describe('automations: the CLI and the API give the same results', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;
  let accessKey: string;
  let envId: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-automations-' });
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    envId = ((await sb.cliJson(['environments', 'create', '--name', 'shop'])) as { id: string }).id;
    await sb.cliJson(['apps', 'create', '--environment', 'shop', '--platform', 'IOS', '--name', 'shop-ios']);
    accessKey = ((await sb.cliJson(['access-keys', 'create', '--environment', 'shop', '--app', 'shop-ios'])) as { key: string }).key;
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
  /** The trigger's answer status for a key (a made-up profile: 404 profile_not_found proves the key matched). */
  const trigger = async (automationApiKey: string): Promise<[number, string]> => {
    const res = await fetch(`${server.url}/api/v1/environments/${envId}/automations/${automationApiKey}/trigger`, {
      method: 'POST', headers: { authorization: `Bearer ${accessKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ profileId: 'nobody' }),
    });
    return [res.status, ((await res.json()) as { code: string }).code];
  };
  const A = '/automations';
  const sameError = async (args: string[], method: string, route: string, body: unknown, status: number, headers?: Record<string, string>) => {
    const c = await cli(args);
    const h = await api(method, route, body, headers);
    expect(c.ok, args.join(' ')).toBe(false);
    expect(h.status, route).toBe(status);
    expect(c.body.error, args.join(' ')).toBe(h.body.error);
    // RFC 6749 §5.2: error_description is ASCII; the API writes any other character as '?'.
    if (h.body.error_description !== undefined) expect(c.body.message.replace(/[^\x20-\x7e]/g, '?')).toBe(h.body.error_description);
  };
  const fileOf = (name: string, content: unknown) => {
    const p = path.join(sb.dir, name);
    writeFileSync(p, JSON.stringify(content));
    return p;
  };
  /** What differs between two automations made the same way by the two doors. */
  const same = (m: Json) => {
    const { key: _k, id: _i, createdAt: _c, updatedAt: _u, automationApiKey: key, definition, ...rest } = m;
    return { ...rest, automationApiKey: key === undefined ? undefined : 'shown', definition: { ...definition, key: undefined } };
  };

  it('create, edit, publish, pause, resume, archive alike; each door reads what the other made', async () => {
    const byCli = await ok(['automations', 'create', ...E, '--file', fileOf('a.json', automationFile('by-cli', { targetApps: ['shop-ios'] }))]);
    const byApi = await api('POST', A, automationFile('by-api', { targetApps: ['shop-ios'] }));
    expect(byApi.status).toBe(201);
    expect(byCli).toMatchObject({ status: 'DRAFT', version: 1, publishedVersion: null, apiEntry: true });
    expect(same(byCli)).toEqual(same(byApi.body));
    // The key is shown by create only: a read of either door never has it.
    const { automationApiKey: cliKey, ...cliView } = byCli;
    expect(cliKey).toMatch(/^aut_/);
    const read = (await api('GET', `${A}/by-cli`)).body;
    expect(read).toEqual({ ...cliView, runs: {}, steps: {} });
    expect(await ok(['automations', 'show', 'by-api', ...E])).toEqual((await api('GET', `${A}/by-api`)).body);

    const p1 = await ok(['automations', 'publish', 'by-cli', ...E, '--expected-version', '1']);
    const p2 = await api('POST', `${A}/by-api/publish`, undefined, { 'if-match': '"1"' });
    expect([p1.status, p1.changed]).toEqual(['ACTIVE', true]);
    expect(same(p1)).toEqual(same(p2.body));
    expect(await trigger(cliKey)).toEqual([404, 'profile_not_found']);

    const u1 = await ok(['automations', 'update', 'by-cli', ...E, '--file', fileOf('a2.json', automationFile('by-cli', { name: 'v2' })), '--expected-version', '1']);
    const u2 = await api('PUT', `${A}/by-api`, automationFile('by-api', { name: 'v2' }), { 'if-match': '"1"' });
    expect([u1.version, u1.publishedVersion, u1.changed]).toEqual([2, 2, true]);
    expect(same(u1)).toEqual(same(u2.body));
    const unchanged = await ok(['automations', 'update', 'by-api', ...E, '--file', fileOf('a3.json', automationFile('by-api', { name: 'v2' }))]);
    expect([unchanged.version, unchanged.changed]).toEqual([2, false]);

    // rotate-key: each door's key is the one the trigger accepts; the older key no longer is.
    const r1 = await ok(['automations', 'rotate-key', 'by-cli', ...E]);
    expect(Object.keys(r1)).toEqual(['automationApiKey']);
    expect(await trigger(cliKey)).toEqual([404, 'automation_not_found']);
    expect(await trigger(r1.automationApiKey)).toEqual([404, 'profile_not_found']);
    const r2 = await api('POST', `${A}/by-cli/rotate-key`);
    expect(await trigger(r1.automationApiKey)).toEqual([404, 'automation_not_found']);
    expect(await trigger(r2.body.automationApiKey)).toEqual([404, 'profile_not_found']);
    const text = await sb.run(['automations', 'rotate-key', 'by-api', ...E]);
    expect(text.stdout).toMatch(/automation API key \(shown once.*\): aut_/);

    for (const verb of ['pause', 'resume', 'pause', 'archive']) {
      const c = await ok(['automations', verb, 'by-cli', ...E]);
      const h = await api('POST', `${A}/by-api/${verb}`);
      expect(same(c), verb).toEqual(same(h.body));
    }
    expect((await ok(['automations', 'show', 'by-cli', ...E])).status).toBe('ARCHIVED');
    const listed = await ok(['automations', 'list', ...E, '--status', 'ARCHIVED']);
    expect(listed.map((m: Json) => m.key)).toEqual(['by-api', 'by-cli']);
    expect(listed).toEqual((await api('GET', `${A}?status=ARCHIVED`)).body.items);
    expect(JSON.stringify(listed)).not.toContain('aut_');
    expect(await ok(['automations', 'runs', 'list', 'by-cli', ...E, '--status', 'CANCELLED'])).toEqual((await api('GET', `${A}/by-cli/runs?status=CANCELLED`)).body.items);
  }, 90_000);

  it('the same errors for the same bad input', async () => {
    const cycle = automationFile('cycle', { steps: { hold: { type: 'wait', seconds: 5, next: 'tag' }, tag: { type: 'profile-update', addTags: ['x'], next: 'hold' } } });
    await sameError(['automations', 'create', ...E, '--file', fileOf('bad.json', { ...cycle, entries: {} })], 'POST', A, { ...cycle, entries: {} }, 400);
    await sameError(['automations', 'create', ...E, '--file', fileOf('dup.json', automationFile('by-cli'))], 'POST', A, automationFile('by-cli'), 409);
    await api('POST', A, cycle);
    await sameError(['automations', 'publish', 'cycle', ...E], 'POST', `${A}/cycle/publish`, undefined, 400);
    await sameError(['automations', 'show', 'nope', ...E], 'GET', `${A}/nope`, undefined, 404);
    await sameError(['automations', 'runs', 'list', 'nope', ...E], 'GET', `${A}/nope/runs`, undefined, 404);
    await sameError(['automations', 'runs', 'show', 'no-run', ...E], 'GET', '/automation-runs/no-run', undefined, 404);
    await sameError(['automations', 'runs', 'cancel', 'no-run', ...E], 'POST', '/automation-runs/no-run/cancel', undefined, 404);
    await sameError(['automations', 'pause', 'cycle', ...E], 'POST', `${A}/cycle/pause`, undefined, 409);
    await sameError(['automations', 'update', 'cycle', ...E, '--file', fileOf('late.json', automationFile('cycle', { name: 'x' })), '--expected-version', '2'], 'PUT', `${A}/cycle`, automationFile('cycle', { name: 'x' }), 409, { 'if-match': '"2"' });
    const r = await sb.run(['automations', 'runs', 'list', 'cycle', ...E, '--status', 'DONE']);
    // A usage error (exit 64), as commander reports a bad option value.
    expect(r.code).toBe(64);
    const schema = await sb.run(['automations', 'create', '--print-schema']);
    expect(JSON.parse(schema.stdout)).toMatchObject({ type: 'object', required: expect.arrayContaining(['key', 'name', 'entries', 'start', 'steps']) });
  }, 90_000);
});
