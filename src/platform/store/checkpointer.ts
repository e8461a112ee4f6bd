import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { AUTO_CHECKPOINT_PAGES, type Database } from './sqlite';
import type { Logger } from '../logger';
import { sqliteNativeBindingPath } from '../native';

/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT
 * that crosses the threshold and copies the whole WAL into the database file: on a busy
 * server that stalls one request in a few hundred for 10–30 ms (refresh p99 21 ms with it,
 * 6 ms without, bench/oauth.mjs). `serve` turns it off on its write connection and a worker
 * thread with its own connection runs PASSIVE checkpoints instead, which never block readers
 * or writers. The worker starts once the WAL passes 1 MiB, so an idle server does not carry
 * its thread.
 *
 * The worker is plain JavaScript evaluated from a string, so it also runs inside the single
 * executable, where there is no module file to point a Worker at; it talks to better-sqlite3's
 * addon directly (its `Database` constructor and `exec`), the one thing it needs.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const mod = { exports: {} };
process.dlopen(mod, workerData.addon);
const addon = mod.exports;
if (!addon.isInitialized) { addon.setErrorConstructor(Error); addon.isInitialized = true; }
// (filename, filenameGiven, anonymous, readonly, fileMustExist, timeout ms, verbose, buffer)
const db = new addon.Database(workerData.file, workerData.file, false, false, true, 1000, null, null);
const run = () => {
  try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); }
  catch (e) { parentPort.postMessage({ error: String(e && e.message || e) }); }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') { clearInterval(timer); run(); db.close(); parentPort.close(); }
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** WAL size at which the worker is started; an idle server never pays for its thread. */
const START_AT_WAL_BYTES = 1024 * 1024;

export function startCheckpointer(db: Database, logger: Logger, intervalMs = 250): Checkpointer {
  let worker: Worker | undefined;
  const spawn = () => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { addon: sqliteNativeBindingPath(), file: db.file, intervalMs },
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    });
    w.unref();
    w.on('message', (m: { error?: string }) => m.error && logger.warn('WAL checkpoint failed', { error: m.error }));
    w.on('error', (e) => {
      // Without the worker, fall back to SQLite's own checkpoints on commit.
      logger.error('checkpoint worker stopped; automatic checkpoints back on', { err: e });
      db.write.$client.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    });
    return w;
  };
  const walBytes = () => {
    try {
      return statSync(`${db.file}-wal`).size;
    } catch {
      return 0;
    }
  };
  db.write.$client.pragma('wal_autocheckpoint = 0');
  const watch = setInterval(() => {
    if (walBytes() < START_AT_WAL_BYTES) return;
    clearInterval(watch);
    worker = spawn();
  }, Math.max(intervalMs, 100));
  watch.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        clearInterval(watch);
        if (!worker) return resolve();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
