#!/usr/bin/env node
// Start-up time and idle memory of the single executable (goals: first answered request under
// 150 ms, idle RSS under 80 MB).
//
//   node build.mjs && node bench/startup.mjs [--runs 20] [--bin dist/engage] [--write docs/benchmarks.md]
//
// Each run spawns `engage serve --port 0` on loopback, waits for the log line carrying the URL,
// requests /healthz at once, and records the time from spawn() to the 200 answer; then, after
// one idle second, VmRSS from /proc/PID/status. Scenarios:
//   fresh data dir     a new --data-dir every run: migrations, master key, control tenant + key
//   existing data dir  the same, already initialised data dir every run: the usual restart
//   cold native cache  fresh data dir and an empty native-addon cache (first run on a machine)
// plus `engage --version` as the floor (process start and bundle load, no database), and a CLI
// command on the existing data dir (`engage tenants list --json`: what CI scripts and the e2e
// tests start hundreds of times).
// --write replaces the "## Start-up and idle memory" section of the given Markdown file.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    bin: { type: 'string', default: path.join(root, 'dist', 'engage') },
    'idle-ms': { type: 'string', default: '1000' },
    write: { type: 'string' },
  },
});
const RUNS = Number(args.runs);
const IDLE_MS = Number(args['idle-ms']);
const BIN = path.resolve(args.bin);
const SECTION = '## Start-up and idle memory';

if (!fs.existsSync(BIN)) {
  console.error(`${BIN} not found: run \`node build.mjs\` first`);
  process.exit(1);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'engage-bench-startup-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ENGAGE_')));
baseEnv.ENGAGE_LOG_FORMAT = 'json';
baseEnv.ENGAGE_LOG_LEVEL = 'info';

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
}

function vmRssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return kb / 1024;
}

/** One start: spawn → URL log line → /healthz 200, then idle RSS; the server is then stopped. */
async function startOnce(dataDir, env = {}) {
  const t0 = performance.now();
  const child = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no URL logged within 20 s')), 20_000);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          output.push(line);
          try {
            const rec = JSON.parse(line);
            if (typeof rec.url === 'string') {
              clearTimeout(timer);
              resolve(rec.url);
            }
          } catch {
            // not a JSON log line
          }
        });
      }
    });
    const logged = performance.now() - t0;
    // The log line is written once the server listens and has its handler, so the first
    // request should succeed; retry tightly in case it does not.
    for (;;) {
      try {
        if ((await get(`${url}/healthz`)) === 200) break;
      } catch {
        // not yet accepting
      }
      if (performance.now() - t0 > 20_000) throw new Error('/healthz never answered 200');
    }
    const answered = performance.now() - t0;
    let rss;
    if (IDLE_MS > 0) {
      await new Promise((r) => setTimeout(r, IDLE_MS));
      rss = vmRssMiB(child.pid);
    }
    return { logged, answered, rss };
  } catch (err) {
    err.message += `\n${output.join('\n')}`;
    throw err;
  } finally {
    const exited = new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    child.kill('SIGTERM');
    await exited;
  }
}

function stats(values) {
  const v = values.filter((x) => x !== undefined).sort((a, b) => a - b);
  const q = (p) => v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)];
  return { n: v.length, min: v[0], median: q(0.5), p90: q(0.9), max: v[v.length - 1] };
}

async function scenario(name, runs, prepare) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    const { dataDir, env } = prepare(i);
    results.push(await startOnce(dataDir, env));
    process.stderr.write('.');
  }
  process.stderr.write(` ${name}\n`);
  return {
    name,
    answered: stats(results.map((r) => r.answered)),
    logged: stats(results.map((r) => r.logged)),
    rss: stats(results.map((r) => r.rss)),
  };
}

function versionRuns(runs, bin = BIN, argv = ['--version']) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(bin, argv, { env: baseEnv, encoding: 'utf8' });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return stats(times);
}

let counter = 0;
const freshDir = () => path.join(scratch, `data-${counter++}`);

const load = os.loadavg().map((x) => x.toFixed(2)).join(' / '); // before our own runs add to it

// Warm-up: fills the native-addon cache and the page cache, so runs measure steady state.
await startOnce(freshDir());

const version = versionRuns(RUNS);
const nodeFloor = versionRuns(RUNS, process.execPath, ['-e', '0']);
const existingDir = freshDir();
await startOnce(existingDir);
const command = versionRuns(RUNS, BIN, ['tenants', 'list', '--json', '--data-dir', existingDir]);
const fresh = await scenario('fresh data dir', RUNS, () => ({ dataDir: freshDir() }));
const existing = await scenario('existing data dir', RUNS, () => ({ dataDir: existingDir }));
const scenarios = [
  fresh,
  existing,
  await scenario('cold native cache', Math.max(3, Math.round(RUNS / 4)), () => {
    const cache = path.join(scratch, `xdg-${counter}`);
    return { dataDir: freshDir(), env: { XDG_CACHE_HOME: cache } };
  }),
];

const ms = (x) => (x === undefined ? '-' : `${Math.round(x)} ms`);
const mib = (x) => (x === undefined ? '-' : `${x.toFixed(1)} MiB`);
const cpu = os.cpus()[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const size = fs.statSync(BIN).size;
const rows = scenarios.map(
  (s) =>
    `| ${s.name} | ${s.answered.n} | ${ms(s.answered.median)} | ${ms(s.answered.p90)} | ${ms(s.answered.max)} | ${ms(s.logged.median)} | ${mib(s.rss.median)} | ${mib(s.rss.max)} |`,
);

const section = `${SECTION}

Measured by \`node bench/startup.mjs --runs ${RUNS}\` (after \`node build.mjs\`) on ${new Date().toISOString().slice(0, 10)}:
${cpu}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}, Node ${process.version};
load average before the runs ${load} (1/5/15 min; other work on the machine inflates times);
\`dist/engage\` ${(size / 2 ** 20).toFixed(1)} MiB. Goals: first answered request under 150 ms, idle RSS under 80 MB.

"first answer" is the time from \`spawn()\` of \`engage serve --port 0\` to the 200 answer of
\`GET /healthz\`, requested as soon as the server logs its URL ("URL logged"). RSS is VmRSS from
\`/proc/PID/status\` after ${IDLE_MS} ms idle.

| scenario | runs | first answer, median | p90 | max | URL logged, median | idle RSS, median | idle RSS, max |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

\`engage --version\` (process start and bundle load, no database): median ${ms(version.median)}, p90 ${ms(version.p90)};
plain \`node -e 0\` on the same machine: median ${ms(nodeFloor.median)};
\`engage tenants list --json\` on the existing data dir (a CLI command: opens the database, reads, prints): median ${ms(command.median)}, p90 ${ms(command.p90)}.

- *fresh data dir*: each start creates the database, runs the migrations, writes the master key and creates the control tenant with its first RSA key.
- *existing data dir*: a restart on an initialised data directory.
- *cold native cache*: fresh data dir and an empty \`XDG_CACHE_HOME\`, so the two embedded addons are first written out (once per machine and build).

Where the time goes: of the *existing data dir* first answer, about ${ms(version.median)} is process start
and bundle load (the \`--version\` median); the other ${ms(existing.answered.median - version.median)} opens the
database, checks migrations and the control tenant, listens and answers. The executable carries
V8's code cache of the bundle (build.mjs; \`--no-code-cache\` leaves it out, ~70 ms slower per start
with the 3 MB bundle), and what only some commands need loads when first used: the server's code
with @hono/node-server (which loads undici), the PostgreSQL driver, node:http2 (profile with
\`NODE_OPTIONS=--cpu-prof engage …\`).
The *fresh data dir* start is dominated by generating the control tenant's RSA-2048 key (a random
prime search: 60-360 ms here, median ~130 ms), a one-time cost per data directory.
`;

console.log(section);

if (args.write) {
  const file = path.resolve(args.write);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = before.indexOf(`${SECTION}\n`);
  let next;
  if (start === -1) {
    next = `${before.trimEnd()}\n\n${section}`;
  } else {
    const rest = before.slice(start + SECTION.length);
    const end = rest.search(/\n## /);
    next = before.slice(0, start) + section + (end === -1 ? '' : `\n${rest.slice(end + 1)}`);
  }
  fs.writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
  console.error(`wrote ${path.relative(process.cwd(), file)}`);
}
