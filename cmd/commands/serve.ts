import type { Command } from 'commander';
import { action, withCommon } from '../cli';
import type { ServeOptions } from './serve-run';

export function registerServe(program: Command): void {
  withCommon(program.command('serve').description('run the HTTP server (all APIs)'))
    .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default 8080)')
    .option('--trusted-proxies <n>', 'reverse proxies in front that append to X-Forwarded-For (default 0)')
    .option('--max-request-bytes <n>', 'largest mobile edge request body in bytes; larger is a 413 (default 8388608)')
    .option('--workers <n>', 'processes sharing the port (default 1); see README "Several processes"')
    .option('--database-pool-size <n>', 'on PostgreSQL, connections each process keeps at most (default 20; or ENGAGE_DATABASE_POOL_SIZE)')
    .option('--shutdown-timeout <seconds>', 'on SIGTERM, how long in-flight requests may take to finish (default 10)')
    .option('--smtp-url <url>', 'SMTP server for sign-in, registration and recovery codes: smtp://user:password@host:587 (STARTTLS) or smtps://…:465 (TLS); or ENGAGE_SMTP_URL')
    .option('--mail-from <address>', 'From address of that mail (default no-reply@<public URL host>; or ENGAGE_MAIL_FROM)')
    .option('--metrics-listen <host:port>', 'serve GET /metrics on this address only, not on the main port, e.g. 127.0.0.1:9464 (or ENGAGE_METRICS_LISTEN; see README "Metrics")')
    .option('--sync-stream-idle <seconds>', 'close a change-notice stream (GET /v1/sdk/sync/events) that sent no notice for this long; the SDK reconnects (default 600; or ENGAGE_SYNC_STREAM_IDLE)')
    .option('--no-access-log', 'write no line per request (on by default: method, route, status, duration, request id at info; or ENGAGE_ACCESS_LOG=false)')
    .option('--no-console', 'do not serve the web console (or ENGAGE_CONSOLE=false)')
    .option('--console-path <path>', 'where the web console is served (default /console; or ENGAGE_CONSOLE_PATH)')
    .option('--no-administration-api', 'do not serve the management API at {control_issuer}/identity/admin (404 administration_disabled; or ENGAGE_ADMINISTRATION_API=false)')
    .action(
      action(async (opts: ServeOptions) => {
        const flags = {
          host: opts.host,
          port: opts.port,
          trustedProxies: opts.trustedProxies,
          maxRequestBytes: opts.maxRequestBytes,
          workers: opts.workers,
          shutdownTimeout: opts.shutdownTimeout,
          databasePoolSize: opts.databasePoolSize,
          smtpUrl: opts.smtpUrl,
          mailFrom: opts.mailFrom,
          // commander sets true unless --no-administration-api is given: only the flag overrides the environment.
          administrationApi: opts.administrationApi === false ? 'false' : undefined,
          accessLog: opts.accessLog === false ? 'false' : undefined,
          console: opts.console === false ? 'false' : undefined,
          consolePath: opts.consolePath,
          metricsListen: opts.metricsListen,
          syncStreamIdle: opts.syncStreamIdle,
        };
        // The server's code loads only here: other commands start without it.
        const { runServe } = await import('./serve-run');
        await runServe(opts, flags);
      }),
    );
}

