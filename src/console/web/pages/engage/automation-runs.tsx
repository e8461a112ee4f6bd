import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, navigate, useRoute } from '../../router';
import { DataTable, paged, useCall, usePaged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { bind } from '../../ui/forms';
import { when } from '../../ui/format';
import { Confirm } from './automation-detail';
import { LIVE_RUN, RUN_STATUSES, type AutomationDetail, type RunDetail, type RunStatus, type RunSummary, type StepExecution } from './automation-model';
import { ONE } from './automations';
import { EnvPageHeader, envPath } from './sends';

const RUN = '/engage/admin/environments/{environmentId}/automation-runs/{runId}';
const RUN_WORDS: Record<RunStatus, string> = {
  RUNNING: 'Running',
  WAITING: 'Waiting',
  COMPLETED: 'Completed',
  EXITED: 'Exited',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

export function RunStatusBadge({ status }: { status: RunStatus }) {
  return <span class={`badge badge-run-${status.toLowerCase()}`}>{RUN_WORDS[status]}</span>;
}

const crumbsOf = (key: string) => [
  { label: 'Automations', path: '/automations' },
  { label: key, path: `/automations/${encodeURIComponent(key)}` },
];

/** An automation's runs, newest first, by status and profile id. */
export function RunList({ environmentId, automationKey }: { environmentId: string; automationKey: string }) {
  const { path, query } = useRoute();
  const status = RUN_STATUSES.find((s) => s === query.get('status')) ?? '';
  const profileId = query.get('profileId') ?? '';
  const [typed, setTyped] = useState(profileId);
  const list = usePaged<RunSummary, `GET ${typeof ONE}/runs`>(`GET ${ONE}/runs`, { params: { environmentId, automationKey }, query: { status: status || undefined, profileId: profileId || undefined } });
  const go = (s: string, p: string) => {
    const q = new URLSearchParams();
    if (s) q.set('status', s);
    if (p.trim()) q.set('profileId', p.trim());
    navigate(`${path}${q.toString() ? `?${q.toString()}` : ''}`, { replace: true });
  };
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Runs of ${automationKey}`} crumbs={crumbsOf(automationKey)} />
      <form
        class="msg-filters"
        aria-label="Filter the runs"
        onSubmit={(e) => {
          e.preventDefault();
          go(status, typed);
        }}
      >
        <div class="field">
          <label for="run-status">Status</label>
          <select id="run-status" value={status} onChange={(e) => go((e.target as HTMLSelectElement).value, typed)}>
            <option value="">Any status</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {RUN_WORDS[s]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="run-profile">Profile id</label>
          <input id="run-profile" {...bind(typed, setTyped)} autoComplete="off" spellcheck={false} />
        </div>
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      <DataTable
        caption="Runs, newest first"
        {...paged(list)}
        rowKey={(r) => r.id}
        empty={status || profileId ? 'No run matches.' : 'No run yet.'}
        columns={[
          { header: 'Run', cell: (r) => <Link href={envPath(environmentId, 'automations', automationKey, 'runs', r.id)}>{r.id}</Link> },
          { header: 'Status', cell: (r) => <RunStatusBadge status={r.status} /> },
          { header: 'At step', cell: (r) => r.stepId ?? '—' },
          { header: 'Profile', cell: (r) => <Link href={envPath(environmentId, 'profiles', r.profileId)}>{r.profileId}</Link> },
          { header: 'Entered', cell: (r) => when(r.enteredAt) },
          { header: 'Ended', cell: (r) => when(r.endedAt) },
          { header: 'Version', cell: (r) => r.version },
        ]}
      />
    </>
  );
}

const STEP_WORDS: Record<StepExecution['status'], string> = { PENDING: 'Pending', RUNNING: 'Running', SUCCEEDED: 'Succeeded', FAILED: 'Failed', SKIPPED: 'Skipped' };

/** One step execution of the timeline: what, when, how it went, what it did. Left pending or running by a run that ended, it is interrupted (as the graph counts it). */
function Execution({ s, ended }: { s: StepExecution; ended: boolean }) {
  const interrupted = ended && (s.status === 'PENDING' || s.status === 'RUNNING');
  return (
    <li class="timeline-step" aria-labelledby={`exec-${s.seq}`}>
      <h3 id={`exec-${s.seq}`}>
        {s.stepId} <span class="muted">({s.kind})</span> <span class={`badge badge-step-${interrupted ? 'interrupted' : s.status.toLowerCase()}`}>{interrupted ? 'Interrupted' : STEP_WORDS[s.status]}</span>
      </h3>
      <dl class="facts">
        <dt>Attempts</dt>
        <dd>{s.attempts}</dd>
        <dt>Started</dt>
        <dd>{when(s.startedAt)}</dd>
        <dt>Finished</dt>
        <dd>{when(s.finishedAt)}</dd>
        {s.error && (
          <>
            <dt>Error</dt>
            <dd class="error-text">{s.error}</dd>
          </>
        )}
        <dt>Output</dt>
        <dd>
          {s.output === null || s.output === undefined ? (
            '—'
          ) : (
            <pre class="payload" tabIndex={0} aria-label={`Output of ${s.stepId}`}>
              {JSON.stringify(s.output, null, 2)}
            </pre>
          )}
        </dd>
      </dl>
    </li>
  );
}

/**
 * A run (issue 28 "Inspection"): where it is, its context, and its timeline (each step's
 * execution in order, with status, attempts, times, error and output); a run under way can be
 * cancelled. A run of another automation (or environment) is not shown under this one.
 */
export function RunPage({ environmentId, automationKey, runId }: { environmentId: string; automationKey: string; runId: string }) {
  const run = useCall<RunDetail, `GET ${typeof RUN}`>(`GET ${RUN}`, { params: { environmentId, runId } });
  const automation = useCall<AutomationDetail, `GET ${typeof ONE}`>(`GET ${ONE}`, { params: { environmentId, automationKey } });
  const [confirm, setConfirm] = useState(false);
  const [notice, setNotice] = useState('');
  const r = run.data;
  const a = automation.data;
  const other = r && a && r.automationId !== a.id;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Run ${runId}`} crumbs={crumbsOf(automationKey)}>
        {r && !other && LIVE_RUN.includes(r.status) && (
          <button type="button" class="danger" onClick={() => setConfirm(true)}>
            Cancel run
          </button>
        )}
      </EnvPageHeader>
      {(run.error ?? automation.error) && <ErrorBox error={(run.error ?? automation.error)!} />}
      {other && <p role="alert">This run is not a run of {automationKey}.</p>}
      {notice && <Notice>{notice}</Notice>}
      {r && a && !other && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <RunStatusBadge status={r.status} />
              {r.error ? ` ${r.error}` : ''}
            </dd>
            <dt>At step</dt>
            <dd>{r.stepId ?? '— (ended)'}</dd>
            {r.waitingEvent && (
              <>
                <dt>Waiting for</dt>
                <dd>event {r.waitingEvent}</dd>
              </>
            )}
            <dt>Due</dt>
            <dd>{when(r.dueAt)}</dd>
            <dt>Profile</dt>
            <dd>
              <Link href={envPath(environmentId, 'profiles', r.profileId)}>{r.profileId}</Link>
            </dd>
            <dt>Version</dt>
            <dd>{r.version}</dd>
            <dt>Entered</dt>
            <dd>{when(r.enteredAt)}</dd>
            <dt>Ended</dt>
            <dd>{when(r.endedAt)}</dd>
            <dt>Entry</dt>
            <dd>
              <code>{JSON.stringify(r.entry)}</code>
            </dd>
          </dl>
          <h2>Context</h2>
          <pre class="payload" tabIndex={0} aria-label="Context">
            {JSON.stringify(r.context, null, 2)}
          </pre>
          <h2 id="timeline-title">Timeline</h2>
          {r.steps.length === 0 ? (
            <p class="empty">No step executed yet.</p>
          ) : (
            <ol class="timeline" aria-labelledby="timeline-title">
              {r.steps.map((s) => (
                <Execution key={s.seq} s={s} ended={!LIVE_RUN.includes(r.status)} />
              ))}
            </ol>
          )}
          <Confirm
            id="confirm-cancel"
            open={confirm}
            title="Cancel the run?"
            consequence="It ends CANCELLED and executes no further step. This cannot be undone."
            action="Cancel run"
            onConfirm={async () => {
              await call<RunDetail, `POST ${typeof RUN}/cancel`>(`POST ${RUN}/cancel`, { params: { environmentId, runId } });
              setConfirm(false);
              setNotice('Cancelled: the run executes no further step.');
              run.reload();
            }}
            onClose={() => setConfirm(false)}
          />
        </>
      )}
    </>
  );
}
