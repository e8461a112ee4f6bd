#!/usr/bin/env node
// Raw ceiling for ingest: the rows one OperationBatch writes (operation ledger rows, state
// upserts, the stored batch answer), written by a bare better-sqlite3 script with the
// product's pragmas and schema, one transaction per batch. No HTTP, no validation, no JSON
// parsing: what the disk and SQLite allow on this machine.
//
// Usage: node bench/raw-ingest.mjs [--batches 2000] [--installations 200]
import BetterSqlite3 from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A mixed 100-operation batch, as an SDK would send it (the same mix bench/ingest.mjs uses). */
export function mixedOperations(n = 100, generation = 0) {
  const now = new Date().toISOString();
  const ops = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = i % 20;
    let type;
    let payload;
    if (k < 9) [type, payload] = ['EVENT_TRACKED', { name: 'product_viewed', properties: { sku: `sku-${i}`, price: 12.5, currency: 'EUR' }, value: 12.5, transactionId: null }];
    else if (k < 13) [type, payload] = ['SCREEN_VIEWED', { screen_key: 'catalog.list', previous_screen_key: 'home', previous_visible_duration_millis: 1200 }];
    else if (k < 14) [type, payload] = ['SCREEN_CLEARED', { screen_key: 'catalog.list', visible_duration_millis: 900 }];
    else if (k < 15) [type, payload] = ['INSTALLATION_ATTRIBUTES_EDITED', { set: { app_theme: 'dark', launches: i }, remove: ['old_flag'] }];
    else if (k < 16) [type, payload] = ['PROFILE_ATTRIBUTES_EDITED', { set: { plan: 'gold' } }];
    else if (k < 17) [type, payload] = ['PROFILE_TAGS_EDITED', { add: ['vip'], remove: ['trial'] }];
    else if (k < 18) [type, payload] = ['INTERACTION_TRACKED', { experienceId: '6f1c2a4e-8f7d-4c1b-9a51-2d3e4f5a6b7c', messageId: 'msg-1', variantId: null, type: 'IMPRESSION' }];
    else if (k < 19) [type, payload] = ['FLAG_EXPOSED', { flagKey: 'new_checkout', experimentId: 'exp-7', variantKey: 'B', revision: 3 }];
    else [type, payload] = ['PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }];
    ops[i] = { operationId: randomUUID(), generation, type, occurredAt: now, payload };
  }
  return ops;
}

function openFresh(dir) {
  const db = new BetterSqlite3(path.join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -32000');
  db.pragma('temp_store = MEMORY');
  db.pragma('wal_autocheckpoint = 4000');
  for (const f of readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.sql')).sort())
    for (const stmt of readFileSync(path.join(root, 'migrations', f), 'utf8').split('--> statement-breakpoint')) if (stmt.trim()) db.exec(stmt);
  return db;
}

/** Writes `batches` batches of 100 mixed operations over `installations` installations; returns ops/s. */
export function runRaw({ batches = 2000, installations = 200 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-raw-'));
  const db = openFresh(dir);
  try {
    const now = new Date().toISOString();
    db.prepare(`INSERT INTO environments (id, name, created_at) VALUES ('env', 'raw', ?)`).run(now);
    db.prepare(`INSERT INTO apps (id, environment_id, platform, name, app_key, created_at) VALUES ('app', 'env', 'IOS', 'raw', 'svc_app_raw', ?)`).run(now);
    const ids = Array.from({ length: installations }, () => randomUUID());
    const insProfile = db.prepare(`INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, 'env', NULL, ?)`);
    const insInst = db.prepare(`INSERT INTO installations (id, environment_id, app_id, platform, locale, timezone, sdk_version, app_version,
      credential_digest, revocation_digest, recovery_digest, profile_id, created_at, updated_at) VALUES (?, 'env', 'app', 'IOS', 'en', 'UTC', '1', '1', ?, ?, ?, ?, ?, ?)`);
    db.transaction(() => {
      for (const id of ids) {
        insProfile.run(id, now);
        insInst.run(id, randomUUID(), randomUUID(), randomUUID(), id, now, now);
      }
    })();

    // Rows prepared ahead: the ceiling measures writes only.
    const work = Array.from({ length: batches }, (_, b) => {
      const ops = mixedOperations(100);
      return {
        installationId: ids[b % installations],
        batchId: randomUUID(),
        ops: ops.map((o) => ({ ...o, ms: Date.parse(o.occurredAt), json: JSON.stringify(o.payload) })),
        result: JSON.stringify({ batchId: 'x', results: ops.map((o) => ({ operationId: o.operationId, status: 'ACCEPTED', errorCode: null, message: null })), serverTime: now }),
      };
    });
    const insOp = db.prepare(`INSERT OR IGNORE INTO operations (installation_id, operation_id, environment_id, profile_id, generation, type, status, occurred_ms, received_ms, payload)
      VALUES (?, ?, 'env', ?, 0, ?, 'ACCEPTED', ?, ?, ?)`);
    const lww = (t) => `WHERE excluded.ms > ${t}.ms OR (excluded.ms = ${t}.ms AND excluded.op >= ${t}.op)`;
    const instAttr = db.prepare(`INSERT INTO installation_attributes (installation_id, key, value, ms, op) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (installation_id, key) DO UPDATE SET value = excluded.value, ms = excluded.ms, op = excluded.op ${lww('installation_attributes')}`);
    const profAttr = db.prepare(`INSERT INTO profile_attributes (profile_id, key, value, ms, op) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (profile_id, key) DO UPDATE SET value = excluded.value, ms = excluded.ms, op = excluded.op ${lww('profile_attributes')}`);
    const tag = db.prepare(`INSERT INTO profile_tags (profile_id, tag, present, ms, op) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (profile_id, tag) DO UPDATE SET present = excluded.present, ms = excluded.ms, op = excluded.op ${lww('profile_tags')}`);
    const perm = db.prepare(`UPDATE installations SET push_permission = ?, push_permission_ms = ?, push_permission_op = ? WHERE environment_id = 'env' AND id = ?`);
    const insBatch = db.prepare(`INSERT INTO operation_batches (installation_id, batch_id, result, created_at) VALUES (?, ?, ?, ?)`);
    const nowMs = Date.now();

    const started = performance.now();
    for (const b of work) {
      db.exec('BEGIN IMMEDIATE');
      const inst = b.installationId;
      for (const o of b.ops) {
        insOp.run(inst, o.operationId, inst, o.type, o.ms, nowMs, o.json);
        const p = o.payload;
        if (o.type === 'INSTALLATION_ATTRIBUTES_EDITED') {
          for (const k in p.set) instAttr.run(inst, k, JSON.stringify(p.set[k]), o.ms, o.operationId);
          for (const k of p.remove) instAttr.run(inst, k, null, o.ms, o.operationId);
        } else if (o.type === 'PROFILE_ATTRIBUTES_EDITED') {
          for (const k in p.set) profAttr.run(inst, k, JSON.stringify(p.set[k]), o.ms, o.operationId);
        } else if (o.type === 'PROFILE_TAGS_EDITED') {
          for (const t of p.add) tag.run(inst, t, 1, o.ms, o.operationId);
          for (const t of p.remove) tag.run(inst, t, 0, o.ms, o.operationId);
        } else if (o.type === 'PUSH_PERMISSION_SET') perm.run(p.state, o.ms, o.operationId, inst);
      }
      insBatch.run(inst, b.batchId, b.result, now);
      db.exec('COMMIT');
    }
    const seconds = (performance.now() - started) / 1000;
    return { batches, operations: batches * 100, seconds, opsPerSecond: (batches * 100) / seconds };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { values } = parseArgs({ options: { batches: { type: 'string', default: '2000' }, installations: { type: 'string', default: '200' } } });
  const r = runRaw({ batches: Number(values.batches), installations: Number(values.installations) });
  console.log(`raw ceiling: ${r.operations} operations in ${r.seconds.toFixed(2)} s = ${Math.round(r.opsPerSecond).toLocaleString('en-US')} operations/s`);
}
