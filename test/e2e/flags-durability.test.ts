/**
 * Issue 26 "kill -9 during a definition edit leaves no half-applied flag", on the built
 * executable: flag edits (PUT, archive, restore, rollback) run concurrently against `engage
 * serve` over the administration API, the process is killed with SIGKILL mid-flight, and the
 * database holds either the old or the new version of every edit, never a part: the flag's row,
 * its versions, the environment's definitions revision and the audit trail agree, and every
 * edit answered 200 is there. The server then starts again on the same data and edits on.
 */
import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';
import { flagFile } from '../fixtures/flags';

const PASSWORD = 'correct horse battery staple';
const WORKERS = 6;

/** One portable query on the sandbox's database (SQLite file or PostgreSQL), after the server died. */
async function query<T>(sb: Sandbox, text: string, params: unknown[] = []): Promise<T[]> {
  if (sb.database) {
    const c = new pg.Client({ connectionString: sb.database });
    await c.connect();
    try {
      let n = 0;
      return (await c.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
    } finally {
      await c.end();
    }
  }
  const db = new BetterSqlite3(path.join(sb.dataDir, 'engage.db'));
  try {
    return db.prepare(text).all(...params) as T[];
  } finally {
    db.close();
  }
}

describe('feature flags survive kill -9 during edits (the built executable)', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;
  let envId: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-flags-kill-' });
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    envId = (await sb.cliJson<{ id: string }>(['environments', 'create', '--name', 'shop'])).id;
    server = await sb.serve();
    token = await engageAdminToken(server.url, 'ops@example.com', PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await sb?.cleanup();
  });

  const call = (method: string, route: string, body?: unknown) =>
    fetch(`${server.url}/t/control/engage/admin/environments/shop/flags${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('leaves the old or the new version of every edit, consistent across flags, flag_versions, sync_environments and the audit trail', async () => {
    expect((await call('POST', '', flagFile())).status).toBe(201);
    // Every edit answered 200 with a new version: its version and description.
    const acked = new Map<number, string | null>();
    let stop = false;
    let sent = 0;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        sent++;
        const kind = i % 7;
        const request =
          kind === 5 ? call('POST', '/archive') : kind === 6 ? call('POST', '/restore') : kind === 4 ? call('POST', '/rollback', { version: 1 }) : call('PUT', '/new-checkout', flagFile({ description: `edit ${w}.${i}` }));
        const res = await request.catch(() => undefined);
        if (!res) return; // the server is gone
        if (res.status !== 200) continue;
        const b = (await res.json()) as { version: number; description: string | null; changed: boolean };
        if (b.changed) acked.set(b.version, b.description);
      }
    };
    const running = Array.from({ length: WORKERS }, (_, w) => worker(w));
    // Kill once edits are flowing: some answered, more in flight.
    while (acked.size < 40) await new Promise((r) => setTimeout(r, 5));
    server.process.kill('SIGKILL');
    await new Promise((r) => server.process.once('exit', r));
    stop = true;
    await Promise.all(running);
    expect(sent).toBeGreaterThan(acked.size);
    console.log(`flags kill -9: ${sent} edits sent, ${acked.size} answered with a new version before the kill`);

    const [flag] = await query<{ version: number; revision: number; definition: string; status: string }>(sb, 'SELECT version, revision, definition, status FROM flags WHERE environment_id = ? AND key = ?', [envId, 'new-checkout']);
    const versions = await query<{ version: number; definition: string }>(sb, 'SELECT version, definition FROM flag_versions WHERE environment_id = ? AND flag_key = ? ORDER BY version', [envId, 'new-checkout']);
    const [counter] = await query<{ revision: number }>(sb, 'SELECT revision FROM sync_environments WHERE environment_id = ?', [envId]);
    const [audited] = await query<{ n: number }>(sb, "SELECT COUNT(*) AS n FROM audit_events WHERE environment_id = ? AND action LIKE 'flag.%'", [envId]);
    const v = Number(flag.version);
    // Versions 1..v, each written with its flag row: the row is the last version, nothing beyond it.
    expect(versions.map((x) => Number(x.version))).toEqual(Array.from({ length: v }, (_, i) => i + 1));
    expect(flag.definition).toBe(versions.at(-1)!.definition);
    expect(flag.status).toBe((JSON.parse(flag.definition) as { status: string }).status);
    // Only flag edits moved this environment's counter: one revision per version, the flag's the last.
    expect([Number(counter.revision), Number(flag.revision)]).toEqual([v, v]);
    // One audit event per version (created, updated, archived, restored, rolled back), in the same transactions.
    expect(Number(audited.n)).toBe(v);
    // Every acknowledged edit is stored as it was answered.
    for (const [version, description] of acked) {
      expect(version).toBeLessThanOrEqual(v);
      expect((JSON.parse(versions[version - 1].definition) as { description?: string }).description ?? null).toBe(description);
    }

    // The server starts again on the same data and edits on from there.
    server = await sb.serve();
    const shown = (await (await call('GET', '/new-checkout')).json()) as { version: number };
    expect(shown.version).toBe(v);
    const next = (await (await call('PUT', '/new-checkout', flagFile({ description: 'after the crash' }))).json()) as { version: number };
    expect(next.version).toBe(v + 1);
  }, 120_000);
});
