/**
 * `engage serve` itself: the HTTP server, its jobs and `--workers`. serve.ts defines the command
 * and loads this module when the command runs, so other commands start without the server's code.
 */
import { getRequestListener } from '@hono/node-server';
import cluster, { type Worker } from 'node:cluster';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { systemClock } from '../../src/platform/clock';
import { parseListen, type Config } from '../../src/platform/config';
import { createLogger, type Logger } from '../../src/platform/logger';
import { loadMasterKey } from '../../src/platform/master-key';
import { isSingleExecutable } from '../../src/platform/native';
import { sizeThreadPool } from '../../src/platform/thread-pool';
import { startCheckpointer } from '../../src/platform/store/checkpointer';
import { openAppStore } from '../../src/open-store';
import { createMetrics } from '../../src/platform/metrics';
import { metricsListener, metricsPolicy } from '../../src/platform/metrics-access';
import { answerMetricsRequests, collectWorkerMetrics, mergeWorkerMetrics, type MetricsWorker } from '../../src/platform/metrics-cluster';
import { redactUrl } from '../../src/platform/store/database-url';
import path from 'node:path';
import { createServices } from '../../src/services';
import { createPgNoticeRelay } from '../../src/engage/sync-notices/pg-relay';
import { createClusterNoticeRelay, forwardClusterNotices } from '../../src/engage/sync-notices/cluster-relay';
import { configFrom, type CommonOptions } from '../cli';
import { answerClientError } from '../../src/platform/http/client-error';
import { lingerOnEarlyClose } from '../../src/platform/http/linger';

/** The options of `engage serve` (serve.ts defines them). */
export type ServeOptions = CommonOptions & {
  host?: string;
  port?: string;
  trustedProxies?: string;
  maxRequestBytes?: string;
  workers?: string;
  shutdownTimeout?: string;
  databasePoolSize?: string;
  smtpUrl?: string;
  mailFrom?: string;
  administrationApi?: boolean;
  console?: boolean;
  consolePath?: string;
  accessLog?: boolean;
  metricsListen?: string;
  syncStreamIdle?: string;
};

/** `engage serve`: one serving process, or the primary of `--workers` processes. */
export async function runServe(opts: ServeOptions, flags: Record<string, string | undefined>): Promise<void> {
  const config = configFrom(opts, flags);
  // Before the database opens (a PostgreSQL host name is looked up on the pool).
  sizeThreadPool(config.workers);
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  try {
    if (cluster.isPrimary && config.workers > 1) await runPrimary(config, logger);
    else await serveHere(opts, flags, config, logger);
  } catch (e) {
    // Once the logger exists, a failure to start is one log line like every other (a port
    // clash included), then exit 1: a worker would otherwise stay connected to its primary.
    const { msg, fields } = startFailure(e);
    logger.error(msg, fields);
    process.exit(1);
  }
}

/**
 * One serving process: listens (in a worker of `--workers`, on the port the primary shares),
 * runs the leased background jobs, and on SIGTERM/SIGINT shuts down gracefully: /readyz turns
 * 503, no new connection is accepted, idle keep-alive connections close, in-flight requests get
 * up to `shutdownTimeout` seconds to finish, then the job leases are released and the database
 * closed. A second signal exits at once.
 */
async function serveHere(opts: ServeOptions, flags: Record<string, string | undefined>, initial: Config, logger: Logger): Promise<void> {
  let config = initial;
  const metrics = createMetrics();
  // A worker's metrics go to its primary, which serves --metrics-listen for all of them.
  if (cluster.isWorker) answerMetricsRequests(() => metrics.registry.render());
  const { store, sqlite, pg } = await openAppStore(config, { logger, metrics, poolSize: config.databasePoolSize });
  const masterKey = loadMasterKey(config);
  // SQLite: WAL checkpoints on a worker thread rather than inside commits.
  const checkpointer = sqlite && startCheckpointer(sqlite, logger);

  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  // Listening comes first (with --port 0 the public URL needs the port), services next: a
  // request in between (a worker of --workers gets connections at once) is told to retry.
  const server = createServer((req, res) => {
    // An answer given before the body arrived (413) closes in stages, so the client reads it (RFC 9112 §9.6).
    lingerOnEarlyClose(req);
    if (handler) return handler(req, res);
    res.writeHead(503, { 'Retry-After': '1', 'Content-Length': '0' }).end();
  });
  server.keepAliveTimeout = 65_000;
  // A request the HTTP parser refuses (header fields over 16 KiB, malformed) gets an error body in its API's form, not Node's bare status line.
  server.on('clientError', answerClientError);
  await listen(server, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  // With --port 0 the public URL follows the port actually bound.
  if (port !== config.port) config = configFrom(opts, { ...flags, port: String(port) });
  // The sync's change notices reach the other processes on the database (LISTEN/NOTIFY, issue 26);
  // on SQLite, the other workers of --workers through the primary.
  const noticeRelay = pg ? createPgNoticeRelay(pg, logger) : cluster.isWorker ? createClusterNoticeRelay() : undefined;
  const services = createServices({ config, store, clock: systemClock, logger, masterKey, checkpointer, metrics, noticeRelay });
  await services.engage.syncNotices.listen();
  const control = await services.tenants.ensureControl();
  await services.keys.verifyMasterKey(control.id);
  handler = getRequestListener(createApp({ config, clock: systemClock, logger, services }).fetch);
  const metricsServer = cluster.isWorker ? undefined : await serveMetrics(config, () => metrics.registry.render(), logger);

  if (!config.smtpUrl) logger.warn('no SMTP server configured (--smtp-url): native email codes, registration and password recovery answer 503 temporarily_unavailable');
  // Housekeeping (src/jobs.ts): key retirement, purges of expired sessions, codes, tokens
  // and grants, scrubbing of erased data; leased, so each runs once across processes.
  services.jobs.start(1_000);
  // Durable work items (src/work.ts): claimed row by row, so every process shares them.
  services.work.start(1_000);
  logger.info(`engage listening on ${config.publicUrl}`, {
    url: config.publicUrl,
    address: `${config.host}:${port}`,
    database: config.databaseUrl ? redactUrl(config.databaseUrl) : path.join(config.dataDir, 'engage.db'),
    controlIssuer: control.issuer,
    threadPool: Number(process.env.UV_THREADPOOL_SIZE),
    node: process.version,
    ...(cluster.isWorker ? { worker: cluster.worker!.id, pid: process.pid } : {}),
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn('second signal: exiting now', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal, timeoutSeconds: config.shutdownTimeout });
    services.drain();
    const finish = () =>
      void Promise.allSettled([services.jobs.stop(), services.work.stop(), checkpointer?.stop(), services.engage.syncNotices.close()])
        .then(() => store.close())
        .catch((e: unknown) => logger.error('closing the store failed', { err: e }))
        .finally(() => {
          logger.info('stopped', { signal });
          process.exit(0);
        });
    const deadline = setTimeout(() => {
      logger.warn('shutdown timeout: closing connections with requests still in flight', { signal });
      server.closeAllConnections();
    }, config.shutdownTimeout * 1000);
    deadline.unref();
    // Stops accepting; keep-alive connections are closed as soon as they are idle (their
    // request answered), looked at every 100 ms.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(idle);
      finish();
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // A worker of --workers is told to stop by its primary (which got the signal).
  // (A terminal's Ctrl-C reaches the workers too: the message then finds them stopping already.)
  if (cluster.isWorker) process.on('message', (m) => m === 'engage:shutdown' && !stopping && stop('primary'));
}

/**
 * `--metrics-listen`: a listener of its own for GET /metrics (src/platform/metrics-access.ts),
 * started once per serve command: by the single process, or by a `--workers` primary.
 */
async function serveMetrics(config: Config, render: () => Promise<string>, logger: Logger): Promise<Server | undefined> {
  if (!config.metricsListen) {
    if (!config.metricsToken) logger.info('GET /metrics: served on the main port to loopback peers only (see --metrics-listen, ENGAGE_METRICS_TOKEN)');
    return undefined;
  }
  const { host, port } = parseListen(config.metricsListen)!;
  const server = createServer(metricsListener(render, metricsPolicy(config), (err) => logger.error('rendering /metrics failed', { err })));
  await listen(server, port, host);
  const bound = (server.address() as AddressInfo).port;
  logger.info(`metrics on http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`, { metricsAddress: `${host}:${bound}`, token: !!config.metricsToken });
  return server;
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process listens on it)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
};

/** The log line of a failed start: what could not be done, in one sentence, and its error code (`errorCode`: the logger hides a field named `code`). */
function startFailure(e: unknown): { msg: string; fields: Record<string, unknown> } {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  const code = typeof err?.code === 'string' ? err.code : undefined;
  if (err?.syscall === 'listen' || err?.syscall === 'bind') {
    const address = `${err.address?.includes(':') ? `[${err.address}]` : err.address}:${err.port}`;
    return { msg: `cannot listen on ${address}: ${LISTEN_PROBLEMS[code ?? ''] ?? err.message}`, fields: { errorCode: code, address } };
  }
  return { msg: `engage serve could not start: ${err instanceof Error ? err.message : String(e)}`, fields: code ? { errorCode: code } : {} };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/**
 * `--workers N`: this process only forks N serving processes that share the listening port
 * (node:cluster; the primary accepts connections and hands them out round-robin), restarts one
 * that dies unexpectedly (after a second, so a crash loop does not spin), and on SIGTERM/SIGINT
 * tells every worker to shut down gracefully and exits when all have.
 */
async function runPrimary(config: Config, logger: Logger): Promise<void> {
  // Port 0: pick the free port once, so every worker shares the same one. Any port is tried
  // here first: taken, the command fails at once with one line, not once per worker.
  const probe = createServer();
  await listen(probe, config.port, config.host);
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  // Workers rerun this command with the port fixed and one worker each.
  const args = process.argv.slice(2).filter((a, i, all) => !/^--(workers|port)(=|$)/.test(a) && !/^--(workers|port)$/.test(all[i - 1] ?? ''));
  // The executable forks itself by its absolute path (however it was started); under node, the script.
  cluster.setupPrimary({ ...(isSingleExecutable() ? { exec: process.execPath } : {}), args: [...args, '--port', String(port), '--workers', '1'] });

  let stopping = false;
  // Workers that have listened once: one that exits before it ever did cannot start (its own
  // line says why), and another in its place would fail alike, every second.
  const listened = new WeakSet<Worker>();
  cluster.on('listening', (worker) => listened.add(worker));
  const fork = (): Worker => cluster.fork();
  for (let i = 0; i < config.workers; i++) fork();
  // The sync's change notices of one worker reach the others' streams (SQLite; on PostgreSQL they listen to the database).
  forwardClusterNotices(cluster);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info('all workers stopped');
        process.exit(0);
      }
      return;
    }
    if (!listened.has(worker)) {
      logger.error('a worker could not start; stopping', { worker: worker.id, code, signal });
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }
    logger.error('worker died; starting another', { worker: worker.id, code, signal });
    setTimeout(() => !stopping && fork(), 1_000).unref();
  });
  logger.info(`engage primary: ${config.workers} workers on port ${port}`, { workers: config.workers, port });
  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected()) as MetricsWorker[];
  const metricsServer = await serveMetrics(config, async () => mergeWorkerMetrics(await collectWorkerMetrics(workers())), logger);
  if (!metricsServer) logger.warn('with --workers, GET /metrics on the main port answers from one worker per scrape; --metrics-listen serves every worker\'s metrics at once');
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down workers', { signal });
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    for (const w of Object.values(cluster.workers ?? {})) w?.send('engage:shutdown');
    // Workers bound their own shutdown; this bounds the primary's wait if one hangs.
    setTimeout(() => process.exit(1), (config.shutdownTimeout + 10) * 1000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
