import BetterSqlite3 from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

/**
 * The built executable's background work: `serve` runs its housekeeping as leased jobs
 * (job_leases), releases the leases when stopped, and a privacy revocation leaves none of the
 * erased installation's data readable in engage.db or its WAL.
 */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-jobs-' });
});
afterAll(async () => {
  await sb?.cleanup();
});

const MARKERS = ['ZZDEVICEMODEL123', 'ZZPUSHTOKEN456', 'ZZEVENTPROPERTY789', 'ZZATTRIBUTEVALUE012'];

// SQLite engine: reads the database file and its WAL (the PostgreSQL leases: postgres-store.test.ts).
describe.skipIf(process.env.ENGAGE_TEST_ENGINE === 'postgres')('background jobs (dist/engage)', () => {
  it('erasure leaves nothing readable in the files; the jobs hold leases while serving and release them on stop', async () => {
    const env = await sb.cliJson<{ id: string }>(['environments', 'create', '--name', 'prod']);
    const app = await sb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'ios']);
    const server = await sb.serve();
    const dbFile = path.join(sb.dataDir, 'engage.db');
    const readable = () => {
      const bytes = Buffer.concat(['', '-wal', '-shm'].map((s) => dbFile + s).filter((f) => existsSync(f)).map((f) => readFileSync(f)));
      return MARKERS.filter((m) => bytes.includes(Buffer.from(m)));
    };

    const boot = await fetch(`${server.url}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': app.appKey },
      body: JSON.stringify({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1', deviceModel: MARKERS[0] }),
    });
    expect(boot.status).toBe(201);
    const s = (await boot.json()) as { credential: string; revocationCredential: string };
    const op = (type: string, payload: unknown) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
    const batch = await fetch(`${server.url}/v1/sdk/operations:batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.credential}` },
      body: JSON.stringify({
        batchId: randomUUID(),
        operations: [
          op('PUSH_TOKEN_SET', { token: MARKERS[1] }),
          op('EVENT_TRACKED', { name: 'viewed', properties: { item: MARKERS[2] } }),
          op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: MARKERS[3] } }),
        ],
      }),
    });
    expect(batch.status).toBe(202);
    expect(readable()).toEqual(MARKERS);

    const revoke = await fetch(`${server.url}/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: { authorization: `Bearer ${s.revocationCredential}` } });
    expect(revoke.status).toBe(204);
    await vi.waitFor(() => expect(readable()).toEqual([]), { timeout: 10_000, interval: 50 });

    const leases = () => {
      const db = new BetterSqlite3(dbFile, { readonly: true });
      try {
        return db.prepare('SELECT name, owner, last_run_at AS lastRunAt FROM job_leases ORDER BY name').all() as { name: string; owner: string | null; lastRunAt: number | null }[];
      } finally {
        db.close();
      }
    };
    // The sweeps run shortly after start, each under a lease.
    await vi.waitFor(() => {
      const rows = leases();
      expect(rows.map((r) => r.name)).toEqual(['inbox.purge-expired', 'keys.activate-due', 'keys.retire-expired', 'native.purge-expired', 'oauth.purge-expired', 'providers.purge-token-uses', 'sessions.purge-expired', 'store.scrub-deleted']);
      for (const r of rows) {
        expect(r.owner).toBeTruthy();
        expect(r.lastRunAt).not.toBeNull();
      }
    }, { timeout: 10_000, interval: 100 });

    const stopped = await server.stop();
    expect(stopped.forced).toBe(false);
    expect(server.output()).not.toMatch(/job failed|job lease failed|scrub from the checkpoint worker failed/);
    expect(leases().every((r) => r.owner === null)).toBe(true);
  });
});
