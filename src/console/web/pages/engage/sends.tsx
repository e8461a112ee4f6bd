import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, href, navigate, useRoute } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, bind } from '../../ui/forms';
import { PageHeader } from '../../ui/layout';
import { when } from '../../ui/format';
import { EnvironmentTabs } from './environment-tabs';

/** The states of a delivery (the API's DELIVERY_STATES), in their order, with words for a person. */
export const DELIVERY_STATES = [
  ['PENDING', 'Pending: waiting for its (next) attempt'],
  ['SENT', 'Sent: the provider accepted it'],
  ['DELIVERED', 'Delivered: the device reported it'],
  ['OPENED', 'Opened: the person opened it'],
  ['FAILED', 'Failed: the provider refused it'],
  ['EXPIRED', 'Expired: its time to live ran out'],
] as const;

export interface SendLine {
  id: string;
  templateId: string;
  templateKey: string | null;
  templateVersion: number;
  recipient: { type: string; value: string };
  accessKeyId: string;
  isTest: boolean;
  createdAt: string;
}

interface Send extends SendLine {
  deliveries: Record<string, number>;
}

interface Delivery {
  id: string;
  sendId: string;
  installationId: string;
  appId: string;
  provider: 'APNS' | 'FCM';
  state: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  openedAt: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const envPath = (environmentId: string, ...rest: string[]) => href(`/engage/environments/${encodeURIComponent(environmentId)}`, ...rest);

/** The heading of a page of an environment's messaging: breadcrumbs, the h1, the environment's tabs. */
export function EnvPageHeader(props: { environmentId: string; title: string; crumbs?: { label: string; path: string }[]; children?: ComponentChildren }) {
  const env = `/engage/environments/${encodeURIComponent(props.environmentId)}`;
  return (
    <>
      <PageHeader title={props.title} crumbs={[{ label: 'Environments', path: '/engage/environments' }, { label: props.environmentId, path: env }, ...(props.crumbs ?? []).map((c) => ({ ...c, path: `${env}${c.path}` }))]}>
        {props.children}
      </PageHeader>
      <EnvironmentTabs environmentId={props.environmentId} />
    </>
  );
}

const recipientText = (r: SendLine['recipient']) => (r.type === 'TEST_GROUP' ? `test group ${r.value}` : `${r.type === 'EXTERNAL_ID' ? 'external id' : r.type === 'INSTALLATION_ID' ? 'installation' : r.type} ${r.value}`);

/** The recipient, linked to its page (a test group, an installation, the profile of an external id). */
function Recipient({ environmentId, r }: { environmentId: string; r: SendLine['recipient'] }) {
  const to = r.type === 'TEST_GROUP' ? ['test-groups', r.value] : r.type === 'INSTALLATION_ID' ? ['installations', r.value] : r.type === 'EXTERNAL_ID' ? ['profiles', 'external', r.value] : undefined;
  return to ? <Link href={envPath(environmentId, ...to)}>{recipientText(r)}</Link> : <>{recipientText(r)}</>;
}

/** The sends of an environment, newest first, filtered as the API allows (template, test mark, delivery state, installation); a request id opens its send. */
export function SendList({ environmentId }: { environmentId: string }) {
  const { query } = useRoute();
  const [template, setTemplate] = useState(query.get('template') ?? '');
  const [state, setState] = useState(query.get('state') ?? '');
  const [test, setTest] = useState(query.get('test') ?? '');
  const [installation, setInstallation] = useState(query.get('installation') ?? '');
  const [requestId, setRequestId] = useState('');
  // The filters applied are the page's query: a reload or a bookmark keeps them.
  const applied = { template: query.get('template') ?? '', state: query.get('state') ?? '', test: query.get('test') ?? '', installation: query.get('installation') ?? '' };
  const [lookupError, setLookupError] = useState('');
  const list = usePaged<SendLine, 'GET /engage/admin/environments/{environmentId}/sends'>('GET /engage/admin/environments/{environmentId}/sends', {
    params: { environmentId },
    query: { template: applied.template.trim() || undefined, state: applied.state || undefined, test: applied.test || undefined, installation: applied.installation.trim() || undefined },
  });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Sends" />
      <form
        class="msg-lookup"
        aria-label="Open a send by its request id"
        onSubmit={(e) => {
          e.preventDefault();
          const id = requestId.trim();
          if (!UUID.test(id)) return setLookupError('A request id is a UUID, as the send’s answer (requestId) gives it.');
          navigate(envPath(environmentId, 'sends', id.toLowerCase()));
        }}
      >
        <Field label="Request id" hint="The requestId of a send’s answer: opens that send.">
          {(a) => <input {...a} {...bind(requestId, setRequestId)} autoComplete="off" spellcheck={false} aria-invalid={lookupError ? 'true' : undefined} />}
        </Field>
        <button type="submit">Open send</button>
        {lookupError && (
          <p class="msg-field-error" role="alert">
            {lookupError}
          </p>
        )}
      </form>
      <form
        class="msg-filters"
        aria-label="Filter sends"
        onSubmit={(e) => {
          e.preventDefault();
          const q = new URLSearchParams(Object.entries({ template: template.trim(), state, test, installation: installation.trim() }).filter(([, v]) => v !== ''));
          navigate(`${envPath(environmentId, 'sends')}${q.size ? `?${q}` : ''}`);
        }}
      >
        <Field label="Template key">{(a) => <input {...a} {...bind(template, setTemplate)} autoComplete="off" />}</Field>
        <Field label="Installation id" hint="Sends with a delivery to it.">
          {(a) => <input {...a} {...bind(installation, setInstallation)} autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Delivery state" hint="Sends with a delivery in this state.">
          {(a) => (
            <select {...a} value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
              <option value="">Any</option>
              {DELIVERY_STATES.map(([s, words]) => (
                <option key={s} value={s}>
                  {words}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Kind">
          {(a) => (
            <select {...a} value={test} onChange={(e) => setTest((e.target as HTMLSelectElement).value)}>
              <option value="">All sends</option>
              <option value="false">Sends of access keys</option>
              <option value="true">Test sends</option>
            </select>
          )}
        </Field>
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      <DataTable
        caption="Sends"
        {...paged(list)}
        rowKey={(s) => s.id}
        empty="No send matches."
        columns={[
          { header: 'Request id', cell: (s) => <Link href={envPath(environmentId, 'sends', s.id)}><code>{s.id}</code></Link> },
          { header: 'Template', cell: (s) => (s.templateKey ? `${s.templateKey} v${s.templateVersion}` : `v${s.templateVersion}`) },
          { header: 'Recipient', cell: (s) => recipientText(s.recipient) },
          { header: 'Kind', cell: (s) => (s.isTest ? 'Test send' : 'Send') },
          { header: 'Created', cell: (s) => when(s.createdAt) },
        ]}
      />
    </>
  );
}

/** One send: what it was, its deliveries counted by state and listed with their last error; refreshed every second while one is pending. */
export function SendDetail({ environmentId, sendId }: { environmentId: string; sendId: string }) {
  const send = useCall<Send, 'GET /engage/admin/environments/{environmentId}/sends/{sendId}'>('GET /engage/admin/environments/{environmentId}/sends/{sendId}', { params: { environmentId, sendId } });
  const [state, setState] = useState('');
  const deliveries = usePaged<Delivery, 'GET /engage/admin/environments/{environmentId}/sends/{sendId}/deliveries'>('GET /engage/admin/environments/{environmentId}/sends/{sendId}/deliveries', {
    params: { environmentId, sendId },
    query: { state: state || undefined },
  });
  const s = send.data;
  const pending = (s?.deliveries.PENDING ?? 0) > 0;
  useEffect(() => {
    if (!pending) return;
    const t = setInterval(() => {
      send.reload();
      deliveries.reload();
    }, 1000);
    return () => clearInterval(t);
  }, [pending]);
  const total = s ? Object.values(s.deliveries).reduce((a, b) => a + b, 0) : 0;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={s?.isTest ? 'Test send' : 'Send'} crumbs={[{ label: 'Sends', path: '/sends' }]}>
        <button
          type="button"
          onClick={() => {
            send.reload();
            deliveries.reload();
          }}
        >
          Refresh
        </button>
      </EnvPageHeader>
      {send.error && <ErrorBox error={send.error} />}
      {s && (
        <>
          <dl class="facts">
            <dt>Request id</dt>
            <dd>
              <code>{s.id}</code>
            </dd>
            <dt>Template</dt>
            <dd>{s.templateKey ? <Link href={envPath(environmentId, 'templates', s.templateKey)}>{s.templateKey}</Link> : '—'} version {s.templateVersion}</dd>
            <dt>Recipient</dt>
            <dd>
              <Recipient environmentId={environmentId} r={s.recipient} />
            </dd>
            <dt>Sent by</dt>
            <dd>
              {s.isTest ? (
                `a test send of ${s.accessKeyId}`
              ) : (
                <Link href={envPath(environmentId, 'access-keys', s.accessKeyId)}>
                  access key <code>{s.accessKeyId}</code>
                </Link>
              )}
            </dd>
            <dt>Created</dt>
            <dd>{when(s.createdAt)}</dd>
          </dl>
          <h2>Deliveries by state</h2>
          {pending && (
            <p role="status" class="muted">
              <progress max={total} value={total - (s.deliveries.PENDING ?? 0)} aria-label="Deliveries attempted" /> {s.deliveries.PENDING} of {total} still pending; refreshing every second.
            </p>
          )}
          <ul class="state-counts" aria-label="Deliveries by state">
            {DELIVERY_STATES.map(([st, words]) => (
              <li key={st} class={`state state-${st.toLowerCase()}`}>
                <strong>{s.deliveries[st] ?? 0}</strong> {words.split(':')[0].toLowerCase()}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Deliveries</h2>
      <div class="msg-filters">
        <Field label="Show deliveries">
          {(a) => (
            <select {...a} value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
              <option value="">In every state</option>
              {DELIVERY_STATES.map(([st, words]) => (
                <option key={st} value={st}>
                  {words}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <DataTable
        caption="Deliveries of the send"
        {...paged(deliveries)}
        rowKey={(d) => d.id}
        empty="No delivery (the recipient had no installation a push could reach: the send's answer said why)."
        columns={[
          { header: 'Installation', cell: (d) => <Link href={envPath(environmentId, 'installations', d.installationId)}><code>{d.installationId}</code></Link> },
          { header: 'Provider', cell: (d) => d.provider },
          { header: 'State', cell: (d) => <span class={`state state-${d.state.toLowerCase()}`}>{d.state}</span> },
          { header: 'Attempts', cell: (d) => d.attempts },
          { header: 'Last error', cell: (d) => (d.lastError ? <code>{d.lastError}</code> : 'None') },
          { header: 'When', cell: (d) => (d.openedAt ? `opened ${when(d.openedAt)}` : d.deliveredAt ? `delivered ${when(d.deliveredAt)}` : d.sentAt ? `sent ${when(d.sentAt)}` : d.nextAttemptAt ? `next attempt ${when(d.nextAttemptAt)}` : `created ${when(d.createdAt)}`) },
        ]}
      />
    </>
  );
}
