import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { JOB_STATUS_WORDS, JobPageTop, type Job } from './imports-jobs';
import { TenantHeader, useTenant } from './tenants';


/** A tenant's exports: start one (the users as of now), and the past jobs. */
export function ExportList({ tenantId }: { tenantId: string }) {
  const tenant = useTenant(tenantId);
  const list = usePaged<Job, 'GET /identity/admin/tenants/{tenantId}/user-exports'>('GET /identity/admin/tenants/{tenantId}/user-exports', { params: { tenantId } });
  const start = useSubmit(async () => {
    const job = await call<Job, 'POST /identity/admin/tenants/{tenantId}/user-exports'>('POST /identity/admin/tenants/{tenantId}/user-exports', {
      params: { tenantId },
      body: { idempotencyKey: `console-${crypto.randomUUID()}` },
    });
    navigate(href('/identity/tenants', tenantId, 'exports', job.id));
  });
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={tenant.data} title="User exports">
        <button type="button" class="primary" disabled={start.busy} onClick={() => void start.run()}>
          {start.busy ? 'Starting…' : 'Export the users'}
        </button>
      </TenantHeader>
      <p>An export holds every user of the tenant as of its start: subject, email, whether it is verified, status and creation time (never a password). Download it as NDJSON once it has succeeded.</p>
      {start.error && <ErrorBox error={start.error} />}
      <DataTable
        caption="Export jobs"
        {...paged(list)}
        rowKey={(j) => j.id}
        empty="No export yet."
        columns={[
          { header: 'Created', cell: (j) => <Link href={href('/identity/tenants', tenantId, 'exports', j.id)}>{when(j.createdAt)}</Link> },
          { header: 'Status', cell: (j) => JOB_STATUS_WORDS[j.status] },
          { header: 'Users', cell: (j) => j.succeededItems },
          { header: 'Completed', cell: (j) => when(j.completedAt) },
        ]}
      />
    </>
  );
}

interface ExportRecord {
  position: number;
  subject: string;
  email: string;
  emailVerified: boolean;
  status: string;
  createdAt: string;
}

/**
 * One export job: progress until it ends, then the NDJSON downloaded through the API with the
 * operator's token and offered as a file (a blob: URL in an <a download>; the token never goes in
 * a URL), and its records page by page.
 */
export function ExportDetail({ tenantId, jobId }: { tenantId: string; jobId: string }) {
  const tenant = useTenant(tenantId);
  const [job, setJob] = useState<Job>();
  const [file, setFile] = useState<{ url: string; name: string; lines: number }>();
  const link = useRef<HTMLAnchorElement>(null);
  const params = { tenantId, jobId };
  const records = usePaged<ExportRecord, 'GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}/records'>(
    'GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}/records',
    { params },
  );
  const download = useSubmit(async () => {
    const text = await call<string, 'GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}/download'>('GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}/download', {
      params,
      text: true,
    });
    if (file) URL.revokeObjectURL(file.url);
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    const name = `users-${tenant.data?.slug ?? tenantId}-${(job?.completedAt ?? new Date().toISOString()).slice(0, 10)}.ndjson`;
    setFile({ url, name, lines: text.split('\n').filter((l) => l.trim() !== '').length });
  });
  // The file is offered at once (the link clicked for the person), and stays there to save again.
  useEffect(() => {
    if (file) link.current?.click();
  }, [file?.url]);
  useEffect(() => () => void (file && URL.revokeObjectURL(file.url)), [file?.url]);
  const succeeded = job?.status === 'SUCCEEDED';
  return (
    <>
      <JobPageTop
        tenantId={tenantId}
        tenant={tenant.data}
        list="exports"
        endpoint="GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}"
        jobId={jobId}
        onEnd={(j) => {
          setJob(j);
          records.reload();
        }}
      />
      {succeeded && (
        <section aria-labelledby="download-title">
          <h2 id="download-title">Download</h2>
          <p>NDJSON: one JSON record a line.</p>
          {download.error && <ErrorBox error={download.error} />}
          <div class="actions">
            <button type="button" class="primary" disabled={download.busy} onClick={() => void download.run()}>
              {download.busy ? 'Downloading…' : 'Download NDJSON'}
            </button>
            {file && (
              <a ref={link} href={file.url} download={file.name}>
                Save {file.name} again
              </a>
            )}
          </div>
          {file && (
            <Notice>
              Downloaded {file.name}: {file.lines} {file.lines === 1 ? 'user' : 'users'}.
            </Notice>
          )}
        </section>
      )}
      <h2>Records</h2>
      <DataTable
        caption="Export records"
        {...paged(records)}
        rowKey={(r) => String(r.position)}
        empty={succeeded ? 'The tenant had no user.' : 'No record until the export has succeeded.'}
        columns={[
          { header: 'Email', cell: (r) => r.email },
          { header: 'Verified', cell: (r) => (r.emailVerified ? 'Yes' : 'No') },
          { header: 'Status', cell: (r) => r.status },
          { header: 'Subject', cell: (r) => <code>{r.subject}</code> },
          { header: 'Created', cell: (r) => when(r.createdAt) },
        ]}
      />
    </>
  );
}
