import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { Notice, SecretOnce } from '../../ui/feedback';
import { ConfirmByName, Field, Form } from '../../ui/forms';
import { when } from '../../ui/format';
import { TenantFrame } from './apps-frame';
import type { Resource } from './resources';

interface Credential {
  credentialId: string;
  resourceUri: string;
  status: 'ACTIVE' | 'REVOKED';
  createdAt: string;
}

/** What a person types to revoke a credential: the start of its id (shown in the list). */
const shortId = (id: string) => id.slice(0, 8);

/** A tenant's resource-server credentials: issue one (its secret shown once), revoke one. */
export function CredentialList({ tenantId }: { tenantId: string }) {
  const list = usePaged<Credential, 'GET /identity/admin/tenants/{tenantId}/credentials'>('GET /identity/admin/tenants/{tenantId}/credentials', { params: { tenantId } });
  const resources = useCall<{ items: Resource[] }, 'GET /identity/admin/tenants/{tenantId}/resources'>('GET /identity/admin/tenants/{tenantId}/resources', { params: { tenantId }, query: { size: 200 } });
  const [resourceUri, setResourceUri] = useState('');
  const [issued, setIssued] = useState<{ credentialId: string; credentialSecret: string } | undefined>();
  const [revoking, setRevoking] = useState<Credential | undefined>();
  const [revoked, setRevoked] = useState('');
  const choices = resources.data?.items ?? [];
  const chosen = resourceUri || choices[0]?.uri || '';
  return (
    <TenantFrame tenantId={tenantId} title="Resource-server credentials">
      <p class="muted">A resource server (an API) uses a credential to introspect the tokens issued for its resource.</p>
      {revoked && <Notice>Credential {revoked} is revoked.</Notice>}
      <DataTable
        caption="Credentials"
        {...paged(list)}
        rowKey={(c) => c.credentialId}
        empty="No credential issued in this tenant yet."
        columns={[
          { header: 'Credential', cell: (c) => <code title={c.credentialId}>{shortId(c.credentialId)}</code> },
          { header: 'Resource', cell: (c) => <code>{c.resourceUri}</code> },
          { header: 'Status', cell: (c) => c.status },
          { header: 'Issued', cell: (c) => when(c.createdAt) },
          {
            header: 'Actions',
            cell: (c) =>
              c.status === 'ACTIVE' ? (
                <button type="button" class="danger" onClick={() => setRevoking(c)} aria-label={`Revoke credential ${shortId(c.credentialId)}`}>
                  Revoke
                </button>
              ) : (
                '—'
              ),
          },
        ]}
      />
      <h2>Issue a credential</h2>
      {issued && (
        <>
          <Notice>Credential {shortId(issued.credentialId)} is issued.</Notice>
          <p>
            Credential id: <code>{issued.credentialId}</code>
          </p>
          <SecretOnce label="Credential secret" value={issued.credentialSecret} />
        </>
      )}
      {resources.data && choices.length === 0 ? (
        <p>Register a resource first: a credential belongs to one resource.</p>
      ) : (
        <Form
          label="Issue a credential"
          submit="Issue credential"
          onSubmit={async () => {
            setIssued(
              await call<{ credentialId: string; credentialSecret: string }, 'POST /identity/admin/tenants/{tenantId}/credentials'>('POST /identity/admin/tenants/{tenantId}/credentials', {
                params: { tenantId },
                body: { resourceUri: chosen },
              }),
            );
            list.reload();
          }}
        >
          <Field label="Resource" hint="The resource whose tokens the credential may introspect.">
            {(a) => (
              <select {...a} value={chosen} onChange={(e) => setResourceUri((e.target as HTMLSelectElement).value)}>
                {choices.map((r) => (
                  <option key={r.uri} value={r.uri}>
                    {r.uri}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </Form>
      )}
      <ConfirmByName
        open={!!revoking}
        title="Revoke a credential"
        name={revoking ? shortId(revoking.credentialId) : ''}
        consequence={`The resource server using it (${revoking?.resourceUri ?? ''}) can no longer introspect tokens with it, at once. This cannot be undone.`}
        action="Revoke credential"
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          if (!revoking) return;
          await call('DELETE /identity/admin/tenants/{tenantId}/credentials/{credentialId}', { params: { tenantId, credentialId: revoking.credentialId } });
          setRevoked(shortId(revoking.credentialId));
          setRevoking(undefined);
          list.reload();
        }}
      />
    </TenantFrame>
  );
}
