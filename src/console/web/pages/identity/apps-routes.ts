import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { ClientCreate, ClientEdit, ClientList } from './clients';
import { CredentialList } from './credentials';
import { DirectoryPage } from './directory';
import { FederationList } from './federations';
import { SigningKeyList } from './keys';
import { ProviderList } from './providers';
import { ResourceList } from './resources';

const T = '/identity/tenants/:tenantId';

/** A tenant's clients, resources, credentials, signing keys, social providers and directory; federations between tenants. */
export const appsRoutes: PageRoute[] = [
  { pattern: `${T}/clients`, title: () => 'Clients', render: (p) => h(ClientList, { tenantId: p.tenantId }) },
  { pattern: `${T}/clients/new`, title: () => 'Register a client', render: (p) => h(ClientCreate, { tenantId: p.tenantId }) },
  { pattern: `${T}/clients/:clientId`, title: (p) => `Client ${p.clientId}`, render: (p) => h(ClientEdit, { tenantId: p.tenantId, clientId: p.clientId }) },
  { pattern: `${T}/resources`, title: () => 'Resources', render: (p) => h(ResourceList, { tenantId: p.tenantId }) },
  { pattern: `${T}/credentials`, title: () => 'Resource-server credentials', render: (p) => h(CredentialList, { tenantId: p.tenantId }) },
  { pattern: `${T}/signing-keys`, title: () => 'Signing keys', render: (p) => h(SigningKeyList, { tenantId: p.tenantId }) },
  { pattern: `${T}/providers`, title: () => 'Social providers', render: (p) => h(ProviderList, { tenantId: p.tenantId }) },
  { pattern: `${T}/directory`, title: () => 'Directory', render: (p) => h(DirectoryPage, { tenantId: p.tenantId }) },
  { pattern: '/identity/federations', title: () => 'Federations', render: () => h(FederationList, {}) },
];

export const appsNav: NavEntry[] = [{ section: 'Identity', label: 'Federations', path: '/identity/federations' }];
