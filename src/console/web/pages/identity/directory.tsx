import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, paged, useCall, usePaged, type PageBody } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind, useSubmit } from '../../ui/forms';
import { TenantFrame, useTenant } from './apps-frame';

interface Organization {
  id: string;
  slug: string;
  displayName: string;
  status: string;
}
interface Team extends Organization {
  organizationId: string;
}
interface Member {
  subject: string;
  status: string;
}
interface Role {
  id: string;
  key: string;
  displayName: string;
  scope: string;
  status: string;
}
interface Permission {
  key: string;
  displayName: string;
  status: string;
}
interface Assignment {
  roleKey: string;
  subject: string;
  scope: string;
  organizationId: string | null;
  teamId: string | null;
}

const A = '/identity/admin/tenants/{tenantId}/directory';
const SLUG_HINT = 'Lower-case letters, digits and inner hyphens, 1 to 63 characters.';
const KEY_HINT = 'Letters, digits, dots, colons, - or _, e.g. orders.read (1 to 128 characters).';

/** What a removal needs: what to type, what happens, and the call. */
interface Removal {
  title: string;
  name: string;
  consequence: string;
  action: string;
  run: () => Promise<void>;
  done: string;
}

/** A member list (an organization's or a team's) with an add form and removal by typed subject. */
function Members(props: {
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
function TeamMembers({ tenantId, org, team, manage, onRemove, onChange }: { tenantId: string; org: Organization; team: Team; manage: boolean; onRemove: (r: Removal) => void; onChange: () => void }) {
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
function OrganizationDetail({ tenantId, org, manage, onRemove, onChange }: { tenantId: string; org: Organization; manage: boolean; onRemove: (r: Removal) => void; onChange: () => void }) {
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

/** A role's permissions as checkboxes over the tenant's permissions: a tick adds, an untick removes. */
function RolePermissions({ tenantId, role, manage }: { tenantId: string; role: Role; manage: boolean }) {
  const params = { tenantId, roleKey: role.key };
  const all = useCall<PageBody<Permission>, `GET ${typeof A}/permissions`>(`GET ${A}/permissions`, { params: { tenantId }, query: { size: 200 } });
  const held = useCall<PageBody<Permission>, `GET ${typeof A}/roles/{roleKey}/permissions`>(`GET ${A}/roles/{roleKey}/permissions`, { params, query: { size: 200 } });
  const { busy, error, run } = useSubmit(async (key: string, on: boolean) => {
    if (on) await call(`POST ${A}/roles/{roleKey}/permissions`, { params, body: { key } });
    else await call(`DELETE ${A}/roles/{roleKey}/permissions/{permissionKey}`, { params: { ...params, permissionKey: key } });
    held.reload();
  });
  const has = new Set(held.data?.items.map((p) => p.key));
  return (
    <section aria-labelledby="role-heading" class="panel">
      <h3 id="role-heading">Permissions of role {role.key}</h3>
      {(all.error ?? held.error) && <ErrorBox error={(all.error ?? held.error)!} />}
      {all.data && held.data && (
        <fieldset class="choices" disabled={!manage || busy || held.loading}>
          <legend>Permissions role {role.key} holds</legend>
          {all.data.items.length === 0 && <p>No permission in this tenant yet: create one below.</p>}
          {all.data.items.map((p) => (
            <label key={p.key}>
              <input type="checkbox" checked={has.has(p.key)} onChange={(e) => void run(p.key, (e.target as HTMLInputElement).checked)} /> <code>{p.key}</code> {p.displayName}
            </label>
          ))}
          {(all.data.hasMore || held.data.hasMore) && <p class="muted">Only the first 200 permissions are shown.</p>}
        </fieldset>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

/** The assign form: a role, a subject, and the organization or team its scope needs. */
function AssignForm({ tenantId, roles, orgs, onDone }: { tenantId: string; roles: Role[]; orgs: Organization[]; onDone: (text: string) => void }) {
  const [roleKey, setRoleKey] = useState('');
  const [subject, setSubject] = useState('');
  const [orgId, setOrgId] = useState('');
  const [teamId, setTeamId] = useState('');
  const role = roles.find((r) => r.key === roleKey);
  const scope = role?.scope ?? 'TENANT';
  const org = orgs.find((o) => o.id === orgId);
  const teams = useCall<PageBody<Team>, `GET ${typeof A}/organizations/{organizationSlug}/teams`>(
    scope === 'TEAM' && org ? `GET ${A}/organizations/{organizationSlug}/teams` : undefined,
    { params: { tenantId, organizationSlug: org?.slug ?? '' }, query: { size: 200 } },
  );
  return (
    <Form
      label="Assign a role"
      submit="Assign role"
      onSubmit={async () => {
        const body = { roleKey, subject: subject.trim(), scope, organizationId: scope === 'TENANT' ? null : orgId || null, teamId: scope === 'TEAM' ? teamId || null : null };
        await call(`POST ${A}/role-assignments`, { params: { tenantId }, body });
        onDone(`Role ${roleKey} is assigned to ${body.subject}.`);
        setSubject('');
      }}
    >
      <Field label="Role" hint="Its scope says where it is assigned: the tenant, an organization or a team.">
        {(a) => (
          <select {...a} value={roleKey} onChange={(e) => setRoleKey((e.target as HTMLSelectElement).value)} required>
            <option value="">Choose a role</option>
            {roles.map((r) => (
              <option key={r.key} value={r.key}>
                {r.key} ({r.scope})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Subject to assign" hint="The subject (sub) of a user of this tenant; for an organization or team role, a member of it.">
        {(a) => <input {...a} {...bind(subject, setSubject)} required autoComplete="off" spellcheck={false} />}
      </Field>
      {scope !== 'TENANT' && (
        <Field label="Organization">
          {(a) => (
            <select {...a} value={orgId} onChange={(e) => setOrgId((e.target as HTMLSelectElement).value)} required>
              <option value="">Choose an organization</option>
              {orgs.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.slug}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {scope === 'TEAM' && (
        <Field label="Team">
          {(a) => (
            <select {...a} value={teamId} onChange={(e) => setTeamId((e.target as HTMLSelectElement).value)} required>
              <option value="">Choose a team</option>
              {(teams.data?.items ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.slug}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
    </Form>
  );
}

/**
 * A tenant's directory through the management API: organizations (members, teams, team
 * members), roles (their permissions as checkboxes), permissions and role assignments, each
 * created, added, removed or deleted here; a removal or deletion confirmed by typing the subject,
 * slug or key. The control
 * tenant's directory is the operators' permissions: shown, never changed here (engage
 * operators grant|revoke and engage apply own it; the API refuses with access_denied).
 */
export function DirectoryPage({ tenantId }: { tenantId: string }) {
  const params = { tenantId };
  const tenant = useTenant(tenantId);
  // slugLocked is the control tenant's mark in the tenant view (tenants/service.ts).
  const manage = !!tenant.data && !tenant.data.slugLocked;
  const orgs = usePaged<Organization, `GET ${typeof A}/organizations`>(`GET ${A}/organizations`, { params });
  const roles = usePaged<Role, `GET ${typeof A}/roles`>(`GET ${A}/roles`, { params });
  const perms = usePaged<Permission, `GET ${typeof A}/permissions`>(`GET ${A}/permissions`, { params });
  const assigned = usePaged<Assignment, `GET ${typeof A}/role-assignments`>(`GET ${A}/role-assignments`, { params });
  // The assign form's choices: up to 200 roles and organizations.
  const roleChoices = useCall<PageBody<Role>, `GET ${typeof A}/roles`>(`GET ${A}/roles`, { params, query: { size: 200 } });
  const orgChoices = useCall<PageBody<Organization>, `GET ${typeof A}/organizations`>(`GET ${A}/organizations`, { params, query: { size: 200 } });
  const [openOrg, setOpenOrg] = useState<Organization | undefined>();
  const [openRole, setOpenRole] = useState<Role | undefined>();
  const [removal, setRemoval] = useState<Removal | undefined>();
  const [notice, setNotice] = useState('');
  // A new permission re-draws the open role's checkboxes.
  const [permTick, setPermTick] = useState(0);
  const [orgSlug, setOrgSlug] = useState('');
  const [orgName, setOrgName] = useState('');
  const [permKey, setPermKey] = useState('');
  const [permName, setPermName] = useState('');
  const [roleKey, setRoleKey] = useState('');
  const [roleName, setRoleName] = useState('');
  const [roleScope, setRoleScope] = useState('TENANT');
  const slugOf = (id: string | null) => (id ? (orgChoices.data?.items.find((o) => o.id === id)?.slug ?? id) : '');
  const done = (text: string) => {
    setNotice(text);
    assigned.reload();
  };
  return (
    <TenantFrame tenantId={tenantId} title="Directory">
      {tenant.data && !manage && (
        <p class="muted">
          This is the control tenant: its roles and assignments are the operators’ permissions. They are shown here and changed only with <code>engage operators grant|revoke</code> or{' '}
          <code>engage apply</code>.
        </p>
      )}
      {manage && <p class="muted">The tenant’s organizations, teams, roles and permissions. Roles owned by engage apply keep the permissions its file declares.</p>}
      {notice && <Notice>{notice}</Notice>}
      <h2>Organizations</h2>
      <DataTable
        caption="Organizations"
        {...paged(orgs)}
        rowKey={(o) => o.id}
        empty="No organization in this tenant."
        columns={[
          { header: 'Slug', cell: (o) => o.slug },
          { header: 'Name', cell: (o) => o.displayName },
          { header: 'Status', cell: (o) => o.status },
          {
            header: 'Members and teams',
            cell: (o) => (
              <button type="button" onClick={() => setOpenOrg(openOrg?.id === o.id ? undefined : o)} aria-expanded={openOrg?.id === o.id} aria-label={`${openOrg?.id === o.id ? 'Hide' : 'Show'} members and teams of ${o.slug}`}>
                {openOrg?.id === o.id ? 'Hide members and teams' : 'Show members and teams'}
              </button>
            ),
          },
          ...(manage
            ? [{
                header: 'Actions',
                cell: (o: Organization) => (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete organization ${o.slug}`}
                    onClick={() =>
                      setRemoval({
                        title: 'Delete an organization',
                        name: o.slug,
                        consequence: `Organization ${o.slug} is deleted with its teams, its memberships and the role assignments in it.`,
                        action: 'Delete organization',
                        run: async () => {
                          await call(`DELETE ${A}/organizations/{organizationSlug}`, { params: { ...params, organizationSlug: o.slug } });
                          if (openOrg?.id === o.id) setOpenOrg(undefined);
                          orgs.reload();
                          orgChoices.reload();
                          assigned.reload();
                        },
                        done: `Organization ${o.slug} is deleted.`,
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
      {openOrg && <OrganizationDetail key={openOrg.id} tenantId={tenantId} org={openOrg} manage={manage} onRemove={setRemoval} onChange={() => assigned.reload()} />}
      {manage && (
        <Form
          label="Create an organization"
          submit="Create organization"
          onSubmit={async () => {
            await call(`POST ${A}/organizations`, { params, body: { slug: orgSlug.trim(), displayName: orgName.trim() } });
            setNotice(`Organization ${orgSlug.trim()} is created.`);
            setOrgSlug('');
            setOrgName('');
            orgs.reload();
            orgChoices.reload();
          }}
        >
          <Field label="Organization slug" hint={SLUG_HINT}>
            {(a) => <input {...a} {...bind(orgSlug, setOrgSlug)} required autoComplete="off" spellcheck={false} />}
          </Field>
          <Field label="Organization name">{(a) => <input {...a} {...bind(orgName, setOrgName)} required autoComplete="off" />}</Field>
        </Form>
      )}
      <h2>Roles</h2>
      <DataTable
        caption="Roles"
        {...paged(roles)}
        rowKey={(r) => r.id}
        empty="No role in this tenant."
        columns={[
          { header: 'Key', cell: (r) => <code>{r.key}</code> },
          { header: 'Name', cell: (r) => r.displayName },
          { header: 'Scope', cell: (r) => r.scope },
          { header: 'Status', cell: (r) => r.status },
          {
            header: 'Permissions',
            cell: (r) => (
              <button type="button" onClick={() => setOpenRole(openRole?.id === r.id ? undefined : r)} aria-expanded={openRole?.id === r.id} aria-label={`${openRole?.id === r.id ? 'Hide' : 'Show'} permissions of role ${r.key}`}>
                {openRole?.id === r.id ? 'Hide permissions' : 'Show permissions'}
              </button>
            ),
          },
          ...(manage
            ? [{
                header: 'Actions',
                cell: (r: Role) => (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete role ${r.key}`}
                    onClick={() =>
                      setRemoval({
                        title: 'Delete a role',
                        name: r.key,
                        consequence: `Role ${r.key} is deleted with its permissions and assignments: whoever holds it loses what it grants, at once.`,
                        action: 'Delete role',
                        run: async () => {
                          await call(`DELETE ${A}/roles/{roleKey}`, { params: { ...params, roleKey: r.key } });
                          if (openRole?.id === r.id) setOpenRole(undefined);
                          roles.reload();
                          roleChoices.reload();
                          assigned.reload();
                        },
                        done: `Role ${r.key} is deleted.`,
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
      {openRole && <RolePermissions key={`${openRole.id} ${permTick}`} tenantId={tenantId} role={openRole} manage={manage} />}
      {manage && (
        <Form
          label="Create a role"
          submit="Create role"
          onSubmit={async () => {
            await call(`POST ${A}/roles`, { params, body: { key: roleKey.trim(), displayName: roleName.trim(), scope: roleScope } });
            setNotice(`Role ${roleKey.trim()} is created.`);
            setRoleKey('');
            setRoleName('');
            roles.reload();
            roleChoices.reload();
          }}
        >
          <Field label="Role key" hint={KEY_HINT}>
            {(a) => <input {...a} {...bind(roleKey, setRoleKey)} required autoComplete="off" spellcheck={false} />}
          </Field>
          <Field label="Role name">{(a) => <input {...a} {...bind(roleName, setRoleName)} required autoComplete="off" />}</Field>
          <Field label="Scope" hint="Where it is assigned. Only tenant-wide assignments grant API permissions.">
            {(a) => (
              <select {...a} value={roleScope} onChange={(e) => setRoleScope((e.target as HTMLSelectElement).value)}>
                <option value="TENANT">Tenant</option>
                <option value="ORGANIZATION">Organization</option>
                <option value="TEAM">Team</option>
              </select>
            )}
          </Field>
        </Form>
      )}
      <h2>Permissions</h2>
      <DataTable
        caption="Permissions"
        {...paged(perms)}
        rowKey={(p) => p.key}
        empty="No permission in this tenant."
        columns={[
          { header: 'Key', cell: (p) => <code>{p.key}</code> },
          { header: 'Name', cell: (p) => p.displayName },
          { header: 'Status', cell: (p) => p.status },
          ...(manage
            ? [{
                header: 'Actions',
                cell: (p: Permission) => (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete permission ${p.key}`}
                    onClick={() =>
                      setRemoval({
                        title: 'Delete a permission',
                        name: p.key,
                        consequence: `Permission ${p.key} is deleted and taken from every role holding it, at once.`,
                        action: 'Delete permission',
                        run: async () => {
                          await call(`DELETE ${A}/permissions/{permissionKey}`, { params: { ...params, permissionKey: p.key } });
                          perms.reload();
                          setPermTick((n) => n + 1);
                        },
                        done: `Permission ${p.key} is deleted.`,
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
          label="Create a permission"
          submit="Create permission"
          onSubmit={async () => {
            await call(`POST ${A}/permissions`, { params, body: { key: permKey.trim(), displayName: permName.trim() } });
            setNotice(`Permission ${permKey.trim()} is created.`);
            setPermKey('');
            setPermName('');
            perms.reload();
            setPermTick((n) => n + 1);
          }}
        >
          <Field label="Permission key" hint={KEY_HINT}>
            {(a) => <input {...a} {...bind(permKey, setPermKey)} required autoComplete="off" spellcheck={false} />}
          </Field>
          <Field label="Permission name">{(a) => <input {...a} {...bind(permName, setPermName)} required autoComplete="off" />}</Field>
        </Form>
      )}
      <h2>Role assignments</h2>
      <DataTable
        caption="Role assignments"
        {...paged(assigned)}
        rowKey={(a) => `${a.roleKey} ${a.subject} ${a.scope} ${a.organizationId ?? ''} ${a.teamId ?? ''}`}
        empty="No role assigned in this tenant."
        columns={[
          { header: 'Role', cell: (a) => <code>{a.roleKey}</code> },
          { header: 'Subject', cell: (a) => <code>{a.subject}</code> },
          { header: 'Scope', cell: (a) => (a.scope === 'TENANT' ? 'Tenant' : a.scope === 'ORGANIZATION' ? `Organization ${slugOf(a.organizationId)}` : `Team ${a.teamId ?? ''} in ${slugOf(a.organizationId)}`) },
          ...(manage
            ? [{
                header: 'Actions',
                cell: (a: Assignment) => (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke role ${a.roleKey} from ${a.subject}`}
                    onClick={() =>
                      setRemoval({
                        title: 'Revoke a role assignment',
                        name: a.subject,
                        consequence: `${a.subject} loses role ${a.roleKey} and the permissions it brings, at once.`,
                        action: 'Revoke role',
                        run: async () => {
                          await call(`POST ${A}/role-assignments/revocations`, { params, body: a });
                          assigned.reload();
                        },
                        done: `Role ${a.roleKey} is revoked from ${a.subject}.`,
                      })
                    }
                  >
                    Revoke
                  </button>
                ),
              }]
            : []),
        ]}
      />
      {manage && <AssignForm tenantId={tenantId} roles={roleChoices.data?.items ?? []} orgs={orgChoices.data?.items ?? []} onDone={done} />}
      <ConfirmByName
        open={!!removal}
        title={removal?.title ?? ''}
        name={removal?.name ?? ''}
        consequence={removal?.consequence ?? ''}
        action={removal?.action ?? ''}
        onConfirm={async () => {
          if (!removal) return;
          await removal.run();
          setNotice(removal.done);
          setRemoval(undefined);
        }}
        onClose={() => setRemoval(undefined)}
      />
    </TenantFrame>
  );
}
