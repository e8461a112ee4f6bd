import { useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link, navigate, useRoute } from '../../router';
import { DataTable, paged, useCall, usePaged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { AUTOMATION_STATUSES, NEW_AUTOMATION, fileText, parseFile, violationList, type AutomationDetail, type AutomationStatus, type AutomationSummary } from './automation-model';
import { EnvPageHeader, envPath } from './sends';

export const BASE = '/engage/admin/environments/{environmentId}/automations';
export const ONE = `${BASE}/{automationKey}` as const;

export const STATUS_LABEL: Record<AutomationStatus, string> = { DRAFT: 'Draft', ACTIVE: 'Active', PAUSED: 'Paused', ARCHIVED: 'Archived' };

export function AutomationStatusBadge({ status }: { status: AutomationStatus }) {
  return <span class={`badge badge-${status.toLowerCase()}`}>{STATUS_LABEL[status]}</span>;
}

/**
 * What one page hands the next, in memory only: the automationApiKey a create answered (shown
 * once on the automation's page, then forgotten) and a line saying what just happened.
 */
const handOff = new Map<string, { apiKey?: string; notice: string }>();
export const takeHandOff = (environmentId: string, key: string) => {
  const k = `${environmentId}/${key}`;
  const v = handOff.get(k);
  handOff.delete(k);
  return v;
};
const leave = (environmentId: string, key: string, v: { apiKey?: string; notice: string }) => {
  handOff.set(`${environmentId}/${key}`, v);
  navigate(envPath(environmentId, 'automations', key));
};

/** The Automations tab of an environment: its automations by key, filtered by status. */
export function AutomationList({ environmentId }: { environmentId: string }) {
  const { path, query } = useRoute();
  const status = AUTOMATION_STATUSES.find((s) => s === query.get('status')) ?? '';
  const list = usePaged<AutomationSummary, `GET ${typeof BASE}`>(`GET ${BASE}`, { params: { environmentId }, query: { status: status || undefined } });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Automations">
        <Link class="button primary" href={envPath(environmentId, 'new-automation')}>
          New automation
        </Link>
      </EnvPageHeader>
      <form class="msg-filters in-app-filter" aria-label="Filter the automations" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="automation-status">Status</label>
          <select
            id="automation-status"
            value={status}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              navigate(`${path}${v ? `?status=${v}` : ''}`, { replace: true });
            }}
          >
            <option value="">Any status</option>
            {AUTOMATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
      </form>
      <DataTable
        caption="Automations"
        {...paged(list)}
        rowKey={(a) => a.key}
        empty={status ? `No ${STATUS_LABEL[status].toLowerCase()} automation.` : 'No automation yet.'}
        columns={[
          { header: 'Key', cell: (a) => <Link href={envPath(environmentId, 'automations', a.key)}>{a.key}</Link> },
          { header: 'Name', cell: (a) => a.name },
          { header: 'Status', cell: (a) => <AutomationStatusBadge status={a.status} /> },
          { header: 'Version', cell: (a) => (a.publishedVersion !== null && a.publishedVersion !== a.version ? `${a.version} (runs enter ${a.publishedVersion})` : a.version) },
          { header: 'API entry', cell: (a) => (a.apiEntry ? 'Yes' : 'No') },
          { header: 'Updated', cell: (a) => when(a.updatedAt) },
        ]}
      />
    </>
  );
}

/** A refusal next to the file: a violation per item (the server's `invalid_request`), else its words. */
function FileError({ error, id }: { error: Error; id: string }) {
  const failure = error instanceof ApiFailure ? error : undefined;
  const violations = failure?.code === 'invalid_request' ? violationList(failure.detail) : [];
  if (!failure || violations.length === 0) {
    return (
      <div id={id}>
        <ErrorBox error={error} />
      </div>
    );
  }
  return (
    <div class="error-box" role="alert" id={id}>
      <p>The server refused the file ({violations.length === 1 ? 'one violation' : `${violations.length} violations`}):</p>
      <ul class="violations">
        {violations.map((v) => (
          <li key={v}>
            <code>{v}</code>
          </li>
        ))}
      </ul>
      <p class="muted">
        Error code: <code>{failure.code}</code>
      </p>
    </div>
  );
}

/**
 * The automation file as JSON in a textarea (docs/automations.md has the format), sent as it is:
 * the server is the judge, and its refusal is shown beside the textarea.
 */
function FileForm(props: { label: string; initial: string; submit: string; onSave: (file: Record<string, unknown>) => Promise<void>; extra?: preact.ComponentChildren }) {
  const [text, setText] = useState(props.initial);
  const { busy, error, run, setError } = useSubmit(async () => {
    const parsed = parseFile(text);
    if ('error' in parsed) throw new Error(parsed.error);
    await props.onSave(parsed.file);
  });
  return (
    <form
      aria-label={props.label}
      class="automation-file"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <div class="field">
        <label for="automation-file">Automation file (JSON)</label>
        <textarea
          id="automation-file"
          rows={24}
          spellcheck={false}
          autoComplete="off"
          value={text}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'automation-file-hint automation-file-error' : 'automation-file-hint'}
          onInput={(e) => {
            setText((e.target as HTMLTextAreaElement).value);
            if (error) setError(undefined);
          }}
        />
        <p class="hint" id="automation-file-hint">
          The key, name, entries (api, event), re-entry, exit, start and steps (push, in-app, webhook, profile-update, condition, wait, exit), as described in docs/automations.md.
        </p>
      </div>
      {error && <FileError error={error} id="automation-file-error" />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Working…' : props.submit}
        </button>
        {props.extra}
      </div>
    </form>
  );
}

export function AutomationCreate({ environmentId }: { environmentId: string }) {
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="New automation" crumbs={[{ label: 'Automations', path: '/automations' }]} />
      <p>A new automation is a draft (version 1): runs enter it once it is published from its page. The example below shows every kind of branch; replace it with yours.</p>
      <FileForm
        label="New automation"
        submit="Create automation"
        initial={fileText(NEW_AUTOMATION)}
        onSave={async (file) => {
          const a = await call<AutomationDetail, `POST ${typeof BASE}`>(`POST ${BASE}`, { params: { environmentId }, body: file });
          leave(environmentId, a.key, { apiKey: a.automationApiKey, notice: `Created ${a.key} as a draft, version ${a.version}.` });
        }}
      />
    </>
  );
}

/**
 * An automation's latest version as its file, saved with If-Match of the version the page read
 * (another save in between is refused in words, and overwrites nothing).
 */
export function AutomationEdit({ environmentId, automationKey }: { environmentId: string; automationKey: string }) {
  const params = { environmentId, automationKey };
  const detail = useCall<AutomationDetail, `GET ${typeof ONE}`>(`GET ${ONE}`, { params });
  const a = detail.data;
  const back = envPath(environmentId, 'automations', automationKey);
  return (
    <>
      <EnvPageHeader
        environmentId={environmentId}
        title={`Edit automation ${automationKey}`}
        crumbs={[
          { label: 'Automations', path: '/automations' },
          { label: automationKey, path: `/automations/${encodeURIComponent(automationKey)}` },
        ]}
      />
      {detail.error && <ErrorBox error={detail.error} />}
      {a && (a.configurationManaged || a.status === 'ARCHIVED') && <p>{a.configurationManaged ? 'Managed by engage apply: change it in the configuration file.' : 'An archived automation cannot be edited.'}</p>}
      {a && !a.configurationManaged && a.status !== 'ARCHIVED' && (
        <>
          <p>
            {a.status === 'DRAFT'
              ? `Editing version ${a.version}: a draft keeps the edit, runs enter it once published.`
              : `Editing version ${a.version}: saving publishes the edit at once as a new version (checked as at publish); runs under way stay on theirs.`}
          </p>
          <FileForm
            key={a.version}
            label={`Edit automation ${automationKey}`}
            submit="Save"
            initial={fileText(a.definition)}
            extra={<Link href={back}>Back to the automation</Link>}
            onSave={async (file) => {
              const r = await call<AutomationDetail, `PUT ${typeof ONE}`>(`PUT ${ONE}`, { params, headers: { 'If-Match': `"${a.version}"` }, body: file });
              leave(environmentId, automationKey, { notice: r.changed === false ? 'Nothing changed: no new version.' : `Saved as version ${r.version}.` });
            }}
          />
          {detail.loading && <p class="muted">Loading…</p>}
        </>
      )}
    </>
  );
}
