import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { EnvironmentHeader, useEnvironment } from './environments';
import { PushChannelsSection } from './push-channels';
import type { App } from './app-model';
import { CredentialsSection } from './app-credentials';

export type { App };

export const PLATFORM_WORDS = { IOS: 'iOS', ANDROID: 'Android' } as const;
const appPath = (environmentId: string, ...rest: string[]) => href(`/engage/environments/${encodeURIComponent(environmentId)}/apps`, ...rest);

/** The apps of an environment, with the form that creates one. */
export function AppList({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const list = usePaged<App, 'GET /engage/admin/environments/{environmentId}/apps'>('GET /engage/admin/environments/{environmentId}/apps', { params: { environmentId } });
  const [platform, setPlatform] = useState<'IOS' | 'ANDROID'>('IOS');
  const [name, setName] = useState('');
  const [bundleId, setBundleId] = useState('');
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Apps" />
      <DataTable
        caption="Apps"
        {...paged(list)}
        rowKey={(a) => a.id}
        empty="No app yet: create one below."
        columns={[
          { header: 'Name', cell: (a) => <Link href={appPath(environmentId, a.id)}>{a.name}</Link> },
          { header: 'Platform', cell: (a) => PLATFORM_WORDS[a.platform] },
          { header: 'Bundle id', cell: (a) => (a.bundleId ? <code>{a.bundleId}</code> : '—') },
          { header: 'Status', cell: (a) => a.status },
          { header: 'Public app key', cell: (a) => <code>{a.appKey}</code> },
        ]}
      />
      <h2>Create an app</h2>
      <Form
        label="Create an app"
        submit="Create app"
        onSubmit={async () => {
          const a = await call<App, 'POST /engage/admin/environments/{environmentId}/apps'>('POST /engage/admin/environments/{environmentId}/apps', {
            params: { environmentId },
            body: { platform, name, ...(bundleId ? { bundleId } : {}) },
          });
          navigate(appPath(environmentId, a.id));
        }}
      >
        <Field label="Platform">
          {(a) => (
            <select {...a} value={platform} onChange={(e) => setPlatform((e.target as HTMLSelectElement).value as 'IOS' | 'ANDROID')}>
              <option value="IOS">iOS (pushes through APNs)</option>
              <option value="ANDROID">Android (pushes through FCM)</option>
            </select>
          )}
        </Field>
        <Field label="App name" hint="Unique in the environment, e.g. shop-ios.">
          {(a) => <input {...a} {...bind(name, setName)} required maxLength={100} autoComplete="off" />}
        </Field>
        <Field label="Bundle id" hint="Optional: the iOS bundle id or Android package name, e.g. com.acme.shop.">
          {(a) => <input {...a} {...bind(bundleId, setBundleId)} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" autoComplete="off" spellcheck={false} />}
        </Field>
      </Form>
    </>
  );
}

/** One app: its facts, edit, disable or enable, delete, and its provider credentials. */
export function AppDetail({ environmentId, appId }: { environmentId: string; appId: string }) {
  const env = useEnvironment(environmentId);
  const { data: app, error, reload } = useCall<App, 'GET /engage/admin/environments/{environmentId}/apps/{appId}'>('GET /engage/admin/environments/{environmentId}/apps/{appId}', {
    params: { environmentId, appId },
  });
  const [deleting, setDeleting] = useState(false);
  const [notice, setNotice] = useState('');
  const params = { environmentId, appId };
  const status = useSubmit(async () => {
    if (!app) return;
    const next = app.status === 'ACTIVE' ? 'DISABLED' : 'ACTIVE';
    await call('PATCH /engage/admin/environments/{environmentId}/apps/{appId}', { params, body: { status: next } });
    setNotice(next === 'DISABLED' ? `${app.name} is disabled: it bootstraps nothing and its installations are refused.` : `${app.name} is enabled again.`);
    reload();
  });
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title={app ? `App ${app.name}` : 'App'}>
        <Link class="button" href={appPath(environmentId)}>
          All apps
        </Link>
      </EnvironmentHeader>
      {error && <ErrorBox error={error} />}
      {notice && <Notice>{notice}</Notice>}
      {app && (
        <>
          <dl class="facts">
            <dt>Platform</dt>
            <dd>{PLATFORM_WORDS[app.platform]}</dd>
            <dt>Status</dt>
            <dd>{app.status === 'ACTIVE' ? 'Active' : 'Disabled: it bootstraps nothing and its installations are refused'}</dd>
            <dt>Public app key</dt>
            <dd>
              <code>{app.appKey}</code> <span class="muted">(not a secret: the SDK starts with it)</span>
            </dd>
            <dt>Bundle id</dt>
            <dd>{app.bundleId ? <code>{app.bundleId}</code> : '—'}</dd>
            <dt>Id</dt>
            <dd>
              <code>{app.id}</code>
            </dd>
            <dt>Created</dt>
            <dd>{when(app.createdAt)}</dd>
            {app.configurationManaged && (
              <>
                <dt>Managed</dt>
                <dd>By engage apply: change it in the configuration file.</dd>
              </>
            )}
          </dl>
          <CredentialsSection environmentId={environmentId} app={app} />
          <PushChannelsSection key={app.id} environmentId={environmentId} app={app} />
          <AppEdit environmentId={environmentId} app={app} onSaved={(a) => { setNotice(`Saved ${a.name}.`); if (a.id !== appId) navigate(appPath(environmentId, a.id)); else reload(); }} />
          <h2>Disable or delete</h2>
          <p>Disabling keeps the app and its installations; deleting is possible only for an app with no installations and no provider credentials.</p>
          {status.error && <ErrorBox error={status.error} />}
          <div class="actions">
            <button type="button" onClick={() => void status.run()} disabled={status.busy}>
              {app.status === 'ACTIVE' ? 'Disable app' : 'Enable app'}
            </button>
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete app
            </button>
          </div>
          {deleting && <ConfirmByName
            open
            title={`Delete the app ${app.name}`}
            name={app.name}
            consequence="The app and its public app key are removed for good. The server refuses this while the app has installations or provider credentials: disable it instead."
            action="Delete app"
            onClose={() => setDeleting(false)}
            onConfirm={async () => {
              await call('DELETE /engage/admin/environments/{environmentId}/apps/{appId}', { params });
              navigate(appPath(environmentId));
            }}
          />}
        </>
      )}
    </>
  );
}

function AppEdit({ environmentId, app, onSaved }: { environmentId: string; app: App; onSaved: (a: App) => void }) {
  const [name, setName] = useState(app.name);
  const [bundleId, setBundleId] = useState(app.bundleId ?? '');
  return (
    <>
      <h2>Edit</h2>
      <Form
        label="Edit the app"
        submit="Save app"
        onSubmit={async () => {
          const a = await call<App, 'PATCH /engage/admin/environments/{environmentId}/apps/{appId}'>('PATCH /engage/admin/environments/{environmentId}/apps/{appId}', {
            params: { environmentId, appId: app.id },
            body: { name, bundleId: bundleId === '' ? null : bundleId },
          });
          onSaved(a);
        }}
      >
        <Field label="App name">{(a) => <input {...a} {...bind(name, setName)} required maxLength={100} autoComplete="off" />}</Field>
        <Field label="Bundle id" hint="Empty clears it.">
          {(a) => <input {...a} {...bind(bundleId, setBundleId)} autoComplete="off" spellcheck={false} />}
        </Field>
      </Form>
    </>
  );
}
