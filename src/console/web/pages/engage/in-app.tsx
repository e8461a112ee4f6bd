import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link, navigate, useRoute } from '../../router';
import { DataTable, paged, useCall, usePaged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { ContentEditor } from './in-app-content';
import { MessageFields } from './in-app-fields';
import { MESSAGE_STATUSES, draftOf, fieldErrors, fileOf, newDraft, type MessageDraft, type MessageStatus, type MessageSummary, type MessageView } from './in-app-model';
import { MessageResultsView } from './in-app-results';
import { EnvPageHeader, envPath } from './sends';
import { useApps } from './template-editor';

const BASE = '/engage/admin/environments/{environmentId}/in-app-messages';
const ONE = `${BASE}/{messageKey}` as const;
const STATUS_LABEL: Record<MessageStatus, string> = { DRAFT: 'Draft', ACTIVE: 'Active', PAUSED: 'Paused', ARCHIVED: 'Archived' };
const STATUS_WORDS: Record<MessageStatus, string> = {
  DRAFT: 'Draft: never published, devices do not get it',
  ACTIVE: 'Active: devices get the published version at their next sync',
  PAUSED: 'Paused: devices do not get it until it is published again',
  ARCHIVED: 'Archived: devices do not get it, and it can no longer change; its results stay',
};

export function StatusBadge({ status }: { status: MessageStatus }) {
  return <span class={`badge badge-${status.toLowerCase()}`}>{STATUS_LABEL[status]}</span>;
}

/** Whether an edit is waiting to be published: a marker beside the status. */
const PendingBadge = ({ m }: { m: MessageSummary }) => (m.draftPending && m.status !== 'ARCHIVED' ? <span class="badge badge-pending">{m.publishedVersion === null ? 'Unpublished' : 'Unpublished edit'}</span> : null);

/** The In-app tab of an environment: its messages with their status, filtered by status. */
export function MessageList({ environmentId }: { environmentId: string }) {
  const { path, query } = useRoute();
  const status = MESSAGE_STATUSES.find((s) => s === query.get('status')) ?? '';
  const list = usePaged<MessageSummary, `GET ${typeof BASE}`>(`GET ${BASE}`, { params: { environmentId }, query: { status: status || undefined } });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="In-app messages">
        <Link class="button primary" href={envPath(environmentId, 'new-in-app-message')}>
          New message
        </Link>
      </EnvPageHeader>
      <form class="msg-filters in-app-filter" aria-label="Filter the messages" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          {(a) => (
            <select {...a} value={status} onChange={(e) => navigate(`${path}${(e.target as HTMLSelectElement).value ? `?status=${(e.target as HTMLSelectElement).value}` : ''}`, { replace: true })}>
              <option value="">Any status</option>
              {MESSAGE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABEL[s]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <DataTable
        caption="In-app messages"
        {...paged(list)}
        rowKey={(m) => m.key}
        empty={status ? `No ${STATUS_LABEL[status].toLowerCase()} message.` : 'No in-app message yet.'}
        columns={[
          { header: 'Key', cell: (m) => <Link href={envPath(environmentId, 'in-app-messages', m.key)}>{m.key}</Link> },
          { header: 'Description', cell: (m) => m.description ?? '' },
          {
            header: 'Status',
            cell: (m) => (
              <span class="row-actions">
                <StatusBadge status={m.status} /> <PendingBadge m={m} />
              </span>
            ),
          },
          { header: 'Version', cell: (m) => (m.publishedVersion !== null && m.publishedVersion !== m.version ? `${m.version} (published: ${m.publishedVersion})` : m.version) },
          { header: 'Updated', cell: (m) => when(m.updatedAt) },
        ]}
      />
    </>
  );
}

/** Runs a save, keeping the server's refusal by field for the form (and rethrowing it for the form's alert). */
async function withFieldErrors(setErrors: (e: Record<string, string>) => void, save: () => Promise<void>) {
  try {
    await save();
    setErrors({});
  } catch (e) {
    setErrors(e instanceof ApiFailure && e.code === 'invalid_request' ? fieldErrors(e.detail) : {});
    throw e;
  }
}

export function MessageCreate({ environmentId }: { environmentId: string }) {
  const apps = useApps(environmentId);
  const [draft, setDraft] = useState<MessageDraft>(newDraft);
  const [errors, setErrors] = useState<Record<string, string>>({});
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="New in-app message" crumbs={[{ label: 'In-app messages', path: '/in-app-messages' }]} />
      <p>A new message is a draft: devices get it once it is published from its page.</p>
      <div class="in-app-work">
        <Form
          label="New in-app message"
          submit="Create message"
          onSubmit={() =>
            withFieldErrors(setErrors, async () => {
              const m = await call<MessageView, `POST ${typeof BASE}`>(`POST ${BASE}`, { params: { environmentId }, body: fileOf(draft) });
              navigate(envPath(environmentId, 'in-app-messages', m.key));
            })
          }
        >
          <MessageFields draft={draft} onChange={setDraft} apps={apps} withKey errors={errors} />
          <ContentEditor draft={draft} onChange={setDraft} errors={errors} />
        </Form>
      </div>
    </>
  );
}

/** A confirmation without typing (publishing and pausing can be undone): a modal dialog with the consequence. */
function ConfirmAction(props: { open: boolean; title: string; consequence: string; action: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { busy, error, run, setError } = useSubmit(props.onConfirm);
  useEffect(() => {
    const d = ref.current;
    if (props.open && d && !d.open) {
      // A refusal of an earlier attempt is not this one's.
      setError(undefined);
      d.showModal();
    }
    if (!props.open && d?.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby="action-title" onClose={props.onClose} class="confirm">
      <h2 id="action-title">{props.title}</h2>
      <p>{props.consequence}</p>
      {error && <ErrorBox error={error} />}
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void run()}>
          {busy ? 'Working…' : props.action}
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

type Verb = 'publish' | 'pause';

/**
 * One message: its facts, its definition edited as a form beside a live preview of each layout,
 * saved as the latest edit with If-Match of the version the form started from (someone else's
 * save in between is a 409 in words); publish, pause and archive, each confirmed; its results.
 */
export function MessageDetail({ environmentId, messageKey }: { environmentId: string; messageKey: string }) {
  const params = { environmentId, messageKey };
  const detail = useCall<MessageView, `GET ${typeof ONE}`>(`GET ${ONE}`, { params });
  const apps = useApps(environmentId);
  const m = detail.data;
  const [draft, setDraft] = useState<MessageDraft | undefined>();
  const [base, setBase] = useState(0);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<Verb | 'archive' | undefined>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (m && m.version !== base) {
      setDraft(draftOf(m.definition));
      setBase(m.version);
    }
  }, [m?.version]);
  const changed = (message: string, now: MessageView) => {
    setDraft(draftOf(now.definition));
    setBase(now.version);
    setNotice(message);
    setConfirm(undefined);
    detail.reload();
    setTick((n) => n + 1);
  };
  const ifMatch = { 'If-Match': `"${base}"` };
  const act = async (verb: Verb | 'archive') => {
    const r = await call<MessageView, `POST ${typeof ONE}/${Verb | 'archive'}`>(`POST ${ONE}/${verb}`, { params, headers: ifMatch });
    const words = {
      publish: `Published version ${r.publishedVersion}: devices get it at their next sync.`,
      pause: 'Paused: devices drop it at their next sync; publish to resume.',
      archive: 'Archived: devices drop it at their next sync; its results stay.',
    };
    changed(r.changed === false ? 'Nothing changed.' : words[verb], r);
  };
  const editable = m && !m.configurationManaged && m.status !== 'ARCHIVED';
  const dirty = !!m && !!draft && JSON.stringify(fileOf(draft)) !== JSON.stringify(fileOf(draftOf(m.definition)));
  const canPublish = m && (m.status === 'DRAFT' || m.status === 'PAUSED' || (m.status === 'ACTIVE' && m.draftPending));
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`In-app message ${messageKey}`} crumbs={[{ label: 'In-app messages', path: '/in-app-messages' }]}>
        {editable && canPublish && (
          <button type="button" class="primary" onClick={() => setConfirm('publish')}>
            {m.status === 'PAUSED' && !m.draftPending ? 'Resume' : 'Publish'}
          </button>
        )}
        {editable && m.status === 'ACTIVE' && (
          <button type="button" onClick={() => setConfirm('pause')}>
            Pause
          </button>
        )}
        {editable && (
          <button type="button" class="danger" onClick={() => setConfirm('archive')}>
            Archive
          </button>
        )}
      </EnvPageHeader>
      {detail.error && <ErrorBox error={detail.error} />}
      {notice && <Notice>{notice}</Notice>}
      {m && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={m.status} /> <PendingBadge m={m} /> {STATUS_WORDS[m.status]}
          </dd>
          <dt>Version</dt>
          <dd>
            {m.version} (latest edit){m.publishedVersion !== null && `; version ${m.publishedVersion} published ${m.publishedAt ? when(m.publishedAt) : ''}`}
          </dd>
          <dt>Message id</dt>
          <dd>
            <code>{m.id}</code> <span class="muted">(the experienceId devices report)</span>
          </dd>
          <dt>Updated</dt>
          <dd>{when(m.updatedAt)}</dd>
          {m.configurationManaged && (
            <>
              <dt>Managed</dt>
              <dd>By engage apply: change it in the configuration file.</dd>
            </>
          )}
        </dl>
      )}
      {m && draft && (
        <>
          <MessageResultsView environmentId={environmentId} messageKey={messageKey} tick={tick} />
          <h2>Definition</h2>
          {editable ? (
            <div class="in-app-work">
              <Form
                label="Edit the message"
                submit="Save"
                extra={dirty ? <span class="muted">Unsaved changes: the preview shows what is typed.</span> : undefined}
                onSubmit={() =>
                  withFieldErrors(setErrors, async () => {
                    const r = await call<MessageView, `PUT ${typeof ONE}`>(`PUT ${ONE}`, { params, headers: ifMatch, body: fileOf(draft) });
                    const published = r.status === 'ACTIVE' || r.status === 'PAUSED' ? ' Devices keep the published version until you publish this one.' : ' Publish it for devices to get it.';
                    changed(r.changed === false ? 'Nothing changed: no new version.' : `Saved as version ${r.version}.${published}`, r);
                  })
                }
              >
                <MessageFields draft={draft} onChange={setDraft} apps={apps} withKey={false} errors={errors} />
                <ContentEditor draft={draft} onChange={setDraft} errors={errors} />
              </Form>
            </div>
          ) : (
            <>
              <p class="muted">{m.configurationManaged ? 'Managed by engage apply: edit the configuration file.' : 'An archived message cannot be edited.'}</p>
              <pre class="payload" tabIndex={0} aria-label="Definition">
                {JSON.stringify(m.definition, null, 2)}
              </pre>
            </>
          )}
          <ConfirmAction
            open={confirm === 'publish' || confirm === 'pause'}
            {...(confirm === 'pause'
              ? { title: 'Pause the message?', consequence: 'Devices drop it at their next sync until it is published again. Its results stay.', action: 'Pause message' }
              : {
                  title: `Publish version ${m.version}?`,
                  consequence: `Devices of its audience get version ${m.version} at their next sync.${dirty ? ' Your unsaved changes are not part of it: save them first to publish them.' : ''}`,
                  action: `Publish version ${m.version}`,
                })}
            onConfirm={() => act(confirm === 'pause' ? 'pause' : 'publish')}
            onClose={() => setConfirm(undefined)}
          />
          <ConfirmByName
            open={confirm === 'archive'}
            title="Archive the message?"
            name={messageKey}
            consequence="Devices drop it at their next sync, and it can never be edited or published again. Its results stay."
            action="Archive message"
            onConfirm={() => act('archive')}
            onClose={() => setConfirm(undefined)}
          />
        </>
      )}
    </>
  );
}
