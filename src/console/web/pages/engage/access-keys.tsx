import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice, SecretOnce } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';
import { when } from '../../ui/format';
import type { App } from './apps';
import { EnvironmentHeader, useEnvironment } from './environments';

export interface AccessKey {
  id: string;
  environmentId: string;
  name: string | null;
  appIds: string[];
  status: 'ACTIVE' | 'REVOKED';
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
  prefix: string;
  keyHint: string | null;
  expiresAt: string | null;
  previousExpiresAt: string | null;
  configurationManaged: boolean;
}
type WithSecret = AccessKey & { key: string };

const keysPath = (environmentId: string, ...rest: string[]) => href(`/engage/environments/${encodeURIComponent(environmentId)}/access-keys`, ...rest);
/** How a key is named to a person: its name, else its visible part. */
const keyLabel = (k: AccessKey) => k.name ?? `${k.prefix}…${k.keyHint ?? ''}`;
const expired = (k: AccessKey) => k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
const stateWords = (k: AccessKey) => (k.status === 'REVOKED' ? `Revoked ${when(k.revokedAt)}` : expired(k) ? `Expired ${when(k.expiresAt)}` : 'Active');

/** The apps of the environment (first 200), for naming a key's apps and choosing them. */
function useApps(environmentId: string) {
  const apps = useCall<{ items: App[] }, 'GET /engage/admin/environments/{environmentId}/apps'>('GET /engage/admin/environments/{environmentId}/apps', { params: { environmentId }, query: { size: 200 } });
  const names = new Map((apps.data?.items ?? []).map((a) => [a.id, a.name]));
  return { apps, nameOf: (id: string) => names.get(id) ?? id };
}

/** The access keys of an environment (their visible part, never the secret) and the form that creates one. */
export function AccessKeyList({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const list = usePaged<AccessKey, 'GET /engage/admin/environments/{environmentId}/access-keys'>('GET /engage/admin/environments/{environmentId}/access-keys', { params: { environmentId } });
  const { apps, nameOf } = useApps(environmentId);
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<WithSecret | undefined>();
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Access keys" />
      <p class="muted">A backend calls the engagement API with an access key for some apps. The server keeps only a digest: a key is shown once, when it is created or rotated.</p>
      {created && (
        <>
          <Notice>Access key {keyLabel(created)} created.</Notice>
          <SecretOnce key={created.id} label={`Access key ${keyLabel(created)}`} value={created.key} />
        </>
      )}
      <DataTable
        caption="Access keys"
        {...paged(list)}
        rowKey={(k) => k.id}
        empty="No access key yet: create one below."
        columns={[
          { header: 'Name', cell: (k) => <Link href={keysPath(environmentId, k.id)}>{keyLabel(k)}</Link> },
          { header: 'Key', cell: (k) => <code>{`${k.prefix}…${k.keyHint ?? ''}`}</code> },
          { header: 'Apps', cell: (k) => k.appIds.map(nameOf).join(', ') },
          { header: 'State', cell: stateWords },
          { header: 'Expires', cell: (k) => (k.expiresAt ? when(k.expiresAt) : 'Never') },
          { header: 'Rotated', cell: (k) => when(k.rotatedAt) },
        ]}
      />
      <h2>Create an access key</h2>
      <Form
        label="Create an access key"
        submit="Create access key"
        onSubmit={async () => {
          if (chosen.length === 0) throw new Error('Choose at least one app the key may act for.');
          const k = await call<WithSecret, 'POST /engage/admin/environments/{environmentId}/access-keys'>('POST /engage/admin/environments/{environmentId}/access-keys', {
            params: { environmentId },
            body: { apps: chosen, ...(name ? { name } : {}), ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}) },
          });
          setCreated(k);
          setName('');
          setChosen([]);
          setExpires('');
          list.reload();
          window.scrollTo(0, 0);
        }}
      >
        <Field label="Key name" hint="Optional, e.g. checkout-backend: it names the key in lists and the audit trail.">
          {(a) => <input {...a} {...bind(name, setName)} maxLength={100} autoComplete="off" />}
        </Field>
        <fieldset class="choices">
          <legend>Apps the key may act for</legend>
          {apps.error && <ErrorBox error={apps.error} />}
          {apps.data?.items.length === 0 && <p class="muted">No app yet: create one on the Apps page first.</p>}
          {apps.data?.items.map((a) => (
            <label key={a.id}>
              <input
                type="checkbox"
                checked={chosen.includes(a.id)}
                onChange={(e) => {
                  const on = (e.target as HTMLInputElement).checked;
                  setChosen((c) => (on ? [...c, a.id] : c.filter((x) => x !== a.id)));
                }}
              />{' '}
              {a.name} ({a.platform === 'IOS' ? 'iOS' : 'Android'})
            </label>
          ))}
        </fieldset>
        <Field label="Expires" hint="Optional, in your local time: the key stops working then. Empty: never.">
          {(a) => <input {...a} type="datetime-local" {...bind(expires, setExpires)} />}
        </Field>
      </Form>
    </>
  );
}

/** One access key: its facts, rotation with an overlap (the new secret shown once) and revocation. */
export function AccessKeyDetail({ environmentId, keyId }: { environmentId: string; keyId: string }) {
  const env = useEnvironment(environmentId);
  const params = { environmentId, keyId };
  const { data: k, error, reload } = useCall<AccessKey, 'GET /engage/admin/environments/{environmentId}/access-keys/{keyId}'>('GET /engage/admin/environments/{environmentId}/access-keys/{keyId}', { params });
  const { nameOf } = useApps(environmentId);
  const [overlap, setOverlap] = useState('3600');
  const [rotated, setRotated] = useState<WithSecret | undefined>();
  const [revoking, setRevoking] = useState(false);
  const [revoked, setRevoked] = useState(false);
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title={k ? `Access key ${keyLabel(k)}` : 'Access key'}>
        <Link class="button" href={keysPath(environmentId)}>
          All access keys
        </Link>
      </EnvironmentHeader>
      {error && <ErrorBox error={error} />}
      {revoked && <Notice>The key is revoked: every process refuses it from the next request on.</Notice>}
      {rotated && (
        <>
          <Notice>
            Rotated. {rotated.previousExpiresAt ? `The previous secret keeps working until ${when(rotated.previousExpiresAt)}.` : 'The previous secret stopped working at once.'}
          </Notice>
          <SecretOnce key={rotated.key} label={`New secret of ${keyLabel(rotated)}`} value={rotated.key} />
        </>
      )}
      {k && (
        <>
          <dl class="facts">
            <dt>Key</dt>
            <dd>
              <code>{`${k.prefix}…${k.keyHint ?? ''}`}</code>
            </dd>
            <dt>State</dt>
            <dd>{stateWords(k)}</dd>
            <dt>Apps</dt>
            <dd>{k.appIds.map(nameOf).join(', ')}</dd>
            <dt>Expires</dt>
            <dd>{k.expiresAt ? when(k.expiresAt) : 'Never'}</dd>
            <dt>Created</dt>
            <dd>{when(k.createdAt)}</dd>
            <dt>Rotated</dt>
            <dd>{when(k.rotatedAt)}</dd>
            {k.previousExpiresAt && Date.parse(k.previousExpiresAt) > Date.now() && (
              <>
                <dt>Previous secret</dt>
                <dd>Works until {when(k.previousExpiresAt)}</dd>
              </>
            )}
            <dt>Id</dt>
            <dd>
              <code>{k.id}</code>
            </dd>
            {k.configurationManaged && (
              <>
                <dt>Managed</dt>
                <dd>By engage apply: change it in the configuration file.</dd>
              </>
            )}
          </dl>
          {k.status === 'ACTIVE' && (
            <>
              <h2>Rotate</h2>
              <p>A new secret replaces the current one. During the overlap both work, so the backends can move to the new one without a refused request.</p>
              <Form
                label="Rotate the access key"
                submit="Rotate access key"
                onSubmit={async () => {
                  const r = await call<WithSecret, 'POST /engage/admin/environments/{environmentId}/access-keys/{keyId}/rotation'>(
                    'POST /engage/admin/environments/{environmentId}/access-keys/{keyId}/rotation',
                    { params, body: { overlapSeconds: Number(overlap) } },
                  );
                  setRotated(r);
                  reload();
                  window.scrollTo(0, 0);
                }}
              >
                <Field label="Overlap in seconds" hint="How long the current secret keeps working: 0 (stops at once) to 604800 (7 days); 3600 is an hour.">
                  {(a) => <input {...a} type="number" min={0} max={604800} step={1} required {...bind(overlap, setOverlap)} />}
                </Field>
              </Form>
              <h2>Revoke</h2>
              <p>A revoked key is refused from the next request on, its current and previous secrets alike. This cannot be undone.</p>
              <div class="actions">
                <button type="button" class="danger" onClick={() => setRevoking(true)}>
                  Revoke access key
                </button>
              </div>
              {revoking && (
                <ConfirmByName
                  open
                  title={`Revoke the access key ${keyLabel(k)}`}
                  name={k.name ?? k.id}
                  consequence="Every backend using this key is refused from its next request on. This cannot be undone."
                  action="Revoke access key"
                  onClose={() => setRevoking(false)}
                  onConfirm={async () => {
                    await call('DELETE /engage/admin/environments/{environmentId}/access-keys/{keyId}', { params });
                    setRevoking(false);
                    setRevoked(true);
                    setRotated(undefined);
                    reload();
                  }}
                />
              )}
            </>
          )}
        </>
      )}
    </>
  );
}

