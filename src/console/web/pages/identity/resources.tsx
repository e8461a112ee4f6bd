import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, usePaged, paged } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { TenantFrame, words } from './apps-frame';

export interface Resource {
  uri: string;
  audience: string;
  status: 'ACTIVE' | 'DISABLED';
  scopes: string[];
}

/** A tenant's resources (RFC 8707 resource indicators) and the form registering one. */
export function ResourceList({ tenantId }: { tenantId: string }) {
  const list = usePaged<Resource, 'GET /identity/admin/tenants/{tenantId}/resources'>('GET /identity/admin/tenants/{tenantId}/resources', { params: { tenantId } });
  const [uri, setUri] = useState('');
  const [audience, setAudience] = useState('');
  const [scopes, setScopes] = useState('');
  const [done, setDone] = useState('');
  return (
    <TenantFrame tenantId={tenantId} title="Resources">
      <DataTable
        caption="Resources"
        {...paged(list)}
        rowKey={(r) => r.uri}
        empty="No resource registered in this tenant yet."
        columns={[
          { header: 'Resource URI', cell: (r) => <code>{r.uri}</code> },
          { header: 'Audience', cell: (r) => <code>{r.audience}</code> },
          { header: 'Scopes', cell: (r) => (r.scopes.length ? r.scopes.join(' ') : '—') },
          { header: 'Status', cell: (r) => r.status },
        ]}
      />
      <h2>Register a resource</h2>
      {done && <Notice>Resource {done} is registered.</Notice>}
      <Form
        label="Register a resource"
        submit="Register resource"
        onSubmit={async () => {
          const r = await call<Resource, 'POST /identity/admin/tenants/{tenantId}/resources'>('POST /identity/admin/tenants/{tenantId}/resources', {
            params: { tenantId },
            body: { uri: uri.trim(), audience: audience.trim() || uri.trim(), scopes: words(scopes) },
          });
          setDone(r.uri);
          setUri('');
          setAudience('');
          setScopes('');
          list.reload();
        }}
      >
        <Field label="Resource URI" hint="An absolute URI without a fragment, e.g. https://api.example.com. Clients name it in the resource parameter.">
          {(a) => <input {...a} {...bind(uri, setUri)} required autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Audience" hint="The value the API expects in the token's aud claim. Empty: the resource URI.">
          {(a) => <input {...a} {...bind(audience, setAudience)} autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Scopes" hint="Separated by spaces, e.g. orders.read orders.write.">
          {(a) => <input {...a} {...bind(scopes, setScopes)} autoComplete="off" spellcheck={false} />}
        </Field>
      </Form>
    </TenantFrame>
  );
}
