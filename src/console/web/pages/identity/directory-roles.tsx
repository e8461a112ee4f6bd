import { useState } from 'preact/hooks';
import { call } from '../../api';
import { useCall, type PageBody } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, Form, bind, useSubmit } from '../../ui/forms';
import { A, type Organization, type Permission, type Role, type Team } from './directory-model';

/** A role's permissions as checkboxes over the tenant's permissions: a tick adds, an untick removes. */
export function RolePermissions({ tenantId, role, manage }: { tenantId: string; role: Role; manage: boolean }) {
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
export function AssignForm({ tenantId, roles, orgs, onDone }: { tenantId: string; roles: Role[]; orgs: Organization[]; onDone: (text: string) => void }) {
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
