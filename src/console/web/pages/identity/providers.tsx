import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, usePaged, paged } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';
import { when } from '../../ui/format';
import { TenantFrame, lines } from './apps-frame';

interface Provider {
  name: string;
  issuer: string;
  audiences: string[];
  createdAt: string;
}

/** A tenant's social identity providers (OpenID Connect issuers whose ID tokens native apps exchange): list, add, remove. */
export function ProviderList({ tenantId }: { tenantId: string }) {
  const list = usePaged<Provider, 'GET /identity/admin/tenants/{tenantId}/providers'>('GET /identity/admin/tenants/{tenantId}/providers', { params: { tenantId } });
  const [name, setName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [audiences, setAudiences] = useState('');
  const [removing, setRemoving] = useState<Provider | undefined>();
  const [notice, setNotice] = useState('');
  return (
    <TenantFrame tenantId={tenantId} title="Social providers">
      <p class="muted">A native app signs people in with an ID token of one of these issuers (Google, Apple, …); the tenant checks it against the issuer’s published keys and the audiences below.</p>
      {notice && <Notice>{notice}</Notice>}
      <DataTable
        caption="Social providers"
        {...paged(list)}
        rowKey={(p) => p.name}
        empty="No social provider in this tenant yet."
        columns={[
          { header: 'Name', cell: (p) => p.name },
          { header: 'Issuer', cell: (p) => <code>{p.issuer}</code> },
          { header: 'Audiences', cell: (p) => p.audiences.join(', ') },
          { header: 'Added', cell: (p) => when(p.createdAt) },
          {
            header: 'Actions',
            cell: (p) => (
              <button type="button" class="danger" onClick={() => setRemoving(p)} aria-label={`Remove provider ${p.name}`}>
                Remove
              </button>
            ),
          },
        ]}
      />
      <h2>Add a provider</h2>
      <Form
        label="Add a provider"
        submit="Add provider"
        onSubmit={async () => {
          const p = await call<Provider, 'POST /identity/admin/tenants/{tenantId}/providers'>('POST /identity/admin/tenants/{tenantId}/providers', {
            params: { tenantId },
            body: { name: name.trim(), issuer: issuer.trim(), audiences: lines(audiences) },
          });
          setNotice(`Provider ${p.name} is added.`);
          setName('');
          setIssuer('');
          setAudiences('');
          list.reload();
        }}
      >
        <Field label="Name" hint="What apps send as provider, e.g. google: lower-case letters, digits, - or _.">
          {(a) => <input {...a} {...bind(name, setName)} required autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Issuer" hint="The issuer URL exactly as in its ID tokens, e.g. https://accounts.google.com.">
          {(a) => <input {...a} {...bind(issuer, setIssuer)} required autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Audiences" hint="One per line: your app's client ids at that issuer (1 to 20).">
          {(a) => <textarea {...a} value={audiences} onInput={(e) => setAudiences((e.target as HTMLTextAreaElement).value)} required spellcheck={false} />}
        </Field>
      </Form>
      <ConfirmByName
        open={!!removing}
        title="Remove a social provider"
        name={removing?.name ?? ''}
        consequence="Its ID tokens are refused from now on. Accounts linked to it are kept, and work again if it is added back."
        action="Remove provider"
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          if (!removing) return;
          await call('DELETE /identity/admin/tenants/{tenantId}/providers/{name}', { params: { tenantId, name: removing.name } });
          setNotice(`Provider ${removing.name} is removed.`);
          setRemoving(undefined);
          list.reload();
        }}
      />
    </TenantFrame>
  );
}
