import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { Field, Form, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import { EnvironmentTabs } from './environment-tabs';

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
        {...paged(list)}
        rowKey={(e) => e.id}
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

/** The environment a page is about (by id or name, as its URL names it). */
export function useEnvironment(environmentId: string) {
  return useCall<Environment, 'GET /engage/admin/environments/{environmentId}'>('GET /engage/admin/environments/{environmentId}', { params: { environmentId } });
}

/** The head of every page of one environment: breadcrumbs, its heading, the environment's tabs. */
export function EnvironmentHeader(props: { environmentId: string; title: string; environment?: Environment; children?: ComponentChildren }) {
  const { environmentId, environment } = props;
  const crumbs = [{ label: 'Environments', path: '/engage/environments' }];
  if (props.title !== (environment?.displayName ?? environmentId)) crumbs.push({ label: environment?.displayName ?? environmentId, path: `/engage/environments/${encodeURIComponent(environmentId)}` });
  return (
    <>
      <PageHeader title={props.title} crumbs={crumbs}>
        {props.children}
      </PageHeader>
      <EnvironmentTabs environmentId={environmentId} />
      {environment && environment.status !== 'ACTIVE' && (
        <p class="status-banner" role="status">
          {environment.status === 'DISABLED' ? 'This environment is disabled: its installations and backends are refused and it sends nothing.' : 'This environment is being deleted.'}
        </p>
      )}
    </>
  );
}

/** A date and time in the reader's locale, or a dash. */
