// Bulk user transfer through the CLI (issue 12), on the built executable and the embedded SQLite
// file: `engage users import` of N users with bcrypt hashes from NDJSON (goal: 1,000,000 in under
// 60 s, peak RSS under 250 MB), then `engage users export --out` (goal: at least 200,000
// records/s, constant memory). Peak RSS is the child's, from wait4's rusage (GNU time -f %M).
//
// Usage: node build.mjs && node bench/transfer.mjs [--users 1000000] [--bin dist/engage]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { users: { type: 'string', default: '1000000' }, bin: { type: 'string', default: 'dist/engage' }, keep: { type: 'boolean' } } });
const N = Number(args.users);
const bin = path.resolve(root, args.bin);
const dir = mkdtempSync(path.join(tmpdir(), 'engage-bench-transfer-'));
const input = path.join(dir, 'users.ndjson');
const env = { ...process.env, ENGAGE_DATA_DIR: path.join(dir, 'data') };

// bcrypt strings of cost 10 with random salts and checksums: what an Auth0 or Django export of
// bcrypt hashes looks like to the importer (which stores them as they are, verified at sign-in).
const B64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function fakeBcrypt() {
  const r = randomBytes(53);
  let s = '$2b$10$';
  for (const b of r) s += B64[b & 63];
  return s;
}

async function generate() {
  const out = createWriteStream(input);
  let buf = '';
  for (let i = 0; i < N; i++) {
    buf += `{"externalId":"legacy-${i}","email":"user${i}@example.com","emailVerified":${i % 2 === 0},"active":true,"password":{"hash":"${fakeBcrypt()}"}}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** Runs the executable under GNU time: [seconds, peak RSS in MB, stdout]. */
function timed(argv) {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', bin, ...argv], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  const secs = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  return [secs, rssKb / 1024, r.stdout];
}

process.stderr.write(`generating ${N.toLocaleString('en')} records in ${input}\n`);
await generate();
process.stderr.write(`${(statSync(input).size / 1e6).toFixed(0)} MB\n`);
spawnSync(bin, ['init'], { env, stdio: 'ignore' });
spawnSync(bin, ['tenants', 'create', '--slug', 'bench'], { env, stdio: 'ignore' });

const [importSecs, importRss, importOut] = timed(['users', 'import', '--tenant', 'bench', input, '--source', 'legacy', '--json']);
const summary = JSON.parse(importOut);
const [rerunSecs, rerunRss, rerunOut] = timed(['users', 'import', '--tenant', 'bench', input, '--source', 'legacy', '--json']);
const rerun = JSON.parse(rerunOut);
const exportFile = path.join(dir, 'export.ndjson');
const [exportSecs, exportRss, exportOut] = timed(['users', 'export', '--tenant', 'bench', '--out', exportFile, '--json']);
const exported = JSON.parse(exportOut).exported;

const fmt = (n) => Math.round(n).toLocaleString('en');
console.log(`| run | records | wall time | records/s | peak RSS |`);
console.log(`|---|---|---|---|---|`);
console.log(`| import (${summary.succeeded} created, ${summary.failed} failed) | ${fmt(summary.processed)} | ${importSecs.toFixed(1)} s | ${fmt(summary.processed / importSecs)} | ${importRss.toFixed(0)} MB |`);
console.log(`| rerun (${rerun.skipped} skipped, ${rerun.succeeded} created) | ${fmt(rerun.processed)} | ${rerunSecs.toFixed(1)} s | ${fmt(rerun.processed / rerunSecs)} | ${rerunRss.toFixed(0)} MB |`);
console.log(`| export to a file | ${fmt(exported)} | ${exportSecs.toFixed(1)} s | ${fmt(exported / exportSecs)} | ${exportRss.toFixed(0)} MB |`);
if (!args.keep) rmSync(dir, { recursive: true, force: true });
