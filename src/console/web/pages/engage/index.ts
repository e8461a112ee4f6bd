import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { EnvironmentCreate, EnvironmentList } from './environments';
import { environmentNav, environmentRoutes } from './environment-routes';
import { messagingNav, messagingRoutes } from './messaging-routes';
import { definitionsNav, definitionsRoutes } from './definitions-routes';
import { inAppRoutes } from './in-app-routes';
import { automationRoutes } from './automation-routes';

/** The engagement pages (the engagement administration API, issue 24). environment-routes: overview, apps, keys, test groups, privacy, audit, settings; messaging-routes: templates, sends, installations, profiles; definitions-routes: flags, subscription lists; in-app-routes: in-app messages; automation-routes: automations and their runs. */
export const engageRoutes: PageRoute[] = [
  { pattern: '/engage/environments', title: () => 'Environments', render: () => h(EnvironmentList, {}) },
  { pattern: '/engage/environments/new', title: () => 'Create an environment', render: () => h(EnvironmentCreate, {}) },
  // The environment's own path (its overview) is in environment-routes, after /new.
  ...environmentRoutes,
  ...messagingRoutes,
  ...definitionsRoutes,
  ...inAppRoutes,
  ...automationRoutes,
];

export const engageNav: NavEntry[] = [{ section: 'Engagement', label: 'Environments', path: '/engage/environments' }, ...environmentNav, ...messagingNav, ...definitionsNav];
