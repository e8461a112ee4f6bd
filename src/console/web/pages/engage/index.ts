import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { EnvironmentCreate, EnvironmentDetail, EnvironmentList } from './environments';

/** The engagement pages (the engagement administration API, issue 24). */
export const engageRoutes: PageRoute[] = [
  { pattern: '/engage/environments', title: () => 'Environments', render: () => h(EnvironmentList, {}) },
  { pattern: '/engage/environments/new', title: () => 'Create an environment', render: () => h(EnvironmentCreate, {}) },
  { pattern: '/engage/environments/:environmentId', title: (p) => `Environment ${p.environmentId}`, render: (p) => h(EnvironmentDetail, { environmentId: p.environmentId }) },
];

export const engageNav: NavEntry[] = [{ section: 'Engagement', label: 'Environments', path: '/engage/environments' }];
