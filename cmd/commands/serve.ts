import { getRequestListener } from '@hono/node-server';
import type { Command } from 'commander';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { systemClock } from '../../src/platform/clock';
import { startCheckpointer } from '../../src/platform/store/checkpointer';
import { openDatabase } from '../../src/platform/store/sqlite';
import { createLogger } from '../../src/platform/logger';
import { loadMasterKey } from '../../src/platform/master-key';
import { createServices } from '../../src/services';
import { action, configFrom, withCommon, type CommonOptions } from '../cli';

export function registerServe(program: Command): void {
  withCommon(program.command('serve').description('run the HTTP server (all APIs) on the embedded database'))
    .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default 8080)')
    .option('--trusted-proxies <n>', 'reverse proxies in front that append to X-Forwarded-For (default 0)')
    .option('--max-request-bytes <n>', 'largest mobile edge request body in bytes; larger is a 413 (default 8388608)')
    .action(
      action(async (opts: CommonOptions & { host?: string; port?: string; trustedProxies?: string; maxRequestBytes?: string }) => {
        const serveFlags = { host: opts.host, port: opts.port, trustedProxies: opts.trustedProxies, maxRequestBytes: opts.maxRequestBytes };
        let config = configFrom(opts, serveFlags);
        const logger = createLogger({ level: config.logLevel, format: config.logFormat });
        const db = openDatabase(config.dataDir);
        const masterKey = loadMasterKey(config);
        const checkpointer = startCheckpointer(db, logger);

        let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
        const server = createServer((req, res) => handler!(req, res));
        server.keepAliveTimeout = 65_000;
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(config.port, config.host, () => resolve());
        });
        const port = (server.address() as AddressInfo).port;
        // With --port 0 the public URL follows the port actually bound.
        if (port !== config.port) config = configFrom(opts, { ...serveFlags, port: String(port) });
        const services = createServices({ config, db, clock: systemClock, logger, masterKey, checkpointer });
        const control = await services.tenants.ensureControl();
        handler = getRequestListener(createApp({ config, clock: systemClock, logger, services }).fetch);

        // Housekeeping (src/jobs.ts): key retirement, purges of expired sessions, codes, tokens
        // and grants, scrubbing of erased data; leased, so each runs once across processes.
        services.jobs.start(1_000);
        logger.info(`engage listening on ${config.publicUrl}`, {
          url: config.publicUrl,
          address: `${config.host}:${port}`,
          dataDir: config.dataDir,
          controlIssuer: control.issuer,
        });

        const stop = (signal: string) => {
          logger.info('shutting down', { signal });
          server.close(() => {
            void Promise.allSettled([services.jobs.stop(), checkpointer.stop()]).finally(() => {
              db.close();
              process.exit(0);
            });
          });
          server.closeAllConnections();
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      }),
    );
}
