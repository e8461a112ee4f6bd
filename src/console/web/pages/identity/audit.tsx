import { useState } from 'preact/hooks';
import { useRoute } from '../../router';
import { AuditEventsTable, AuditFilterForm, type AuditEvent, type AuditFilters } from '../../ui/audit';
import { useCall, usePaged, type PageBody } from '../../ui/data';
import { Field } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import type { Tenant } from './tenants';

type Filters = AuditFilters & { tenant?: string };

/** The management API's audit trail, newest first, with its filters (tenant, action, actor, time) as a form. */
export function IdentityAudit() {
  const { query } = useRoute();
  const tenants = useCall<PageBody<Tenant>, 'GET /identity/admin/tenants'>('GET /identity/admin/tenants', { query: { size: 200 } });
  const [tenant, setTenant] = useState(query.get('tenant') ?? '');
  const [applied, setApplied] = useState<Filters>({ tenant: query.get('tenant') || undefined, action: query.get('action') || undefined });
  const list = usePaged<AuditEvent, 'GET /identity/admin/audit-events'>('GET /identity/admin/audit-events', { query: applied });
  const slugOf = new Map((tenants.data?.items ?? []).map((t) => [t.id, t.slug]));
  return (
    <>
      <PageHeader title="Identity audit events" />
      <p>Every change made through the management API and the CLI, newest first: who did it, to what, and what changed (never a secret).</p>
      <AuditFilterForm
        actionHint="Exactly, e.g. user.created, user.updated, tenant.updated, user.mfa_reset."
        initialAction={query.get('action') ?? ''}
        onApply={(filters) => setApplied({ tenant: tenant || undefined, ...filters })}
        onClear={() => {
          setTenant('');
          setApplied({});
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
      </AuditFilterForm>
      <AuditEventsTable
        list={list}
        viaClient
        more={[{ header: 'Tenant', cell: (e) => (e.tenantId ? (slugOf.get(e.tenantId) ?? <code>{e.tenantId}</code>) : '—') }]}
        details={(e) => (Object.keys(e.details).length ? <code class="details">{JSON.stringify(e.details)}</code> : '—')}
      />
    </>
  );
}
