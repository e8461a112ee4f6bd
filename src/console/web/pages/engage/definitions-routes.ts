import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { FlagCreate, FlagDetail, FlagList } from './flags';
import { ListCreate, ListDetail, ListList } from './lists';

const ENV = '/engage/environments/:environmentId';
// A detail page is keyed by what it shows: opening another flag or list starts its form afresh.

/** Feature flags (rules, rollouts, experiments, versions, schedules, exposures) and subscription lists of an environment (issue 26). Push channels are on an app's page. */
export const definitionsRoutes: PageRoute[] = [
  { pattern: `${ENV}/flags`, title: () => 'Feature flags', render: (p) => h(FlagList, { environmentId: p.environmentId }) },
  // Not under flags/: every word could be a flag key.
  { pattern: `${ENV}/new-flag`, title: () => 'Create a flag', render: (p) => h(FlagCreate, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/flags/:flagKey`, title: (p) => `Flag ${p.flagKey}`, render: (p) => h(FlagDetail, { key: `${p.environmentId}/${p.flagKey}`, environmentId: p.environmentId, flagKey: p.flagKey }) },
  { pattern: `${ENV}/lists`, title: () => 'Subscription lists', render: (p) => h(ListList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/new-list`, title: () => 'Create a list', render: (p) => h(ListCreate, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/lists/:listKey`, title: (p) => `List ${p.listKey}`, render: (p) => h(ListDetail, { key: `${p.environmentId}/${p.listKey}`, environmentId: p.environmentId, listKey: p.listKey }) },
];

/** Reached through the environment's tabs, not the side navigation. */
export const definitionsNav: NavEntry[] = [];
