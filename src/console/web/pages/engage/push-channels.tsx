import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, usePaged, paged } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';

/** A copy of src/engage/push-channels/read-store.ts CHANNEL_IMPORTANCES (the bundle cannot import server code). */
const IMPORTANCES = ['MIN', 'LOW', 'DEFAULT', 'HIGH'] as const;
interface Action {
  id: string;
  title: string;
  foreground?: boolean;
  destructive?: boolean;
  authenticationRequired?: boolean;
}
/** `revision` is the ETag an edit or a deletion sends back in If-Match (409 push_channel_version_conflict when someone changed it meanwhile). */
type Channel =
  | { key: string; kind: 'ANDROID_CHANNEL'; name: string; description?: string; importance: (typeof IMPORTANCES)[number]; sound?: string | null; configurationManaged: boolean; revision: number }
  | { key: string; kind: 'IOS_CATEGORY'; actions: Action[]; configurationManaged: boolean; revision: number };
const ifMatch = (c: { revision: number }) => ({ 'If-Match': `"${c.revision}"` });
/** The form's state of either kind: the sound as a choice and a name. */
interface Draft {
  key: string;
  name: string;
  description: string;
  importance: (typeof IMPORTANCES)[number];
  sound: 'default' | 'silent' | 'named';
  soundName: string;
  actions: Action[];
}
const BASE = '/engage/admin/environments/{environmentId}/apps/{appId}/push-channels';
const EMPTY: Draft = { key: '', name: '', description: '', importance: 'DEFAULT', sound: 'default', soundName: '', actions: [{ id: 'open', title: 'Open', foreground: true }] };

function draftOf(c: Channel): Draft {
  if (c.kind === 'IOS_CATEGORY') return { ...EMPTY, key: c.key, actions: c.actions.map((a) => ({ ...a })) };
  return { ...EMPTY, key: c.key, name: c.name, description: c.description ?? '', importance: c.importance, sound: c.sound === undefined ? 'default' : c.sound === null ? 'silent' : 'named', soundName: c.sound ?? '' };
}

function fileOf(d: Draft, ios: boolean) {
  if (ios) return { key: d.key, kind: 'IOS_CATEGORY', actions: d.actions };
  const sound = d.sound === 'default' ? {} : { sound: d.sound === 'silent' ? null : d.soundName };
  return { key: d.key, kind: 'ANDROID_CHANNEL', name: d.name, ...(d.description ? { description: d.description } : {}), importance: d.importance, ...sound };
}

/**
 * An app's notification channels (Android) or categories with their action buttons (iOS), on
 * the app's page (issue 26 PUSH): list, create, edit, delete.
 */
export function PushChannelsSection(props: { environmentId: string; app: { id: string; name: string; platform: 'IOS' | 'ANDROID' } }) {
  const { environmentId, app } = props;
  const ios = app.platform === 'IOS';
  const noun = ios ? 'category' : 'channel';
  const params = { environmentId, appId: app.id };
  const list = usePaged<Channel, `GET ${typeof BASE}`>(`GET ${BASE}`, { params });
  /** The channel being edited as it was read: its revision goes back in If-Match. */
  const [edited, setEdited] = useState<Channel | null>(null);
  const editing = edited?.key ?? null;
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [doomed, setDoomed] = useState<Channel | null>(null);
  const deleting = doomed?.key ?? null;
  const [notice, setNotice] = useState('');
  const title = ios ? 'Notification categories' : 'Notification channels';
  const start = (c: Channel | null) => {
    setEdited(c);
    setDraft(c ? draftOf(c) : EMPTY);
  };
  return (
    <section aria-labelledby="push-channels-title">
      <h2 id="push-channels-title">{title}</h2>
      <p class="muted">{ios ? 'Categories give a notification its action buttons; a template names one.' : 'Channels group notifications in the Android settings, each with its importance and sound; a template names one.'} Devices get them at their next sync.</p>
      {notice && <Notice>{notice}</Notice>}
      <DataTable
        caption={title}
        {...paged(list)}
        rowKey={(c) => c.key}
        empty={`No ${noun} yet.`}
        columns={[
          { header: 'Key', cell: (c) => <code>{c.key}</code> },
          { header: ios ? 'Actions' : 'Name and importance', cell: (c) => (c.kind === 'IOS_CATEGORY' ? c.actions.map((a) => a.title).join(', ') || 'None' : `${c.name} (${c.importance.toLowerCase()})`) },
          {
            header: 'Change',
            cell: (c) =>
              c.configurationManaged ? (
                'Managed by engage apply'
              ) : (
                <span class="actions inline">
                  <button type="button" onClick={() => start(c)} aria-label={`Edit ${noun} ${c.key}`}>
                    Edit
                  </button>
                  <button type="button" class="danger" onClick={() => setDoomed(c)} aria-label={`Delete ${noun} ${c.key}`}>
                    Delete
                  </button>
                </span>
              ),
          },
        ]}
      />
      <h3>{editing ? `Edit ${noun} ${editing}` : `Create a ${noun}`}</h3>
      <Form
        label={editing ? `Edit ${noun} ${editing}` : `Create a ${noun}`}
        submit={editing ? `Save ${noun}` : `Create ${noun}`}
        extra={
          editing && (
            <button type="button" onClick={() => start(null)}>
              Cancel edit
            </button>
          )
        }
        onSubmit={async () => {
          if (edited) await call(`PUT ${BASE}/{channelKey}`, { params: { ...params, channelKey: edited.key }, headers: ifMatch(edited), body: fileOf(draft, ios) });
          else await call(`POST ${BASE}`, { params, body: fileOf(draft, ios) });
          setNotice(editing ? `Saved ${noun} ${draft.key}.` : `Created ${noun} ${draft.key}.`);
          start(null);
          list.reload();
        }}
      >
        {!editing && (
          <Field label={ios ? 'Category identifier' : 'Channel id'} hint="Immutable: a lowercase letter, then up to 127 of a-z 0-9 _ . -">
            {(a) => <input {...a} {...bind(draft.key, (key) => setDraft({ ...draft, key }))} required autoComplete="off" spellcheck={false} />}
          </Field>
        )}
        {ios ? <ActionRows actions={draft.actions} onChange={(actions) => setDraft({ ...draft, actions })} /> : <AndroidFields draft={draft} onChange={setDraft} />}
      </Form>
      {doomed && deleting && (
        <ConfirmByName
          open
          title={`Delete ${noun} ${deleting}`}
          name={deleting}
          consequence={`Devices get its tombstone at their next sync; sends naming it are shown without its ${ios ? 'actions' : 'settings'}.`}
          action={`Delete ${noun}`}
          onClose={() => setDoomed(null)}
          onConfirm={async () => {
            await call(`DELETE ${BASE}/{channelKey}`, { params: { ...params, channelKey: deleting }, headers: ifMatch(doomed) });
            setNotice(`Deleted ${noun} ${deleting}.`);
            if (editing === deleting) start(null);
            setDoomed(null);
            list.reload();
          }}
        />
      )}
    </section>
  );
}

function AndroidFields(props: { draft: Draft; onChange: (d: Draft) => void }) {
  const { draft: d } = props;
  const set = (patch: Partial<Draft>) => props.onChange({ ...d, ...patch });
  return (
    <>
      <Field label="Name" hint="What people see in the system settings.">
        {(a) => <input {...a} {...bind(d.name, (name) => set({ name }))} required maxLength={100} />}
      </Field>
      <Field label="Channel description">{(a) => <input {...a} {...bind(d.description, (description) => set({ description }))} maxLength={300} />}</Field>
      <Field label="Importance">
        {(a) => (
          <select {...a} value={d.importance} onChange={(e) => set({ importance: (e.target as HTMLSelectElement).value as Draft['importance'] })}>
            {IMPORTANCES.map((i) => (
              <option key={i} value={i}>
                {i.toLowerCase()}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset class="choices">
        <legend>Sound</legend>
        {(['default', 'silent', 'named'] as const).map((s) => (
          <label key={s} class="check">
            <input type="radio" name="channel-sound" checked={d.sound === s} onChange={() => set({ sound: s })} /> {s === 'default' ? 'The system’s default sound' : s === 'silent' ? 'Silent' : 'A sound of the app'}
          </label>
        ))}
        {d.sound === 'named' && <Field label="Sound resource name">{(a) => <input {...a} {...bind(d.soundName, (soundName) => set({ soundName }))} required spellcheck={false} />}</Field>}
      </fieldset>
    </>
  );
}

function ActionRows(props: { actions: Action[]; onChange: (a: Action[]) => void }) {
  const { actions } = props;
  const set = (i: number, patch: Partial<Action>) => props.onChange(actions.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  const flags = [
    ['foreground', 'opens the app'],
    ['destructive', 'destructive'],
    ['authenticationRequired', 'unlocked device only'],
  ] as const;
  return (
    <fieldset class="variables">
      <legend>Actions (up to 10 buttons)</legend>
      {actions.map((a, i) => (
        <div class="condition-row" role="group" aria-label={`Action ${i + 1}`} key={i}>
          <label>
            <span>Identifier</span>
            <input aria-label={`Action ${i + 1} identifier`} value={a.id} onInput={(e) => set(i, { id: (e.target as HTMLInputElement).value })} required spellcheck={false} />
          </label>
          <label>
            <span>Title</span>
            <input aria-label={`Action ${i + 1} title`} value={a.title} onInput={(e) => set(i, { title: (e.target as HTMLInputElement).value })} required />
          </label>
          {flags.map(([k, words]) => (
            <label class="check" key={k}>
              <input type="checkbox" aria-label={`Action ${i + 1}: ${words}`} checked={!!a[k]} onChange={(e) => set(i, { [k]: (e.target as HTMLInputElement).checked || undefined })} />
              <span>{words}</span>
            </label>
          ))}
          <button type="button" onClick={() => props.onChange(actions.filter((_, j) => j !== i))} aria-label={`Remove action ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" disabled={actions.length >= 10} onClick={() => props.onChange([...actions, { id: '', title: '' }])}>
        Add an action
      </button>
    </fieldset>
  );
}
