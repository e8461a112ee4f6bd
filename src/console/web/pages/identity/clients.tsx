import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link, href } from '../../router';
import { DataTable, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice, SecretOnce } from '../../ui/feedback';
import { Field, Form, bind } from '../../ui/forms';
import { TenantFrame, lines, words } from './apps-frame';

export interface Client {
  clientId: string;
  displayName: string;
  applicationType: 'WEB' | 'NATIVE';
  tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC' | 'NONE';
  consentPolicy: 'EXPLICIT' | 'PRE_AUTHORIZED';
  redirectUris: string[];
  scopes: string[];
  defaultResource: string | null;
  nativeAuthenticationEnabled: boolean;
  webOrigins: string[] | null;
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  configurationManaged: boolean;
}

interface Issuance {
  clientId: string;
  clientSecret: string | null;
}

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const clientsPath = (tenantId: string) => `/identity/tenants/${encodeURIComponent(tenantId)}/clients`;

export function ClientList({ tenantId }: { tenantId: string }) {
  const list = usePaged<Client, 'GET /identity/admin/tenants/{tenantId}/clients'>('GET /identity/admin/tenants/{tenantId}/clients', { params: { tenantId } });
  return (
    <TenantFrame
      tenantId={tenantId}
      title="Clients"
      actions={
        <Link class="button primary" href={href(`${clientsPath(tenantId)}/new`)}>
          Register a client
        </Link>
      }
    >
      <DataTable
        caption="Clients"
        {...paged(list)}
        rowKey={(c) => c.clientId}
        empty="No client registered in this tenant yet."
        columns={[
          { header: 'Client id', cell: (c) => <Link href={href(clientsPath(tenantId), c.clientId)}>{c.clientId}</Link> },
          { header: 'Name', cell: (c) => c.displayName },
          { header: 'Type', cell: (c) => `${c.applicationType === 'WEB' ? 'Web' : 'Native'}, ${c.tokenEndpointAuthMethod === 'NONE' ? 'public' : 'confidential'}` },
          { header: 'Status', cell: (c) => (c.configurationManaged ? `${c.status} (managed by engage apply)` : c.status) },
        ]}
      />
    </TenantFrame>
  );
}

/** The request body of spec 03's Client from the form's fields. */
interface ClientForm {
  clientId: string;
  displayName: string;
  applicationType: string;
  tokenEndpointAuthMethod: string;
  consentPolicy: string;
  redirectUris: string;
  scopes: string;
  defaultResource: string;
  nativeAuthenticationEnabled: boolean;
  webOrigins: string;
  postLogoutRedirectUris: string;
  clientCredentials: boolean;
  deviceCode: boolean;
}

const EMPTY: ClientForm = {
  clientId: '',
  displayName: '',
  applicationType: 'WEB',
  tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC',
  consentPolicy: 'EXPLICIT',
  redirectUris: '',
  scopes: 'openid profile email',
  defaultResource: '',
  nativeAuthenticationEnabled: false,
  webOrigins: '',
  postLogoutRedirectUris: '',
  clientCredentials: false,
  deviceCode: false,
};

const formOf = (c: Client): ClientForm => ({
  clientId: c.clientId,
  displayName: c.displayName,
  applicationType: c.applicationType,
  tokenEndpointAuthMethod: c.tokenEndpointAuthMethod,
  consentPolicy: c.consentPolicy,
  redirectUris: c.redirectUris.join('\n'),
  scopes: c.scopes.join(' '),
  defaultResource: c.defaultResource ?? '',
  nativeAuthenticationEnabled: c.nativeAuthenticationEnabled,
  webOrigins: (c.webOrigins ?? []).join('\n'),
  postLogoutRedirectUris: c.postLogoutRedirectUris.join('\n'),
  clientCredentials: c.grantTypes.includes('client_credentials'),
  deviceCode: c.grantTypes.includes(DEVICE_CODE),
});

const bodyOf = (f: ClientForm) => {
  const origins = lines(f.webOrigins);
  return {
    clientId: f.clientId.trim(),
    displayName: f.displayName.trim(),
    applicationType: f.applicationType,
    tokenEndpointAuthMethod: f.tokenEndpointAuthMethod,
    consentPolicy: f.consentPolicy,
    redirectUris: lines(f.redirectUris),
    scopes: words(f.scopes),
    defaultResource: f.defaultResource.trim() || null,
    nativeAuthenticationEnabled: f.nativeAuthenticationEnabled,
    webOrigins: origins.length ? origins : null,
    postLogoutRedirectUris: lines(f.postLogoutRedirectUris),
    grantTypes: [...(f.clientCredentials ? ['client_credentials'] : []), ...(f.deviceCode ? [DEVICE_CODE] : [])],
  };
};

/** The fields of a client, shared by registration and editing (the client id is fixed once registered). */
function ClientFields({ value: f, set, editing }: { value: ClientForm; set: (f: ClientForm) => void; editing: boolean }) {
  const text = (k: keyof ClientForm) => bind(f[k] as string, (v) => set({ ...f, [k]: v }));
  const area = (k: keyof ClientForm) => ({ value: f[k] as string, onInput: (e: Event) => set({ ...f, [k]: (e.target as HTMLTextAreaElement).value }) });
  const select = (k: keyof ClientForm) => ({ value: f[k] as string, onChange: (e: Event) => set({ ...f, [k]: (e.target as HTMLSelectElement).value }) });
  const check = (k: keyof ClientForm) => ({ checked: f[k] as boolean, onChange: (e: Event) => set({ ...f, [k]: (e.target as HTMLInputElement).checked }) });
  return (
    <>
      {!editing && (
        <Field label="Client id" hint="1 to 128 letters, digits, '.', '_', '~' or '-'. It cannot change later.">
          {(a) => <input {...a} {...text('clientId')} required autoComplete="off" spellcheck={false} />}
        </Field>
      )}
      <Field label="Display name" hint="Shown to people on the consent page.">
        {(a) => <input {...a} {...text('displayName')} required autoComplete="off" />}
      </Field>
      <Field label="Application type">
        {(a) => (
          <select {...a} {...select('applicationType')}>
            <option value="WEB">Web application</option>
            <option value="NATIVE">Native (mobile or desktop) application</option>
          </select>
        )}
      </Field>
      <Field label="Client authentication" hint={editing ? 'Changing to confidential issues a new secret, shown once.' : 'A confidential client gets a secret, shown once after registration.'}>
        {(a) => (
          <select {...a} {...select('tokenEndpointAuthMethod')}>
            <option value="CLIENT_SECRET_BASIC">Confidential: a client secret (HTTP Basic)</option>
            <option value="NONE">Public: no secret (PKCE only)</option>
          </select>
        )}
      </Field>
      <Field label="Consent">
        {(a) => (
          <select {...a} {...select('consentPolicy')}>
            <option value="EXPLICIT">Explicit: people are asked</option>
            <option value="PRE_AUTHORIZED">Pre-authorized: no consent page</option>
          </select>
        )}
      </Field>
      <Field label="Redirect URIs" hint="One absolute URI per line, compared exactly; no fragment.">
        {(a) => <textarea {...a} {...area('redirectUris')} required spellcheck={false} />}
      </Field>
      <Field label="Scopes" hint="Separated by spaces, e.g. openid profile email offline_access.">
        {(a) => <input {...a} {...text('scopes')} autoComplete="off" spellcheck={false} />}
      </Field>
      <Field label="Default resource" hint="Optional: a registered resource URI used when a request names none.">
        {(a) => <input {...a} {...text('defaultResource')} autoComplete="off" spellcheck={false} />}
      </Field>
      <Field label="Web origins" hint="One origin per line (https://app.example.com): pages that may call the token endpoint from a browser. Empty: the origins of the redirect URIs.">
        {(a) => <textarea {...a} {...area('webOrigins')} spellcheck={false} />}
      </Field>
      <Field label="Post-logout redirect URIs" hint="Optional, one per line: where signing out may return the browser.">
        {(a) => <textarea {...a} {...area('postLogoutRedirectUris')} spellcheck={false} />}
      </Field>
      <fieldset class="checks">
        <legend>Options</legend>
        <label>
          <input type="checkbox" {...check('nativeAuthenticationEnabled')} /> Native authentication (the app signs people in with its own screens)
        </label>
        <label>
          <input type="checkbox" {...check('clientCredentials')} /> Client credentials grant (confidential clients only)
        </label>
        <label>
          <input type="checkbox" {...check('deviceCode')} /> Device authorization grant (TVs and consoles)
        </label>
      </fieldset>
    </>
  );
}

export function ClientCreate({ tenantId }: { tenantId: string }) {
  const [f, setF] = useState<ClientForm>(EMPTY);
  const [issued, setIssued] = useState<Issuance | undefined>();
  return (
    <TenantFrame tenantId={tenantId} title="Register a client" crumbs={[{ label: 'Clients', path: clientsPath(tenantId) }]}>
      {issued ? (
        <>
          <Notice>Client {issued.clientId} is registered.</Notice>
          {issued.clientSecret ? <SecretOnce label="Client secret" value={issued.clientSecret} /> : <p>It is a public client: it has no secret.</p>}
          <p>
            <Link href={href(clientsPath(tenantId), issued.clientId)}>Open client {issued.clientId}</Link> · <Link href={href(clientsPath(tenantId))}>Back to the clients</Link>
          </p>
        </>
      ) : (
        <Form
          label="Register a client"
          submit="Register client"
          onSubmit={async () => {
            setIssued(await call<Issuance, 'POST /identity/admin/tenants/{tenantId}/clients'>('POST /identity/admin/tenants/{tenantId}/clients', { params: { tenantId }, body: bodyOf(f) }));
          }}
        >
          <ClientFields value={f} set={setF} editing={false} />
        </Form>
      )}
    </TenantFrame>
  );
}

/** One client: the API has no single-client read, so its pages are read until it is found. */
async function findClient(tenantId: string, clientId: string, signal: AbortSignal): Promise<Client> {
  for (let page = 0; ; page++) {
    const body = await call<{ items: Client[]; hasMore: boolean }, 'GET /identity/admin/tenants/{tenantId}/clients'>('GET /identity/admin/tenants/{tenantId}/clients', { params: { tenantId }, query: { page, size: 200 }, signal });
    const found = body.items.find((c) => c.clientId === clientId);
    if (found) return found;
    if (!body.hasMore) throw new ApiFailure(404, 'unknown_client', undefined);
  }
}

export function ClientEdit({ tenantId, clientId }: { tenantId: string; clientId: string }) {
  const [client, setClient] = useState<Client | undefined>();
  const [f, setF] = useState<ClientForm | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [saved, setSaved] = useState<Issuance | undefined>();
  useEffect(() => {
    const abort = new AbortController();
    findClient(tenantId, clientId, abort.signal).then(
      (c) => {
        setClient(c);
        setF(formOf(c));
      },
      (e: Error) => !abort.signal.aborted && setError(e),
    );
    return () => abort.abort();
  }, [tenantId, clientId]);
  return (
    <TenantFrame tenantId={tenantId} title={`Client ${clientId}`} crumbs={[{ label: 'Clients', path: clientsPath(tenantId) }]}>
      {error && <ErrorBox error={error} />}
      {!client && !error && <p role="status">Loading…</p>}
      {client && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>{client.status}</dd>
          <dt>Registered</dt>
          <dd>{new Date(client.createdAt).toLocaleString()}</dd>
          <dt>Managed</dt>
          <dd>{client.configurationManaged ? 'By engage apply: change it in the configuration file (edits here are refused).' : 'Here and through the management API'}</dd>
        </dl>
      )}
      {saved && <Notice>Saved.</Notice>}
      {saved?.clientSecret && <SecretOnce label="New client secret" value={saved.clientSecret} />}
      {f && (
        <>
          <h2>Edit</h2>
          <Form
            label={`Edit client ${clientId}`}
            submit="Save changes"
            onSubmit={async () => {
              setSaved(undefined);
              setSaved(await call<Issuance, 'PUT /identity/admin/tenants/{tenantId}/clients/{clientId}'>('PUT /identity/admin/tenants/{tenantId}/clients/{clientId}', { params: { tenantId, clientId }, body: bodyOf(f) }));
            }}
          >
            <ClientFields value={f} set={setF} editing />
          </Form>
        </>
      )}
    </TenantFrame>
  );
}
