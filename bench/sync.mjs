#!/usr/bin/env node
/**
 * Remote-state sync (issue 26 "Performance") on the built executable. An environment of 200
 * flags (bench/lib/flag-set.mjs: 50 with rules of three conditions, 10 experiments; by
 * `engage apply`), 20 subscription lists and 10 push channels or categories (5 per app, by the
 * CLI); 10,000 installations over an iOS and an Android app, each with attributes, list choices
 * and a push token, half of them bound to a profile (a binding transition with an access key)
 * with profile attributes, tags and choices. Every installation synced twice first (the first records the
 * profile-sticky assignments of the anonymous ones), the second answer's cursor kept.
 *
 * Then, alternating in the same run, for --rounds rounds, each run --duration seconds closed-loop
 * (autocannon, --connections connections), every request with the next installation's credential:
 *  - reference: GET /v1/sdk/installation;
 *  - delta: POST /v1/sdk/sync with the installation's cursor, nothing changed (an empty delta);
 *    goal: at least 70% of the reference's requests/s;
 *  - full: POST /v1/sdk/sync without a cursor, all modules (a full snapshot); goal 3,000/s.
 * and last the full snapshot paced at half its best peak (bench/lib/paced.mjs: open loop,
 * latency from when each request was due); goal p99 under 20 ms. The server's CPU per request
 * (Linux /proc: the process, all threads) is measured over each run.
 *
 * Usage: node bench/sync.mjs [--bin /tmp/engage (default: built to a temporary file)]
 *          [--engine sqlite|postgres] [--database-url postgres://… (an empty database)]
 *          [--installations 10000] [--duration 8] [--connections 16] [--rounds 3] [--rate N]
 *          [--cpu-prof DIR (V8 CPU profiles of the server, written when it stops)]
 *          [--kinds reference,delta,full (the runs to make; the summary needs all three)]
 *          [--keep DIR (SQLite: keep the database and the installations' credentials and cursors in DIR)]
 *          [--reuse DIR (SQLite: measure on what --keep kept, no setup: A/B runs of two binaries on the same data)]
 *          [--workers N (serve --workers N: N processes share the port; CPU is then the primary's and every worker's)]
 * `--engine postgres` without --database-url starts a throwaway cluster (test/helpers/pg-cluster.ts):
 * run it with `node --import tsx`.
 */
import autocannon from 'autocannon';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { LISTS, LOCALES, TAGS, VERSIONS, flagSet, seeded } from './lib/flag-set.mjs';
import { paced } from './lib/paced.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    installations: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string' },
    'cpu-prof': { type: 'string' },
    kinds: { type: 'string', default: 'reference,delta,full' },
    keep: { type: 'string' },
    reuse: { type: 'string' },
    workers: { type: 'string', default: '1' },
  },
});
const INSTALLATIONS = Number(args.installations);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const MODULES = ['FEATURE_FLAGS', 'IN_APP', 'PREFERENCES', 'PUSH'];
const KINDS = args.kinds.split(',');
if ((args.keep || args.reuse) && args.engine !== 'sqlite') {
  console.error('bench/sync: --keep and --reuse are for SQLite');
  process.exit(2);
}
if (!['sqlite', 'postgres'].includes(args.engine)) {
  console.error(`bench/sync: --engine must be sqlite or postgres, not ${args.engine}`);
  process.exit(2);
}

const dir = args.reuse ? path.resolve(args.reuse) : args.keep ? (mkdirSync(args.keep, { recursive: true }), path.resolve(args.keep)) : mkdtempSync(path.join(tmpdir(), 'engage-bench-sync-'));
const dataDir = path.join(dir, 'data');
const kept = path.join(dir, 'installations.json');
const f = (n) => path.join(dir, n);
const log = (m) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const load = () => loadavg().map((x) => +x.toFixed(2));
const loadAtStart = load();

let BIN = args.bin;
if (!BIN) {
  BIN = f('engage');
  log(`building ${BIN}`);
  execFileSync(process.execPath, ['build.mjs', '--outfile', BIN], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
if (!existsSync(BIN)) {
  console.error(`bench/sync: ${BIN} is missing`);
  process.exit(1);
}

let cluster;
let databaseUrl = args['database-url'];
if (args.engine === 'postgres' && !databaseUrl) {
  const { startPgCluster } = await import('../test/helpers/pg-cluster.ts');
  cluster = await startPgCluster({ durable: true });
  databaseUrl = cluster.url;
}
const engineEnv = { ...process.env, ...(databaseUrl ? { ENGAGE_DATABASE_URL: databaseUrl } : {}) };
const cliArgs = (a) => [...a, '--data-dir', dataDir, '--json', '--log-level', 'error'];
const cli = (...a) => JSON.parse(execFileSync(BIN, cliArgs(a), { encoding: 'utf8', env: engineEnv }));
const cliAsync = async (...a) => JSON.parse((await promisify(execFile)(BIN, cliArgs(a), { encoding: 'utf8', env: engineEnv })).stdout);

/** Runs `fn(i)` for i in [0, n), `width` at a time. */
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await fn(next++);
  }));
}

const g = seeded(42);
const flags = flagSet(g);
const listKeys = [...LISTS, ...Array.from({ length: 20 - LISTS.length }, (_, i) => `list-${i}`)];
let t = performance.now();
// The definitions, through the CLI (the same services as the administration API).
let ios, android, accessKey;
if (!args.reuse) {
  cli('init');
  const env = cli('environments', 'create', '--name', 'bench');
  ios = cli('apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'bench-ios');
  android = cli('apps', 'create', '--environment', env.id, '--platform', 'ANDROID', '--name', 'bench-android');
  accessKey = cli('access-keys', 'create', '--environment', env.id, '--app', ios.id, '--app', android.id).key;

  // The flags in one `engage apply` (200 CLI calls take a minute on a busy machine), the rest one CLI call each.
  writeFileSync(f('apply.json'), JSON.stringify({ version: 1, environments: [{ name: 'bench', flags: flags.map(({ key, ...definition }) => ({ key, definition })) }] }));
  t = performance.now();
  cli('apply', '-f', f('apply.json'));
  const definitionCommands = [
    ...listKeys.map((key, i) => {
      writeFileSync(f(`list-${key}.json`), JSON.stringify({ key, displayName: `List ${key}`, description: 'bench', channels: i % 3 ? ['PUSH', 'EMAIL'] : ['PUSH'], defaultSubscribed: i % 4 !== 0, critical: i === 7 }));
      return ['lists', 'create', '--environment', env.id, '--file', f(`list-${key}.json`)];
    }),
    ...Array.from({ length: 5 }, (_, i) => {
      writeFileSync(f(`channel-${i}.json`), JSON.stringify({ key: `channel-${i}`, kind: 'ANDROID_CHANNEL', name: `Channel ${i}`, description: 'bench', importance: ['MIN', 'LOW', 'DEFAULT', 'HIGH'][i % 4], ...(i % 2 ? { sound: 'chime' } : {}) }));
      return ['push-channels', 'create', '--environment', env.id, '--app', android.id, '--file', f(`channel-${i}.json`)];
    }),
    ...Array.from({ length: 5 }, (_, i) => {
      const actions = Array.from({ length: i + 1 }, (_, k) => ({ id: `action-${k}`, title: `Action ${k}`, ...(k === 0 ? { foreground: true } : {}), ...(k === 2 ? { destructive: true } : {}) }));
      writeFileSync(f(`category-${i}.json`), JSON.stringify({ key: `category-${i}`, kind: 'IOS_CATEGORY', actions }));
      return ['push-channels', 'create', '--environment', env.id, '--app', ios.id, '--file', f(`category-${i}.json`)];
    }),
  ];
  await pool(definitionCommands.length, 3, (i) => cliAsync(...definitionCommands[i]));
  log(`${flags.length} flags, ${listKeys.length} lists, 10 push channels and categories in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

/**
 * The server, and where its metrics are read: with --workers, /metrics on the port is the one
 * worker's that takes the connection; the primary serves all workers' on --metrics-listen.
 */
async function start() {
  const serveEnv = args['cpu-prof'] ? { ...engineEnv, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(args['cpu-prof'])}` } : engineEnv;
  const metricsPort = args.workers === '1' ? undefined : await freePort();
  const workerArgs = metricsPort === undefined ? [] : ['--workers', args.workers, '--metrics-listen', `127.0.0.1:${metricsPort}`];
  const proc = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'info', '--no-access-log', ...workerArgs], { stdio: ['ignore', 'pipe', 'pipe'], env: serveEnv });
  return new Promise((resolve, reject) => {
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    for (const s of [proc.stdout, proc.stderr])
      createInterface({ input: s }).on('line', (line) => {
        try {
          const rec = JSON.parse(line);
          if (rec.url) resolve({ proc, url: rec.url, metricsUrl: metricsPort === undefined ? rec.url : `http://127.0.0.1:${metricsPort}` });
        } catch {
          /* not JSON */
        }
      });
  });
}
const call = async (url, method, body, headers) => {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
};
/** The server's CPU time so far (utime + stime of every thread, ticks of 10 ms; with --workers, of the primary and its workers), in ms. */
const cpuMs = (pid) => {
  const own = (p) => {
    const v = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(v[11]) + Number(v[12])) * 10;
  };
  const workers = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  return own(pid) + workers.reduce((sum, w) => sum + own(w), 0);
};

const { proc, url, metricsUrl } = await start();
try {
  // 10,000 installations: attributes, list choices, a push token; half bound, with a profile's state.
  const { random, pick } = g;
  let installations = new Array(INSTALLATIONS);
  let sizes = { documents: 0, bytes: 0 };
  const sync = (inst, cursor) => call(`${url}/v1/sdk/sync`, 'POST', { modules: MODULES, ...(cursor ? { cursor } : {}) }, { authorization: `Bearer ${inst.credential}` });
  // Installations kept by --keep: the same credentials and cursors (the database holds what made them).
  if (args.reuse) ({ installations, sizes } = JSON.parse(readFileSync(kept, 'utf8')));
  else {
    const op = (generation, type, payload) => ({ operationId: randomUUID(), generation, type, occurredAt: new Date().toISOString(), payload });
    const someLists = () => listKeys.filter(() => random() < 0.2).map((list) => ({ list, subscribed: random() < 0.5 }));
    t = performance.now();
    await pool(INSTALLATIONS, 16, async (i) => {
      const isIos = i % 2 === 0;
      const bound = i % 4 < 2;
      const s = await call(`${url}/v1/sdk/installations`, 'POST', { platform: isIos ? 'IOS' : 'ANDROID', locale: pick(LOCALES), timezone: 'Europe/Paris', sdkVersion: '1.0.0', appVersion: pick(VERSIONS), osVersion: pick(['17.4.1', '14.0.0', '18.1.0']) }, { 'x-service-app-key': (isIos ? ios : android).appKey });
      const auth = { authorization: `Bearer ${s.credential}` };
      const choices = someLists();
      await call(`${url}/v1/sdk/operations:batch`, 'POST', {
        batchId: randomUUID(),
        operations: [
          op(0, 'INSTALLATION_ATTRIBUTES_EDITED', { set: { level: Math.floor(random() * 10), theme: pick(['dark', 'light']) } }),
          ...(choices.length ? [op(0, 'INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: choices })] : []),
          op(0, 'PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }),
          op(0, 'PUSH_TOKEN_SET', { token: randomBytes(32).toString('hex') }),
        ],
      }, auth);
      if (bound) {
        const { code } = await call(`${url}/v1/sdk/installation/binding-code`, 'POST', undefined, auth);
        await call(`${url}/v1/installation-binding-transitions`, 'POST', { bindingCode: code, target: { externalId: `user-${i}` } }, { authorization: `Bearer ${accessKey}`, 'idempotency-key': randomUUID() });
        const { generation } = await call(`${url}/v1/sdk/installation`, 'GET', undefined, auth);
        await call(`${url}/v1/sdk/operations:batch`, 'POST', {
          batchId: randomUUID(),
          operations: [
            op(generation, 'PROFILE_ATTRIBUTES_EDITED', { set: { plan: pick(['free', 'pro', 'team']), since: pick(['2025-01-01T00:00:00Z', '2026-09-01T00:00:00Z']), ...(random() < 0.3 ? { quiet_hours: { start: '22:00', end: '07:00' } } : {}) } }),
            op(generation, 'PROFILE_TAGS_EDITED', { add: TAGS.filter(() => random() < 0.3).concat('bench') }),
            op(generation, 'PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'PUSH', subscribed: true }, { list: 'offers', channel: 'EMAIL', subscribed: random() < 0.5 }] }),
          ],
        }, auth);
      }
      installations[i] = { credential: s.credential, bound };
    });
    log(`${INSTALLATIONS} installations (half bound) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // Two full syncs each: the first records the anonymous ones' profile-sticky assignments, the second's cursor is kept.
    t = performance.now();
    for (const pass of [0, 1])
      await pool(INSTALLATIONS, 16, async (i) => {
        const r = await sync(installations[i]);
        if (!r.fullSnapshot) throw new Error('a sync without a cursor was not a full snapshot');
        if (pass === 1) {
          installations[i].cursor = r.cursor;
          sizes.documents += r.documents.length;
          sizes.bytes += JSON.stringify(r).length;
        }
      });
    log(`2 × ${INSTALLATIONS} full syncs in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (args.keep) writeFileSync(kept, JSON.stringify({ installations, sizes }));
  }
  // Nothing changed since: the cursor's delta is empty.
  for (const inst of installations.slice(0, 50)) {
    const r = await sync(inst, inst.cursor);
    if (r.fullSnapshot || r.documents.length || r.tombstones.length) throw new Error(`an unchanged installation's delta is not empty: ${JSON.stringify(r).slice(0, 300)}`);
  }

  const headersOf = (inst) => ({ authorization: `Bearer ${inst.credential}`, 'content-type': 'application/json' });
  const kinds = {
    reference: { method: 'GET', path: '/v1/sdk/installation', request: (inst) => ({ headers: headersOf(inst) }) },
    delta: { method: 'POST', path: '/v1/sdk/sync', request: (inst) => ({ headers: headersOf(inst), body: JSON.stringify({ modules: MODULES, cursor: inst.cursor }) }) },
    full: { method: 'POST', path: '/v1/sdk/sync', request: (inst) => ({ headers: headersOf(inst), body: JSON.stringify({ modules: MODULES }) }) },
  };
  for (const k of Object.values(kinds)) k.requests = installations.map(k.request);

  /** The sync's answers so far by kind (full, delta, unchanged: an empty delta from the head alone), from /metrics. */
  const syncAnswers = async () => {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    // Summed over the workers' series (`worker="<id>"` beside `kind`).
    const out = {};
    for (const m of text.matchAll(/^engage_sync_responses_total\{([^}]*)\} (\d+)/gm)) {
      const kind = /kind="(\w+)"/.exec(m[1])?.[1];
      if (kind) out[kind] = (out[kind] ?? 0) + Number(m[2]);
    }
    return out;
  };

  /** One closed-loop run of `kind`, every request the next installation's: requests/s, latency, server CPU per request. */
  async function closedLoop(kind) {
    const { method, path: p, requests } = kinds[kind];
    let n = 0;
    const answers0 = await syncAnswers();
    const cpu0 = cpuMs(proc.pid);
    const res = await new Promise((resolve, reject) =>
      autocannon(
        {
          url: url + p,
          connections: CONNECTIONS,
          duration: DURATION,
          // A copy of the headers: autocannon adds Content-Length to the object it is given.
          requests: [{ method, setupRequest: (req) => {
            const r = requests[n++ % requests.length];
            return { ...req, headers: { ...r.headers }, body: r.body };
          } }],
        },
        (e, r) => (e ? reject(e) : resolve(r)),
      ),
    );
    const cpu = cpuMs(proc.pid) - cpu0;
    const answers = Object.fromEntries(Object.entries(await syncAnswers()).map(([k, v]) => [k, v - (answers0[k] ?? 0)]).filter(([, v]) => v > 0));
    const ok = res['2xx'];
    return { kind, perSecond: Math.round(ok / res.duration), non2xx: res.non2xx, errors: res.errors, p50: res.latency.p50, p99: res.latency.p99, bytesPerResponse: Math.round(res.throughput.total / Math.max(1, res.requests.total)), cpuUsPerRequest: +((cpu * 1000) / Math.max(1, ok)).toFixed(1), ...(kind === 'reference' ? {} : { answers }) };
  }

  const runs = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate the order, so neither kind always runs on a warmer (or more crowded) machine.
    const order = (r % 2 === 0 ? ['reference', 'delta', 'full'] : ['full', 'delta', 'reference']).filter((k) => KINDS.includes(k));
    for (const kind of order) {
      const res = { round: r + 1, ...(await closedLoop(kind)), loadAverage: load()[0] };
      runs.push(res);
      log(JSON.stringify(res));
    }
  }
  const of = (kind) => runs.filter((x) => x.kind === kind);
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  if (!['reference', 'delta', 'full'].every((k) => KINDS.includes(k))) {
    console.log(JSON.stringify({ engine: args.engine, loadAverage: { start: loadAtStart, end: load() }, runs }, null, 2));
  } else {
    const ratios = Array.from({ length: ROUNDS }, (_, r) => of('delta')[r].perSecond / of('reference')[r].perSecond);
    const peakFull = Math.max(...of('full').map((x) => x.perSecond));
    const rate = args.rate ? Number(args.rate) : Math.max(1, Math.floor(peakFull / 2));
    const half = await paced({ origin: url, rate, duration: Math.max(DURATION, 10), plan: { kind: 'cycle', method: 'POST', path: '/v1/sdk/sync', requests: kinds.full.requests } });

    const summary = {
      engine: args.engine,
      workers: Number(args.workers),
      node: process.version,
      cpus: cpus().length,
      loadAverage: { start: loadAtStart, end: load() },
      setup: { flags: flags.length, lists: listKeys.length, pushChannels: 10, installations: installations.length, bound: installations.filter((x) => x.bound).length, fullSnapshot: { documentsPerResponse: +(sizes.documents / installations.length).toFixed(1), bytesPerResponse: Math.round(sizes.bytes / installations.length) } },
      runs,
      reference: { medianPerSecond: median(of('reference').map((x) => x.perSecond)), medianCpuUs: median(of('reference').map((x) => x.cpuUsPerRequest)) },
      emptyDelta: { medianPerSecond: median(of('delta').map((x) => x.perSecond)), medianCpuUs: median(of('delta').map((x) => x.cpuUsPerRequest)), ratios: ratios.map((x) => +x.toFixed(3)), medianRatio: +median(ratios).toFixed(3), goal: '>= 0.70' },
      fullSnapshot: { peakPerSecond: peakFull, medianPerSecond: median(of('full').map((x) => x.perSecond)), medianCpuUs: median(of('full').map((x) => x.cpuUsPerRequest)), goal: '>= 3000/s', paced: half, pacedGoal: 'p99 < 20 ms at half the peak' },
    };
    console.log(JSON.stringify(summary, null, 2));
  }
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await cluster?.stop();
  if (!args.keep && !args.reuse) rmSync(dir, { recursive: true, force: true });
}
