import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import { when } from '../../ui/format';
import type { Tenant } from './tenants';

interface Federation {
  sourceTenantId: string;
  targetTenantId: string;
  sourceIssuer: string;
  targetIssuer: string;
  status: string;
  createdAt: string;
}

/** The tenants by id (for their slugs), as far as the first 200. */
function useTenants() {
  const t = useCall<{ items: Tenant[] }, 'GET /identity/admin/tenants'>('GET /identity/admin/tenants', { query: { size: 200 } });
  const byId = new Map((t.data?.items ?? []).map((x) => [x.id, x]));
  return { tenants: t.data?.items ?? [], byId, error: t.error };
}

/** What a person types to delete a federation: its two tenants' slugs. */
const nameOf = (f: Federation, byId: Map<string, Tenant>) => `${byId.get(f.sourceTenantId)?.slug ?? f.sourceTenantId}-to-${byId.get(f.targetTenantId)?.slug ?? f.targetTenantId}`;

/** Federations between tenants (environment-wide): list, create, delete. */
export function FederationList() {
  const list = usePaged<Federation, 'GET /identity/admin/federations'>('GET /identity/admin/federations');
  const { tenants, byId } = useTenants();
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  const [removing, setRemoving] = useState<Federation | undefined>();
  const [notice, setNotice] = useState('');
  const tenantCell = (id: string, issuer: string) => {
    const t = byId.get(id);
    return (
      <span>
        <Link href={href('/identity/tenants', id)}>{t?.slug ?? id}</Link>
        <br />
        <code class="muted">{issuer}</code>
      </span>
    );
  };
  const options = tenants.map((t) => (
    <option key={t.id} value={t.id}>
      {t.slug}
    </option>
  ));
  return (
    <>
      <PageHeader title="Federations" />
      <p class="muted">A federation lets the users of a source tenant sign in at a target tenant through the source: the target’s sign-in page offers “Sign in with” the source.</p>
      {notice && <Notice>{notice}</Notice>}
      <DataTable
        caption="Federations"
        {...paged(list)}
        rowKey={(f) => `${f.sourceTenantId}/${f.targetTenantId}`}
        empty="No federation yet."
        columns={[
          { header: 'Source (users come from)', cell: (f) => tenantCell(f.sourceTenantId, f.sourceIssuer) },
          { header: 'Target (users sign in at)', cell: (f) => tenantCell(f.targetTenantId, f.targetIssuer) },
          { header: 'Status', cell: (f) => f.status },
          { header: 'Created', cell: (f) => when(f.createdAt) },
          {
            header: 'Actions',
            cell: (f) => (
              <button type="button" class="danger" onClick={() => setRemoving(f)} aria-label={`Delete federation ${nameOf(f, byId)}`}>
                Delete
              </button>
            ),
          },
        ]}
      />
      <h2>Create a federation</h2>
      <Form
        label="Create a federation"
        submit="Create federation"
        onSubmit={async () => {
          const body = { sourceTenantId: source || tenants[0]?.id, targetTenantId: target || tenants[0]?.id };
          await call('POST /identity/admin/federations', { body });
          setNotice(`Users of ${byId.get(body.sourceTenantId)?.slug ?? 'the source'} may now sign in at ${byId.get(body.targetTenantId)?.slug ?? 'the target'}.`);
          list.reload();
        }}
      >
        <Field label="Source tenant" hint="The tenant whose users sign in (they authenticate at its issuer).">
          {(a) => (
            <select {...a} value={source || tenants[0]?.id} onChange={(e) => setSource((e.target as HTMLSelectElement).value)}>
              {options}
            </select>
          )}
        </Field>
        <Field label="Target tenant" hint="The tenant they sign in at.">
          {(a) => (
            <select {...a} value={target || tenants[0]?.id} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
              {options}
            </select>
          )}
        </Field>
      </Form>
      <ConfirmByName
        open={!!removing}
        title="Delete a federation"
        name={removing ? nameOf(removing, byId) : ''}
        consequence="Sign-ins through the source tenant stop at once. Accounts already created at the target stay."
        action="Delete federation"
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          if (!removing) return;
          await call('DELETE /identity/admin/federations/{sourceTenantId}/{targetTenantId}', { params: { sourceTenantId: removing.sourceTenantId, targetTenantId: removing.targetTenantId } });
          setNotice(`Federation ${nameOf(removing, byId)} is deleted.`);
          setRemoving(undefined);
          list.reload();
        }}
      />
    </>
  );
}
