import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { IdentityOverview, TenantCreate, TenantDetail, TenantList } from './tenants';
import { peopleNav, peopleRoutes } from './people-routes';
import { appsNav, appsRoutes } from './apps-routes';

/** The identity pages (the management API, spec 03). people-routes: users, imports, exports, audit; apps-routes: clients, resources, credentials, keys, federations, directory. */
export const identityRoutes: PageRoute[] = [
  { pattern: '/identity', title: () => 'Identity overview', render: () => h(IdentityOverview, {}) },
  { pattern: '/identity/tenants', title: () => 'Tenants', render: () => h(TenantList, {}) },
  { pattern: '/identity/tenants/new', title: () => 'Create a tenant', render: () => h(TenantCreate, {}) },
  { pattern: '/identity/tenants/:tenantId', title: () => 'Tenant', render: (p) => h(TenantDetail, { tenantId: p.tenantId }) },
  ...peopleRoutes,
  ...appsRoutes,
];

export const identityNav: NavEntry[] = [
  { section: 'Identity', label: 'Overview', path: '/identity' },
  { section: 'Identity', label: 'Tenants', path: '/identity/tenants' },
  ...peopleNav,
  ...appsNav,
];
