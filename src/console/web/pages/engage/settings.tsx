import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link, href } from '../../router';
import { useCall } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind, useSubmit } from '../../ui/forms';
import type { Tenant } from '../identity/tenants';
import { EnvironmentHeader, useEnvironment, type Environment } from './environments';

/** An environment's settings: display name, identity tenant, disable or enable, delete (with its progress until it is gone). */
export function EnvironmentSettings({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const e = env.data;
  const [deleting, setDeleting] = useState(false);
  const [started, setStarted] = useState(false);
  const [notice, setNotice] = useState('');
  const params = { environmentId };
  const status = useSubmit(async () => {
    if (!e) return;
    const next = e.status === 'ACTIVE' ? 'DISABLED' : 'ACTIVE';
    await call('PUT /engage/admin/environments/{environmentId}', { params, body: { status: next } });
    setNotice(next === 'DISABLED' ? 'The environment is disabled: its installations and backends are refused and it sends nothing.' : 'The environment is enabled again.');
    env.reload();
  });
  if (started || e?.status === 'DELETING') return <DeletionProgress environmentId={environmentId} environment={e} />;
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={e} title="Settings" />
      {env.error && <ErrorBox error={env.error} />}
      {notice && <Notice>{notice}</Notice>}
      {e?.configurationManaged && <p class="status-banner">This environment is managed by engage apply: change it in the configuration file; the server refuses changes made here.</p>}
      {e && <SettingsForm key={`${e.displayName}|${e.identityTenantId ?? ''}`} environment={e} onSaved={() => { setNotice('Saved.'); env.reload(); }} />}
      {e && (
        <>
          <h2>{e.status === 'ACTIVE' ? 'Disable' : 'Enable'}</h2>
          <p>
            {e.status === 'ACTIVE'
              ? 'A disabled environment keeps its data but refuses its installations’ and backends’ requests and sends nothing, tests included.'
              : 'The environment is disabled. Enabling it lets its installations and backends in again.'}
          </p>
          {status.error && <ErrorBox error={status.error} />}
          <div class="actions">
            <button type="button" onClick={() => void status.run()} disabled={status.busy}>
              {e.status === 'ACTIVE' ? 'Disable environment' : 'Enable environment'}
            </button>
          </div>
          <h2>Delete</h2>
          <p>Deleting erases every app, key, installation, profile, template, send and delivery of the environment. It cannot be undone.</p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete environment
            </button>
          </div>
          {deleting && (
            <ConfirmByName
              open
              title={`Delete the environment ${e.name}`}
              name={e.name}
              consequence="Every app, access key, installation, profile, template, send and delivery of this environment is erased by a job on the server. It refuses changes at once and is gone when the job ends. This cannot be undone."
              action="Delete environment"
              onClose={() => setDeleting(false)}
              onConfirm={async () => {
                await call('DELETE /engage/admin/environments/{environmentId}', { params });
                setDeleting(false);
                setStarted(true);
              }}
            />
          )}
        </>
      )}
    </>
  );
}

function SettingsForm({ environment: e, onSaved }: { environment: Environment; onSaved: () => void }) {
  const [displayName, setDisplayName] = useState(e.displayName === e.name ? '' : e.displayName);
  const [tenant, setTenant] = useState(e.identityTenantId ?? '');
  const tenants = useCall<{ items: Tenant[] }, 'GET /identity/admin/tenants'>('GET /identity/admin/tenants', { query: { size: 200 } });
  const listed = tenants.data?.items;
  return (
    <>
      <h2>General</h2>
      <Form
        label="Environment settings"
        submit="Save settings"
        onSubmit={async () => {
          const body: { displayName?: string | null; identityTenantId?: string | null } = {};
          const shown = displayName.trim() === '' ? null : displayName.trim();
          if (shown !== (e.displayName === e.name ? null : e.displayName)) body.displayName = shown;
          const t = tenant.trim() === '' ? null : tenant.trim();
          if (t !== e.identityTenantId) body.identityTenantId = t;
          if (Object.keys(body).length === 0) throw new Error('Nothing changed.');
          await call('PUT /engage/admin/environments/{environmentId}', { params: { environmentId: e.id }, body });
          onSaved();
        }}
      >
        <Field label="Display name" hint="Shown to people; empty shows the name.">
          {(a) => <input {...a} {...bind(displayName, setDisplayName)} maxLength={100} autoComplete="off" />}
        </Field>
        {listed ? (
          <Field label="Identity tenant" hint="Whose signed-in users the external ids are: installations bind to them (changing it needs the unscoped engage.admin.manage).">
            {(a) => (
              <select {...a} value={tenant} onChange={(ev) => setTenant((ev.target as HTMLSelectElement).value)}>
                <option value="">None</option>
                {listed.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.slug} ({t.issuer})
                  </option>
                ))}
                {tenant && !listed.some((t) => t.id === tenant) && <option value={tenant}>{tenant}</option>}
              </select>
            )}
          </Field>
        ) : (
          <Field label="Identity tenant id" hint="The id (UUID) of the identity tenant whose signed-in users the external ids are; empty: none.">
            {(a) => <input {...a} {...bind(tenant, setTenant)} autoComplete="off" spellcheck={false} />}
          </Field>
        )}
      </Form>
    </>
  );
}

/** While the environment is DELETING: its state polled every second until GET answers 404 (gone). */
function DeletionProgress({ environmentId, environment }: { environmentId: string; environment?: Environment }) {
  const [state, setState] = useState<{ gone: boolean; checks: number; error?: ApiFailure }>({ gone: false, checks: 0 });
  useEffect(() => {
    if (state.gone) return;
    const timer = setTimeout(() => {
      call<Environment, 'GET /engage/admin/environments/{environmentId}'>('GET /engage/admin/environments/{environmentId}', { params: { environmentId } }).then(
        () => setState((s) => ({ ...s, checks: s.checks + 1, error: undefined })),
        (err: unknown) => {
          if (err instanceof ApiFailure && err.status === 404) setState((s) => ({ ...s, gone: true }));
          else setState((s) => ({ ...s, checks: s.checks + 1, error: err instanceof ApiFailure ? err : new ApiFailure(0, 'network', undefined) }));
        },
      );
    }, 1000);
    return () => clearTimeout(timer);
  }, [state.checks, state.gone]);
  const name = environment?.name ?? environmentId;
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={state.gone ? undefined : environment} title="Settings" />
      <h2>Deleting {name}</h2>
      {state.gone ? (
        <>
          <progress max={1} value={1} aria-label="Deletion progress" />
          <p role="status">The environment {name} is deleted: every row of it is erased.</p>
          <p>
            <Link href={href('/engage/environments')}>Back to the environments</Link>
          </p>
        </>
      ) : (
        <>
          <progress aria-label="Deletion progress" />
          <p role="status">
            Deleting: a job on the server is erasing the environment’s rows. It answers reads and refuses changes until it is gone.
          </p>
          <p class="muted">Its state is read every second ({state.checks} so far).</p>
        </>
      )}
      {state.error && <ErrorBox error={state.error} />}
    </>
  );
}
