import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createHarness, describeSqlite, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, ingest, op, setupEnvironment } from '../../../test/fixtures/engage';

// SQLite-only: scans the SQLite database file, its WAL and shared-memory index (`h.db`), and
// opens a second SQLite connection; PostgreSQL keeps its files to itself.
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.services.jobs.stop();
  await h.close();
});

const SECRETS = ['ZZDEVICEMODEL123', 'ZZPUSHTOKEN456', 'ZZEVENTPROPERTY789', 'ZZATTRIBUTEVALUE012', 'ZZPROFILEATTR345'];

/** Which of the strings can be read from the database file, its WAL or its shared-memory index. */
function readable(): string[] {
  const files = ['', '-wal', '-shm'].map((s) => h.db.file + s).filter((f) => existsSync(f));
  const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
  return SECRETS.filter((s) => bytes.includes(Buffer.from(s, 'utf8')));
}

// SQLite engine only: its database file and WAL.
describeSqlite('privacy revocation leaves nothing recoverable in the database files', () => {
  it('neither in the database nor in its WAL', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey, { deviceModel: SECRETS[0] });
    await ingest(h, s, [
      op('PUSH_TOKEN_SET', { token: SECRETS[1] }),
      op('EVENT_TRACKED', { name: 'viewed', properties: { item: SECRETS[2] } }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: SECRETS[3] } }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { nickname: SECRETS[4] } }),
    ]);
    // Some of it in the database file (checkpointed), and later writes in the WAL only.
    h.db.write.$client.pragma('wal_checkpoint(TRUNCATE)');
    await ingest(h, s, [op('PUSH_TOKEN_SET', { token: `${SECRETS[1]}-2` }), op('EVENT_TRACKED', { name: 'again', properties: { item: SECRETS[2] } })]);
    expect(readable()).toEqual(SECRETS);

    h.services.jobs.start();
    const res = await h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(s.revocationCredential) });
    expect(res.status).toBe(204);
    await vi.waitFor(() => expect(readable()).toEqual([]), { timeout: 5_000, interval: 20 });
  });

  it('a reader still on an older snapshot delays the scrub (retried, never waited for) until it moves on', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey, { deviceModel: SECRETS[0] });
    await ingest(h, s, [op('PUSH_TOKEN_SET', { token: SECRETS[1] })]);
    // Another process reading (a CLI command, a second server) holds a snapshot from before the erasure.
    const other = new BetterSqlite3(h.db.file);
    other.exec('BEGIN');
    other.prepare('SELECT COUNT(*) FROM installations').get();
    try {
      h.services.jobs.start();
      const started = performance.now();
      const res = await h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(s.revocationCredential) });
      expect(res.status).toBe(204);
      expect(performance.now() - started).toBeLessThan(1_000); // nobody waited on the reader
      await new Promise((r) => setTimeout(r, 200));
      expect(readable()).not.toEqual([]); // its snapshot needs the old pages: the WAL stays for now
      other.exec('COMMIT');
      h.clock.advance(1); // the retry is due a second later (the harness clock is fixed)
      await vi.waitFor(() => expect(readable()).toEqual([]), { timeout: 5_000, interval: 50 });
    } finally {
      other.close();
    }
  });
});
