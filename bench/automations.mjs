#!/usr/bin/env node
/**
 * Automations (issue 28 "Performance") on the built executable, in one run:
 *  1. admission: POST …/automations/{automationApiKey}/trigger closed loop (autocannon,
 *     --connections, --duration), re-entry ALWAYS over --profiles profiles (every request the
 *     next profile's), then paced at half the peak (bench/lib/paced.mjs: open loop, latency from
 *     when each request was due) for p99. The automation is the timer one of part 3 (a wait of a
 *     day, then exit), so every admitted run also costs the server its first step (the wait's
 *     start) while admission goes on; goal 3,000 runs/s, p99 < 20 ms at half the peak;
 *  2. execution: --executions runs of a five-step automation (condition, profile-update from the
 *     context, push to the loopback APNs (bench/lib/apns-sink.mjs), webhook to a loopback
 *     receiver, exit) triggered closed loop; steps/s from the automation_steps rows' timestamps
 *     (first start to last finish, and the median of whole seconds in between); goal 3,000 steps/s;
 *  3. timers: the timer automation topped up through the trigger endpoint to --timers waiting runs
 *     (its step `wait` waits 86,400 s); the server's RSS before part 1 and after all are WAITING;
 *     then "advance": one transaction from the bench sets every waiting run's due time and its wait
 *     step's `untilMs` (what the engine compares the clock with) to the same instant, --due-in
 *     seconds ahead, as if that day had passed; the time from that instant until every run's step
 *     after the wait (`bye`, exit) SUCCEEDED, and how many wait steps finished (or `bye` steps
 *     started) before it (none may); goal all within 30 s, none early.
 *
 * Usage: npx node bench/automations.mjs [--bin /tmp/engage (default: built to a temporary file)]
 *          [--engine sqlite|postgres] [--database-url postgres://… (an empty database)]
 *          [--profiles 1000] [--duration 8] [--connections 16] [--rate N (paced triggers/s)]
 *          [--executions 3000] [--timers 100000] [--due-in 10] [--cpu-prof DIR]
 * (Node 24 through npx: the bench reads the SQLite database with the project's better-sqlite3.)
 * `--engine postgres` without --database-url starts a throwaway cluster (test/helpers/pg-cluster.ts):
 * run it with `npx node --import tsx`.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { paced } from './lib/paced.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    profiles: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    rate: { type: 'string' },
    executions: { type: 'string', default: '3000' },
    timers: { type: 'string', default: '100000' },
    'due-in': { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
  },
});
if (!['sqlite', 'postgres'].includes(args.engine)) {
  console.error(`bench/automations: --engine must be sqlite or postgres, not ${args.engine}`);
  process.exit(2);
}
const PROFILES = Number(args.profiles);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const EXECUTIONS = Number(args.executions);
const TIMERS = Number(args.timers);
const DUE_IN_S = Number(args['due-in']);
const TOPIC = 'com.example.bench';

const dir = mkdtempSync(path.join(tmpdir(), 'engage-bench-automations-'));
const dataDir = path.join(dir, 'data');
const f = (n) => path.join(dir, n);
const log = (m) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const load = () => loadavg().map((x) => +x.toFixed(2));
const loadAtStart = load();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let BIN = args.bin;
if (!BIN) {
  BIN = f('engage');
  log(`building ${BIN}`);
  execFileSync(process.execPath, ['build.mjs', '--outfile', BIN], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
if (!existsSync(BIN)) {
  console.error(`bench/automations: ${BIN} is missing`);
  process.exit(1);
}

let cluster;
let databaseUrl = args['database-url'];
if (args.engine === 'postgres' && !databaseUrl) {
  const { startPgCluster } = await import('../test/helpers/pg-cluster.ts');
  cluster = await startPgCluster({ durable: true });
  databaseUrl = cluster.url;
}

// The loopback APNs (a worker thread) and a loopback webhook receiver (another).
const ssl = (...a) => execFileSync('openssl', a, { stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=bench CA');
ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('ext.cnf'));
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
writeFileSync(f('AuthKey.p8'), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
const apnsCounter = new SharedArrayBuffer(4);
const apnsAnswered = new Int32Array(apnsCounter);
const sink = new Worker(new URL('./lib/apns-sink.mjs', import.meta.url), {
  workerData: { key: readFileSync(f('server.key')), cert: readFileSync(f('server.pem')), publicPem: publicKey.export({ type: 'spki', format: 'pem' }), topic: TOPIC, counter: apnsCounter },
});
const apnsUrl = `https://localhost:${await new Promise((r) => sink.once('message', (m) => r(m.port)))}`;
const hookCounter = new SharedArrayBuffer(4);
const hooks = new Int32Array(hookCounter);
const receiver = new Worker(
  `const http = require('node:http'); const { parentPort, workerData } = require('node:worker_threads');
   const n = new Int32Array(workerData);
   const s = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => { req.resume(); req.on('end', () => { Atomics.add(n, 0, 1); res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); }); });
   s.listen(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));`,
  { eval: true, workerData: hookCounter },
);
const hookPort = await new Promise((r) => receiver.once('message', r));

const engineEnv = {
  ...process.env,
  ENGAGE_APNS_URL: apnsUrl,
  ENGAGE_APNS_SANDBOX_URL: apnsUrl,
  ENGAGE_PUSH_CA_FILE: f('ca.pem'),
  ENGAGE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
  ...(databaseUrl ? { ENGAGE_DATABASE_URL: databaseUrl } : {}),
};
const cli = (...a) => JSON.parse(execFileSync(BIN, [...a, '--data-dir', dataDir, '--json', '--log-level', 'error'], { encoding: 'utf8', env: engineEnv }));

// The bench reads the database (and writes it once: the advance of part 3).
let db;
/** Rows of `sql` ($1, $2… each used once, in order, for SQLite). */
async function q(sql, params = []) {
  if (databaseUrl) return (await db.query(sql, params)).rows;
  return db.prepare(sql.replace(/\$\d+/g, '?')).all(...params);
}
async function openDb() {
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  } else {
    const { default: Database } = await import('better-sqlite3');
    db = new Database(path.join(dataDir, 'engage.db'));
    db.pragma('busy_timeout = 10000');
  }
}

cli('init');
const env = cli('environments', 'create', '--name', 'bench');
const app = cli('apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'bench-ios');
const accessKey = cli('access-keys', 'create', '--environment', env.id, '--app', app.id).key;
cli('apps', 'set-apns', app.id, '--key-file', f('AuthKey.p8'), '--key-id', 'BENCHKEY01', '--team-id', 'BENCHTEAM1', '--topic', TOPIC);
writeFileSync(
  f('template.json'),
  JSON.stringify({ key: 'order.shipped', apps: [app.id], defaultLocale: 'en', variables: { orderId: { type: 'string' } }, localizations: { en: { title: 'Order {{orderId}}', body: 'Shipped' } }, rateLimitPerMinute: 1_000_000 }),
);
cli('templates', 'create', '--environment', env.id, '--file', f('template.json'));
cli('templates', 'publish', 'order.shipped', '--environment', env.id);
const automations = {
  five: {
    key: 'five',
    name: 'Five',
    entries: { api: true },
    reentry: { mode: 'ALWAYS' },
    start: 'check',
    steps: {
      check: { type: 'condition', conditions: [{ attribute: 'context.plan', operator: 'equals', values: ['gold'] }], then: 'tag', else: 'bye' },
      tag: { type: 'profile-update', set: { plan: '{{context.plan}}' }, next: 'notify' },
      notify: { type: 'push', template: 'order.shipped', variables: { orderId: '{{context.orderId}}' }, next: 'hook' },
      hook: { type: 'webhook', method: 'POST', url: `http://127.0.0.1:${hookPort}/hook`, next: 'bye' },
      bye: { type: 'exit' },
    },
  },
  timer: { key: 'timer', name: 'Timer', entries: { api: true }, reentry: { mode: 'ALWAYS' }, start: 'wait', steps: { wait: { type: 'wait', seconds: 86_400, next: 'bye' }, bye: { type: 'exit' } } },
};
const made = {};
for (const [k, def] of Object.entries(automations)) {
  writeFileSync(f(`${k}.json`), JSON.stringify(def));
  const out = cli('automations', 'create', '--environment', env.id, '--file', f(`${k}.json`));
  cli('automations', 'publish', k, '--environment', env.id);
  made[k] = { id: out.id ?? out.automation?.id, apiKey: out.automationApiKey };
  if (!made[k].apiKey) throw new Error(`automations create printed no key: ${JSON.stringify(out).slice(0, 1500)}`);
}

function start() {
  const serveEnv = args['cpu-prof'] ? { ...engineEnv, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(args['cpu-prof'])}` } : engineEnv;
  const proc = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'info', '--no-access-log'], { stdio: ['ignore', 'pipe', 'pipe'], env: serveEnv });
  return new Promise((resolve, reject) => {
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    for (const s of [proc.stdout, proc.stderr])
      createInterface({ input: s }).on('line', (line) => {
        try {
          const rec = JSON.parse(line);
          if (rec.url) resolve({ proc, url: rec.url });
          else if (rec.level === 'error') log(`server: ${line.slice(0, 1500)}`);
        } catch {
          /* not JSON */
        }
      });
  });
}
const post = async (url, body, headers) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
};
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await fn(next++);
  }));
}
/** The server's CPU time so far (utime + stime, all threads), in ms; its resident set, in MiB. */
const cpuMs = (pid) => {
  const v = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(v[11]) + Number(v[12])) * 10;
};
const rssMiB = (pid) => +(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(1);

const { proc, url } = await start();
const summary = { engine: args.engine, node: process.version, cpus: cpus().length, loadAverage: { start: loadAtStart } };
try {
  await openDb();
  log(`server at ${url}; the database open`);
  if (!made.five.id) for (const r of await q('SELECT id, key FROM automations WHERE environment_id = $1', [env.id])) made[r.key].id = r.id;
  // Profiles: an installation with a push token and permission each, bound to an external id.
  let t = performance.now();
  const op = (type, payload) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
  await pool(PROFILES, 16, async (u) => {
    const s = await post(`${url}/v1/sdk/installations`, { platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'x-service-app-key': app.appKey });
    const auth = { authorization: `Bearer ${s.credential}` };
    await post(`${url}/v1/sdk/operations:batch`, { batchId: randomUUID(), operations: [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token: randomBytes(32).toString('hex') })] }, auth);
    const { code } = await post(`${url}/v1/sdk/installation/binding-code`, undefined, auth);
    await post(`${url}/v1/installation-binding-transitions`, { bindingCode: code, target: { externalId: `user-${u}` } }, { authorization: `Bearer ${accessKey}`, 'idempotency-key': randomUUID() });
  });
  const profileIds = (await q('SELECT id FROM profiles WHERE environment_id = $1 AND external_id IS NOT NULL', [env.id])).map((r) => r.id);
  if (profileIds.length !== PROFILES) throw new Error(`${profileIds.length} profiles, not ${PROFILES}`);
  log(`${PROFILES} profiles in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  summary.setup = { profiles: PROFILES };

  const triggerPath = (k) => `/api/v1/environments/${env.id}/automations/${made[k].apiKey}/trigger`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${accessKey}` };
  /** Closed loop on an automation's trigger, every request the next profile's: for `duration` s, or `amount` requests. */
  async function closedLoop(k, { duration, amount, context }) {
    let n = 0;
    let accepted = 0;
    const cpu0 = cpuMs(proc.pid);
    const res = await new Promise((resolve, reject) =>
      autocannon(
        {
          url: url + triggerPath(k),
          connections: CONNECTIONS,
          ...(amount ? { amount } : { duration }),
          requests: [{
            method: 'POST',
            setupRequest: (req) => {
              const i = n++;
              return { ...req, headers: { ...headers }, body: JSON.stringify({ profileId: profileIds[i % profileIds.length], context: context(i) }) };
            },
            onResponse: (status) => status === 202 && accepted++,
          }],
        },
        (e, r) => (e ? reject(e) : resolve(r)),
      ),
    );
    const cpu = cpuMs(proc.pid) - cpu0;
    return { accepted, perSecond: Math.round(res['2xx'] / res.duration), seconds: +res.duration.toFixed(2), non2xx: res.non2xx, errors: res.errors, p50: res.latency.p50, p99: res.latency.p99, cpuUsPerRequest: +((cpu * 1000) / Math.max(1, res['2xx'])).toFixed(1), loadAverage: load()[0] };
  }
  const count = async (sql, params) => Number((await q(sql, params))[0].n);
  const runsOf = (k, status) => count(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = $1${status ? ' AND status = $2' : ''}`, status ? [made[k].id, status] : [made[k].id]);

  // 1. Admission (the timer automation: each run's first step, the wait's start, runs meanwhile).
  const rssBefore = rssMiB(proc.pid);
  log('admission: closed loop');
  let timersAdmitted = 0;
  const peak = await closedLoop('timer', { duration: DURATION, context: (i) => ({ n: i }) });
  timersAdmitted += peak.accepted;
  log(`admission closed loop: ${JSON.stringify(peak)}`);
  const rate = args.rate ? Number(args.rate) : Math.max(1, Math.floor(peak.perSecond / 2));
  const requests = profileIds.map((p, i) => ({ headers, body: JSON.stringify({ profileId: p, context: { n: i } }) }));
  const cpu0 = cpuMs(proc.pid);
  const half = await paced({ origin: url, rate, duration: Math.max(DURATION, 10), plan: { kind: 'cycle', method: 'POST', path: triggerPath('timer'), requests } });
  half.cpuUsPerRequest = +(((cpuMs(proc.pid) - cpu0) * 1000) / Math.max(1, half.answered)).toFixed(1);
  half.loadAverage = load()[0];
  timersAdmitted += half.answered - half.non2xx - half.errors;
  log(`admission paced: ${JSON.stringify(half)}`);
  summary.admission = { closedLoop: peak, goal: '>= 3000 runs/s', paced: half, pacedGoal: 'p99 < 20 ms at half the peak' };

  // 2. Execution: the five-step automation.
  const apns0 = Atomics.load(apnsAnswered, 0);
  const hooks0 = Atomics.load(hooks, 0);
  const execCpu0 = cpuMs(proc.pid);
  t = performance.now();
  const triggered = await closedLoop('five', { amount: EXECUTIONS, context: (i) => ({ plan: 'gold', orderId: `o-${i}` }) });
  log(`execution: ${EXECUTIONS} triggered: ${JSON.stringify(triggered)}`);
  const stepsOfFive = () => count('SELECT count(*) AS n FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 AND s.finished_at IS NOT NULL', [made.five.id]);
  let last = -1;
  let stalled = performance.now();
  for (;;) {
    const ended = (await runsOf('five')) - (await runsOf('five', 'RUNNING')) - (await runsOf('five', 'WAITING'));
    const steps = await stepsOfFive();
    if (ended >= triggered.accepted) break;
    if (steps !== last) {
      last = steps;
      stalled = performance.now();
    } else if (performance.now() - stalled > 60_000) {
      log(`execution: no progress for 60 s (${ended} of ${triggered.accepted} runs ended)`);
      break;
    }
    await sleep(500);
  }
  const execCpu = cpuMs(proc.pid) - execCpu0;
  const stamps = await q('SELECT s.started_at AS "startedAt", s.finished_at AS "finishedAt" FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 AND s.finished_at IS NOT NULL', [made.five.id]);
  const first = Math.min(...stamps.map((s) => Date.parse(s.startedAt)));
  const lastDone = Math.max(...stamps.map((s) => Date.parse(s.finishedAt)));
  const perSecond = new Map();
  for (const s of stamps) {
    const sec = Math.floor((Date.parse(s.finishedAt) - first) / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
  }
  const secs = [...perSecond.keys()].sort((a, b) => a - b);
  const whole = secs.slice(1, -1).map((s) => perSecond.get(s) ?? 0).sort((a, b) => a - b);
  const statuses = Object.fromEntries((await q('SELECT status, count(*) AS n FROM automation_runs WHERE automation_id = $1 GROUP BY status', [made.five.id])).map((r) => [r.status, Number(r.n)]));
  summary.execution = {
    runs: triggered.accepted,
    statuses,
    steps: stamps.length,
    seconds: +((lastDone - first) / 1000).toFixed(2),
    stepsPerSecond: Math.round(stamps.length / ((lastDone - first) / 1000)),
    medianWholeSecond: whole.length ? whole[Math.floor(whole.length / 2)] : null,
    perSecond: secs.map((s) => perSecond.get(s)),
    apnsAnswered: Atomics.load(apnsAnswered, 0) - apns0,
    webhooksReceived: Atomics.load(hooks, 0) - hooks0,
    cpuUsPerStep: +((execCpu * 1000) / Math.max(1, stamps.length)).toFixed(1),
    trigger: triggered,
    loadAverage: load()[0],
    goal: '>= 3000 steps/s',
  };
  log(`execution: ${JSON.stringify(summary.execution)}`);

  // 3. Timers: topped up to TIMERS waiting runs through the trigger endpoint.
  t = performance.now();
  const topUp = TIMERS - timersAdmitted;
  // In two halves, the RSS after each once all are WAITING: what the second half adds is what
  // waiting runs cost, apart from the warm-up (heap grown under load, SQLite's page caches filling).
  const allWaiting = async () => {
    const n = await runsOf('timer');
    for (let i = 0; i < 600 && (await runsOf('timer', 'WAITING')) < n; i++) await sleep(1000);
    return n;
  };
  const firstHalf = Math.floor(topUp / 2);
  const seeding = topUp > 0 ? await closedLoop('timer', { amount: firstHalf, context: (i) => ({ n: i }) }) : undefined;
  const timersMid = await allWaiting();
  await sleep(5000);
  const rssMid = rssMiB(proc.pid);
  if (topUp - firstHalf > 0) await closedLoop('timer', { amount: topUp - firstHalf, context: (i) => ({ n: firstHalf + i }) });
  const timers = await allWaiting();
  const seedSeconds = +((performance.now() - t) / 1000).toFixed(1);
  const waiting = await runsOf('timer', 'WAITING');
  log(`timers: ${timers} runs, ${waiting} waiting, seeded in ${seedSeconds} s`);
  await sleep(5000);
  const rssAfter = rssMiB(proc.pid);

  // Advance: every waiting run due at the same instant, as if the day had passed.
  const dueMs = Date.now() + DUE_IN_S * 1000;
  const due = new Date(dueMs).toISOString();
  const advance = databaseUrl
    ? [
        [`UPDATE automation_steps SET output = jsonb_set(jsonb_set(output::jsonb, '{untilMs}', to_jsonb($1::bigint)), '{until}', to_jsonb($2::text))::text WHERE kind = 'wait' AND status = 'RUNNING' AND run_id IN (SELECT id FROM automation_runs WHERE automation_id = $3 AND status = 'WAITING')`, [dueMs, due, made.timer.id]],
        [`UPDATE automation_runs SET due_ms = $1 WHERE automation_id = $2 AND status = 'WAITING'`, [dueMs, made.timer.id]],
      ]
    : [
        [`UPDATE automation_steps SET output = json_set(output, '$.untilMs', $1, '$.until', $2) WHERE kind = 'wait' AND status = 'RUNNING' AND run_id IN (SELECT id FROM automation_runs WHERE automation_id = $3 AND status = 'WAITING')`, [dueMs, due, made.timer.id]],
        [`UPDATE automation_runs SET due_ms = $1 WHERE automation_id = $2 AND status = 'WAITING'`, [dueMs, made.timer.id]],
      ];
  if (databaseUrl) {
    const c = await db.connect();
    try {
      await c.query('BEGIN');
      for (const [sql, p] of advance) await c.query(sql, p);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  } else db.transaction(() => advance.forEach(([sql, p]) => db.prepare(sql.replace(/\$\d+/g, '?')).run(...p)))();
  log(`timers: all due at ${due}`);
  const timerCpu0 = cpuMs(proc.pid);
  const progress = [];
  for (let i = 0; i < 600; i++) {
    const exited = await runsOf('timer', 'EXITED');
    progress.push({ afterDueS: +((Date.now() - dueMs) / 1000).toFixed(1), exited });
    if (exited >= timers) break;
    await sleep(1000);
  }
  const timerCpu = cpuMs(proc.pid) - timerCpu0;
  const byeRows = await q(`SELECT min(s.started_at) AS "firstStart", max(s.finished_at) AS "lastFinish", count(*) AS n FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 AND s.step_id = 'bye' AND s.status = 'SUCCEEDED'`, [made.timer.id]);
  const earlyWaits = await count(`SELECT count(*) AS n FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 AND s.step_id = 'wait' AND s.finished_at < $2`, [made.timer.id, due]);
  const earlyByes = await count(`SELECT count(*) AS n FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 AND s.step_id = 'bye' AND s.started_at < $2`, [made.timer.id, due]);
  const at = (frac) => progress.find((p) => p.exited >= frac * timers)?.afterDueS ?? null;
  summary.timers = {
    runs: timers,
    waitingBeforeAdvance: waiting,
    seeded: { throughTrigger: true, seconds: seedSeconds, topUp: seeding },
    rssMiB: {
      beforeAdmission: rssBefore,
      halfWaiting: { runs: timersMid, rss: rssMid },
      allWaiting: rssAfter,
      bytesPerRun: Math.round(((rssAfter - rssBefore) * 1024 * 1024) / Math.max(1, timers)),
      // The second half alone: the warm-up is behind it.
      bytesPerRunSecondHalf: Math.round(((rssAfter - rssMid) * 1024 * 1024) / Math.max(1, timers - timersMid)),
    },
    dueAt: due,
    resumed: Number(byeRows[0].n),
    firstResumedAfterDueMs: byeRows[0].firstStart ? Date.parse(byeRows[0].firstStart) - dueMs : null,
    allResumedAfterDueS: byeRows[0].lastFinish ? +((Date.parse(byeRows[0].lastFinish) - dueMs) / 1000).toFixed(2) : null,
    exitedAfterS: { half: at(0.5), ninetyPercent: at(0.9), all: at(1) },
    early: { waitStepsFinishedBeforeDue: earlyWaits, byeStepsStartedBeforeDue: earlyByes },
    cpuMsPerRun: +(timerCpu / Math.max(1, timers)).toFixed(3),
    rssAfterResumeMiB: rssMiB(proc.pid),
    loadAverage: load()[0],
    goal: 'all resumed within 30 s of the due time, none early; no memory per waiting run',
  };
  summary.loadAverage.end = load();
  console.log(JSON.stringify(summary, null, 2));
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  if (databaseUrl) await db?.end();
  else db?.close();
  await cluster?.stop();
  await sink.terminate();
  await receiver.terminate();
  rmSync(dir, { recursive: true, force: true });
}
