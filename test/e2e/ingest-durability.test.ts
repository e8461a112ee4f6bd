import BetterSqlite3 from 'better-sqlite3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * DESIGN.md "Durability promise": a 2xx answer means committed; kill -9 loses nothing
 * acknowledged. Drives the built executable under ingest load, kills it with SIGKILL
 * mid-flight, restarts it on the same data directory and checks every operation that was
 * in a 202 answer is stored exactly once.
 */
const BIN = path.resolve(__dirname, '../../dist/engage');
const INSTALLATIONS = 16;
const WORKERS = 8;

let dataDir: string;
let server: ChildProcess | undefined;

function cli(...args: string[]): unknown {
  return JSON.parse(execFileSync(BIN, [...args, '--data-dir', dataDir, '--json'], { encoding: 'utf8' }));
}

async function start(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // The logger writes JSON lines; accept the "url" line on either stream.
  const streams = [createInterface({ input: proc.stdout! }), createInterface({ input: proc.stderr! })];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 15_000);
    proc.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    for (const lines of streams) lines.on('line', (line) => {
      try {
        const rec = JSON.parse(line) as { url?: string };
        if (rec.url) {
          clearTimeout(timer);
          resolve(rec.url);
        }
      } catch {
        /* not a JSON line */
      }
    });
  });
  return { proc, url };
}

const event = (i: number) => ({
  operationId: randomUUID(),
  generation: 0,
  type: i % 3 === 0 ? 'INSTALLATION_ATTRIBUTES_EDITED' : 'EVENT_TRACKED',
  occurredAt: new Date().toISOString(),
  payload: i % 3 === 0 ? { set: { n: i } } : { name: 'load_event', properties: { i } },
});

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'engage-durability-'));
});
afterAll(() => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

// SQLite engine: counts in the database file; on PostgreSQL, test/e2e/fleet-postgres.test.ts kills one of three processes.
describe.skipIf(!existsSync(BIN) || process.env.ENGAGE_TEST_ENGINE === 'postgres')('ingest durability (dist/engage, kill -9)', () => {
  it('every operation in a 202 answer survives a SIGKILL, none stored twice', async () => {
    cli('init');
    const env = cli('environments', 'create', '--name', 'durability') as { id: string };
    const app = cli('apps', 'create', '--environment', env.id, '--platform', 'ANDROID', '--name', 'load') as { appKey: string };

    let { proc, url } = await start();
    server = proc;
    const sessions: { installationId: string; credential: string }[] = [];
    for (let i = 0; i < INSTALLATIONS; i++) {
      const res = await fetch(`${url}/v1/sdk/installations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-App-Key': app.appKey },
        body: JSON.stringify({ platform: 'ANDROID', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
      });
      expect(res.status).toBe(201);
      sessions.push((await res.json()) as { installationId: string; credential: string });
    }

    const acknowledged: { installationId: string; credential: string; batchId: string; operations: unknown[]; body: string; ops: string[] }[] = [];
    let stop = false;
    let failures = 0;
    const worker = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const s = sessions[(w + n * WORKERS) % INSTALLATIONS];
        const operations = Array.from({ length: 100 }, (_, i) => event(i));
        const batchId = randomUUID();
        let status: number;
        let body: string;
        try {
          const res = await fetch(`${url}/v1/sdk/operations:batch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${s.credential}` },
            body: JSON.stringify({ batchId, operations }),
          });
          status = res.status;
          body = await res.text();
        } catch {
          failures++; // the kill cut this request: not acknowledged, not counted
          return;
        }
        expect(status).toBe(202);
        const accepted = (JSON.parse(body) as { results: { operationId: string; status: string }[] }).results.filter((r) => r.status === 'ACCEPTED');
        expect(accepted).toHaveLength(100);
        acknowledged.push({ ...s, batchId, operations, body, ops: accepted.map((r) => r.operationId) });
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await new Promise((r) => setTimeout(r, 1500));
    proc.kill('SIGKILL');
    stop = true;
    await load;
    await new Promise<void>((r) => (proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once('exit', () => r())));
    expect(acknowledged.length).toBeGreaterThan(10);

    ({ proc, url } = await start());
    server = proc;
    // Every acknowledged batch, sent again, answers 200 with its first result, byte for byte.
    for (const a of acknowledged.slice(-20)) {
      const res = await fetch(`${url}/v1/sdk/operations:batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${a.credential}` },
        body: JSON.stringify({ batchId: a.batchId, operations: a.operations }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(a.body);
    }
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));

    const db = new BetterSqlite3(path.join(dataDir, 'engage.db'), { readonly: true });
    try {
      const find = db.prepare('SELECT COUNT(*) AS n FROM operations WHERE installation_id = ? AND operation_id = ?');
      let stored = 0;
      for (const a of acknowledged) for (const id of a.ops) stored += (find.get(a.installationId, id) as { n: number }).n === 1 ? 1 : 0;
      expect(stored).toBe(acknowledged.length * 100);
      const twice = db.prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM operations GROUP BY installation_id, operation_id HAVING COUNT(*) > 1)').get() as { n: number };
      expect(twice.n).toBe(0);
    } finally {
      db.close();
    }
    expect(failures).toBeGreaterThan(0);
  }, 60_000);
});
