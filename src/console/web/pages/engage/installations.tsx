import { useState } from 'preact/hooks';
import { Link, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, bind } from '../../ui/forms';
import { when } from '../../ui/format';
import { EnvPageHeader, envPath } from './sends';
import { TIMELINE_DELIVERIES, Timeline, TimelineError, installationEntries, useInstallationsHistory } from './installations-timeline';

interface InstallationLine {
  id: string;
  appId: string;
  platform: 'IOS' | 'ANDROID';
  bindingState: 'ANONYMOUS' | 'BOUND';
  generation: number;
  profileId: string;
  privacy: 'OPTED_IN' | 'OPTED_OUT';
  pushSubscription: 'OPTED_IN' | 'OPTED_OUT';
  pushPermission: string;
  pushTokenHeld: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Installation extends InstallationLine {
  environmentId: string;
  locale: string;
  timezone: string;
  sdkVersion: string;
  appVersion: string;
  appBuild: string | null;
  deviceModel: string | null;
  osVersion: string | null;
  externalId: string | null;
  attributes: Record<string, unknown>;
  subscriptions: Record<string, boolean>;
  generations: { generation: number; profileId: string; bindingState: 'ANONYMOUS' | 'BOUND'; committedAt: string }[];
  operations: { operationId: string; generation: number; type: string; status: 'ACCEPTED' | 'REJECTED'; occurredAt: string | null; receivedAt: string }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a push can reach it, in words (no colour alone). */
export const pushWords = (i: Pick<InstallationLine, 'privacy' | 'pushSubscription' | 'pushPermission' | 'pushTokenHeld'>) =>
  i.privacy === 'OPTED_OUT'
    ? 'No: opted out (privacy)'
    : i.pushSubscription === 'OPTED_OUT'
      ? 'No: unsubscribed from push'
      : !['AUTHORIZED', 'PROVISIONAL', 'EPHEMERAL'].includes(i.pushPermission)
        ? `No: permission ${i.pushPermission.toLowerCase().replace(/_/g, ' ')}`
        : !i.pushTokenHeld
          ? 'No: no push token'
          : 'Yes';

/** A JSON value as short text. */
export const valueText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Look an installation up by its id, or a profile by its external id. */
function Lookup({ environmentId }: { environmentId: string }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  return (
    <form
      class="msg-lookup"
      aria-label="Look up an installation or a profile"
      onSubmit={(e) => {
        e.preventDefault();
        const v = text.trim();
        if (!v) return setProblem('Enter an installation id or an external id.');
        setProblem('');
        if (UUID.test(v)) navigate(envPath(environmentId, 'installations', v.toLowerCase()));
        else navigate(envPath(environmentId, 'profiles', 'external', v));
      }}
    >
      <Field label="Installation id or external id" hint="An installation id (a UUID) opens the installation; anything else is taken as the external id of a profile.">
        {(a) => <input {...a} {...bind(text, setText)} autoComplete="off" spellcheck={false} aria-invalid={problem ? 'true' : undefined} />}
      </Field>
      <button type="submit">Look up</button>
      {problem && (
        <p class="msg-field-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

export function InstallationList({ environmentId }: { environmentId: string }) {
  const list = usePaged<InstallationLine, 'GET /engage/admin/environments/{environmentId}/installations'>('GET /engage/admin/environments/{environmentId}/installations', {
    params: { environmentId },
    keyset: true,
  });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Installations" />
      <Lookup environmentId={environmentId} />
      <DataTable
        caption="Installations"
        {...paged(list)}
        rowKey={(i) => i.id}
        empty="No installation yet: an app registers one through the SDK."
        columns={[
          { header: 'Installation', cell: (i) => <Link href={envPath(environmentId, 'installations', i.id)}><code>{i.id}</code></Link> },
          { header: 'Platform', cell: (i) => (i.platform === 'IOS' ? 'iOS' : 'Android') },
          { header: 'Binding', cell: (i) => (i.bindingState === 'BOUND' ? 'Bound to a user' : 'Anonymous') },
          { header: 'Push ready', cell: (i) => pushWords(i) },
          { header: 'Updated', cell: (i) => when(i.updatedAt) },
        ]}
      />
    </>
  );
}

/** An installation: its state, attributes and subscriptions, and its timeline (binding transitions, operations, pushes to it). */
export function InstallationDetail({ environmentId, installationId }: { environmentId: string; installationId: string }) {
  const { data: i, error } = useCall<Installation, 'GET /engage/admin/environments/{environmentId}/installations/{installationId}'>('GET /engage/admin/environments/{environmentId}/installations/{installationId}', {
    params: { environmentId, installationId },
  });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Installation ${installationId}`} crumbs={[{ label: 'Installations', path: '/installations' }]}>
        <Link class="button" href={`${envPath(environmentId, 'sends')}?installation=${encodeURIComponent(installationId)}`}>
          Sends to it
        </Link>
      </EnvPageHeader>
      {error && <ErrorBox error={error} />}
      {i && (
        <>
          <dl class="facts">
            <dt>Platform</dt>
            <dd>
              {i.platform === 'IOS' ? 'iOS' : 'Android'} {i.osVersion ?? ''} {i.deviceModel ? `on ${i.deviceModel}` : ''}
            </dd>
            <dt>App version</dt>
            <dd>
              {i.appVersion}
              {i.appBuild ? ` (${i.appBuild})` : ''}, SDK {i.sdkVersion}
            </dd>
            <dt>Locale and time zone</dt>
            <dd>
              {i.locale}, {i.timezone}
            </dd>
            <dt>Binding</dt>
            <dd>
              {i.bindingState === 'BOUND' ? 'Bound to ' : 'Anonymous, profile '}
              <Link href={envPath(environmentId, 'profiles', i.profileId)}>{i.externalId ? `external id ${i.externalId}` : i.profileId}</Link> (generation {i.generation})
            </dd>
            <dt>Push ready</dt>
            <dd>{pushWords(i)}</dd>
            <dt>Push</dt>
            <dd>
              permission {i.pushPermission}, subscription {i.pushSubscription}, {i.pushTokenHeld ? 'a token is held (never shown)' : 'no token'}
            </dd>
            <dt>Privacy</dt>
            <dd>{i.privacy === 'OPTED_IN' ? 'Opted in' : 'Opted out'}</dd>
            <dt>Registered</dt>
            <dd>{when(i.createdAt)}</dd>
            <dt>Last change</dt>
            <dd>{when(i.updatedAt)}</dd>
          </dl>
          <h2>Attributes</h2>
          <KeyValues caption="Attributes of the installation" values={i.attributes} empty="No attribute." />
          <h2>Subscriptions</h2>
          <KeyValues caption="Subscriptions of the installation" values={Object.fromEntries(Object.entries(i.subscriptions).map(([k, v]) => [k, v ? 'Subscribed' : 'Unsubscribed']))} empty="No subscription." />
          <InstallationTimeline environmentId={environmentId} installation={i} />
        </>
      )}
    </>
  );
}

/** A table of names and values (attributes, subscriptions). */
export function KeyValues({ caption, values, empty }: { caption: string; values: Record<string, unknown>; empty: string }) {
  const rows = Object.entries(values).map(([name, value]) => ({ name, value }));
  return <DataTable caption={caption} rows={rows} rowKey={(r) => r.name} empty={empty} columns={[{ header: 'Name', cell: (r) => r.name }, { header: 'Value', cell: (r) => valueText(r.value) }]} />;
}

/** The installation's timeline: what GET …/installations/{id} holds (binding history, last operations) merged with the pushes to it. */
function InstallationTimeline({ environmentId, installation }: { environmentId: string; installation: Installation }) {
  const h = useInstallationsHistory(environmentId, [installation.id], false);
  if (h.loading) return <p aria-busy="true">Loading the timeline…</p>;
  return (
    <>
      <TimelineError error={h.error} />
      <Timeline
        label="Timeline of the installation, newest first"
        entries={installationEntries(environmentId, installation, h.deliveries[installation.id] ?? [])}
        note={
          <>
            Its binding changes, its last {installation.operations.length === 1 ? 'operation' : `${installation.operations.length} operations`} received and the {TIMELINE_DELIVERIES} newest pushes to it. All the sends to it:{' '}
            <Link href={`${envPath(environmentId, 'sends')}?installation=${encodeURIComponent(installation.id)}`}>Sends to it</Link>.
          </>
        }
      />
    </>
  );
}
