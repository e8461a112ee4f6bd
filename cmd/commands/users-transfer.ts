import type { Command } from 'commander';
import { createReadStream, createWriteStream, openSync, statSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { cliActor } from '../../src/platform/audit/audit';
import { DomainError } from '../../src/platform/errors';
import { bulkExport, bulkImport, type BulkImportSummary } from '../../src/identity/transfer/bulk-import';
import type { SourceFormat } from '../../src/identity/transfer/formats';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

type ImportOpts = CommonOptions & {
  tenant: string;
  source?: string;
  mode: string;
  from?: string;
  report?: string;
  batch: string;
  hashKey?: string;
  saltSeparator?: string;
  rounds?: string;
  memCost?: string;
  providerMap?: string;
};

const SUMMARY = ['source', 'mode', 'processed', 'succeeded', 'failed', 'skipped', 'report', 'seconds'];

const invalid = (m: string) => new DomainError('invalid', 'invalid_request', m);

/** A progress bar on a terminal (records/s and, for a file, ETA by bytes); a plain line every 5 s otherwise. */
function progressReporter(total: number | undefined) {
  const started = Date.now();
  let lastLine = 0;
  const tty = process.stderr.isTTY;
  return {
    update(s: BulkImportSummary, bytes: number) {
      const secs = (Date.now() - started) / 1000;
      const rate = Math.round(s.processed / Math.max(secs, 0.001));
      const counts = `${s.processed.toLocaleString('en')} records (${s.succeeded} created, ${s.skipped} skipped, ${s.failed} failed), ${rate.toLocaleString('en')} records/s`;
      if (tty) {
        const frac = total ? Math.min(1, bytes / total) : undefined;
        const bar = frac === undefined ? '' : `[${'#'.repeat(Math.round(frac * 30)).padEnd(30, '.')}] ${(frac * 100).toFixed(0).padStart(3)}% `;
        const eta = frac && frac < 1 ? ` ETA ${Math.round((secs / frac) * (1 - frac))} s` : '';
        process.stderr.write(`\r${bar}${counts}${eta}\x1b[K`);
      } else if (Date.now() - lastLine >= 5_000) {
        lastLine = Date.now();
        process.stderr.write(`engage: imported ${counts}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}

function parseMap(v: string | undefined): Record<string, string> | undefined {
  if (!v) return undefined;
  const out: Record<string, string> = {};
  for (const pair of v.split(',')) {
    const [k, val] = pair.split('=');
    if (!k || !val) throw invalid(`--provider-map: expected from=to[,from=to…], got ${pair}`);
    out[k] = val;
  }
  return out;
}

/**
 * The default report (`<file>.errors.ndjson`) of a run never replaces an earlier run's: when it
 * exists the next free `<file>.errors.N.ndjson` is taken, created exclusively ('wx', so two runs at
 * once cannot take the same name). A `--report` the operator names is written as named.
 */
function openReport(reportPath: string, named: boolean): { path: string; stream: Writable } {
  if (named) return { path: reportPath, stream: createWriteStream(reportPath) };
  const stem = reportPath.replace(/\.ndjson$/, '');
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? reportPath : `${stem}.${n}.ndjson`;
    try {
      return { path: candidate, stream: createWriteStream(candidate, { fd: openSync(candidate, 'wx') }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 10_000) throw e;
    }
  }
}

async function closeStream(s: Writable): Promise<void> {
  s.end();
  await finished(s);
}

/** `engage users import` and `engage users export` (issue 12): no network hop, the same services as the API. */
export function registerUserTransfer(users: Command): void {
  withCommon(users.command('import').description('import users from NDJSON (schemaVersion 1 records) or an Auth0, Firebase or Keycloak export; resumable'))
    .argument('<file>', 'the file to read, or - for standard input')
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--source <source>', 'names the source system: (source, externalId) identifies an account (default: the --from value, or "default")')
    .option('--mode <mode>', 'CREATE_ONLY, or VALIDATE_ONLY to check without creating', 'CREATE_ONLY')
    .option('--from <format>', 'auth0 (bulk user export NDJSON), firebase (auth:export JSON), keycloak (realm export JSON)')
    .option('--report <file>', 'where failed records go, one JSON line each, replaced if it exists (default <file>.errors.ndjson, or import-errors.ndjson for -; when taken by an earlier run, the next free <file>.errors.N.ndjson; the summary names it)')
    .option('--batch <n>', 'records per transaction', '2000')
    .option('--hash-key <base64>', 'Firebase: base64_signer_key of the project')
    .option('--salt-separator <base64>', 'Firebase: base64_salt_separator of the project')
    .option('--rounds <n>', 'Firebase: rounds of the project')
    .option('--mem-cost <n>', 'Firebase: mem_cost of the project')
    .option('--provider-map <pairs>', "source provider names to the tenant's identity provider names, e.g. google.com=google")
    .action(
      action(async (file: string, opts: ImportOpts) => {
        if (opts.mode !== 'CREATE_ONLY' && opts.mode !== 'VALIDATE_ONLY') throw invalid('--mode: CREATE_ONLY or VALIDATE_ONLY');
        if (opts.from !== undefined && !['auth0', 'firebase', 'keycloak'].includes(opts.from)) throw invalid('--from: auth0, firebase or keycloak');
        const batch = Number(opts.batch);
        if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) throw invalid('--batch: an integer from 1 to 10000');
        const source = opts.source ?? opts.from ?? 'default';
        if (!/^[\x21-\x7E]{1,100}$/.test(source)) throw invalid('--source: 1 to 100 visible ASCII characters');
        const total = file === '-' ? undefined : statSync(file).size;
        let reportPath = opts.report ?? (file === '-' ? 'import-errors.ndjson' : `${file}.errors.ndjson`);
        const from = opts.from as SourceFormat | undefined;
        const formatOptions = {
          providerMap: parseMap(opts.providerMap),
          firebase: { signerKey: opts.hashKey, saltSeparator: opts.saltSeparator, rounds: opts.rounds ? Number(opts.rounds) : undefined, memCost: opts.memCost ? Number(opts.memCost) : undefined },
        };
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          let report: Writable | undefined;
          const progress = progressReporter(total);
          const started = Date.now();
          let summary: BulkImportSummary;
          try {
            summary = await bulkImport(services.transfer, {
              tenantId, source, mode: opts.mode as 'CREATE_ONLY', from, formatOptions, batch, actor: cliActor(),
              report: () => {
                const opened = openReport(reportPath, opts.report !== undefined);
                reportPath = opened.path;
                return (report = opened.stream);
              },
              checkpoint: () => services.store.scrubDeleted(),
              input: file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 }),
              progress: (s, bytes) => progress.update(s, bytes),
            });
          } finally {
            progress.done();
            if (report) await closeStream(report);
          }
          output(json, { ...summary, report: summary.failed > 0 ? reportPath : null, seconds: Math.round((Date.now() - started) / 100) / 10 }, SUMMARY);
          // Exit status 2: the run finished, and some records failed (listed in the report).
          if (summary.failed > 0) process.exitCode = 2;
        });
      }),
    );

  withCommon(users.command('export').description("export a tenant's users as NDJSON (position, subject, email, emailVerified, status, createdAt)"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--out <file>', 'write to this file instead of standard output')
    .action(
      action(async (opts: CommonOptions & { tenant: string; out?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const out = opts.out ? createWriteStream(opts.out) : process.stdout;
          const started = Date.now();
          const n = await bulkExport(services.transfer, tenantId, out, cliActor());
          if (opts.out) {
            await closeStream(out);
            output(json, { exported: n, out: opts.out, seconds: Math.round((Date.now() - started) / 100) / 10 }, ['exported', 'out', 'seconds']);
          }
        });
      }),
    );
}
