import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, paged, usePaged } from '../../ui/data';
import { Field, Form, bind } from '../../ui/forms';
import { A, SLUG_HINT, type Member, type Organization, type Removal, type Team } from './directory-model';

/** A member list (an organization's or a team's) with an add form and removal by typed subject. */
export function Members(props: {
  label: string;
  list: ReturnType<typeof usePaged<Member, `GET ${typeof A}/organizations/{organizationSlug}/members`>>;
  add: (subject: string) => Promise<void>;
  remove: (m: Member) => Removal;
  onRemove: (r: Removal) => void;
  hint: string;
  manage: boolean;
}) {
  const [subject, setSubject] = useState('');
  return (
    <>
      <DataTable
        caption={props.label}
        {...paged(props.list)}
        rowKey={(m) => m.subject}
        empty="No member yet."
        columns={[
          { header: 'Subject', cell: (m) => <code>{m.subject}</code> },
          { header: 'Status', cell: (m) => m.status },
          ...(props.manage
            ? [{
                header: 'Actions',
                cell: (m: Member) => (
                  <button type="button" class="danger" onClick={() => props.onRemove(props.remove(m))} aria-label={`Remove ${m.subject} from ${props.label}`}>
                    Remove
                  </button>
                ),
              }]
            : []),
        ]}
      />
      {props.manage && (
        <Form
          label={`Add to ${props.label}`}
          submit="Add member"
          onSubmit={async () => {
            await props.add(subject.trim());
            setSubject('');
            props.list.reload();
          }}
        >
          <Field label="Subject" hint={props.hint}>
            {(a) => <input {...a} {...bind(subject, setSubject)} required autoComplete="off" spellcheck={false} />}
          </Field>
        </Form>
      )}
    </>
  );
}

/** A team's members: add (an organization member), remove by typed subject. */
export function TeamMembers({ tenantId, org, team, manage, onRemove, onChange }: { tenantId: string; org: Organization; team: Team; manage: boolean; onRemove: (r: Removal) => void; onChange: () => void }) {
  const teamParams = { tenantId, organizationSlug: org.slug, teamSlug: team.slug };
  const teamMembers = usePaged<Member, `GET ${typeof A}/organizations/{organizationSlug}/teams/{teamSlug}/members`>(`GET ${A}/organizations/{organizationSlug}/teams/{teamSlug}/members`, {
    params: teamParams,
  });
  return (
    <>
      <h4>Members of team {team.displayName}</h4>
      <Members
        label={`Members of team ${team.slug}`}
        list={teamMembers}
        manage={manage}
        hint={`The subject of a member of ${org.slug}.`}
        add={(subject) => call(`POST ${A}/organizations/{organizationSlug}/teams/{teamSlug}/members`, { params: teamParams, body: { subject } })}
        remove={(m) => ({
          title: 'Remove a team member',
          name: m.subject,
          consequence: `${m.subject} leaves team ${team.slug}, with their role assignments in that team.`,
          action: 'Remove member',
          run: async () => {
            await call(`POST ${A}/organizations/{organizationSlug}/teams/{teamSlug}/members/removals`, { params: teamParams, body: { subject: m.subject } });
            teamMembers.reload();
            onChange();
          },
          done: `${m.subject} is removed from team ${team.slug}.`,
        })}
        onRemove={onRemove}
      />
    </>
  );
}

/** An organization: its members, its teams (create one) and a chosen team's members. */
export function OrganizationDetail({ tenantId, org, manage, onRemove, onChange }: { tenantId: string; org: Organization; manage: boolean; onRemove: (r: Removal) => void; onChange: () => void }) {
  const params = { tenantId, organizationSlug: org.slug };
  const teams = usePaged<Team, `GET ${typeof A}/organizations/{organizationSlug}/teams`>(`GET ${A}/organizations/{organizationSlug}/teams`, { params });
  const members = usePaged<Member, `GET ${typeof A}/organizations/{organizationSlug}/members`>(`GET ${A}/organizations/{organizationSlug}/members`, { params });
  const [team, setTeam] = useState<Team | undefined>();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  return (
    <section aria-labelledby="org-heading" class="panel">
      <h3 id="org-heading">Organization {org.displayName}</h3>
      <h4>Members</h4>
      <Members
        label={`Members of ${org.slug}`}
        list={members}
        manage={manage}
        hint="The subject (sub) of a user of this tenant."
        add={(subject) => call(`POST ${A}/organizations/{organizationSlug}/members`, { params, body: { subject } })}
        remove={(m) => ({
          title: 'Remove an organization member',
          name: m.subject,
          consequence: `${m.subject} leaves ${org.slug}, with their team memberships and the organization and team role assignments there.`,
          action: 'Remove member',
          run: async () => {
            await call(`POST ${A}/organizations/{organizationSlug}/members/removals`, { params, body: { subject: m.subject } });
            members.reload();
            setTeam(undefined);
            onChange();
          },
          done: `${m.subject} is removed from ${org.slug}.`,
        })}
        onRemove={onRemove}
      />
      <h4>Teams</h4>
      <DataTable
        caption={`Teams of ${org.slug}`}
        {...paged(teams)}
        rowKey={(t) => t.id}
        empty="No team in this organization."
        columns={[
          { header: 'Slug', cell: (t) => t.slug },
          { header: 'Name', cell: (t) => t.displayName },
          { header: 'Status', cell: (t) => t.status },
          {
            header: 'Members',
            cell: (t) => (
              <button type="button" onClick={() => setTeam(team?.id === t.id ? undefined : t)} aria-expanded={team?.id === t.id} aria-label={`${team?.id === t.id ? 'Hide' : 'Show'} members of team ${t.slug}`}>
                {team?.id === t.id ? 'Hide members' : 'Show members'}
              </button>
            ),
          },
          ...(manage
            ? [{
                header: 'Actions',
                cell: (t: Team) => (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete team ${t.slug}`}
                    onClick={() =>
                      onRemove({
                        title: 'Delete a team',
                        name: t.slug,
                        consequence: `Team ${t.slug} is deleted with its memberships and the role assignments in it.`,
                        action: 'Delete team',
                        run: async () => {
                          await call(`DELETE ${A}/organizations/{organizationSlug}/teams/{teamSlug}`, { params: { ...params, teamSlug: t.slug } });
                          if (team?.id === t.id) setTeam(undefined);
                          teams.reload();
                          onChange();
                        },
                        done: `Team ${t.slug} is deleted.`,
                      })
                    }
                  >
                    Delete
                  </button>
                ),
              }]
            : []),
        ]}
      />
      {manage && (
        <Form
          label={`Create a team in ${org.slug}`}
          submit="Create team"
          onSubmit={async () => {
            await call(`POST ${A}/organizations/{organizationSlug}/teams`, { params, body: { slug: slug.trim(), displayName: name.trim() } });
            setSlug('');
            setName('');
            teams.reload();
          }}
        >
          <Field label="Team slug" hint={SLUG_HINT}>
            {(a) => <input {...a} {...bind(slug, setSlug)} required autoComplete="off" spellcheck={false} />}
          </Field>
          <Field label="Team name">{(a) => <input {...a} {...bind(name, setName)} required autoComplete="off" />}</Field>
        </Form>
      )}
      {team && <TeamMembers key={team.id} tenantId={tenantId} org={org} team={team} manage={manage} onRemove={onRemove} onChange={onChange} />}
    </section>
  );
}
