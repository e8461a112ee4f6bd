import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import { TenantTabs } from './tenant-tabs';

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
        {...paged(list)}
        rowKey={(t) => t.id}
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

/** A tenant's registration mode, as the create and edit forms ask it. */
function RegistrationField({ mode, setMode }: { mode: string; setMode: (mode: string) => void }) {
  return (
    <Field label="Registration">
      {(a) => (
        <select {...a} value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
          <option value="CONTROLLED">Controlled: operators create users</option>
          <option value="SELF_SERVICE">Self-service: people may register</option>
        </select>
      )}
    </Field>
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
        <RegistrationField mode={mode} setMode={setMode} />
      </Form>
    </>
  );
}

/** One tenant, loaded once for the pages of its tabs (their header names it). */
export function useTenant(tenantId: string) {
  return useCall<Tenant, 'GET /identity/admin/tenants/{tenantId}'>('GET /identity/admin/tenants/{tenantId}', { params: { tenantId } });
}

/** The header of a tenant's page: breadcrumbs to the tenant, the page's title, the tenant's tabs. */
export function TenantHeader(props: { tenantId: string; tenant?: Tenant; title: string; children?: ComponentChildren }) {
  const crumbs = [{ label: 'Tenants', path: '/identity/tenants' }];
  if (props.title !== `Tenant ${props.tenant?.slug ?? ''}`) crumbs.push({ label: props.tenant ? `Tenant ${props.tenant.slug}` : 'Tenant', path: `/identity/tenants/${encodeURIComponent(props.tenantId)}` });
  return (
    <>
      <PageHeader title={props.title} crumbs={crumbs}>
        {props.children}
      </PageHeader>
      <TenantTabs tenantId={props.tenantId} />
    </>
  );
}

/** What each lock means, in words (spec 03's lock fields). */
function LockList({ t }: { t: Tenant }) {
  const locks = [
    t.configurationManaged && 'Managed by engage apply: nothing can change here; change the configuration file and apply it.',
    t.slugLocked && 'The slug is locked: it names the control issuer, which every operator’s token comes from.',
    t.issuerLocked && 'The issuer is locked: the control issuer cannot move (the console and the administration APIs live under it).',
  ].filter((x): x is string => !!x);
  if (locks.length === 0) return <p>None: slug, issuer and registration may change.</p>;
  return (
    <ul class="locks">
      {locks.map((l) => (
        <li key={l}>{l}</li>
      ))}
    </ul>
  );
}

export function TenantDetail({ tenantId }: { tenantId: string }) {
  const { data: t, error } = useTenant(tenantId);
  const editable = t && !t.configurationManaged;
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={t} title={t ? `Tenant ${t.slug}` : 'Tenant'}>
        <Link class="button" href={`${href('/identity/audit')}?tenant=${encodeURIComponent(tenantId)}`}>
          Audit events
        </Link>
        {editable && (
          <Link class="button" href={href('/identity/tenants', tenantId, 'edit')}>
            Edit tenant
          </Link>
        )}
      </TenantHeader>
      {error && <ErrorBox error={error} />}
      {t && (
        <dl class="facts">
          <dt>Issuer</dt>
          <dd>
            <code>{t.issuer}</code>
          </dd>
          <dt>Managed issuer</dt>
          <dd>
            <code>{t.managedIssuer}</code>
          </dd>
          <dt>Status</dt>
          <dd>{t.status}</dd>
          <dt>Registration</dt>
          <dd>{t.registrationMode === 'SELF_SERVICE' ? 'Self-service: people may register' : 'Controlled: operators create users'}</dd>
          <dt>Clients</dt>
          <dd>{t.clientCount}</dd>
          <dt>Resources</dt>
          <dd>{t.resourceCount}</dd>
          <dt>Created</dt>
          <dd>{new Date(t.createdAt).toLocaleString()}</dd>
          <dt>Locks</dt>
          <dd>
            <LockList t={t} />
          </dd>
        </dl>
      )}
    </>
  );
}

/**
 * A tenant's slug, issuer and registration mode (PUT replaces all three). A locked field is shown
 * read-only with the reason; a configuration-managed tenant cannot be edited at all.
 */
export function TenantEdit({ tenantId }: { tenantId: string }) {
  const { data: t, error } = useTenant(tenantId);
  return (
    <>
      <TenantHeader tenantId={tenantId} tenant={t} title={t ? `Edit tenant ${t.slug}` : 'Edit tenant'} />
      {error && <ErrorBox error={error} />}
      {t && <TenantEditForm t={t} />}
    </>
  );
}

function TenantEditForm({ t }: { t: Tenant }) {
  const [slug, setSlug] = useState(t.slug);
  const [issuer, setIssuer] = useState(t.issuer);
  const [mode, setMode] = useState(t.registrationMode);
  if (t.configurationManaged) {
    return (
      <div class="status-banner" role="note">
        <p>This tenant is managed by engage apply: change it in the configuration file and apply it. The management API refuses changes here (configuration_managed).</p>
      </div>
    );
  }
  return (
    <Form
      label="Edit tenant"
      submit="Save tenant"
      onSubmit={async () => {
        await call<Tenant, 'PUT /identity/admin/tenants/{tenantId}'>('PUT /identity/admin/tenants/{tenantId}', {
          params: { tenantId: t.id },
          body: { slug: slug.trim(), issuer: issuer.trim(), registrationMode: mode },
        });
        navigate(href('/identity/tenants', t.id));
      }}
    >
      <Field
        label="Slug"
        hint={
          t.slugLocked
            ? 'Locked: the control tenant’s slug names the control issuer.'
            : 'Lower-case letters, digits and inner hyphens. A renamed tenant keeps its managed issuer (its path holds the slug it was created with), so tokens and relying parties keep working.'
        }
      >
        {(a) => <input {...a} {...bind(slug, setSlug)} required readOnly={t.slugLocked} autoComplete="off" spellcheck={false} />}
      </Field>
      <Field
        label="Issuer"
        hint={
          t.issuerLocked
            ? 'Locked: the control issuer cannot change.'
            : `The managed issuer (${t.managedIssuer}) or a custom one, host only: scheme and host, no path (https://id.example.com). A host serves one tenant. Relying parties must follow a change.`
        }
      >
        {(a) => <input {...a} type="url" {...bind(issuer, setIssuer)} required readOnly={t.issuerLocked} autoComplete="off" spellcheck={false} />}
      </Field>
      <RegistrationField mode={mode} setMode={setMode} />
    </Form>
  );
}
