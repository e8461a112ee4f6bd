#!/usr/bin/env node
/**
 * What a write-heavy load writes to SQLite's WAL, by table: frames per commit, and which table or
 * index each frame's page belongs to (`dbstat`). Copy `engage.db` and `engage.db-wal` of a running
 * bench's data directory while its load runs (the copy may be torn; only frame headers and the
 * page → table map are read), then:
 *
 *   node bench/wal-frames.mjs COPY.db COPY.db-wal
 *
 * Prints the page size, frames, commits and frames per commit, then each table's frames per
 * commit. Reads the frames of the WAL's current cycle (those carrying the header's salts).
 * docs/benchmarks.md "Inbox operations: the WAL starts over" shows what it told.
 */
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import Database from 'better-sqlite3';

const [dbFile, walFile] = process.argv.slice(2);
if (!dbFile || !walFile) {
  console.error('usage: node bench/wal-frames.mjs COPY.db COPY.db-wal');
  process.exit(2);
}
const db = new Database(dbFile, { readonly: true });
const owner = new Map(db.prepare('SELECT pageno, name FROM dbstat').raw().all());
db.close();

const fd = openSync(walFile, 'r');
const size = fstatSync(fd).size;
const read = (n, at) => {
  const b = Buffer.alloc(n);
  readSync(fd, b, 0, n, at);
  return b;
};
const header = read(32, 0);
const pageSize = header.readUInt32BE(8);
const [salt1, salt2] = [header.readUInt32BE(16), header.readUInt32BE(20)];
let frames = 0;
let commits = 0;
const byTable = new Map();
// Frame headers only (24 bytes each): page number, database size after a commit (else 0), salts.
for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
  const h = read(24, at);
  if (h.readUInt32BE(8) !== salt1 || h.readUInt32BE(12) !== salt2) break;
  frames++;
  const table = owner.get(h.readUInt32BE(0)) ?? '(not in the copy)';
  byTable.set(table, (byTable.get(table) ?? 0) + 1);
  if (h.readUInt32BE(4) !== 0) commits++;
}
closeSync(fd);
console.log(JSON.stringify({ pageSize, frames, commits, framesPerCommit: +(frames / Math.max(1, commits)).toFixed(1) }));
for (const [table, n] of [...byTable].sort((a, b) => b[1] - a[1])) console.log(`${(n / Math.max(1, commits)).toFixed(2).padStart(8)}  ${table}`);
