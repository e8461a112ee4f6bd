import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { IdentityAudit } from './audit';
import { ExportDetail, ExportList } from './exports';
import { ImportDetail, ImportList } from './imports';
import { TenantEdit } from './tenants';
import { UserCreate, UserDetail, UserList } from './users';

/** A tenant's people (edit, users, imports, exports) and the management API's audit trail. */
export const peopleRoutes: PageRoute[] = [
  { pattern: '/identity/tenants/:tenantId/edit', title: () => 'Edit tenant', render: (p) => h(TenantEdit, { tenantId: p.tenantId }) },
  { pattern: '/identity/tenants/:tenantId/users', title: () => 'Users', render: (p) => h(UserList, { tenantId: p.tenantId }) },
  { pattern: '/identity/tenants/:tenantId/users/new', title: () => 'Create a user', render: (p) => h(UserCreate, { tenantId: p.tenantId }) },
  { pattern: '/identity/tenants/:tenantId/users/:userId', title: () => 'User', render: (p) => h(UserDetail, { tenantId: p.tenantId, userId: p.userId }) },
  { pattern: '/identity/tenants/:tenantId/imports', title: () => 'User imports', render: (p) => h(ImportList, { tenantId: p.tenantId }) },
  { pattern: '/identity/tenants/:tenantId/imports/:jobId', title: () => 'Import job', render: (p) => h(ImportDetail, { tenantId: p.tenantId, jobId: p.jobId }) },
  { pattern: '/identity/tenants/:tenantId/exports', title: () => 'User exports', render: (p) => h(ExportList, { tenantId: p.tenantId }) },
  { pattern: '/identity/tenants/:tenantId/exports/:jobId', title: () => 'Export job', render: (p) => h(ExportDetail, { tenantId: p.tenantId, jobId: p.jobId }) },
  { pattern: '/identity/audit', title: () => 'Identity audit events', render: () => h(IdentityAudit, {}) },
];

export const peopleNav: NavEntry[] = [{ section: 'Identity', label: 'Audit', path: '/identity/audit' }];
