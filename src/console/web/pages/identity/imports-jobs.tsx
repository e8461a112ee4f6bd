import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link, href } from '../../router';
import { ErrorBox } from '../../ui/feedback';
import { TenantHeader, type Tenant } from './tenants';

/** A user import or export job (spec 03), as GET …/user-imports/{jobId} and …/user-exports/{jobId} answer it. */
export interface Job {
  id: string;
  tenantId: string;
  kind: 'IMPORT' | 'EXPORT';
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'COMPLETED_WITH_ERRORS' | 'FAILED' | 'CANCELLED';
  source: string | null;
  mode: string | null;
  totalItems: number;
  processedItems: number;
  succeededItems: number;
  failedItems: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  lastFailure: string | null;
}

export const JOB_ENDED = new Set<Job['status']>(['SUCCEEDED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED']);

export const JOB_STATUS_WORDS: Record<Job['status'], string> = {
  QUEUED: 'Queued: waiting for a worker',
  RUNNING: 'Running',
  SUCCEEDED: 'Succeeded',
  COMPLETED_WITH_ERRORS: 'Completed with errors: some records failed',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

type JobEndpoint = 'GET /identity/admin/tenants/{tenantId}/user-imports/{jobId}' | 'GET /identity/admin/tenants/{tenantId}/user-exports/{jobId}';

/** A job, polled every second until it ends (then `onEnd` once). */
export function useJob(endpoint: JobEndpoint, tenantId: string, jobId: string, onEnd?: (job: Job) => void) {
  const [job, setJob] = useState<Job>();
  const [error, setError] = useState<ApiFailure>();
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abort = new AbortController();
    const poll = async () => {
      try {
        const j = await call<Job, JobEndpoint>(endpoint, { params: { tenantId, jobId }, signal: abort.signal });
        if (stopped) return;
        setJob(j);
        setError(undefined);
        if (JOB_ENDED.has(j.status)) {
          onEnd?.(j);
          return;
        }
      } catch (e) {
        if (stopped) return;
        if (e instanceof ApiFailure) setError(e);
      }
      timer = setTimeout(() => void poll(), 1000);
    };
    void poll();
    return () => {
      stopped = true;
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [endpoint, tenantId, jobId]);
  return { job, error };
}

/** A job's progress: a progress bar with its state in words (announced politely as it changes). */
export function JobProgress({ job, label }: { job: Job; label: string }) {
  const ended = JOB_ENDED.has(job.status);
  const total = Math.max(job.totalItems, job.processedItems);
  return (
    <div class="job-progress">
      {total > 0 || ended ? (
        <progress aria-label={label} max={Math.max(total, 1)} value={ended && total === 0 ? 1 : job.processedItems} />
      ) : (
        <progress aria-label={label} />
      )}
      <p role="status">
        {JOB_STATUS_WORDS[job.status]}: {job.processedItems} of {job.totalItems} processed, {job.succeededItems} succeeded, {job.failedItems} failed
        {ended ? '.' : '; refreshing every second.'}
      </p>
      {job.lastFailure && <p class="check-failed">Last failure: {job.lastFailure}</p>}
    </div>
  );
}

/** Polls one job and shows its progress. */
export function LiveJob(props: { endpoint: JobEndpoint; tenantId: string; jobId: string; label: string; onEnd?: (job: Job) => void }) {
  const { job, error } = useJob(props.endpoint, props.tenantId, props.jobId, props.onEnd);
  return (
    <>
      {error && <ErrorBox error={error} />}
      {job ? <JobProgress job={job} label={props.label} /> : !error && <p class="muted">Loading…</p>}
    </>
  );
}

/** The top of an import's or an export's page: the tenant's header, the way back to the list, the job's live progress. */
export function JobPageTop(props: { tenantId: string; tenant?: Tenant; list: 'imports' | 'exports'; endpoint: JobEndpoint; jobId: string; onEnd: (job: Job) => void }) {
  const kind = props.list === 'imports' ? 'Import' : 'Export';
  return (
    <>
      <TenantHeader tenantId={props.tenantId} tenant={props.tenant} title={`${kind} job`} />
      <p>
        <Link href={href('/identity/tenants', props.tenantId, props.list)}>Back to the {props.list}</Link>
      </p>
      <LiveJob endpoint={props.endpoint} tenantId={props.tenantId} jobId={props.jobId} label={`${kind} progress`} onEnd={props.onEnd} />
    </>
  );
}
