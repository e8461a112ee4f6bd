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
 * its thread. Under writes that never pause it also has the log start over past 256 MiB (see
 * `catchUp`), which SQLite would otherwise never do.
 *
 * The worker is plain JavaScript evaluated from a string, so it also runs inside the single
 * executable, where there is no module file to point a Worker at; it talks to better-sqlite3's
 * addon directly (its `Database` constructor and `exec`), the one thing it needs.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
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
// (sql, owner object, pragma mode, explain mode): what better-sqlite3's own pragma() calls.
const checkpoint = (mode) => db.prepare('PRAGMA wal_checkpoint(' + mode + ')', db, true, false).get();
const syncFile = (file) => {
  const fd = fs.openSync(file, 'r');
  try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
};
const run = () => {
  try {
    let r = checkpoint('PASSIVE');
    // Under writes that never pause, the log is never wholly copied at the moment a write
    // begins, so SQLite never starts it over and the file grows without end (gigabytes in a
    // minute of inbox operations). Past a bound: more passes, each copying what was written
    // during the last, until one finds little; then the writer's thread holds its writes back
    // for one last pass (see finish), and its next write starts the log over.
    if (r.log >= workerData.restartFrames) {
      for (let pass = 0; pass < 8; pass++) {
        const before = r.log;
        r = checkpoint('PASSIVE');
        if (r.log - before < 256) break;
      }
      // What the passes wrote, flushed here rather than by the last pass's fsyncs, which the
      // writer waits for; then one more pass for what came meanwhile.
      syncFile(workerData.file);
      syncFile(workerData.file + '-wal');
      r = checkpoint('PASSIVE');
      if (r.busy === 0 && r.checkpointed === r.log) parentPort.postMessage({ caughtUp: true });
    }
  } catch (e) { parentPort.postMessage({ error: String(e && e.message || e) }); }
};
// Scrub (privacy erasure): PASSIVE first does the copying without locking anyone out, then
// TRUNCATE, not waiting for anyone (busy_timeout 0), empties the WAL file. Reports 'busy'
// when a reader on an older snapshot or another checkpoint is in the way.
const scrub = () => {
  db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  db.exec('PRAGMA busy_timeout = 0');
  try {
    const row = checkpoint('TRUNCATE');
    return row.busy === 0 ? 'done' : 'busy';
  } finally {
    db.exec('PRAGMA busy_timeout = 1000');
  }
};
const timer = workerData.intervalMs > 0 ? setInterval(run, workerData.intervalMs) : undefined;
parentPort.on('message', (m) => {
  if (m && m.finish !== undefined) {
    // The last pass, while the writer's thread holds its writes back: it copies every frame.
    try { checkpoint('PASSIVE'); parentPort.postMessage({ finish: m.finish }); }
    catch (e) { parentPort.postMessage({ finish: m.finish, error: String(e && e.message || e) }); }
  }
  else if (m === 'stop') { clearInterval(timer); run(); db.close(); parentPort.close(); }
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

/** Frames in the WAL (4 KiB pages: 256 MiB) past which the worker has the next write start the file over. */
const RESTART_AT_FRAMES = 65536;

/** WAL size at which the worker is started; an idle server never pays for its thread. */
const START_AT_WAL_BYTES = 1024 * 1024;

export function startCheckpointer(db: Database, logger: Logger, intervalMs = 250, restartFrames = RESTART_AT_FRAMES): Checkpointer {
  let worker: Worker | undefined;
  let broken = false;
  let scrubs = 0;
  const pending = new Map<number, { resolve: (r: 'done' | 'busy') => void; reject: (e: Error) => void }>();
  const spawn = () => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { addon: sqliteNativeBindingPath(), file: db.file, intervalMs, restartFrames },
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    });
    w.unref();
    w.on('message', (m: { error?: string; scrub?: number; result?: 'done' | 'busy'; caughtUp?: boolean }) => {
      if (m.caughtUp) catchUp();
      else if (m.scrub !== undefined) {
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
  // The worker caught up with the writes but for a few frames: this process holds its write
  // transactions back (reads go on) while the worker copies those (one pass, its fsyncs
  // included: 10–25 ms under the heaviest writes measured, bench/inbox.mjs), and ends its shared
  // read snapshot, so its next write finds the whole log copied and nobody reading it, and
  // starts it over. A RESTART checkpoint in the worker would do the same holding the writer
  // lock, this thread waiting in SQLite's busy loop (its sleeps overshoot); copying on this
  // thread would put the fsyncs on the event loop.
  let finishing = false;
  let finishes = 0;
  const catchUp = () => {
    const w = worker;
    if (finishing || !w || !db.betweenWrites) return;
    finishing = true;
    const id = ++finishes;
    db.betweenWrites(
      () =>
        new Promise<void>((resolve) => {
          const done = (m: { finish?: number; error?: string }) => {
            if (m.finish !== id) return;
            w.off('message', done);
            w.off('exit', resolve);
            if (m.error) logger.warn('WAL checkpoint failed', { error: m.error });
            resolve();
          };
          w.on('message', done);
          w.once('exit', resolve);
          w.postMessage({ finish: id });
        }),
    )
      .catch((e: unknown) => logger.warn('WAL checkpoint failed', { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        finishing = false;
      });
  };
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
