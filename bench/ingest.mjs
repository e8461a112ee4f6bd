#!/usr/bin/env node
// Ingest throughput of the built executable: POST /v1/sdk/operations:batch with 100-operation
// batches of mixed types from many installations, then the raw ceiling (bench/raw-ingest.mjs:
// the same rows written by a bare better-sqlite3 script, one transaction per batch) in the
// same run. Also measures bootstrap (POST /v1/sdk/installations) rate.
//
// Usage: node build.mjs && node bench/ingest.mjs [--duration 10] [--connections 16] [--installations 500]
//          [--database-url postgres://…  (an empty database: engage on PostgreSQL)] [--workers N]
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mixedOperations, runRaw } from './raw-ingest.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string', default: path.join(root, 'dist/engage') },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    installations: { type: 'string', default: '500' },
    'raw-batches': { type: 'string', default: '3000' },
    'database-url': { type: 'string' },
    workers: { type: 'string', default: '1' },
    'skip-raw': { type: 'boolean', default: false },
  },
});
const BIN = args.bin;
if (!existsSync(BIN)) {
  console.error(`bench/ingest: ${BIN} is missing; run node build.mjs first`);
  process.exit(1);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-'));
const engineEnv = { ...process.env, ...(args['database-url'] ? { ENGAGE_DATABASE_URL: args['database-url'] } : {}) };
const cli = (...a) => JSON.parse(execFileSync(BIN, [...a, '--data-dir', dataDir, '--json', '--log-level', 'error'], { encoding: 'utf8', env: engineEnv }));

function start() {
  const proc = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'info', '--no-access-log', ...(args.workers === '1' ? [] : ['--workers', args.workers])], { stdio: ['ignore', 'pipe', 'pipe'], env: engineEnv });
  return new Promise((resolve, reject) => {
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    for (const s of [proc.stdout, proc.stderr])
      createInterface({ input: s }).on('line', (line) => {
        try {
          const rec = JSON.parse(line);
          if (rec.url) resolve({ proc, url: rec.url });
        } catch {
          /* ignore */
        }
      });
  });
}

const run = (opts) =>
  new Promise((resolve, reject) => {
    const inst = autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });

cli('init');
const env = cli('environments', 'create', '--name', 'bench');
const app = cli('apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'bench-ios');
// The "listening" line (with its url) is logged at info; without access lines (measured on their own in
// docs/benchmarks.md "Access log"), info is quiet and the figures compare with earlier runs.
const { proc, url } = await start();

try {
  // 1. Bootstrap rate; the created installations feed the ingest run.
  const credentials = [];
  const bootstrapBody = JSON.stringify({ platform: 'IOS', locale: 'fr-FR', timezone: 'Europe/Paris', sdkVersion: '1.4.0', appVersion: '5.2.1', deviceModel: 'iPhone15,2' });
  const boot = await run({
    url,
    connections,
    duration: Math.max(3, Math.round(duration / 2)),
    requests: [
      {
        method: 'POST',
        path: '/v1/sdk/installations',
        headers: { 'content-type': 'application/json', 'x-service-app-key': app.appKey },
        body: bootstrapBody,
        onResponse: (status, body) => {
          if (status === 201 && credentials.length < Number(args.installations)) credentials.push(JSON.parse(body).credential);
        },
      },
    ],
  });
  const bootstrapRate = boot['2xx'] / (boot.duration || duration);

  // 2. Ingest: every request a fresh batch of 100 mixed operations from the next installation.
  let next = 0;
  const ingest = await run({
    url,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/v1/sdk/operations:batch',
        setupRequest: (req) => {
          const credential = credentials[next++ % credentials.length];
          req.headers = { 'content-type': 'application/json', authorization: `Bearer ${credential}` };
          req.body = JSON.stringify({ batchId: crypto.randomUUID(), operations: mixedOperations(100) });
          return req;
        },
      },
    ],
  });
  const accepted = ingest['2xx'];
  const opsPerSecond = (accepted * 100) / ingest.duration;

  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));

  // 3. Raw ceiling on the same machine, same run (server stopped so it does not compete).
  const raw = args['skip-raw'] ? undefined : runRaw({ batches: Number(args['raw-batches']), installations: Math.min(credentials.length, 500) || 200 });

  const summary = {
    machine: { cpus: (await import('node:os')).availableParallelism(), node: process.version },
    engine: args['database-url'] ? 'postgres' : 'sqlite',
    workers: Number(args.workers),
    bootstrap: { installationsPerSecond: Math.round(bootstrapRate), p50ms: boot.latency.p50, p99ms: boot.latency.p99, non2xx: boot.non2xx },
    ingest: {
      connections,
      seconds: ingest.duration,
      batches: accepted,
      operationsPerSecond: Math.round(opsPerSecond),
      p50ms: ingest.latency.p50,
      p99ms: ingest.latency.p99,
      non2xx: ingest.non2xx,
      errors: ingest.errors,
    },
    ...(raw
      ? {
          rawCeiling: { operationsPerSecond: Math.round(raw.opsPerSecond), seconds: Number(raw.seconds.toFixed(2)), operations: raw.operations },
          ratioOfCeiling: Number((opsPerSecond / raw.opsPerSecond).toFixed(3)),
        }
      : {}),
  };
  console.log(JSON.stringify(summary, null, 2));
} finally {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}
