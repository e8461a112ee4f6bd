import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { Form, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { FlagFields } from './flag-fields';
import { FlagExposures, FlagSchedules, FlagVersions } from './flag-history';
import { draftOf, fileOf, newDraft, type Flag, type FlagDetailBody, type FlagDraft } from './flag-model';
import { RulesEditor } from './flag-rules';
import { EnvPageHeader, envPath } from './sends';
import { useApps } from './template-editor';

type FlagPath = 'GET /engage/admin/environments/{environmentId}/flags/{flagKey}';
const STATUS_WORDS: Record<Flag['status'], string> = { ACTIVE: 'Active', ARCHIVED: 'Archived: devices get its off variant’s tombstone' };

/** The Flags tab of an environment: every flag with its kind, status and version. */
export function FlagList({ environmentId }: { environmentId: string }) {
  const list = usePaged<Flag, 'GET /engage/admin/environments/{environmentId}/flags'>('GET /engage/admin/environments/{environmentId}/flags', { params: { environmentId } });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Feature flags">
        <Link class="button primary" href={envPath(environmentId, 'new-flag')}>
          Create a flag
        </Link>
      </EnvPageHeader>
      <DataTable
        caption="Feature flags"
        {...paged(list)}
        rowKey={(f) => f.key}
        empty="No feature flag yet."
        columns={[
          { header: 'Key', cell: (f) => <Link href={envPath(environmentId, 'flags', f.key)}>{f.key}</Link> },
          { header: 'Kind', cell: (f) => f.kind },
          { header: 'Status', cell: (f) => (f.status === 'ACTIVE' ? 'Active' : 'Archived') },
          { header: 'Version', cell: (f) => f.version },
          { header: 'Updated', cell: (f) => when(f.updatedAt) },
        ]}
      />
    </>
  );
}

export function FlagCreate({ environmentId }: { environmentId: string }) {
  const apps = useApps(environmentId);
  const [draft, setDraft] = useState<FlagDraft>(newDraft);
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Create a flag" crumbs={[{ label: 'Feature flags', path: '/flags' }]} />
      <p>A new flag has no rule: every device gets its default variant. Add targeting rules, rollouts and experiments on its page.</p>
      <Form
        label="Create a flag"
        submit="Create flag"
        onSubmit={async () => {
          const f = await call<FlagDetailBody, 'POST /engage/admin/environments/{environmentId}/flags'>('POST /engage/admin/environments/{environmentId}/flags', { params: { environmentId }, body: fileOf(draft) });
          navigate(envPath(environmentId, 'flags', f.key));
        }}
      >
        <FlagFields draft={draft} onChange={setDraft} apps={apps} withKey />
      </Form>
    </>
  );
}

/**
 * One flag: its facts, its fields and rules edited as a form and saved as a new version (If-Match
 * of the version the form started from: someone else's save in between is a 409 shown in words),
 * archive or restore, its versions with rollback, its scheduled changes and its exposures.
 */
export function FlagDetail({ environmentId, flagKey }: { environmentId: string; flagKey: string }) {
  const params = { environmentId, flagKey };
  const detail = useCall<FlagDetailBody, FlagPath>('GET /engage/admin/environments/{environmentId}/flags/{flagKey}', { params });
  const apps = useApps(environmentId);
  const f = detail.data;
  const [draft, setDraft] = useState<FlagDraft | undefined>();
  const [base, setBase] = useState(0);
  const [notice, setNotice] = useState('');
  const [tick, setTick] = useState(0);
  // The form starts from each version read: on open, and after this page changed the flag.
  useEffect(() => {
    if (f && f.version !== base) {
      setDraft(draftOf(f.definition));
      setBase(f.version);
    }
  }, [f?.version]);
  /** After a change this page made: the form starts from the flag it answered at once (an edit made while the page reads it again is kept). */
  const changed = (message: string, now?: FlagDetailBody) => {
    if (now) {
      setDraft(draftOf(now.definition));
      setBase(now.version);
    }
    setNotice(message);
    detail.reload();
    setTick((n) => n + 1);
  };
  const ifMatch = { 'If-Match': `"${base}"` };
  const status = useSubmit(async () => {
    if (!f) return;
    const verb = f.status === 'ACTIVE' ? 'archive' : 'restore';
    const r =
      verb === 'archive'
        ? await call<FlagDetailBody, 'POST /engage/admin/environments/{environmentId}/flags/{flagKey}/archive'>('POST /engage/admin/environments/{environmentId}/flags/{flagKey}/archive', { params, headers: ifMatch })
        : await call<FlagDetailBody, 'POST /engage/admin/environments/{environmentId}/flags/{flagKey}/restore'>('POST /engage/admin/environments/{environmentId}/flags/{flagKey}/restore', { params, headers: ifMatch });
    changed(verb === 'archive' ? `Archived as version ${r.version}: devices get a tombstone at their next sync.` : `Restored as version ${r.version}.`, r);
  });
  const editable = f && !f.configurationManaged;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Flag ${flagKey}`} crumbs={[{ label: 'Feature flags', path: '/flags' }]}>
        {editable && (
          <button type="button" class={f.status === 'ACTIVE' ? 'danger' : ''} disabled={status.busy} onClick={() => void status.run()}>
            {f.status === 'ACTIVE' ? 'Archive' : 'Restore'}
          </button>
        )}
      </EnvPageHeader>
      {detail.error && <ErrorBox error={detail.error} />}
      {status.error && <ErrorBox error={status.error} />}
      {notice && <Notice>{notice}</Notice>}
      {f && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>{STATUS_WORDS[f.status]}</dd>
          <dt>Kind</dt>
          <dd>{f.kind}</dd>
          <dt>Version</dt>
          <dd>{f.version}</dd>
          <dt>Updated</dt>
          <dd>{when(f.updatedAt)}</dd>
          {f.configurationManaged && (
            <>
              <dt>Managed</dt>
              <dd>By engage apply: change it in the configuration file.</dd>
            </>
          )}
        </dl>
      )}
      {f && draft && (
        <>
          {editable ? (
            <Form
              label="Edit the flag"
              submit="Save as a new version"
              onSubmit={async () => {
                const r = await call<FlagDetailBody, 'PUT /engage/admin/environments/{environmentId}/flags/{flagKey}'>('PUT /engage/admin/environments/{environmentId}/flags/{flagKey}', {
                  params,
                  headers: ifMatch,
                  body: fileOf(draft),
                });
                changed(r.changed === false ? 'Nothing changed: no new version.' : `Saved as version ${r.version}: devices get it at their next sync.`, r);
              }}
            >
              <h2>Fields</h2>
              <FlagFields draft={draft} onChange={setDraft} apps={apps} withKey={false} />
              <RulesEditor rules={draft.rules} variants={draft.variants.map((v) => v.key)} onChange={(rules) => setDraft({ ...draft, rules })} />
            </Form>
          ) : (
            <>
              <p class="muted">Managed by engage apply: edit the configuration file.</p>
              <pre class="payload" tabIndex={0} aria-label="Definition">
                {JSON.stringify(f.definition, null, 2)}
              </pre>
            </>
          )}
          <FlagVersions environmentId={environmentId} flag={f} tick={tick} onChanged={changed} />
          <FlagSchedules environmentId={environmentId} flag={f} tick={tick} definition={() => fileOf(draft)} onChanged={changed} />
          <FlagExposures environmentId={environmentId} flagKey={flagKey} tick={tick} />
        </>
      )}
    </>
  );
}
