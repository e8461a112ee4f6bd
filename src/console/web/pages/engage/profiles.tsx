import { Link } from '../../router';
import { DataTable, useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { when } from '../../ui/format';
import { KeyValues } from './installations';
import { EnvPageHeader, envPath } from './sends';
import { TIMELINE_DELIVERIES, Timeline, type TimelineEntry, TimelineError, installationEntries, useInstallationsHistory } from './installations-timeline';

interface Profile {
  id: string;
  environmentId: string;
  externalId: string | null;
  state: 'BOUND' | 'UNBOUND';
  createdAt: string;
  attributes: Record<string, unknown>;
  tags: string[];
  subscriptions: { list: string; channel: string; subscribed: boolean }[];
  installations: { id: string; appId: string; platform: 'IOS' | 'ANDROID'; generation: number }[];
}

/** A profile (by its id, or by the external id it is bound to): attributes, tags, subscriptions, its installations, its timeline. */
export function ProfileDetail({ environmentId, profileId, externalId }: { environmentId: string; profileId?: string; externalId?: string }) {
  const byId = useCall<Profile, 'GET /engage/admin/environments/{environmentId}/profiles/{profileId}'>(
    profileId ? 'GET /engage/admin/environments/{environmentId}/profiles/{profileId}' : undefined,
    { params: { environmentId, profileId: profileId ?? '' } },
  );
  const byExternal = useCall<Profile, 'GET /engage/admin/environments/{environmentId}/profiles/external/{externalId}'>(
    externalId !== undefined ? 'GET /engage/admin/environments/{environmentId}/profiles/external/{externalId}' : undefined,
    { params: { environmentId, externalId: externalId ?? '' } },
  );
  const { data: p, error } = profileId ? byId : byExternal;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={externalId !== undefined ? `Profile of ${externalId}` : `Profile ${profileId}`} crumbs={[{ label: 'Installations', path: '/installations' }]} />
      {error && <ErrorBox error={error} />}
      {p && (
        <>
          <dl class="facts">
            <dt>Profile id</dt>
            <dd>
              <code>{p.id}</code>
            </dd>
            <dt>External id</dt>
            <dd>{p.externalId ?? 'None: an anonymous profile'}</dd>
            <dt>State</dt>
            <dd>{p.state === 'BOUND' ? 'Bound: an installation is bound to it' : 'Unbound: no installation is bound to it'}</dd>
            <dt>Created</dt>
            <dd>{when(p.createdAt)}</dd>
            <dt>Tags</dt>
            <dd>{p.tags.length ? p.tags.join(', ') : 'None'}</dd>
          </dl>
          <h2>Installations</h2>
          <DataTable
            caption="Installations bound to the profile"
            rows={p.installations}
            rowKey={(i) => i.id}
            empty="No installation is bound to it now."
            columns={[
              { header: 'Installation', cell: (i) => <Link href={envPath(environmentId, 'installations', i.id)}><code>{i.id}</code></Link> },
              { header: 'Platform', cell: (i) => (i.platform === 'IOS' ? 'iOS' : 'Android') },
              { header: 'Generation', cell: (i) => i.generation },
            ]}
          />
          <h2>Attributes</h2>
          <KeyValues caption="Attributes of the profile" values={p.attributes} empty="No attribute." />
          <h2>Subscriptions</h2>
          <DataTable
            caption="Subscriptions of the profile"
            rows={p.subscriptions}
            rowKey={(s) => `${s.list}/${s.channel}`}
            empty="No subscription."
            columns={[
              { header: 'List', cell: (s) => s.list },
              { header: 'Channel', cell: (s) => s.channel },
              { header: 'Subscribed', cell: (s) => (s.subscribed ? 'Yes' : 'No') },
            ]}
          />
          <ProfileTimeline environmentId={environmentId} profile={p} />
        </>
      )}
    </>
  );
}

/**
 * The profile's timeline: its creation, and the events of the installations bound to it now while
 * they were its own (their binding transitions, operations received, pushes to them), newest first.
 */
function ProfileTimeline({ environmentId, profile }: { environmentId: string; profile: Profile }) {
  const ids = profile.installations.map((i) => i.id);
  const h = useInstallationsHistory(environmentId, ids, true);
  if (h.loading && ids.length > 0) return <p aria-busy="true">Loading the timeline…</p>;
  const entries: TimelineEntry[] = [{ at: profile.createdAt, what: <>Profile created{profile.externalId ? ` for external id ${profile.externalId}` : ' (anonymous)'}</>, seq: -1 }];
  for (const i of h.installations) entries.push(...installationEntries(environmentId, i, h.deliveries[i.id] ?? [], profile.id));
  return (
    <>
      <TimelineError error={h.error} />
      <Timeline
        label="Timeline of the profile, newest first"
        entries={entries}
        note={`Its creation, and what happened to the installations bound to it now while they were its own: binding changes, their last operations received, the ${TIMELINE_DELIVERIES} newest pushes to each.`}
      />
    </>
  );
}
