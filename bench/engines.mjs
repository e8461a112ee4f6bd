// SQLite and PostgreSQL side by side, in one run, on this machine: the OAuth and ingest benchmarks
// against the same built executable, first on the embedded SQLite file, then on a throwaway
// PostgreSQL cluster (PostgreSQL's default durability: fsync and synchronous commit on) running
// on the same cores as the server and the load generator. Ingest also with `serve --workers 2`.
//
// Usage: node build.mjs && node --import tsx bench/engines.mjs [--only oauth|ingest] [--duration 8]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { only: { type: 'string' }, duration: { type: 'string', default: '8' }, bin: { type: 'string', default: 'dist/engage' } } });
const { startPgCluster } = await import('../test/helpers/pg-cluster.ts');
const pg = (await import('pg')).default;

const cluster = await startPgCluster({ durable: true });
let n = 0;
/** A fresh, empty database on the cluster. */
async function database() {
  const name = `bench_${n++}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  return u.toString();
}

function run(label, cmd, argv, env = {}) {
  process.stderr.write(`\n== ${label}\n`);
  const r = spawnSync(cmd, argv, { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${label} failed (${r.status})`);
  return r.stdout;
}

const lines = [];
const report = (line) => {
  lines.push(line);
  console.log(line); // as it comes: a later failure keeps what was measured
};
try {
  if (!args.only || args.only === 'oauth') {
    for (const [engine, url] of [['sqlite', undefined], ['postgres', await database()]]) {
      const out = run(`oauth on ${engine}`, process.execPath, ['--import', 'tsx', 'bench/oauth.mjs', ...(url ? ['--database-url', url] : [])], {
        BENCH_ENGAGE: args.bin,
        BENCH_DURATION: args.duration,
      });
      for (const l of out.split('\n')) if (/^\| (refresh|code|introspect|userinfo) \| engage /.test(l)) report(`${engine.padEnd(8)} ${l}`);
    }
  }
  if (!args.only || args.only === 'ingest') {
    for (const workers of ['1', '2']) {
      for (const [engine, url] of [['sqlite', undefined], ['postgres', await database()]]) {
        const out = run(`ingest on ${engine}, ${workers} worker(s)`, process.execPath, [
          'bench/ingest.mjs', '--bin', args.bin, '--duration', args.duration, '--workers', workers, '--skip-raw', ...(url ? ['--database-url', url] : []),
        ]);
        const r = JSON.parse(out.slice(out.indexOf('{')));
        report(`${engine.padEnd(8)} ingest workers=${workers}: ${r.ingest.operationsPerSecond} ops/s (p50 ${r.ingest.p50ms} ms, p99 ${r.ingest.p99ms} ms, non-2xx ${r.ingest.non2xx}); bootstrap ${r.bootstrap.installationsPerSecond}/s`);
      }
    }
  }
} finally {
  await cluster.stop();
}
console.log(`\n${lines.join('\n')}`);
