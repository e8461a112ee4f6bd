import { useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, paged, useCall, usePaged, type PageBody } from '../../ui/data';
import { Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind } from '../../ui/forms';
import { TenantFrame, useTenant } from './apps-frame';
import { A, KEY_HINT, SLUG_HINT, type Assignment, type Organization, type Permission, type Removal, type Role } from './directory-model';
import { OrganizationDetail } from './directory-organizations';
import { AssignForm, RolePermissions } from './directory-roles';

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
