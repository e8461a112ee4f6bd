#!/usr/bin/env node
/**
 * The inbox (issue 27 "Performance") on the built executable, in one run:
 *  1. pages of 20 (GET /v1/sdk/inbox) of a profile with 10,000 entries against one with 100: the
 *     first page, and deep pages (every cursor of a walk through the whole inbox, in turn);
 *     pages/s (goal >= 8,000/s on the two cores) and the ratio big/small (goal: within 20%);
 *  2. operations in batches of 10 (POST /v1/sdk/inbox/operations:batch, MARK_READ and MARK_UNREAD
 *     of random entries of 16 profiles' inboxes, a batch per request, from --ops-devices installations
 *     bound to them in turn, 1,600 by default: traffic of that rate comes from many devices, each
 *     with few operations of its own): operations/s (goal >= 20,000/s); and the same on the big inbox
 *     from its one installation (operations-big: one device sending all the batches, the worst case
 *     for the index of its operation ids; cost per batch independent of the inbox's size);
 *  3. the live badge: N open GET /v1/sdk/inbox/events streams (10,000 by default; opened by a child
 *     process), the server's RSS and heap growth per stream, each read after full GCs asked for
 *     through the server's inspector (goal < 20 KB), then for a sample of streams an
 *     entry written (a send to the INSTALLATION_ID) and a mark read (the installation's operation):
 *     the time from the request until the stream's client has the new unreadCount (goal < 1 s);
 *  4. admission of a push + inbox send against a push-only send "in the same run": bench/push.mjs
 *     --interleave (one server and database; the push-only template and the same template with an
 *     inbox part admitted in alternating slices, ABBA, after a warm-up of each), --admission-runs
 *     times; sends/s and the server's CPU per admitted send, as ratios inbox/push-only (goal: >= 85%).
 *     Before 2026-11-28 the two were separate runs of bench/push.mjs, each with its own server and
 *     database, whose speed drifted between them more than the difference measured.
 * Rounds of 1 and 2 alternate their order. The entries are written by sends (an inbox-only template,
 * the send path itself), so the owners' counters and numbering are the server's own.
 *
 * Usage: node bench/inbox.mjs [--bin /tmp/engage (default: built to a temporary file)]
 *          [--engine sqlite|postgres] [--duration 8] [--connections 16] [--rounds 2]
 *          [--streams 10000] [--sample 200] [--admission-runs 2] [--slices 8 (per admission run)] [--inbox-expiry 86400|none] [--parts pages,ops,sse,admission]
 *          [--big 10000 (entries of the big inbox)] [--ops-devices 1600 (installations sending the operations)] [--warmup 2 (unmeasured seconds of each kind first)] [--cpu-prof DIR (V8 CPU profiles of the server)]
 *          [--workers N (serve --workers N, for pages and ops: N processes share the port; CPU is the primary's and every worker's)]
 * `--engine postgres` starts a throwaway cluster (test/helpers/pg-cluster.ts): run it with
 * `node --import tsx bench/inbox.mjs --engine postgres`.
 */
import autocannon from 'autocannon';
import { execFileSync, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
    streams: { type: 'string', default: '10000' },
    sample: { type: 'string', default: '200' },
    'admission-runs': { type: 'string', default: '2' },
    slices: { type: 'string', default: '8' },
    'inbox-expiry': { type: 'string', default: '86400' },
    warmup: { type: 'string', default: '2' },
    big: { type: 'string', default: '10000' },
    'ops-devices': { type: 'string', default: '1600' },
    parts: { type: 'string', default: 'pages,ops,sse,admission' },
    'cpu-prof': { type: 'string' },
    workers: { type: 'string', default: '1' },
    // The streams' client (a child process).
    client: { type: 'boolean', default: false },
    port: { type: 'string' },
    file: { type: 'string' },
  },
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (args.client) await client();
else await main();

/** The child: one stream per credential; tells the parent when all are open, then every unreadCount a stream gets after its first. */
async function client() {
  const credentials = JSON.parse(readFileSync(args.file, 'utf8'));
  let open = 0;
  let failed = 0;
  const openOne = (credential, i) =>
    new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: Number(args.port), path: '/v1/sdk/inbox/events', agent: false, headers: { authorization: `Bearer ${credential}` } }, (res) => {
        if (res.statusCode !== 200) {
          failed++;
          res.resume();
          return resolve();
        }
        let text = '';
        let first = true;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
          let m;
          while ((m = /event: inbox\ndata: \{"unreadCount":(\d+)\}\n\n/.exec(text))) {
            text = text.slice(m.index + m[0].length);
            if (first) {
              first = false;
              open++;
              resolve();
            } else process.send({ event: { i, n: Number(m[1]), at: Date.now() } });
          }
          if (text.length > 4096) text = '';
        });
      });
      req.on('error', () => {
        failed++;
        resolve();
      });
    });
  for (let i = 0; i < credentials.length; i += 200) await Promise.all(credentials.slice(i, i + 200).map((c, k) => openOne(c, i + k)));
  process.send({ ready: { open, failed } });
}

async function main() {
  const DURATION = Number(args.duration);
  const CONNECTIONS = Number(args.connections);
  const ROUNDS = Number(args.rounds);
  const STREAMS = Number(args.streams);
  const BIG = Number(args.big);
  const WARMUP = Number(args.warmup);
  const SMALL = 100;
  const OPS_USERS = 16;
  const OPS_DEVICES = Number(args['ops-devices']);
  const PARTS = args.parts.split(',');
  if (args.workers !== '1' && PARTS.some((p) => p === 'sse' || p === 'admission')) {
    console.error('bench/inbox: --workers is for the pages and ops parts (the sse part reads one process\'s memory; admission runs bench/push.mjs)');
    process.exit(2);
  }
  if (!['sqlite', 'postgres'].includes(args.engine)) {
    console.error(`bench/inbox: --engine must be sqlite or postgres, not ${args.engine}`);
    process.exit(2);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-bench-inbox-'));
  const dataDir = path.join(dir, 'data');
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
    console.error(`bench/inbox: ${BIN} is missing`);
    process.exit(1);
  }

  let cluster;
  /** A fresh database of the throwaway cluster (PostgreSQL), or undefined (SQLite). */
  const freshDatabase = async (name) => {
    if (args.engine !== 'postgres') return undefined;
    if (!cluster) {
      const { startPgCluster } = await import('../test/helpers/pg-cluster.ts');
      cluster = await startPgCluster({ durable: true });
    }
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(cluster.url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const databaseUrl = await freshDatabase('bench_inbox');
  const engineEnv = { ...process.env, ENGAGE_SYNC_STREAMS_MAX: String(STREAMS + 1000), ENGAGE_SYNC_STREAM_IDLE: '3600', ...(databaseUrl ? { ENGAGE_DATABASE_URL: databaseUrl } : {}) };
  const cli = (...a) => JSON.parse(execFileSync(BIN, [...a, '--data-dir', dataDir, '--json', '--log-level', 'error'], { encoding: 'utf8', env: engineEnv }));

  cli('init');
  const env = cli('environments', 'create', '--name', 'bench');
  const app = cli('apps', 'create', '--environment', env.id, '--platform', 'IOS', '--name', 'bench-ios');
  const accessKey = cli('access-keys', 'create', '--environment', env.id, '--app', app.id).key;
  // An inbox-only template (no push): each send writes one entry and nothing else.
  const layout = { SUMMARY: { title: 'Order {{orderId}}' }, DETAIL: { title: 'Order {{orderId}}', body: 'Total {{amount}}' } };
  writeFileSync(
    f('template.json'),
    JSON.stringify({
      key: 'bench.inbox',
      apps: [app.id],
      defaultLocale: 'en',
      variables: { orderId: { type: 'string' }, amount: { type: 'number' } },
      rateLimitPerMinute: 1_000_000,
      inbox: { key: 'bench.order', localizations: { en: { payload: { orderId: '{{orderId}}', headline: 'Order {{orderId}} shipped' }, layout } } },
    }),
  );
  cli('templates', 'create', '--environment', env.id, '--file', f('template.json'));
  cli('templates', 'publish', 'bench.inbox', '--environment', env.id);

  // The inspector (loopback, random port) lets the benchmark ask the server for a full GC before reading its memory.
  const nodeOptions = [...(args['cpu-prof'] ? [`--cpu-prof --cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : []), ...(PARTS.includes('sse') ? ['--inspect=127.0.0.1:0'] : [])];
  const serveEnv = nodeOptions.length ? { ...engineEnv, NODE_OPTIONS: nodeOptions.join(' ') } : engineEnv;
  const proc = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'info', '--no-access-log', ...(args.workers === '1' ? [] : ['--workers', args.workers])], { stdio: ['ignore', 'pipe', 'pipe'], env: serveEnv });
  let inspector;
  const url = await new Promise((resolve, reject) => {
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    for (const s of [proc.stdout, proc.stderr])
      createInterface({ input: s }).on('line', (line) => {
        inspector ??= /Debugger listening on (ws:\S+)/.exec(line)?.[1];
        try {
          const rec = JSON.parse(line);
          if (rec.url) resolve(rec.url);
        } catch {
          /* not JSON */
        }
      });
  });
  const port = Number(new URL(url).port);
  const call = async (route, method, body, headers) => {
    const res = await fetch(url + route, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  /** The server's CPU time so far (utime + stime of every thread, ticks of 10 ms; with --workers, of the primary and its workers), in ms. */
  const cpuMs = () => {
    const own = (pid) => {
      const v = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(v[11]) + Number(v[12])) * 10;
    };
    const workers = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').split(' ').filter(Boolean);
    return own(proc.pid) + workers.reduce((sum, w) => sum + own(w), 0);
  };
  const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))[1]);
  /**
   * The server's memory after three full GCs (through its inspector: HeapProfiler.collectGarbage,
   * then Runtime.getHeapUsage), from a small Node child that has a WebSocket (Node 20: behind a flag).
   */
  const memory = async () => {
    const script = `const ws = new WebSocket(process.argv[1]); let id = 0; const out = {};
      const call = (method) => ws.send(JSON.stringify({ id: ++id, method }));
      ws.onopen = () => { call('HeapProfiler.collectGarbage'); call('HeapProfiler.collectGarbage'); call('HeapProfiler.collectGarbage'); call('Runtime.getHeapUsage'); };
      ws.onmessage = (m) => { const r = JSON.parse(m.data); if (r.id === 4) { console.log(JSON.stringify(r.result)); ws.close(); process.exit(0); } };`;
    const flags = globalThis.WebSocket ? [] : ['--experimental-websocket'];
    const heap = JSON.parse(execFileSync(process.execPath, [...flags, '-e', script, inspector], { encoding: 'utf8' }));
    await sleep(500);
    return { rssKb: rssKb(), heapKb: heap.usedSize / 1024 };
  };
  async function pool(n, width, fn) {
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++);
    }));
  }
  const bootstrap = () => call('/v1/sdk/installations', 'POST', { platform: 'IOS', locale: 'en-US', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'x-service-app-key': app.appKey });
  const device = async (externalId) => {
    const s = await bootstrap();
    const { code } = await call('/v1/sdk/installation/binding-code', 'POST', undefined, { authorization: `Bearer ${s.credential}` });
    const bound = await call('/v1/installation-binding-transitions', 'POST', { bindingCode: code, target: { externalId } }, { authorization: `Bearer ${accessKey}`, 'idempotency-key': randomUUID() });
    return { ...s, generation: bound.generation };
  };
  let sendNo = 0;
  const send = (recipient) => {
    const i = sendNo++;
    return call(`/api/v1/environments/${env.id}/transactional/bench.inbox/send`, 'POST', { recipient, variables: { orderId: `o-${i}`, amount: i }, idempotencyKey: `seed-${i}` }, { authorization: `Bearer ${accessKey}` });
  };
  const page = (d, q = '') => call(`/v1/sdk/inbox${q}`, 'GET', undefined, { authorization: `Bearer ${d.credential}` });

  const result = { engine: args.engine, workers: Number(args.workers), node: process.version, cpus: cpus().length, loadAverage: { start: loadAtStart } };
  try {
    // The inboxes, written by sends: 10,000 entries for `big`, 100 for `small` and for each of 16 `ops-k`.
    const [big, small] = [await device('big'), await device('small')];
    // The operations' installations: device k bound to profile ops-(k mod 16).
    const ops = new Array(PARTS.includes('ops') ? Math.max(OPS_USERS, OPS_DEVICES) : OPS_USERS);
    await pool(ops.length, 16, async (k) => {
      ops[k] = await device(`ops-${k % OPS_USERS}`);
    });
    let t = performance.now();
    if (PARTS.includes('pages') || PARTS.includes('ops')) {
      const targets = [...Array(BIG).fill('big'), ...Array(SMALL).fill('small'), ...Array.from({ length: OPS_USERS * SMALL }, (_, i) => `ops-${i % OPS_USERS}`)];
      await pool(targets.length, 16, (i) => send({ type: 'EXTERNAL_ID', value: targets[i] }));
      log(`${targets.length} entries written by sends in ${((performance.now() - t) / 1000).toFixed(1)} s (${Math.round(targets.length / ((performance.now() - t) / 1000))}/s)`);
    }

    /** Every cursor of a walk through d's inbox by pages of 20, newest first (the first page's is ''), checking it sees each entry once. */
    const walk = async (d, expected) => {
      const queries = [''];
      const seen = new Set();
      for (;;) {
        const p = await page(d, queries[queries.length - 1]);
        for (const e of p.entries) seen.add(e.id);
        if (!p.nextCursor) break;
        queries.push(`?cursor=${p.nextCursor}`);
      }
      if (seen.size !== expected) throw new Error(`a walk saw ${seen.size} entries, not ${expected}`);
      return queries;
    };

    /** One closed-loop run; each request from `next()`: {method, path, headers, body}. */
    const closedLoop = async (name, next, onResponse, duration = DURATION) => {
      const cpu0 = cpuMs();
      const res = await new Promise((resolve, reject) =>
        autocannon(
          { url, connections: CONNECTIONS, duration, requests: [{ setupRequest: (req) => ({ ...req, ...next() }), ...(onResponse ? { onResponse } : {}) }] },
          (e, r) => (e ? reject(e) : resolve(r)),
        ),
      );
      const ok = res['2xx'];
      return { name, perSecond: Math.round(ok / res.duration), non2xx: res.non2xx, errors: res.errors, p50: res.latency.p50, p99: res.latency.p99, cpuUsPerRequest: +(((cpuMs() - cpu0) * 1000) / Math.max(1, ok)).toFixed(1), loadAverage: load()[0] };
    };
    const median = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };

    const kinds = {};
    if (PARTS.includes('pages')) {
      t = performance.now();
      const bigQueries = await walk(big, BIG);
      const smallQueries = await walk(small, SMALL);
      log(`walked ${bigQueries.length} + ${smallQueries.length} pages in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const pager = (d, queries) => {
        let n = 0;
        const headers = { authorization: `Bearer ${d.credential}` };
        return () => ({ method: 'GET', path: `/v1/sdk/inbox${queries[n++ % queries.length]}`, headers: { ...headers } });
      };
      kinds['big-first'] = () => pager(big, ['']);
      kinds['big-deep'] = () => pager(big, bigQueries);
      kinds['small-first'] = () => pager(small, ['']);
      kinds['small-deep'] = () => pager(small, smallQueries);
    }
    let accepted = 0;
    let rejected = 0;
    if (PARTS.includes('ops')) {
      // Each ops-k profile's entry ids (all 100), for MARK_READ / MARK_UNREAD of random ones.
      for (let k = 0; k < OPS_USERS; k++) ops[k].entries = (await page(ops[k], '?pageSize=100')).entries.map((e) => e.id);
      for (let k = OPS_USERS; k < ops.length; k++) ops[k].entries = ops[k % OPS_USERS].entries;
      // And the big inbox's (every entry, by pages of 100): operations-big, batches of one installation on
      // a 10,000-entry inbox, whose CPU per batch should be that of operations (cost independent of size).
      big.entries = [];
      for (let q = '?pageSize=100'; ; ) {
        const p = await page(big, q);
        big.entries.push(...p.entries.map((e) => e.id));
        if (!p.nextCursor) break;
        q = `?pageSize=100&cursor=${p.nextCursor}`;
      }
      const batches = (devices) => () => {
        let n = 0;
        return () => {
          const d = devices[n++ % devices.length];
          const operations = Array.from({ length: 10 }, (_, k) => ({ operationId: randomUUID(), type: k % 2 ? 'MARK_UNREAD' : 'MARK_READ', entryId: d.entries[Math.floor(Math.random() * d.entries.length)] }));
          return { method: 'POST', path: '/v1/sdk/inbox/operations:batch', headers: { authorization: `Bearer ${d.credential}`, 'content-type': 'application/json' }, body: JSON.stringify({ batchId: randomUUID(), generation: d.generation, operations }) };
        };
      };
      kinds.operations = batches(ops);
      kinds['operations-big'] = batches([big]);
    }
    const onOps = (status, body) => {
      if (status !== 202) return;
      for (const r of JSON.parse(body).results) {
        if (r.status === 'ACCEPTED') accepted++;
        else rejected++;
      }
    };
    const runs = [];
    const names = Object.keys(kinds);
    // Unmeasured: the seeding's WAL is checkpointed and the code warmed up before any kind is timed
    // (the kind run first was otherwise charged 20-40 us more per page than the same kind later).
    if (WARMUP > 0) for (const name of names) await closedLoop(name, kinds[name](), undefined, WARMUP);
    for (let r = 0; r < ROUNDS && names.length; r++) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const res = { round: r + 1, ...(await closedLoop(name, kinds[name](), name.startsWith('operations') ? onOps : undefined)) };
        if (name.startsWith('operations')) res.operationsPerSecond = res.perSecond * 10;
        runs.push(res);
        log(JSON.stringify(res));
      }
    }
    const of = (name) => runs.filter((x) => x.name === name).map((x) => x.perSecond);
    result.runs = runs;
    if (PARTS.includes('pages')) {
      const m = Object.fromEntries(['big-first', 'big-deep', 'small-first', 'small-deep'].map((k) => [k, median(of(k))]));
      result.pages = {
        entries: { big: BIG, small: SMALL },
        medianPagesPerSecond: m,
        ratioBigToSmall: { first: +(m['big-first'] / m['small-first']).toFixed(3), deep: +(m['big-deep'] / m['small-deep']).toFixed(3) },
        goal: '>= 8000 pages/s; ratio within 0.80-1.20',
      };
    }
    if (PARTS.includes('ops')) result.operations = { medianOperationsPerSecond: median(of('operations')) * 10, bigInboxMedianOperationsPerSecond: median(of('operations-big')) * 10, accepted, rejected, goal: '>= 20000 operations/s in batches of 10' };

    if (PARTS.includes('sse')) {
      t = performance.now();
      const streams = new Array(STREAMS);
      await pool(STREAMS, 32, async (i) => {
        streams[i] = await bootstrap();
      });
      log(`${STREAMS} installations in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const file = f('credentials.json');
      writeFileSync(file, JSON.stringify(streams.map((s) => s.credential)));
      await sleep(2_000);
      const m0 = await memory();
      const child = fork(fileURLToPath(import.meta.url), ['--client', '--port', String(port), '--file', file], { execArgv: ['--max-old-space-size=4096'] });
      const waiters = new Map();
      let readyResolve;
      const ready = new Promise((r) => (readyResolve = r));
      child.on('message', (m) => {
        if (m.ready) readyResolve(m.ready);
        if (m.event) waiters.get(`${m.event.i}:${m.event.n}`)?.(m.event.at);
      });
      t = performance.now();
      const opened = await ready;
      log(`opened ${opened.open} streams (${opened.failed} failed) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      await sleep(3_000);
      const m1 = await memory();
      /** Runs `act`, then waits for stream i's unreadCount n: ms from the start of the request. */
      const timed = async (i, n, act) => {
        let resolveAt;
        const heard = new Promise((r) => (resolveAt = r));
        waiters.set(`${i}:${n}`, resolveAt);
        const t0 = Date.now();
        const out = await act();
        const answered = Date.now() - t0;
        const at = await Promise.race([heard, sleep(10_000).then(() => undefined)]);
        waiters.delete(`${i}:${n}`);
        return { ms: at === undefined ? Infinity : at - t0, answered, out };
      };
      const SAMPLE = Math.min(Number(args.sample), STREAMS);
      const written = [];
      const read = [];
      const slow = [];
      await pool(SAMPLE, 8, async (k) => {
        const i = Math.floor((k * STREAMS) / SAMPLE);
        const s = streams[i];
        const w = await timed(i, 1, () => send({ type: 'INSTALLATION_ID', value: s.installationId }));
        written.push(w.ms);
        if (w.ms > 1000) slow.push({ sample: k, ms: w.ms, answeredMs: w.answered, change: 'entry written' });
        const r = await timed(i, 0, () => call('/v1/sdk/inbox/operations:batch', 'POST', { batchId: randomUUID(), generation: 0, operations: [{ operationId: randomUUID(), type: 'MARK_READ', entryId: w.out.inboxEntryId }] }, { authorization: `Bearer ${s.credential}` }));
        read.push(r.ms);
        if (r.ms > 1000) slow.push({ sample: k, ms: r.ms, answeredMs: r.answered, change: 'mark read' });
      });
      const pct = (xs) => {
        const s = [...xs].sort((a, b) => a - b);
        const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
        return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1], overOneSecond: s.filter((x) => x > 1000).length };
      };
      result.sse = {
        streams: opened.open,
        failed: opened.failed,
        rssMiB: { before: Math.round(m0.rssKb / 1024), after: Math.round(m1.rssKb / 1024) },
        rssKbPerStream: +((m1.rssKb - m0.rssKb) / Math.max(1, opened.open)).toFixed(1),
        heapKbPerStream: +((m1.heapKb - m0.heapKb) / Math.max(1, opened.open)).toFixed(1),
        sample: SAMPLE,
        entryWrittenMs: pct(written),
        markReadMs: pct(read),
        slow,
        goal: 'each change heard within 1000 ms; < 20 KB per stream',
      };
      log(JSON.stringify(result.sse));
      child.kill();
    }
    result.loadAverage.afterServer = load();
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }

  if (PARTS.includes('admission')) {
    // bench/push.mjs itself (its setup, loopback APNs and admission run), both templates in one run.
    const runs = [];
    for (let r = 0; r < Number(args['admission-runs']); r++) {
      const db = await freshDatabase(`bench_push_${r}`);
      const slices = Number(args.slices);
      const out = execFileSync(
        process.execPath,
        [path.join(root, 'bench/push.mjs'), '--bin', BIN, '--duration', String(DURATION * slices), '--interleave', String(slices / 2), '--inbox-expiry', args['inbox-expiry'], ...(db ? ['--database-url', db] : [])],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 },
      );
      const res = JSON.parse(out.slice(out.indexOf('{\n')));
      const row = { run: r + 1, secondsPerSlice: res.secondsPerSlice, slices: res.slices.map(({ fromUs: _f, toUs: _t, ...x }) => x), ratio: res.ratio, loadAverage: res.loadAverage };
      runs.push(row);
      log(JSON.stringify({ run: row.run, ratio: row.ratio }));
    }
    result.admission = { inboxExpiry: args['inbox-expiry'], runs, goal: 'push + inbox >= 0.85 of push-only' };
  }
  result.loadAverage.end = load();
  console.log(JSON.stringify(result, null, 2));
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
