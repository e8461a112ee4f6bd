import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';
import { when } from '../../ui/format';
import { EnvPageHeader, envPath } from './sends';

/** A copy of src/engage/preferences/read-store.ts LIST_CHANNELS (the bundle cannot import server code). */
const CHANNELS = ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] as const;
type Channel = (typeof CHANNELS)[number];
const CHANNEL_WORDS: Record<Channel, string> = { PUSH: 'Push', EMAIL: 'Email', SMS: 'SMS', WHATSAPP: 'WhatsApp' };

interface ListBody {
  key: string;
  displayName: string;
  description?: string;
  channels: Channel[];
  defaultSubscribed: boolean;
  critical: boolean;
  /** The ETag: a save or a deletion sends it back in If-Match (409 list_version_conflict when someone changed the list meanwhile). */
  revision: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}
type ListDraft = Pick<ListBody, 'key' | 'displayName' | 'channels' | 'defaultSubscribed' | 'critical'> & { description: string };
const LIST = 'GET /engage/admin/environments/{environmentId}/lists/{listKey}';

/** The Lists tab: the subscription lists of an environment (issue 26 PREFERENCES). */
export function ListList({ environmentId }: { environmentId: string }) {
  const list = usePaged<ListBody, 'GET /engage/admin/environments/{environmentId}/lists'>('GET /engage/admin/environments/{environmentId}/lists', { params: { environmentId } });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Subscription lists">
        <Link class="button primary" href={envPath(environmentId, 'new-list')}>
          Create a list
        </Link>
      </EnvPageHeader>
      <DataTable
        caption="Subscription lists"
        {...paged(list)}
        rowKey={(l) => l.key}
        empty="No subscription list yet."
        columns={[
          { header: 'Key', cell: (l) => <Link href={envPath(environmentId, 'lists', l.key)}>{l.key}</Link> },
          { header: 'Name', cell: (l) => l.displayName },
          { header: 'Channels', cell: (l) => l.channels.map((c) => CHANNEL_WORDS[c]).join(', ') },
          { header: 'Subscribed', cell: (l) => (l.critical ? 'Always (critical)' : l.defaultSubscribed ? 'Unless they leave' : 'Only if they join') },
          { header: 'Updated', cell: (l) => when(l.updatedAt) },
        ]}
      />
    </>
  );
}

function ListFields(props: { draft: ListDraft; onChange: (d: ListDraft) => void; withKey: boolean }) {
  const { draft: d } = props;
  const set = (patch: Partial<ListDraft>) => props.onChange({ ...d, ...patch });
  return (
    <>
      {props.withKey && (
        <Field label="Key" hint="Immutable: a lowercase letter, then up to 127 of a-z 0-9 _ . - (templates and the SDK name the list by it).">
          {(a) => <input {...a} {...bind(d.key, (key) => set({ key }))} required autoComplete="off" spellcheck={false} />}
        </Field>
      )}
      <Field label="Display name" hint="Shown to people in the app's preference centre.">
        {(a) => <input {...a} {...bind(d.displayName, (displayName) => set({ displayName }))} required maxLength={100} />}
      </Field>
      <Field label="Description">{(a) => <input {...a} {...bind(d.description, (description) => set({ description }))} maxLength={500} />}</Field>
      <fieldset class="choices">
        <legend>Channels</legend>
        {CHANNELS.map((c) => {
          const on = d.channels.includes(c);
          return (
            <label key={c} class="check">
              <input type="checkbox" checked={on} onChange={() => set({ channels: on ? d.channels.filter((x) => x !== c) : CHANNELS.filter((x) => x === c || d.channels.includes(x)) })} /> {CHANNEL_WORDS[c]}
            </label>
          );
        })}
      </fieldset>
      <fieldset class="choices">
        <legend>Subscription</legend>
        <label class="check">
          <input type="checkbox" checked={d.defaultSubscribed || d.critical} disabled={d.critical} onChange={(e) => set({ defaultSubscribed: (e.target as HTMLInputElement).checked })} /> Subscribed by default (until
          they leave)
        </label>
        <label class="check">
          <input type="checkbox" checked={d.critical} onChange={(e) => set({ critical: (e.target as HTMLInputElement).checked })} /> Critical: nobody can leave it, sends never skip it
        </label>
      </fieldset>
    </>
  );
}

const bodyOf = (d: ListDraft) => ({ ...d, ...(d.description ? {} : { description: undefined }), defaultSubscribed: d.defaultSubscribed || d.critical });

export function ListCreate({ environmentId }: { environmentId: string }) {
  const [draft, setDraft] = useState<ListDraft>({ key: '', displayName: '', description: '', channels: ['PUSH'], defaultSubscribed: true, critical: false });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Create a list" crumbs={[{ label: 'Subscription lists', path: '/lists' }]} />
      <Form
        label="Create a list"
        submit="Create list"
        onSubmit={async () => {
          const l = await call<ListBody, 'POST /engage/admin/environments/{environmentId}/lists'>('POST /engage/admin/environments/{environmentId}/lists', { params: { environmentId }, body: bodyOf(draft) });
          navigate(envPath(environmentId, 'lists', l.key));
        }}
      >
        <ListFields draft={draft} onChange={setDraft} withKey />
      </Form>
    </>
  );
}

export function ListDetail({ environmentId, listKey }: { environmentId: string; listKey: string }) {
  const params = { environmentId, listKey };
  const detail = useCall<ListBody, typeof LIST>(LIST, { params });
  const l = detail.data;
  const [draft, setDraft] = useState<ListDraft | undefined>();
  const [notice, setNotice] = useState('');
  const [deleting, setDeleting] = useState(false);
  /** The revision the form started from: what a save sends in If-Match, so someone else's save in between is refused, not overwritten. */
  const [base, setBase] = useState(0);
  /** The form starts from each state of the list read or answered, once (a read of what was just saved leaves the form alone). */
  const start = (x: ListBody) => {
    setDraft({ key: x.key, displayName: x.displayName, description: x.description ?? '', channels: x.channels, defaultSubscribed: x.defaultSubscribed, critical: x.critical });
    setBase(x.revision);
  };
  useEffect(() => {
    if (l && l.revision !== base) start(l);
  }, [l?.revision]);
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`List ${listKey}`} crumbs={[{ label: 'Subscription lists', path: '/lists' }]}>
        {l && !l.configurationManaged && (
          <button type="button" class="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        )}
      </EnvPageHeader>
      {detail.error && <ErrorBox error={detail.error} />}
      {notice && <Notice>{notice}</Notice>}
      {l && (
        <dl class="facts">
          <dt>Created</dt>
          <dd>{when(l.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{when(l.updatedAt)}</dd>
          {l.configurationManaged && (
            <>
              <dt>Managed</dt>
              <dd>By engage apply: change it in the configuration file.</dd>
            </>
          )}
        </dl>
      )}
      {l && draft && !l.configurationManaged && (
        <Form
          label="Edit the list"
          submit="Save list"
          onSubmit={async () => {
            start(await call<ListBody, 'PUT /engage/admin/environments/{environmentId}/lists/{listKey}'>('PUT /engage/admin/environments/{environmentId}/lists/{listKey}', { params, headers: { 'If-Match': `"${base}"` }, body: bodyOf(draft) }));
            setNotice(`Saved ${draft.displayName}: devices get it at their next sync.`);
            detail.reload();
          }}
        >
          <ListFields draft={draft} onChange={setDraft} withKey={false} />
        </Form>
      )}
      {l && (
        <ConfirmByName
          open={deleting}
          title={`Delete list ${l.key}`}
          name={l.key}
          consequence="Devices get its tombstone at their next sync and people's choices about it are no longer shown; templates naming it send as if they named none."
          action="Delete list"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await call('DELETE /engage/admin/environments/{environmentId}/lists/{listKey}', { params, headers: { 'If-Match': `"${l.revision}"` } });
            setDeleting(false);
            navigate(envPath(environmentId, 'lists'));
          }}
        />
      )}
    </>
  );
}
