import { Link } from '../../router';
import { DataTable, useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { KeyValues } from './installations';
import { EnvPageHeader, at, envPath } from './sends';

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

/** A profile (by its id, or by the external id it is bound to): attributes, tags, subscriptions, its installations. */
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
            <dd>{at(p.createdAt)}</dd>
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
        </>
      )}
    </>
  );
}
