/**
 * Issue 26, subscription lists and push channels/categories on the built executable: each
 * changed through the CLI on the database (`--json`) and through `/t/control/engage/admin` of an
 * `engage serve` on the same database gives the same answer (times aside), the same error for the
 * same bad input, and what one door leaves the other reads. `--print-schema` prints the schema
 * the file is checked with, without any other option.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = any;
const PASSWORD = 'correct horse battery staple';

describe('lists and push channels: the CLI and the API give the same results', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-preferences-' });
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    await sb.cliJson(['environments', 'create', '--name', 'pref-env']);
    await sb.cliJson(['apps', 'create', '--environment', 'pref-env', '--platform', 'ANDROID', '--name', 'droid']);
    await sb.cliJson(['apps', 'create', '--environment', 'pref-env', '--platform', 'IOS', '--name', 'phone']);
    await sb.cliJson(['environments', 'create', '--name', 'elsewhere']);
    await sb.cliJson(['apps', 'create', '--environment', 'elsewhere', '--platform', 'IOS', '--name', 'far']);
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
  const api = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${server.url}/t/control/engage/admin${route}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const file = (name: string, content: unknown) => {
    const p = path.join(sb.dir, name);
    writeFileSync(p, JSON.stringify(content));
    return p;
  };
  const without = (o: Json, ...keys: string[]): Json => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
  const sameError = async (args: string[], method: string, route: string, body: unknown, status: number) => {
    const c = await cli(args);
    const h = await api(method, route, body);
    expect(c.ok).toBe(false);
    expect(h.status).toBe(status);
    expect(c.body.error).toBe(h.body.error);
    if (h.body.error_description !== undefined) expect(c.body.message).toBe(h.body.error_description);
  };
  const VOLATILE = ['key', 'revision', 'createdAt', 'updatedAt'];

  it('--print-schema needs no other option and prints the file’s JSON Schema', async () => {
    const lists = await sb.run(['lists', 'create', '--print-schema']);
    expect(lists.code).toBe(0);
    expect(JSON.parse(lists.stdout)).toMatchObject({ type: 'object', required: expect.arrayContaining(['key', 'displayName', 'channels']), additionalProperties: false });
    const channels = await sb.run(['push-channels', 'create', '--print-schema']);
    expect(channels.code).toBe(0);
    expect(JSON.parse(channels.stdout).anyOf).toHaveLength(2);
    const missing = await sb.run(['lists', 'create', '--environment', 'pref-env']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'--file <file>'");
  });

  it('lists: created, updated, read and deleted alike through both doors', async () => {
    const E = ['--environment', 'pref-env'];
    const def = { displayName: 'Order updates', channels: ['PUSH', 'EMAIL'] };
    const byCli = await ok(['lists', 'create', ...E, '--file', file('l1.json', { key: 'by-cli', ...def })]);
    const byApi = await api('POST', '/environments/pref-env/lists', { key: 'by-api', ...def });
    expect(byApi.status).toBe(201);
    expect(without(byCli, ...VOLATILE)).toEqual(without(byApi.body, ...VOLATILE));
    expect((await api('GET', '/environments/pref-env/lists/by-cli')).body).toEqual(byCli);
    expect(await ok(['lists', 'show', 'by-api', ...E])).toEqual(byApi.body);
    const listed = await ok(['lists', 'list', ...E]);
    expect((await api('GET', '/environments/pref-env/lists')).body.items).toEqual(listed.items ?? listed);
    await sameError(['lists', 'create', ...E, '--file', file('l2.json', { key: 'by-api', ...def })], 'POST', '/environments/pref-env/lists', { key: 'by-api', ...def }, 409);
    await sameError(['lists', 'create', ...E, '--file', file('l3.json', { key: 'bad', ...def, channels: ['FAX'] })], 'POST', '/environments/pref-env/lists', { key: 'bad', ...def, channels: ['FAX'] }, 400);
    const u1 = await ok(['lists', 'update', 'by-cli', ...E, '--file', file('l4.json', { displayName: 'Orders', channels: ['PUSH'], critical: true })]);
    const u2 = await api('PUT', '/environments/pref-env/lists/by-api', { displayName: 'Orders', channels: ['PUSH'], critical: true });
    expect(without(u1, ...VOLATILE)).toEqual(without(u2.body, ...VOLATILE));
    expect(u1).toMatchObject({ displayName: 'Orders', critical: true, revision: byCli.revision + 2 });
    // --expected-revision is the API's If-Match: a stale one is refused, the current one applies.
    const stale = await cli(['lists', 'update', 'by-cli', ...E, '--expected-revision', String(byCli.revision), '--file', file('l5.json', def)]);
    expect([stale.ok, stale.body.error]).toEqual([false, 'list_version_conflict']);
    expect(await ok(['lists', 'update', 'by-cli', ...E, '--expected-revision', String(u1.revision), '--file', file('l5.json', def)])).toMatchObject({ displayName: 'Order updates' });
    await ok(['lists', 'delete', 'by-api', ...E]);
    expect((await api('DELETE', '/environments/pref-env/lists/by-cli')).status).toBe(204);
    await sameError(['lists', 'show', 'by-cli', ...E], 'GET', '/environments/pref-env/lists/by-api', undefined, 404);
    await sameError(['lists', 'show', 'by-cli', '--environment', 'elsewhere'], 'GET', '/environments/elsewhere/lists/by-cli', undefined, 404);
  });

  it('push channels and categories: both doors alike, the kind checked against the app, other environments’ apps unknown', async () => {
    const E = ['--environment', 'pref-env'];
    const channel = { kind: 'ANDROID_CHANNEL', name: 'Orders', importance: 'HIGH', sound: null };
    const byCli = await ok(['push-channels', 'create', ...E, '--app', 'droid', '--file', file('c1.json', { key: 'by-cli', ...channel })]);
    const byApi = await api('POST', '/environments/pref-env/apps/droid/push-channels', { key: 'by-api', ...channel });
    expect(byApi.status).toBe(201);
    expect(without(byCli, ...VOLATILE)).toEqual(without(byApi.body, ...VOLATILE));
    expect((await api('GET', `/environments/pref-env/apps/${byCli.appId}/push-channels/by-cli`)).body).toEqual(byCli);
    const category = { key: 'acts', kind: 'IOS_CATEGORY', actions: [{ id: 'open', title: 'Open', foreground: true }] };
    await sameError(['push-channels', 'create', ...E, '--app', 'phone', '--file', file('c2.json', { key: 'x', ...channel })], 'POST', '/environments/pref-env/apps/phone/push-channels', { key: 'x', ...channel }, 400);
    expect(await ok(['push-channels', 'create', ...E, '--app', 'phone', '--file', file('c3.json', category)])).toMatchObject(category);
    expect((await api('GET', '/environments/pref-env/apps/phone/push-channels')).body.items).toHaveLength(1);
    await sameError(['push-channels', 'list', '--environment', 'pref-env', '--app', 'far'], 'GET', '/environments/pref-env/apps/far/push-channels', undefined, 404);
    const stale = await cli(['push-channels', 'delete', 'by-api', ...E, '--app', 'droid', '--expected-revision', String(byApi.body.revision - 1)]);
    expect([stale.ok, stale.body.error]).toEqual([false, 'push_channel_version_conflict']);
    await ok(['push-channels', 'delete', 'by-api', ...E, '--app', 'droid', '--expected-revision', String(byApi.body.revision)]);
    await sameError(['push-channels', 'show', 'by-api', ...E, '--app', 'droid'], 'GET', '/environments/pref-env/apps/droid/push-channels/by-api', undefined, 404);
  });
});
