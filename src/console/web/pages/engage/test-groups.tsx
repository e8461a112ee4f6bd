import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, href, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form } from '../../ui/forms';
import { when } from '../../ui/format';
import { EnvironmentHeader, useEnvironment } from './environments';

interface Member {
  installationId?: string;
  externalId?: string;
}
interface TestGroup {
  id: string;
  environmentId: string;
  name: string;
  memberCount: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}
type TestGroupDetail = TestGroup & { members: Member[] };

const groupsPath = (environmentId: string, ...rest: string[]) => href(`/engage/environments/${encodeURIComponent(environmentId)}/test-groups`, ...rest);
const lines = (text: string) => [...new Set(text.split('\n').map((l) => l.trim()).filter((l) => l !== ''))];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The members a person typed: installation ids and external ids, one a line. */
function membersOf(installations: string, externals: string): Member[] {
  const ids = lines(installations);
  const bad = ids.find((i) => !UUID.test(i));
  if (bad) throw new Error(`${bad} is not an installation id (a UUID). Put external ids in the other box.`);
  const members = [...ids.map((installationId) => ({ installationId: installationId.toLowerCase() })), ...lines(externals).map((externalId) => ({ externalId }))];
  if (members.length > 100) throw new Error(`A test group has at most 100 members; these are ${members.length}.`);
  return members;
}

function MemberFields(props: { installations: string; setInstallations: (v: string) => void; externals: string; setExternals: (v: string) => void }) {
  return (
    <>
      <Field label="Installation ids" hint="One a line: the installation ids (UUIDs) of test devices.">
        {(a) => <textarea {...a} value={props.installations} onInput={(e) => props.setInstallations((e.target as HTMLTextAreaElement).value)} spellcheck={false} />}
      </Field>
      <Field label="External ids" hint="One a line: the external ids of people whose installations receive the test sends at the time of each send.">
        {(a) => <textarea {...a} value={props.externals} onInput={(e) => props.setExternals((e.target as HTMLTextAreaElement).value)} spellcheck={false} />}
      </Field>
      <p class="hint">Up to 100 members in all.</p>
    </>
  );
}

/** The test groups of an environment (who receives test sends) and the form that creates one. */
export function TestGroupList({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const list = usePaged<TestGroup, 'GET /engage/admin/environments/{environmentId}/test-groups'>('GET /engage/admin/environments/{environmentId}/test-groups', { params: { environmentId } });
  const [name, setName] = useState('');
  const [installations, setInstallations] = useState('');
  const [externals, setExternals] = useState('');
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Test groups" />
      <p class="muted">A test send of a template reaches the members of one test group only, marked as a test and outside rate limits and counts.</p>
      <DataTable
        caption="Test groups"
        {...paged(list)}
        rowKey={(g) => g.id}
        empty="No test group yet: create one below."
        columns={[
          { header: 'Name', cell: (g) => <Link href={groupsPath(environmentId, g.id)}>{g.name}</Link> },
          { header: 'Members', cell: (g) => g.memberCount },
          { header: 'Updated', cell: (g) => when(g.updatedAt) },
        ]}
      />
      <h2>Create a test group</h2>
      <Form
        label="Create a test group"
        submit="Create test group"
        onSubmit={async () => {
          const g = await call<TestGroupDetail, 'POST /engage/admin/environments/{environmentId}/test-groups'>('POST /engage/admin/environments/{environmentId}/test-groups', {
            params: { environmentId },
            body: { name, members: membersOf(installations, externals) },
          });
          navigate(groupsPath(environmentId, g.id));
        }}
      >
        <Field label="Group name" hint="e.g. qa-team.">
          {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={100} autoComplete="off" />}
        </Field>
        <MemberFields installations={installations} setInstallations={setInstallations} externals={externals} setExternals={setExternals} />
      </Form>
    </>
  );
}

/** One test group: rename it, replace its members, delete it. */
export function TestGroupDetailPage({ environmentId, testGroupId }: { environmentId: string; testGroupId: string }) {
  const env = useEnvironment(environmentId);
  const params = { environmentId, testGroupId };
  const { data: g, error, reload } = useCall<TestGroupDetail, 'GET /engage/admin/environments/{environmentId}/test-groups/{testGroupId}'>(
    'GET /engage/admin/environments/{environmentId}/test-groups/{testGroupId}',
    { params },
  );
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title={g ? `Test group ${g.name}` : 'Test group'}>
        <Link class="button" href={groupsPath(environmentId)}>
          All test groups
        </Link>
      </EnvironmentHeader>
      {error && <ErrorBox error={error} />}
      {saved && <Notice>Saved.</Notice>}
      {g && (
        <GroupEdit
          key={g.updatedAt}
          environmentId={environmentId}
          group={g}
          onSaved={() => {
            setSaved(true);
            reload();
          }}
        />
      )}
      {g && (
        <>
          <h2>Delete</h2>
          <p>Its past test sends stay.</p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete test group
            </button>
          </div>
          {deleting && (
            <ConfirmByName
              open
              title={`Delete the test group ${g.name}`}
              name={g.name}
              consequence="The group and its member list are removed; its past test sends stay."
              action="Delete test group"
              onClose={() => setDeleting(false)}
              onConfirm={async () => {
                await call('DELETE /engage/admin/environments/{environmentId}/test-groups/{testGroupId}', { params });
                navigate(groupsPath(environmentId));
              }}
            />
          )}
        </>
      )}
    </>
  );
}

function GroupEdit({ environmentId, group, onSaved }: { environmentId: string; group: TestGroupDetail; onSaved: () => void }) {
  const [name, setName] = useState(group.name);
  const [installations, setInstallations] = useState(group.members.flatMap((m) => (m.installationId ? [m.installationId] : [])).join('\n'));
  const [externals, setExternals] = useState(group.members.flatMap((m) => (m.externalId ? [m.externalId] : [])).join('\n'));
  return (
    <>
      <dl class="facts">
        <dt>Members</dt>
        <dd>{group.memberCount}</dd>
        <dt>Updated</dt>
        <dd>{when(group.updatedAt)}</dd>
        {group.configurationManaged && (
          <>
            <dt>Managed</dt>
            <dd>By engage apply: change it in the configuration file.</dd>
          </>
        )}
      </dl>
      <h2>Edit</h2>
      <Form
        label="Edit the test group"
        submit="Save test group"
        onSubmit={async () => {
          const members = membersOf(installations, externals);
          await call('PATCH /engage/admin/environments/{environmentId}/test-groups/{testGroupId}', {
            params: { environmentId, testGroupId: group.id },
            body: { ...(name !== group.name ? { name } : {}), members },
          });
          onSaved();
        }}
      >
        <Field label="Group name">{(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={100} autoComplete="off" />}</Field>
        <MemberFields installations={installations} setInstallations={setInstallations} externals={externals} setExternals={setExternals} />
      </Form>
    </>
  );
}
