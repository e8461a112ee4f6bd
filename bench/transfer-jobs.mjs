// API import jobs in process (issue 12: "API import at least 20,000 records/s with 500-record
// requests"): the service calls the POST user-imports handler makes (validation, idempotency,
// the job row with its records), then the worker (`runPending`, what the leased background job
// runs), on the embedded SQLite file. HTTP is left out: the routes are mounted on the
// management app at merge (src/identity/transfer/routes.ts).
//
// Usage: node --import tsx bench/transfer-jobs.mjs [--requests 200]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { requests: { type: 'string', default: '200' } } });
const R = Number(args.requests);
const { withServices } = await import('../cmd/cli.ts');
const { cliActor } = await import('../src/platform/audit/audit.ts');
const { SYSTEM_ACTOR } = await import('../src/identity/audit.ts');
const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-jobs-'));
const B64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const hash = (i) => '$2b$10$' + Array.from({ length: 53 }, (_, k) => B64[(i * 31 + k * 7) % 64]).join('');

await withServices({ dataDir, logLevel: 'silent' }, async ({ services }) => {
  const tenantId = (await services.tenants.create({ slug: 'bench' }, SYSTEM_ACTOR)).id;
  const bodies = Array.from({ length: R }, (_, r) => ({
    schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', idempotencyKey: `req-${r}`,
    records: Array.from({ length: 500 }, (_, i) => ({ externalId: `${r}-${i}`, email: `u${r}-${i}@example.com`, emailVerified: true, active: true, password: { hash: hash(i) } })),
  }));
  let t = process.hrtime.bigint();
  for (const b of bodies) await services.transfer.jobs.createImport(tenantId, b, cliActor());
  const createSecs = Number(process.hrtime.bigint() - t) / 1e9;
  t = process.hrtime.bigint();
  await services.transfer.jobs.runPending();
  const runSecs = Number(process.hrtime.bigint() - t) / 1e9;
  const n = R * 500;
  const fmt = (x) => Math.round(x).toLocaleString('en');
  console.log('| step | records | time | records/s |');
  console.log('|---|---|---|---|');
  console.log(`| ${R} POST user-imports (service call) | ${fmt(n)} | ${createSecs.toFixed(1)} s | ${fmt(n / createSecs)} |`);
  console.log(`| worker runs them | ${fmt(n)} | ${runSecs.toFixed(1)} s | ${fmt(n / runSecs)} |`);
  console.log(`| end to end | ${fmt(n)} | ${(createSecs + runSecs).toFixed(1)} s | ${fmt(n / (createSecs + runSecs))} |`);
});
rmSync(dataDir, { recursive: true, force: true });
