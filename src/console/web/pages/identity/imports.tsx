import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href } from '../../router';
import { DataTable, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { when } from '../../ui/format';
import { JOB_STATUS_WORDS, JobPageTop, LiveJob, type Job } from './imports-jobs';
import { TenantHeader, useTenant } from './tenants';

/** The API takes at most this many records per import job (spec 03): larger files become several jobs. */
export const RECORDS_PER_JOB = 500;


/** What a failed record's code means (identity/transfer/errors.ts RecordError). */
const RECORD_ERRORS: Record<string, string> = {
  malformed_record: 'The record does not have the import shape (a field missing or of the wrong kind, an invalid email).',
  unsupported_schema_version: 'The record names a schema version other than 1.',
  duplicate_email: 'A user with this email exists already, or the file has it twice.',
  duplicate_external_id: 'This externalId was imported already from this source, or the file has it twice.',
  unknown_hash_format: 'The password hash is of a format the server does not know.',
  hash_cost_out_of_bounds: 'The password hash’s cost parameters are beyond what the server accepts.',
  nul_character: 'A text holds a NUL character.',
  unknown_identity_provider: 'An upstream identity names a provider the tenant does not have.',
  duplicate_identity: 'An upstream identity is linked to another user already.',
};

/**
 * The records of an uploaded file: NDJSON (one JSON record a line, blank lines skipped), a JSON
 * array of records, or a JSON object with a `records` array (an import request's shape).
 */
export function parseRecords(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('The file is empty.');
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      const whole = JSON.parse(trimmed) as unknown;
      if (Array.isArray(whole)) return whole;
      if (whole && typeof whole === 'object' && Array.isArray((whole as { records?: unknown }).records)) return (whole as { records: unknown[] }).records;
      if (whole && typeof whole === 'object') return [whole];
    } catch {
      // Not one JSON document: NDJSON, read below line by line.
    }
  }
  const records: unknown[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
    } catch {
      throw new Error(`Line ${i + 1} is not JSON: each line of an NDJSON file holds one record.`);
    }
  });
  return records;
}

const chunks = <T,>(all: T[], size: number): T[][] => Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));

/** A tenant's imports: upload a file (split into jobs of 500 records), follow each job, and the list of past jobs. */
export function ImportList({ tenantId }: { tenantId: string }) {
  const tenant = useTenant(tenantId);
  const [file, setFile] = useState<File>();
  const [source, setSource] = useState('console');
  const [mode, setMode] = useState('CREATE_ONLY');
  const [started, setStarted] = useState<{ jobs: Job[]; records: number; file: string }>();
  const list = usePaged<Job, 'GET /identity/admin/tenants/{tenantId}/user-imports'>('GET /identity/admin/tenants/{tenantId}/user-imports', { params: { tenantId } });
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={tenant.data} title="User imports" />
      <section aria-labelledby="upload-title">
        <h2 id="upload-title">Import users from a file</h2>
        <Form
          label="Import users from a file"
          submit="Start import"
          onSubmit={async () => {
            if (!file) throw new Error('Choose a file first.');
            const records = parseRecords(await file.text());
            const batch = crypto.randomUUID();
            const jobs: Job[] = [];
            for (const [i, part] of chunks(records, RECORDS_PER_JOB).entries()) {
              // One idempotency key per part: a repeated click cannot import a part twice.
              const job = await call<Job, 'POST /identity/admin/tenants/{tenantId}/user-imports'>('POST /identity/admin/tenants/{tenantId}/user-imports', {
                params: { tenantId },
                body: { schemaVersion: 1, source: source.trim(), mode, idempotencyKey: `console-${batch}-${i + 1}`, records: part },
              });
              jobs.push(job);
            }
            setStarted({ jobs, records: records.length, file: file.name });
            list.reload();
          }}
        >
          <Field
            label="File"
            hint={`NDJSON (one record a line) or JSON (an array of records). A record: {"externalId": "42", "email": "ada@example.com", "emailVerified": true, "active": true}, optionally a password hash, a TOTP secret and upstream identities. The API takes ${RECORDS_PER_JOB} records per job: a larger file is split into several jobs.`}
          >
            {(a) => <input {...a} type="file" accept=".ndjson,.jsonl,.json,application/json,application/x-ndjson" required onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])} />}
          </Field>
          <Field label="Source" hint="Names the system the users come from (printable, no spaces); with each record’s externalId it identifies an account, so importing it again is refused.">
            {(a) => <input {...a} {...bind(source, setSource)} required pattern="[\x21-\x7E]+" maxLength={100} autoComplete="off" spellcheck={false} />}
          </Field>
          <Field label="Mode">
            {(a) => (
              <select {...a} value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
                <option value="CREATE_ONLY">Create the users</option>
                <option value="VALIDATE_ONLY">Only check the records (nothing is created)</option>
              </select>
            )}
          </Field>
        </Form>
      </section>
      {started && (
        <section aria-labelledby="started-title">
          <h2 id="started-title">Started</h2>
          <Notice>
            {started.file}: {started.records} records in {started.jobs.length} {started.jobs.length === 1 ? 'job' : `jobs of at most ${RECORDS_PER_JOB} records`}.
          </Notice>
          <ol class="jobs">
            {started.jobs.map((j, i) => (
              <li key={j.id}>
                <Link href={href('/identity/tenants', tenantId, 'imports', j.id)}>
                  Job {i + 1} of {started.jobs.length}
                </Link>
                <LiveJob endpoint="GET /identity/admin/tenants/{tenantId}/user-imports/{jobId}" tenantId={tenantId} jobId={j.id} label={`Job ${i + 1} progress`} onEnd={() => list.reload()} />
              </li>
            ))}
          </ol>
        </section>
      )}
      <h2>Import jobs</h2>
      <DataTable
        caption="Import jobs"
        {...paged(list)}
        rowKey={(j) => j.id}
        empty="No import yet."
        columns={[
          { header: 'Created', cell: (j) => <Link href={href('/identity/tenants', tenantId, 'imports', j.id)}>{when(j.createdAt)}</Link> },
          { header: 'Source', cell: (j) => <code>{j.source}</code> },
          { header: 'Mode', cell: (j) => j.mode },
          { header: 'Status', cell: (j) => JOB_STATUS_WORDS[j.status] },
          { header: 'Records', cell: (j) => `${j.succeededItems} succeeded, ${j.failedItems} failed of ${j.totalItems}` },
        ]}
      />
    </>
  );
}

interface ImportResult {
  position: number;
  externalId: string | null;
  email: string | null;
  status: 'SUCCEEDED' | 'FAILED';
  subject: string | null;
  errorCode: string | null;
  processedAt: string;
}

/** One import job: its progress (polled until it ends), its results page by page with each failure in words, cancellation. */
export function ImportDetail({ tenantId, jobId }: { tenantId: string; jobId: string }) {
  const tenant = useTenant(tenantId);
  const [ended, setEnded] = useState(false);
  const [cancelled, setCancelled] = useState<string>();
  const [cancelError, setCancelError] = useState<Error>();
  const params = { tenantId, jobId };
  const results = usePaged<ImportResult, 'GET /identity/admin/tenants/{tenantId}/user-imports/{jobId}/results'>(
    'GET /identity/admin/tenants/{tenantId}/user-imports/{jobId}/results',
    { params },
  );
  return (
    <>
      <JobPageTop
        tenantId={tenantId}
        tenant={tenant.data}
        list="imports"
        endpoint="GET /identity/admin/tenants/{tenantId}/user-imports/{jobId}"
        jobId={jobId}
        onEnd={() => {
          setEnded(true);
          results.reload();
        }}
      />
      {!ended && (
        <div class="actions">
          <button
            type="button"
            onClick={async () => {
              setCancelError(undefined);
              try {
                await call('DELETE /identity/admin/tenants/{tenantId}/user-imports/{jobId}', { params });
                setCancelled('Cancellation asked: records already committed stay imported.');
              } catch (e) {
                setCancelError(e as Error);
              }
            }}
          >
            Cancel import
          </button>
        </div>
      )}
      {cancelled && <Notice>{cancelled}</Notice>}
      {cancelError && <ErrorBox error={cancelError} />}
      <h2>Results</h2>
      <p class="muted">Each record of the job, in the order of the file; a failed one says why.</p>
      <DataTable
        caption="Import results"
        {...paged(results)}
        rowKey={(r) => String(r.position)}
        empty={ended ? 'No result.' : 'No result yet: the job has not processed a record.'}
        columns={[
          { header: 'Record', cell: (r) => r.position + 1 },
          { header: 'Email', cell: (r) => r.email ?? '—' },
          { header: 'External id', cell: (r) => (r.externalId ? <code>{r.externalId}</code> : '—') },
          {
            header: 'Result',
            cell: (r) =>
              r.status === 'SUCCEEDED' ? (
                'Succeeded'
              ) : (
                <span class="result-why">
                  <strong>Failed:</strong> {(r.errorCode && RECORD_ERRORS[r.errorCode]) ?? 'The server refused this record.'} {r.errorCode && <code>{r.errorCode}</code>}
                </span>
              ),
          },
        ]}
      />
    </>
  );
}
