import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';

export interface Environment {
  id: string;
  name: string;
  displayName: string;
  status: 'ACTIVE' | 'DISABLED' | 'DELETING';
  identityTenantId: string | null;
  configurationManaged: boolean;
  createdAt: string;
}

export function EnvironmentList() {
  const list = usePaged<Environment, 'GET /engage/admin/environments'>('GET /engage/admin/environments');
  return (
    <>
      <PageHeader title="Environments">
        <Link class="button primary" href={href('/engage/environments/new')}>
          Create an environment
        </Link>
      </PageHeader>
      <DataTable
        caption="Environments"
        rows={list.data?.items}
        rowKey={(e) => e.id}
        loading={list.loading}
        error={list.error}
        pager={{ index: list.index, hasMore: !!list.data?.hasMore, next: list.next, previous: list.previous }}
        empty="No environment yet, or none you hold a permission on."
        columns={[
          { header: 'Name', cell: (e) => <Link href={href('/engage/environments', e.name)}>{e.name}</Link> },
          { header: 'Display name', cell: (e) => e.displayName },
          { header: 'Status', cell: (e) => e.status },
        ]}
      />
    </>
  );
}

export function EnvironmentCreate() {
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  return (
    <>
      <PageHeader title="Create an environment" crumbs={[{ label: 'Environments', path: '/engage/environments' }]} />
      <Form
        label="Create an environment"
        submit="Create environment"
        onSubmit={async () => {
          const e = await call<Environment, 'POST /engage/admin/environments'>('POST /engage/admin/environments', { body: { name, ...(displayName ? { displayName } : {}) } });
          navigate(href('/engage/environments', e.name));
        }}
      >
        <Field label="Name" hint="Lower-case letters, digits and hyphens, e.g. prod. It names the environment in URLs and the CLI.">
          {(a) => <input {...a} {...bind(name, setName)} required autoComplete="off" />}
        </Field>
        <Field label="Display name" hint="Optional, shown to people.">
          {(a) => <input {...a} {...bind(displayName, setDisplayName)} autoComplete="off" />}
        </Field>
      </Form>
    </>
  );
}

export function EnvironmentDetail({ environmentId }: { environmentId: string }) {
  const { data: e, error } = useCall<Environment, 'GET /engage/admin/environments/{environmentId}'>('GET /engage/admin/environments/{environmentId}', { params: { environmentId } });
  return (
    <>
      <PageHeader title={e ? e.displayName : environmentId} crumbs={[{ label: 'Environments', path: '/engage/environments' }]} />
      {error && <ErrorBox error={error} />}
      {e && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{e.name}</dd>
          <dt>Status</dt>
          <dd>{e.status}</dd>
          <dt>Created</dt>
          <dd>{new Date(e.createdAt).toLocaleString()}</dd>
        </dl>
      )}
    </>
  );
}
