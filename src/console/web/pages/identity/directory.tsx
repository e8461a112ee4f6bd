import { TenantFrame } from './apps-frame';

/**
 * A tenant's directory (organizations, teams, roles, permissions, assignments). The directory
 * API lives at the tenant's own issuer with its own audience, which the console's two grants do
 * not cover; the management API offers no directory route yet, so the page says how to reach it.
 */
export function DirectoryPage({ tenantId }: { tenantId: string }) {
  return (
    <TenantFrame tenantId={tenantId} title="Directory">
      <p>
        The directory (organizations, teams, members, roles, permissions and role assignments) is served by the tenant’s directory API at <code>{'{issuer}'}/identity/directory</code>, to
        tokens of this tenant for that audience. The management API, which the console uses, does not offer it yet.
      </p>
      <p>
        Meanwhile use the command line: <code>engage directory --help</code>.
      </p>
    </TenantFrame>
  );
}
