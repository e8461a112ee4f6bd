import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';

export interface Tenant {
  id: string;
  slug: string;
  issuer: string;
  status: 'ACTIVE' | 'DISABLED';
  registrationMode: string;
  clientCount: number;
  resourceCount: number;
  createdAt: string;
  managedIssuer: string;
  configurationManaged: boolean;
  slugLocked: boolean;
  issuerLocked: boolean;
}

export function IdentityOverview() {
  const { data, error } = useCall<{ tenants: number; clients: number; resources: number; activeFederations: number }, 'GET /identity/admin/overview'>('GET /identity/admin/overview');
  return (
    <>
      <PageHeader title="Identity overview" />
      {error && <ErrorBox error={error} />}
      {data && (
        <dl class="stats">
          <div>
            <dt>Tenants</dt>
            <dd>{data.tenants}</dd>
          </div>
          <div>
            <dt>Clients</dt>
            <dd>{data.clients}</dd>
          </div>
          <div>
            <dt>Resources</dt>
            <dd>{data.resources}</dd>
          </div>
          <div>
            <dt>Active federations</dt>
            <dd>{data.activeFederations}</dd>
          </div>
        </dl>
      )}
    </>
  );
}

export function TenantList() {
  const list = usePaged<Tenant, 'GET /identity/admin/tenants'>('GET /identity/admin/tenants');
  return (
    <>
      <PageHeader title="Tenants">
        <Link class="button primary" href={href('/identity/tenants/new')}>
          Create a tenant
        </Link>
      </PageHeader>
      <DataTable
        caption="Tenants"
        rows={list.data?.items}
        rowKey={(t) => t.id}
        loading={list.loading}
        error={list.error}
        pager={{ index: list.index, hasMore: !!list.data?.hasMore, next: list.next, previous: list.previous }}
        columns={[
          { header: 'Slug', cell: (t) => <Link href={href('/identity/tenants', t.id)}>{t.slug}</Link> },
          { header: 'Issuer', cell: (t) => <code>{t.issuer}</code> },
          { header: 'Status', cell: (t) => t.status },
          { header: 'Clients', cell: (t) => t.clientCount },
        ]}
      />
    </>
  );
}

export function TenantCreate() {
  const [slug, setSlug] = useState('');
  const [mode, setMode] = useState('CONTROLLED');
  return (
    <>
      <PageHeader title="Create a tenant" crumbs={[{ label: 'Tenants', path: '/identity/tenants' }]} />
      <Form
        label="Create a tenant"
        submit="Create tenant"
        onSubmit={async () => {
          const t = await call<Tenant, 'POST /identity/admin/tenants'>('POST /identity/admin/tenants', { body: { slug, registrationMode: mode } });
          navigate(href('/identity/tenants', t.id));
        }}
      >
        <Field label="Slug" hint="Lower-case letters, digits and hyphens; it names the tenant's issuer path.">
          {(a) => <input {...a} {...bind(slug, setSlug)} required autoComplete="off" />}
        </Field>
        <Field label="Registration">
          {(a) => (
            <select {...a} value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
              <option value="CONTROLLED">Controlled: operators create users</option>
              <option value="SELF_SERVICE">Self-service: people may register</option>
            </select>
          )}
        </Field>
      </Form>
    </>
  );
}

export function TenantDetail({ tenantId }: { tenantId: string }) {
  const { data: t, error } = useCall<Tenant, 'GET /identity/admin/tenants/{tenantId}'>('GET /identity/admin/tenants/{tenantId}', { params: { tenantId } });
  return (
    <>
      <PageHeader title={t ? `Tenant ${t.slug}` : 'Tenant'} crumbs={[{ label: 'Tenants', path: '/identity/tenants' }]} />
      {error && <ErrorBox error={error} />}
      {t && (
        <dl class="facts">
          <dt>Issuer</dt>
          <dd>
            <code>{t.issuer}</code>
          </dd>
          <dt>Status</dt>
          <dd>{t.status}</dd>
          <dt>Registration</dt>
          <dd>{t.registrationMode}</dd>
          <dt>Locks</dt>
          <dd>
            {t.slugLocked ? 'The slug cannot change (it names the management API’s issuer). ' : ''}
            {t.issuerLocked ? 'The issuer cannot change while tokens it signed may still be in use. ' : ''}
            {t.configurationManaged ? 'Managed by engage apply: change it in the configuration file.' : ''}
            {!t.slugLocked && !t.issuerLocked && !t.configurationManaged ? 'None' : ''}
          </dd>
        </dl>
      )}
    </>
  );
}
