#!/usr/bin/env node
// Transactional push (issue 13) on the built executable:
//  1. admission: POST …/transactional/{key}/send, each send resolving one EXTERNAL_ID to two
//     installations (two deliveries admitted per send), sends/s and latency percentiles; the
//     loopback APNs holds its answers meanwhile, so the outbox fills without delivery competing;
//  2. delivery: the held answers released, deliveries/s from then until the loopback APNs has
//     answered every admitted delivery;
//  3. the ceiling in the same run: a bare node:http2 client sending the same requests (headers,
//     provider token, payload) to the same loopback APNs, as many and as concurrently.
//
// Usage: node build.mjs && node bench/push.mjs [--duration 10] [--connections 16] [--users 200]
//          [--rate N (paced sends/s for the latency run; default: as fast as possible)]
//          [--amount N (admit exactly N sends instead of --duration: runs then batch the same work)]
//          [--database-url postgres://… (an empty database)]
//          [--preferences (issue 26: the template names a subscription list and has normal priority,
//           and every profile has quiet hours outside the run: admission reads the list, the
//           choices and the quiet hours of every recipient, and defers nothing)]
//          [--cpu-prof DIR (V8 CPU profiles of the server)]
//          [--inbox (issue 27: the template has an inbox part, so every send also writes one PROFILE
//           inbox entry in its transaction, and its pushes carry the entry's id)]
//          [--interleave N (issue 27, "in the same run": one server, a push-only template and the
//           same template with an inbox part; admission runs 2N slices of --duration/2N seconds,
//           ABBA order, and reports each slice's sends/s and CPU per send and the pairs' ratios;
//           no delivery or ceiling phase)]
//          [--inbox-expiry SECONDS|none (the inbox part's expiresInSeconds; default 86400)]
//          [--keep (the working directory, its database with it, is left for a look afterwards)]
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string', default: path.join(root, 'dist/engage') },
    duration: { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    connections: { type: 'string', default: '16' },
    users: { type: 'string', default: '200' },
    rate: { type: 'string' },
    amount: { type: 'string' },
    'database-url': { type: 'string' },
    preferences: { type: 'boolean', default: false },
    inbox: { type: 'boolean', default: false },
    interleave: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'inbox-expiry': { type: 'string', default: '86400' },
  },
});
const BIN = args.bin;
if (!existsSync(BIN)) {
  console.error(`bench/push: ${BIN} is missing; run node build.mjs first`);
  process.exit(1);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
const users = Number(args.users);
const dir = mkdtempSync(path.join(tmpdir(), 'engage-bench-push-'));
const dataDir = path.join(dir, 'data');
const f = (n) => path.join(dir, n);
const TOPIC = 'com.example.bench';

// A test CA and a localhost certificate for the loopback APNs (the server trusts it through pushCaFile).
const ssl = (...a) => execFileSync('openssl', a, { stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=bench CA');
ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('ext.cnf'));

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
writeFileSync(f('AuthKey.p8'), keyPem);
const counter = new SharedArrayBuffer(4);
const answered = new Int32Array(counter);
const sink = new Worker(new URL('./lib/apns-sink.mjs', import.meta.url), {
  workerData: { key: readFileSync(f('server.key')), cert: readFileSync(f('server.pem')), publicPem: publicKey.export({ type: 'spki', format: 'pem' }), topic: TOPIC, counter },
});
const sinkPort = await new Promise((r) => sink.once('message', (m) => r(m.port)));
const apnsUrl = `https://localhost:${sinkPort}`;
const ask = (m) => new Promise((r) => (sink.once('message', r), sink.postMessage(m)));

const engineEnv = {
  ...process.env,
  ENGAGE_APNS_URL: apnsUrl,
  ENGAGE_APNS_SANDBOX_URL: apnsUrl,
  ENGAGE_PUSH_CA_FILE: f('ca.pem'),
  ...(args['database-url'] ? { ENGAGE_DATABASE_URL: args['database-url'] } : {}),
};
const cli = (...a) => JSON.parse(execFileSync(BIN, [...a, '--data-dir', dataDir, '--json', '--log-level', 'error'], { encoding: 'utf8', env: engineEnv }));

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
        } catch {
          /* not JSON */
        }
      });
  });
}
const run = (opts) =>
  new Promise((resolve, reject) => {
    const inst = autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
const post = async (url, body, headers) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
};

cli('init');
const env = cli('environments', 'create', '--name', 'bench');
const app = cli('apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'bench-ios');
const accessKey = cli('access-keys', 'create', '--environment', env.id, '--app', app.id).key;
cli('apps', 'set-apns', app.id, '--key-file', f('AuthKey.p8'), '--key-id', 'BENCHKEY01', '--team-id', 'BENCHTEAM1', '--topic', TOPIC);
writeFileSync(
  f('template.json'),
  JSON.stringify({
    key: 'bench.receipt',
    apps: [app.id],
    defaultLocale: 'en',
    variables: { orderId: { type: 'string' }, amount: { type: 'number' } },
    localizations: { en: { title: 'Order {{orderId}}', body: 'Total {{amount}}', deepLink: 'shop://orders/{{orderId}}' } },
    rateLimitPerMinute: 1_000_000,
  }),
);
if (args.preferences) {
  writeFileSync(f('list.json'), JSON.stringify({ key: 'bench-news', displayName: 'Bench news', channels: ['PUSH'] }));
  cli('lists', 'create', '--environment', env.id, '--file', f('list.json'));
  const t = JSON.parse(readFileSync(f('template.json'), 'utf8'));
  writeFileSync(f('template.json'), JSON.stringify({ ...t, list: 'bench-news', priority: 'normal' }));
}
const withInbox = (t, key) => {
  const layout = { SUMMARY: { title: 'Order {{orderId}}' }, DETAIL: { title: 'Order {{orderId}}', body: 'Total {{amount}}' } };
  const expiry = args['inbox-expiry'] === 'none' ? {} : { expiresInSeconds: Number(args['inbox-expiry']) };
  return { ...t, key, inbox: { key: 'bench.receipt', ...expiry, localizations: { en: { payload: { orderId: '{{orderId}}' }, layout } } } };
};
if (args.inbox) writeFileSync(f('template.json'), JSON.stringify(withInbox(JSON.parse(readFileSync(f('template.json'), 'utf8')), 'bench.receipt')));
cli('templates', 'create', '--environment', env.id, '--file', f('template.json'));
cli('templates', 'publish', 'bench.receipt', '--environment', env.id);
if (args.interleave) {
  // The same template with an inbox part, under another key, in the same environment.
  writeFileSync(f('template-inbox.json'), JSON.stringify(withInbox(JSON.parse(readFileSync(f('template.json'), 'utf8')), 'bench.inbox')));
  cli('templates', 'create', '--environment', env.id, '--file', f('template-inbox.json'));
  cli('templates', 'publish', 'bench.inbox', '--environment', env.id);
}

const { proc, url } = await start();
try {
  // Two installations per user, each with a token and permission, bound to the user's external id.
  const op = (type, payload) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
  for (let u = 0; u < users; u++) {
    for (let k = 0; k < 2; k++) {
      const s = await post(`${url}/v1/sdk/installations`, { platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'x-service-app-key': app.appKey });
      const auth = { authorization: `Bearer ${s.credential}` };
      await post(`${url}/v1/sdk/operations:batch`, { batchId: randomUUID(), operations: [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token: randomBytes(32).toString('hex') })] }, auth);
      const { code } = await post(`${url}/v1/sdk/installation/binding-code`, undefined, auth);
      const bound = await post(`${url}/v1/installation-binding-transitions`, { bindingCode: code, target: { externalId: `user-${u}` } }, { authorization: `Bearer ${accessKey}`, 'idempotency-key': randomUUID() });
      if (args.preferences && k === 0) {
        // Quiet hours that start two hours from now (UTC) and last one: outside them for the whole run.
        const hhmm = (h) => `${String((new Date().getUTCHours() + h) % 24).padStart(2, '0')}:00`;
        const quiet = { ...op('PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: hhmm(2), end: hhmm(3) }, time_zone: 'UTC' } }), generation: bound.generation };
        await post(`${url}/v1/sdk/operations:batch`, { batchId: randomUUID(), operations: [quiet] }, auth);
      }
    }
  }

  // The server's CPU time (Linux /proc: the process, and its main thread alone).
  const cpuMs = (stat) => {
    try {
      const f = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 10 ms
    } catch {
      return NaN;
    }
  };
  const cpu = () => [cpuMs(`/proc/${proc.pid}/stat`), cpuMs(`/proc/${proc.pid}/task/${proc.pid}/stat`)];

  // 1. Admission, with the provider holding its answers; the server's CPU per admitted send is
  // comparable on a busy machine where sends/s are not.
  sink.postMessage('hold');
  let n = 0;
  let admittedDeliveries = 0;
  const sends = (template, opts) =>
    run({
      url,
      connections,
      ...(args.rate ? { overallRate: Number(args.rate) } : {}),
      ...opts,
      requests: [
        {
          method: 'POST',
          path: `/api/v1/environments/${env.id}/transactional/${template}/send`,
          setupRequest: (req) => {
            const i = n++;
            req.headers = { 'content-type': 'application/json', authorization: `Bearer ${accessKey}` };
            req.body = JSON.stringify({ recipient: { type: 'EXTERNAL_ID', value: `user-${i % users}` }, variables: { orderId: `o-${i}`, amount: i }, idempotencyKey: `bench-${i}` });
            return req;
          },
          onResponse: (status, body) => {
            if (status === 202) admittedDeliveries += JSON.parse(body).diagnostics.filter((d) => d.code === 'TARGETED').length;
          },
        },
      ],
    });

  /** Admission of --interleave N: 2N slices, the push-only and the inbox template in ABBA order, each slice's rate and CPU per send. */
  async function interleaved() {
    const slices = 2 * Number(args.interleave);
    const seconds = Math.max(1, Math.round(duration / slices));
    const rows = [];
    // Warm-up, not counted: both templates' code compiled and the tables' working pages read in
    // (the first seconds of a run admit half as fast as the rest).
    for (const template of ['bench.receipt', 'bench.inbox']) await sends(template, { duration: Math.max(3, seconds) });
    for (let k = 0; k < slices; k++) {
      const inbox = [false, true, true, false][k % 4];
      const cpu0 = cpu();
      const fromUs = Number(process.hrtime.bigint() / 1000n); // CLOCK_MONOTONIC, as --cpu-prof's timestamps
      const r = await sends(inbox ? 'bench.inbox' : 'bench.receipt', { duration: seconds });
      const toUs = Number(process.hrtime.bigint() / 1000n);
      const [processMs, mainMs] = cpu().map((v, i) => v - cpu0[i]);
      const admitted = Math.max(1, r['2xx']);
      rows.push({ slice: k + 1, inbox, sendsPerSecond: Math.round(r['2xx'] / (r.duration || seconds)), non2xx: r.non2xx, p99: r.latency.p99, cpuUsPerSend: +((processMs * 1000) / admitted).toFixed(1), mainThreadUsPerSend: +((mainMs * 1000) / admitted).toFixed(1), admitted: r['2xx'], fromUs, toUs });
    }
    sink.postMessage('release'); // the held deliveries answered, so the server stops promptly
    // Each inbox slice against the push-only slice next to it (ABBA: slices 1-2, 3-4, 5-6, 7-8, …).
    const pairs = [];
    for (let k = 0; k + 1 < slices; k += 2) {
      const [plain, inbox] = [rows[k], rows[k + 1]].sort((a, b) => Number(a.inbox) - Number(b.inbox));
      pairs.push({ ratio: +(inbox.sendsPerSecond / plain.sendsPerSecond).toFixed(3), cpuRatio: +(plain.cpuUsPerSend / inbox.cpuUsPerSend).toFixed(3), mainThreadRatio: +(plain.mainThreadUsPerSend / inbox.mainThreadUsPerSend).toFixed(3) });
    }
    const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : +((s[s.length / 2 - 1] + s[s.length / 2]) / 2).toFixed(3); };
    const total = (inbox) => rows.filter((r) => r.inbox === inbox).reduce((a, r) => a + r.sendsPerSecond, 0);
    return {
      engine: args['database-url'] ? 'postgres' : 'sqlite',
      secondsPerSlice: seconds,
      slices: rows,
      pairs,
      ratio: { median: median(pairs.map((p) => p.ratio)), overall: +(total(true) / total(false)).toFixed(3), cpuMedian: median(pairs.map((p) => p.cpuRatio)), mainThreadMedian: median(pairs.map((p) => p.mainThreadRatio)) },
      loadAverage: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    };
  }

  /** Admission of one template for --duration (or --amount), then delivery and the ceiling. */
  async function admissionAndDelivery() {
    const admissionCpu0 = cpu();
    const admission = await sends('bench.receipt', { duration, ...(args.amount ? { amount: Number(args.amount) } : {}) });
    const sendsPerSecond = admission['2xx'] / (admission.duration || duration);
    const [admissionProcessMs, admissionMainMs] = cpu().map((v, i) => v - admissionCpu0[i]);
    // What the database holds (autocannon drops the answers of requests still in flight when it stops).
    const shown = cli('templates', 'show', 'bench.receipt', '--environment', env.id);
    admittedDeliveries = Object.values(shown.deliveries).reduce((a, b) => a + b, 0);

    // 2. Delivery: release, then until every admitted delivery is answered. The server's CPU time
    // over it (Linux /proc: the process, and its main thread alone) is comparable on a busy machine
    // where deliveries/s are not.
    const cpu0 = cpu();
    const t0 = performance.now();
    sink.postMessage('release');
    const deadline = Date.now() + 600_000;
    while (Atomics.load(answered, 0) < admittedDeliveries && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const deliverySeconds = (performance.now() - t0) / 1000;
    const delivered = Atomics.load(answered, 0);
    const [processMs, mainMs] = cpu().map((v, i) => v - cpu0[i]);
    const { duplicates } = await ask('duplicates');

    // 3. Ceiling: a bare node:http2 client, the same requests, as concurrently as the worker (500 in flight).
    sink.postMessage('reset');
    const ceiling = await bareClient(apnsUrl, delivered, 500);

    const result = {
      engine: args['database-url'] ? 'postgres' : 'sqlite',
      preferences: args.preferences,
      inbox: args.inbox,
      sends: { admitted: admission['2xx'], perSecond: Math.round(sendsPerSecond), non2xx: admission.non2xx, latencyMs: { p50: admission.latency.p50, p99: admission.latency.p99, max: admission.latency.max }, cpuUsPerSend: { process: +((admissionProcessMs * 1000) / Math.max(1, admission['2xx'])).toFixed(1), mainThread: +((admissionMainMs * 1000) / Math.max(1, admission['2xx'])).toFixed(1) } },
      deliveries: { admitted: admittedDeliveries, delivered, perSecond: Math.round(delivered / deliverySeconds), duplicates, cpuUsPerDelivery: { process: +((processMs * 1000) / delivered).toFixed(1), mainThread: +((mainMs * 1000) / delivered).toFixed(1) } },
      loadAverage: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
      ceiling: { perSecond: Math.round(ceiling), ratio: +(delivered / deliverySeconds / ceiling).toFixed(2) },
    };
    console.log(JSON.stringify(result, null, 2));
  }

  if (args.interleave) console.log(JSON.stringify(await interleaved(), null, 2));
  else await admissionAndDelivery();
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await sink.terminate();
  if (args.keep) console.error(`bench/push: kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/** The same APNs requests from a bare node:http2 client: requests per second. */
async function bareClient(base, total, inFlight) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'ES256', kid: 'BENCHKEY01' })}.${b64({ iss: 'BENCHTEAM1', iat: Math.floor(Date.now() / 1000) })}`;
  const jwt = `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  const session = http2.connect(base, { ca: readFileSync(f('ca.pem')) });
  const one = (i) =>
    new Promise((resolve) => {
      const id = randomUUID();
      const req = session.request({
        ':method': 'POST',
        ':path': `/3/device/${randomBytes(32).toString('hex')}`,
        authorization: `bearer ${jwt}`,
        'apns-topic': TOPIC,
        'apns-push-type': 'alert',
        'apns-priority': '10',
        'apns-expiration': String(Math.floor(Date.now() / 1000) + 86400),
        'apns-id': id,
        'content-type': 'application/json',
      });
      req.on('response', () => undefined);
      req.on('data', () => undefined);
      req.on('close', resolve);
      req.end(JSON.stringify({ aps: { alert: { title: `Order o-${i}`, body: `Total ${i}` }, sound: 'default', 'mutable-content': 1 }, deliveryId: id, deepLink: `shop://orders/o-${i}` }));
    });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, async () => {
    while (next < total) await one(next++);
  }));
  const seconds = (performance.now() - t0) / 1000;
  session.close();
  return total / seconds;
}
