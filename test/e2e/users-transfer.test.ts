/**
 * Bulk user transfer on dist/engage (issue 12): `engage users import` and `export` as an operator
 * runs them, and an import job of the management API surviving `kill -9` of the serving process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServices } from '../../cmd/cli';
import { cliActor } from '../../src/platform/audit/audit';
import { createSandbox, type Sandbox } from '../helpers/binary';

describe('dist/engage users import/export and import jobs', () => {
  let sb: Sandbox;
  const opts = () => ({ dataDir: sb.dataDir, databaseUrl: sb.env.ENGAGE_DATABASE_URL, publicUrl: sb.publicUrl, logLevel: 'silent' });

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-transfer-' });
    await sb.cli(['tenants', 'create', '--slug', 'acme']);
  }, 120_000);
  afterAll(() => sb?.cleanup());

  it('imports NDJSON with a report of the bad records (exit 2), resumes without duplicates, exports NDJSON', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({
      externalId: `x${i}`, email: `u${i}@acme.test`, emailVerified: true, active: true,
      password: { hash: '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm' },
    }));
    lines[5] = '{"externalId":';
    lines[9] = JSON.stringify({ externalId: 'x9', email: 'u9@acme.test', emailVerified: true, active: true, password: { hash: '$md5$abc' } });
    const file = path.join(sb.dir, 'users.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');

    const first = await sb.run(['users', 'import', '--tenant', 'acme', file, '--source', 'legacy', '--batch', '100', '--json']);
    expect(first.code).toBe(2);
    expect(JSON.parse(first.stdout)).toMatchObject({ processed: 300, succeeded: 298, failed: 2, skipped: 0, report: `${file}.errors.ndjson` });
    const report = readFileSync(`${file}.errors.ndjson`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(report.map((r) => [r.line, r.errorCode])).toEqual([[6, 'malformed_record'], [10, 'unknown_hash_format']]);
    expect(first.stderr).not.toContain('$2b$');

    const again = await sb.run(['users', 'import', '--tenant', 'acme', file, '--source', 'legacy', '--json']);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({ processed: 300, succeeded: 0, failed: 2, skipped: 298 });

    const exported = await sb.cli(['users', 'export', '--tenant', 'acme']);
    const rows = exported.trim().split('\n').map((l) => JSON.parse(l) as { email: string });
    expect(rows).toHaveLength(298);
    expect(new Set(rows.map((r) => r.email)).size).toBe(298);
    expect(exported).not.toContain('$2b$');

    // The imported user signs in with the old password; the hash becomes argon2id.
    await withServices(opts(), async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      expect(await services.users.verifyPassword(tenantId, 'u1@acme.test', 'Kk4DQuMMfZL9o')).toBeDefined();
      expect((await services.users.findByEmail(tenantId, 'u1@acme.test'))!.passwordHash).toMatch(/^\$argon2id\$/);
    });
  }, 120_000);

  it('import jobs interrupted by kill -9 of the server complete after a restart, nobody created twice', async () => {
    const JOBS = 30;
    const PER = 500;
    const ids = await withServices(opts(), async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      const out: string[] = [];
      for (let j = 0; j < JOBS; j++) {
        const records = Array.from({ length: PER }, (_, i) => ({ externalId: `j${j}-${i}`, email: `j${j}-${i}@jobs.test`, emailVerified: false, active: true }));
        out.push((await services.transfer.jobs.createImport(tenantId, { schemaVersion: 1, source: 'jobs', mode: 'CREATE_ONLY', idempotencyKey: `k${j}`, records }, cliActor())).job.id);
      }
      return out;
    });
    // One reader stays open across the kill and the restart, so a poll costs a query, not a
    // process's worth of start-up: the kill lands while the queue is still being worked.
    await withServices(opts(), async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      const status = () => Promise.all(ids.map((id) => services.transfer.jobs.get(tenantId, 'IMPORT', id)));

      // A 10 s lease (ENGAGE_WORK_LEASE) instead of 30 s: the restart takes the dead one's work over sooner.
      const env = { ENGAGE_WORK_LEASE: '10' };
      let server = await sb.serve({ env });
      // Let it get going, then kill it without warning in the middle of the queue.
      await expect.poll(async () => (await status()).reduce((n, j) => n + j.processedItems, 0), { timeout: 60_000, interval: 10 }).toBeGreaterThan(0);
      server.process.kill('SIGKILL');
      await new Promise((r) => server.process.once('exit', r));
      const atKill = await status();
      const processedAtKill = atKill.reduce((n, j) => n + j.processedItems, 0);
      expect(processedAtKill).toBeLessThan(JOBS * PER);

      // The restarted server takes the worker's lease once the dead one's lapses, and finishes.
      server = await sb.serve({ env });
      await expect.poll(async () => (await status()).every((j) => j.status === 'SUCCEEDED'), { timeout: 90_000, interval: 500 }).toBe(true);
      await server.stop();
      const done = await status();
      expect(done.every((j) => j.processedItems === PER && j.succeededItems === PER && j.failedItems === 0)).toBe(true);
      for (const id of ids) {
        const positions: number[] = [];
        for (let page = 0; page < 3; page++) positions.push(...(await services.transfer.jobs.results(tenantId, id, { page, size: 200 })).items.map((r) => r.position));
        expect(positions).toEqual(Array.from({ length: PER }, (_, i) => i));
      }
      const n = await services.store.transfer.countUsers(tenantId, new Date(Date.now() + 60_000).toISOString());
      expect(n).toBe(298 + JOBS * PER);
    });
  }, 240_000);
});
