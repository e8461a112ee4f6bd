import { useRoute } from '../../router';
import { Tabs } from '../tabs';

/** Every page of one tenant, in the order the tabs show them. Paths are relative to /identity/tenants/{tenantId}. */
export const TENANT_TABS = [
  { label: 'Tenant', path: '' },
  { label: 'Users', path: '/users' },
  { label: 'Imports', path: '/imports' },
  { label: 'Exports', path: '/exports' },
  { label: 'Clients', path: '/clients' },
  { label: 'Resources', path: '/resources' },
  { label: 'Credentials', path: '/credentials' },
  { label: 'Signing keys', path: '/signing-keys' },
  { label: 'Social providers', path: '/providers' },
  { label: 'Directory', path: '/directory' },
];

export function TenantTabs({ tenantId }: { tenantId: string }) {
  const { path } = useRoute();
  return <Tabs label="Tenant pages" base={`/identity/tenants/${encodeURIComponent(tenantId)}`} current={path} tabs={TENANT_TABS} />;
}
