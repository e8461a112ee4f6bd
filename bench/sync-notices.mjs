/**
 * Change notices (issue 26 point 6): N open streams of GET /v1/sdk/sync/events on one process
 * (10,000 by default), then one definition change (a subscription list created through the
 * service, as the administration API does): the time from the change until every stream has
 * received its `event: sync` (goal: under 2 s), and the serving process's memory per open
 * stream (goal: under 20 KB), as the heap and RSS growth from before the streams to after, each
 * read after a full GC. The server runs in this process (its HTTP listener, as `engage serve`
 * builds it); the streams are opened by a child process, so their client side weighs nothing here.
 *
 * Run:  node --expose-gc --import tsx bench/sync-notices.mjs [--streams 10000]
 *       [--database-url postgres://…]: on PostgreSQL the change is made by a second set of
 *       services on its own pool (another process, as the CLI), so the notice crosses NOTIFY/LISTEN.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '10000' },
    'database-url': { type: 'string' },
    client: { type: 'boolean', default: false },
    port: { type: 'string' },
    file: { type: 'string' },
  },
});
const N = Number(args.streams);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (args.client) await client();
else await server();

/** The child: opens a stream per credential, says when all are open, then when all heard `sync`. */
async function client() {
  const credentials = JSON.parse(readFileSync(args.file, 'utf8'));
  const heard = [];
  let open = 0;
  let failed = 0;
  const openOne = (credential) =>
    new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: Number(args.port), path: '/v1/sdk/sync/events', agent: false, headers: { authorization: `Bearer ${credential}` } }, (res) => {
        if (res.statusCode !== 200) {
          failed++;
          res.resume();
          return resolve();
        }
        let first = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          if (first) {
            first = false;
            open++;
            resolve();
          }
          text += chunk;
          if (text.includes('event: sync')) {
            heard.push(Date.now());
            text = '';
            if (heard.length === N) {
              const sorted = heard.splice(0).sort((a, b) => a - b);
              process.send({ done: { first: sorted[0], last: sorted[sorted.length - 1], heard: sorted } });
            }
          } else if (text.length > 4096) text = '';
        });
      });
      req.on('error', () => {
        failed++;
        resolve();
      });
    });
  // 200 at a time: the listener's backlog is not the thing measured.
  for (let i = 0; i < credentials.length; i += 200) await Promise.all(credentials.slice(i, i + 200).map(openOne));
  process.send({ ready: { open, failed } });
}

async function server() {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc --import tsx bench/sync-notices.mjs');
  const { getRequestListener } = await import('@hono/node-server');
  const { openAppStore } = await import('../src/open-store.ts');
  const { loadConfig } = await import('../src/platform/config.ts');
  const { systemClock } = await import('../src/platform/clock.ts');
  const { silentLogger } = await import('../src/platform/logger.ts');
  const { createServices } = await import('../src/services.ts');
  const { createApp } = await import('../src/app.ts');
  const { createPgNoticeRelay } = await import('../src/engage/sync-notices/pg-relay.ts');
  const actor = { subject: 'bench', clientId: null };

  const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-notices-'));
  const masterKey = randomBytes(32);
  const env = { ENGAGE_DATA_DIR: dataDir, ENGAGE_PUBLIC_URL: 'http://127.0.0.1:1', ENGAGE_SYNC_STREAMS_MAX: String(N + 100), ENGAGE_SYNC_STREAM_IDLE: '3600', ENGAGE_ACCESS_LOG: 'false' };
  if (args['database-url']) env.ENGAGE_DATABASE_URL = args['database-url'];
  const config = loadConfig({ env });
  const opened = await openAppStore(config, { logger: silentLogger, poolSize: 10 });
  const noticeRelay = opened.pg && createPgNoticeRelay(opened.pg, silentLogger);
  const services = createServices({ config, store: opened.store, clock: systemClock, logger: silentLogger, masterKey, noticeRelay });
  await services.tenants.ensureControl();
  await services.engage.syncNotices.listen();
  const engage = services.engage;
  const environment = await engage.environments.create({ name: `bench${Date.now()}` }, actor);
  const app = await engage.environments.createApp({ environment: environment.id, platform: 'IOS', name: 'ios' }, actor);
  const appRow = await engage.installations.appFor(app.appKey);
  const credentials = [];
  const seeded = performance.now();
  for (let i = 0; i < N; i += 500) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(500, N - i) }, () =>
        engage.installations.bootstrap(appRow, { platform: 'IOS', locale: 'en-US', timezone: 'Europe/Paris', sdkVersion: '1.0.0', appVersion: '2.3.4' }),
      ),
    );
    for (const b of batch) credentials.push(b.session.credential);
  }
  console.log(`seeded ${N} installations in ${((performance.now() - seeded) / 1000).toFixed(1)} s (${config.databaseUrl ? 'PostgreSQL' : 'SQLite'})`);

  const handler = getRequestListener(createApp({ config, clock: systemClock, logger: silentLogger, services }).fetch);
  const httpServer = http.createServer(handler);
  httpServer.keepAliveTimeout = 65_000;
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  const port = httpServer.address().port;
  const file = path.join(dataDir, 'credentials.json');
  writeFileSync(file, JSON.stringify(credentials));
  credentials.length = 0;

  // Warm the route once (its code, the response check of nothing: the served app), then measure.
  await new Promise((resolve) => http.get({ port, path: '/readyz' }, (res) => res.resume().on('end', resolve)));
  await sleep(500);
  const memory = async () => {
    for (let i = 0; i < 3; i++) {
      global.gc();
      await sleep(100);
    }
    const m = process.memoryUsage();
    return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
  };
  const before = await memory();

  const child = fork(fileURLToPath(import.meta.url), ['--client', '--port', String(port), '--file', file, '--streams', String(N)], {
    execArgv: ['--max-old-space-size=4096'],
  });
  const message = (key) => new Promise((resolve) => child.on('message', (m) => m[key] && resolve(m[key])));
  const openedAt = performance.now();
  const ready = await message('ready');
  console.log(`opened ${ready.open} streams (${ready.failed} failed) in ${((performance.now() - openedAt) / 1000).toFixed(1)} s; open in the server: ${engage.syncNotices.openStreams()}`);
  await sleep(1_000);
  const after = await memory();
  const per = (k) => (after[k] - before[k]) / ready.open / 1024;
  console.log(`memory per open stream: heap ${per('heap').toFixed(1)} KB, external ${per('external').toFixed(1)} KB, RSS ${per('rss').toFixed(1)} KB (RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MiB)`);

  // The change: a list created in this process (SQLite), or by another set of services on its own pool (PostgreSQL: NOTIFY).
  let writer = engage;
  let other;
  if (opened.pg) {
    other = await openAppStore(config, { logger: silentLogger, poolSize: 2 });
    const relay = createPgNoticeRelay(other.pg, silentLogger);
    writer = createServices({ config, store: other.store, clock: systemClock, logger: silentLogger, masterKey, noticeRelay: relay }).engage;
  }
  // Two changes, a second apart (more than the 100 ms coalescing): the first pays for cold code paths.
  for (const key of ['news', 'offers']) {
    const done = message('done');
    const t0 = Date.now();
    await writer.lists.create({ environment: environment.id, file: { key, displayName: key, channels: ['PUSH'] } }, actor);
    const committed = Date.now();
    const result = await Promise.race([done, sleep(30_000).then(() => undefined)]);
    if (!result) console.log('not every stream heard the change within 30 s');
    else {
      const at = (q) => result.heard[Math.min(result.heard.length - 1, Math.floor(q * result.heard.length))] - t0;
      console.log(
        `definition change (list ${key}) → ${result.heard.length} streams: committed after ${committed - t0} ms; first heard ${result.first - t0} ms, median ${at(0.5)} ms, p99 ${at(0.99)} ms, all ${result.last - t0} ms`,
      );
    }
    await sleep(1_000);
  }
  child.kill();
  httpServer.closeAllConnections();
  httpServer.close();
  await services.engage.syncNotices.close();
  await other?.store.close();
  await opened.store.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
