import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { AuditActor } from '../../platform/audit/audit';
import { collectGarbage } from '../../platform/gc';
import { CONVERTERS, type FormatOptions, type SourceFormat } from './formats';
import type { ImportItem } from './importer';
import { jsonArrayElements, ndjsonRecords, type ByteCounter, type ReadRecord } from './reader';
import type { ImportMode } from './schemas';
import type { TransferService } from './service';

/** Records per transaction of a CLI import (set-oriented inserts; docs/benchmarks.md). */
export const CLI_BATCH = 2_000;
/** A full collection every this many batches (platform/gc.ts): about 20 ms each 50,000 records. */
const GC_EVERY = 25;

export interface BulkImportOptions {
  tenantId: string;
  source: string;
  mode: ImportMode;
  from?: SourceFormat;
  formatOptions?: FormatOptions;
  input: AsyncIterable<Buffer | string>;
  /**
   * Where each failed record goes, one JSON object per line (position, line, externalId, email,
   * errorCode, detail): opened at the first failure, so a clean run leaves no empty report.
   */
  report: () => Writable;
  batch?: number;
  /** Called after every batch with the running totals (progress display). */
  progress?: (s: BulkImportSummary, bytesRead: number) => void;
  actor: AuditActor;
  /** Folds the WAL into the database after the run (the store's `scrubDeleted`: a TRUNCATE checkpoint). */
  checkpoint?: () => Promise<unknown>;
}

export interface BulkImportSummary {
  source: string;
  mode: ImportMode;
  processed: number;
  succeeded: number;
  failed: number;
  /** Already imported from this source (a rerun): left as they are. */
  skipped: number;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/**
 * `engage users import` without its terminal: streams records of any size in batches of
 * CLI_BATCH, each batch one transaction (importer.ts), writes every failed record to the report,
 * skips what a previous run imported (resumable), and records one audit event for the run.
 */
export async function bulkImport(transfer: TransferService, o: BulkImportOptions): Promise<BulkImportSummary> {
  const counter: ByteCounter = { bytes: 0 };
  // Firebase and Keycloak exports are one JSON document whose `users` array holds the accounts.
  const records: AsyncIterable<ReadRecord> = o.from === 'firebase' || o.from === 'keycloak' ? jsonArrayElements(o.input, 'users', counter) : ndjsonRecords(o.input, counter);
  const convert = o.from ? CONVERTERS[o.from] : undefined;
  const size = o.batch ?? CLI_BATCH;
  const summary: BulkImportSummary = { source: o.source, mode: o.mode, processed: 0, succeeded: 0, failed: 0, skipped: 0 };
  let reportStream: Writable | undefined;
  let items: ImportItem[] = [];
  let lines: number[] = [];

  const flush = async () => {
    if (items.length === 0) return;
    const outcomes = await transfer.importer.importBatch(o.tenantId, o.source, o.mode, items, { existing: 'skip' });
    let report = '';
    for (const [i, r] of outcomes.entries()) {
      summary.processed++;
      if (r.status === 'SUCCEEDED') summary.succeeded++;
      else if (r.status === 'SKIPPED') summary.skipped++;
      else {
        summary.failed++;
        report += JSON.stringify({ position: r.position, line: lines[i], externalId: r.externalId, email: r.email, errorCode: r.errorCode, detail: r.detail }) + '\n';
      }
    }
    if (report) await write((reportStream ??= o.report()), report);
    items = [];
    lines = [];
    if (++batches % GC_EVERY === 0) collectGarbage();
    o.progress?.(summary, counter.bytes);
  };

  let position = 0;
  let batches = 0;
  await transfer.bulkWrites(true);
  try {
    for await (const r of records) {
      items.push({ position: position++, record: convert && typeof r.value === 'object' ? convert(r.value, o.formatOptions ?? {}) : r.value });
      lines.push(r.line);
      if (items.length >= size) await flush();
    }
    await flush();
  } finally {
    await transfer.bulkWrites(false);
    await o.checkpoint?.();
  }
  await transfer.recordRun(o.actor, o.tenantId, 'users.imported', { ...summary, ...(o.from ? { from: o.from } : {}) });
  return summary;
}

/** `engage users export`: the tenant's users as NDJSON to `out`, in constant memory; the count. */
export async function bulkExport(transfer: TransferService, tenantId: string, out: Writable, actor: AuditActor): Promise<number> {
  let n = 0;
  for await (const chunk of transfer.exportAll(tenantId)) {
    let nl = chunk.indexOf('\n');
    while (nl >= 0) {
      n++;
      nl = chunk.indexOf('\n', nl + 1);
    }
    await write(out, chunk);
  }
  await transfer.recordRun(actor, tenantId, 'users.exported', { processed: n, succeeded: n, failed: 0 });
  return n;
}
