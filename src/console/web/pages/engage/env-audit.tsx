import { useState } from 'preact/hooks';
import { DataTable, usePaged } from '../../ui/data';
import { Field, bind } from '../../ui/forms';
import { EnvironmentHeader, useEnvironment, when } from './environments';

interface AuditEvent {
  id: string;
  tenantId: string | null;
  environmentId: string | null;
  actorSubject: string;
  actorClientId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
  createdAt: string;
}

/** What changed, one `key: value` a line (the environment, which every event here has, left out). */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details).filter(([k]) => k !== 'environmentId');
  if (entries.length === 0) return <>—</>;
  return (
    <ul class="audit-details">
      {entries.map(([k, v]) => (
        <li key={k}>
          {k}: <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
        </li>
      ))}
    </ul>
  );
}

/** A datetime-local value (the reader's time) as RFC 3339, or undefined. */
const instant = (local: string) => {
  if (!local) return undefined;
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

/** The environment's audit trail, newest first, filtered by action, actor and time (the API's filters). */
export function EnvironmentAudit({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [applied, setApplied] = useState<{ action?: string; actor?: string; from?: string; to?: string }>({});
  const list = usePaged<AuditEvent, 'GET /engage/admin/environments/{environmentId}/audit-events'>('GET /engage/admin/environments/{environmentId}/audit-events', {
    params: { environmentId },
    query: applied,
  });
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Audit events" />
      <form
        class="filters"
        aria-label="Filter the audit events"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ action: action.trim() || undefined, actor: actor.trim() || undefined, from: instant(from), to: instant(to) });
        }}
      >
        <Field label="Action" hint="Exactly, e.g. app.created, access_key.rotated, profile.erased.">
          {(a) => <input {...a} {...bind(action, setAction)} autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Actor" hint="A token’s subject, or os:<user> for the CLI.">
          {(a) => <input {...a} {...bind(actor, setActor)} autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="From" hint="At or after, your local time.">
          {(a) => <input {...a} type="datetime-local" {...bind(from, setFrom)} />}
        </Field>
        <Field label="To" hint="Before, your local time.">
          {(a) => <input {...a} type="datetime-local" {...bind(to, setTo)} />}
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Filter
          </button>
          <button
            type="button"
            onClick={() => {
              setAction('');
              setActor('');
              setFrom('');
              setTo('');
              setApplied({});
            }}
          >
            Clear filters
          </button>
        </div>
      </form>
      <div class="wide-table">
        <DataTable
          caption="Audit events"
          rows={list.data?.items}
          rowKey={(e) => e.id}
          loading={list.loading}
          error={list.error}
          pager={{ index: list.index, hasMore: !!list.data?.hasMore, next: list.next, previous: list.previous }}
          empty="No audit event matches."
          columns={[
            { header: 'When', cell: (e) => when(e.createdAt) },
            { header: 'Action', cell: (e) => <code>{e.action}</code> },
            { header: 'Actor', cell: (e) => <code>{e.actorSubject}</code> },
            { header: 'Target', cell: (e) => (
              <>
                {e.targetType} <code>{e.targetId}</code>
              </>
            ) },
            { header: 'Details', cell: (e) => <Details details={e.details} /> },
          ]}
        />
      </div>
    </>
  );
}
