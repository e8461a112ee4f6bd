import { useState } from 'preact/hooks';
import { useRoute } from '../../router';
import { DataTable, useCall, usePaged, type PageBody } from '../../ui/data';
import { Field, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import type { Tenant } from './tenants';

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

/** A datetime-local value (the reader's time) as RFC 3339, or undefined. */
const instant = (local: string) => {
  if (!local) return undefined;
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

type Filters = { tenant?: string; action?: string; actor?: string; from?: string; to?: string };

/** The management API's audit trail, newest first, with its filters (tenant, action, actor, time) as a form. */
export function IdentityAudit() {
  const { query } = useRoute();
  const tenants = useCall<PageBody<Tenant>, 'GET /identity/admin/tenants'>('GET /identity/admin/tenants', { query: { size: 200 } });
  const [tenant, setTenant] = useState(query.get('tenant') ?? '');
  const [action, setAction] = useState(query.get('action') ?? '');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [applied, setApplied] = useState<Filters>({ tenant: query.get('tenant') || undefined, action: query.get('action') || undefined });
  const list = usePaged<AuditEvent, 'GET /identity/admin/audit-events'>('GET /identity/admin/audit-events', { query: applied });
  const slugOf = new Map((tenants.data?.items ?? []).map((t) => [t.id, t.slug]));
  return (
    <>
      <PageHeader title="Identity audit events" />
      <p>Every change made through the management API and the CLI, newest first: who did it, to what, and what changed (never a secret).</p>
      <form
        class="filters"
        aria-label="Filter the audit events"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ tenant: tenant || undefined, action: action.trim() || undefined, actor: actor.trim() || undefined, from: instant(from), to: instant(to) });
        }}
      >
        <Field label="Tenant">
          {(a) => (
            <select {...a} value={tenant} onChange={(e) => setTenant((e.target as HTMLSelectElement).value)}>
              <option value="">All tenants</option>
              {tenants.data?.items.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.slug}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Action" hint="Exactly, e.g. user.created, user.updated, tenant.updated, user.mfa_reset.">
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
              setTenant('');
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
      <DataTable
        caption="Audit events"
        rows={list.data?.items}
        rowKey={(e) => e.id}
        loading={list.loading}
        error={list.error}
        pager={{ index: list.index, hasMore: !!list.data?.hasMore, next: list.next, previous: list.previous }}
        empty="No audit event matches."
        columns={[
          { header: 'When', cell: (e) => new Date(e.createdAt).toLocaleString() },
          { header: 'Action', cell: (e) => <code>{e.action}</code> },
          { header: 'Tenant', cell: (e) => (e.tenantId ? (slugOf.get(e.tenantId) ?? <code>{e.tenantId}</code>) : '—') },
          {
            header: 'Actor',
            cell: (e) => (
              <>
                <code>{e.actorSubject}</code>
                {e.actorClientId && (
                  <>
                    {' '}
                    via <code>{e.actorClientId}</code>
                  </>
                )}
              </>
            ),
          },
          {
            header: 'Target',
            cell: (e) => (
              <>
                {e.targetType} <code>{e.targetId}</code>
              </>
            ),
          },
          { header: 'Details', cell: (e) => (Object.keys(e.details).length ? <code class="details">{JSON.stringify(e.details)}</code> : '—') },
        ]}
      />
    </>
  );
}
