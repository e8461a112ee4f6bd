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
// What better-sqlite3 13's lib/database.js hands its addon once: the error class, then how rows
// and arrays are built (rows as plain objects here: only the checkpoint's result is read).
if (!addon.isInitialized) {
  addon.initialize(
    Error,
    (...values) => values,
    (array, ...values) => { array.push(...values); },
    (...keys) => (...values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])),
    (value) => ({ value, done: false }),
  );
  addon.isInitialized = true;
}
// (filename, filenameGiven, anonymous, readonly, fileMustExist, timeout ms, verbose, buffer, fd, journalFd)
const db = new addon.Database(workerData.file, workerData.file, false, false, true, 1000, null, null, null, null);
const run = () => {
  try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); }
  catch (e) { parentPort.postMessage({ error: String(e && e.message || e) }); }
};
// Scrub (privacy erasure): PASSIVE first does the copying without locking anyone out, then
// TRUNCATE, not waiting for anyone (busy_timeout 0), empties the WAL file. Reports 'busy'
// when a reader on an older snapshot or another checkpoint is in the way.
const scrub = () => {
  db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  db.exec('PRAGMA busy_timeout = 0');
  try {
    // (sql, owner object, pragma mode, explain mode): what better-sqlite3's own pragma() calls.
    const row = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)', db, true, false).get();
    return row.busy === 0 ? 'done' : 'busy';
  } finally {
    db.exec('PRAGMA busy_timeout = 1000');
  }
};
const timer = workerData.intervalMs > 0 ? setInterval(run, workerData.intervalMs) : undefined;
parentPort.on('message', (m) => {
  if (m === 'stop') { clearInterval(timer); run(); db.close(); parentPort.close(); }
  else if (m && m.scrub !== undefined) {
    try { parentPort.postMessage({ scrub: m.scrub, result: scrub() }); }
    catch (e) { parentPort.postMessage({ scrub: m.scrub, error: String(e && e.message || e) }); }
  }
});
`;

export interface Checkpointer {
  /**
   * The WAL checkpointed and truncated from the worker thread (see `scrubDeleted` in
   * store.ts), so neither the copying nor the truncation runs on the event loop.
   */
  scrubDeleted(): Promise<'done' | 'busy'>;
  stop(): Promise<void>;
}

/** WAL size at which the worker is started; an idle server never pays for its thread. */
const START_AT_WAL_BYTES = 1024 * 1024;

export function startCheckpointer(db: Database, logger: Logger, intervalMs = 250): Checkpointer {
  let worker: Worker | undefined;
  let broken = false;
  let scrubs = 0;
  const pending = new Map<number, { resolve: (r: 'done' | 'busy') => void; reject: (e: Error) => void }>();
  const spawn = () => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { addon: sqliteNativeBindingPath(), file: db.file, intervalMs },
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    });
    w.unref();
    w.on('message', (m: { error?: string; scrub?: number; result?: 'done' | 'busy' }) => {
      if (m.scrub !== undefined) {
        const p = pending.get(m.scrub);
        pending.delete(m.scrub);
        if (m.result) p?.resolve(m.result);
        else p?.reject(new Error(m.error));
      } else if (m.error) logger.warn('WAL checkpoint failed', { error: m.error });
    });
    w.on('exit', () => {
      for (const p of pending.values()) p.reject(new Error('checkpoint worker stopped'));
      pending.clear();
    });
    w.on('error', (e) => {
      // Without the worker, fall back to SQLite's own checkpoints on commit.
      logger.error('checkpoint worker stopped; automatic checkpoints back on', { err: e });
      db.write.$client.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
      broken = true;
      worker = undefined;
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
    scrubDeleted() {
      if (broken) return Promise.reject(new Error('checkpoint worker unavailable'));
      // A scrub starts the worker if the WAL has not yet grown enough to need it.
      if (!worker) {
        clearInterval(watch);
        worker = spawn();
      }
      const id = ++scrubs;
      const w = worker;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ scrub: id });
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        clearInterval(watch);
        if (!worker) return resolve();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
