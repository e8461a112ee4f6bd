import { useState } from 'preact/hooks';
import { DataTable, usePaged } from '../../ui/data';
import { TenantFrame } from './apps-frame';

interface Organization {
  id: string;
  slug: string;
  displayName: string;
  status: string;
}
interface Team extends Organization {
  organizationId: string;
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

const pager = (l: { index: number; data?: { hasMore: boolean }; next: () => void; previous: () => void }) => ({ index: l.index, hasMore: !!l.data?.hasMore, next: l.next, previous: l.previous });

function Teams({ tenantId, org }: { tenantId: string; org: Organization }) {
  const list = usePaged<Team, 'GET /identity/admin/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams'>(
    'GET /identity/admin/tenants/{tenantId}/directory/organizations/{organizationSlug}/teams',
    { params: { tenantId, organizationSlug: org.slug } },
  );
  return (
    <section aria-labelledby="teams-heading">
      <h3 id="teams-heading">Teams of {org.displayName}</h3>
      <DataTable
        caption={`Teams of ${org.slug}`}
        rows={list.data?.items}
        rowKey={(t) => t.id}
        loading={list.loading}
        error={list.error}
        pager={pager(list)}
        empty="No team in this organization."
        columns={[
          { header: 'Slug', cell: (t) => t.slug },
          { header: 'Name', cell: (t) => t.displayName },
          { header: 'Status', cell: (t) => t.status },
        ]}
      />
    </section>
  );
}

/**
 * A tenant's directory as an operator sees it through the management API: organizations (and
 * a chosen one's teams), roles, permissions and role assignments. Changes go through the
 * tenant's directory API (its own directory administrators) or engage apply.
 */
export function DirectoryPage({ tenantId }: { tenantId: string }) {
  const params = { tenantId };
  const orgs = usePaged<Organization, 'GET /identity/admin/tenants/{tenantId}/directory/organizations'>('GET /identity/admin/tenants/{tenantId}/directory/organizations', { params });
  const roles = usePaged<Role, 'GET /identity/admin/tenants/{tenantId}/directory/roles'>('GET /identity/admin/tenants/{tenantId}/directory/roles', { params });
  const perms = usePaged<Permission, 'GET /identity/admin/tenants/{tenantId}/directory/permissions'>('GET /identity/admin/tenants/{tenantId}/directory/permissions', { params });
  const assigned = usePaged<Assignment, 'GET /identity/admin/tenants/{tenantId}/directory/role-assignments'>('GET /identity/admin/tenants/{tenantId}/directory/role-assignments', { params });
  const [open, setOpen] = useState<Organization | undefined>();
  const orgName = (id: string | null) => (id ? (orgs.data?.items.find((o) => o.id === id)?.slug ?? id) : '');
  return (
    <TenantFrame tenantId={tenantId} title="Directory">
      <p class="muted">
        Read-only here. The tenant’s directory administrators change it through its directory API at <code>{'{issuer}'}/identity/directory</code>; permissions and roles may also come from
        engage apply.
      </p>
      <h2>Organizations</h2>
      <DataTable
        caption="Organizations"
        rows={orgs.data?.items}
        rowKey={(o) => o.id}
        loading={orgs.loading}
        error={orgs.error}
        pager={pager(orgs)}
        empty="No organization in this tenant."
        columns={[
          { header: 'Slug', cell: (o) => o.slug },
          { header: 'Name', cell: (o) => o.displayName },
          { header: 'Status', cell: (o) => o.status },
          {
            header: 'Teams',
            cell: (o) => (
              <button type="button" onClick={() => setOpen(open?.id === o.id ? undefined : o)} aria-expanded={open?.id === o.id} aria-label={`Teams of ${o.slug}`}>
                {open?.id === o.id ? 'Hide teams' : 'Show teams'}
              </button>
            ),
          },
        ]}
      />
      {open && <Teams tenantId={tenantId} org={open} />}
      <h2>Roles</h2>
      <DataTable
        caption="Roles"
        rows={roles.data?.items}
        rowKey={(r) => r.id}
        loading={roles.loading}
        error={roles.error}
        pager={pager(roles)}
        empty="No role in this tenant."
        columns={[
          { header: 'Key', cell: (r) => <code>{r.key}</code> },
          { header: 'Name', cell: (r) => r.displayName },
          { header: 'Scope', cell: (r) => r.scope },
          { header: 'Status', cell: (r) => r.status },
        ]}
      />
      <h2>Permissions</h2>
      <DataTable
        caption="Permissions"
        rows={perms.data?.items}
        rowKey={(p) => p.key}
        loading={perms.loading}
        error={perms.error}
        pager={pager(perms)}
        empty="No permission in this tenant."
        columns={[
          { header: 'Key', cell: (p) => <code>{p.key}</code> },
          { header: 'Name', cell: (p) => p.displayName },
          { header: 'Status', cell: (p) => p.status },
        ]}
      />
      <h2>Role assignments</h2>
      <DataTable
        caption="Role assignments"
        rows={assigned.data?.items}
        rowKey={(a) => `${a.roleKey} ${a.subject} ${a.scope} ${a.organizationId ?? ''} ${a.teamId ?? ''}`}
        loading={assigned.loading}
        error={assigned.error}
        pager={pager(assigned)}
        empty="No role assigned in this tenant."
        columns={[
          { header: 'Role', cell: (a) => <code>{a.roleKey}</code> },
          { header: 'Subject', cell: (a) => <code>{a.subject}</code> },
          { header: 'Scope', cell: (a) => (a.scope === 'TENANT' ? 'Tenant' : a.scope === 'ORGANIZATION' ? `Organization ${orgName(a.organizationId)}` : `Team ${a.teamId ?? ''} in ${orgName(a.organizationId)}`) },
        ]}
      />
    </TenantFrame>
  );
}
