import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { AccessKeyDetail, AccessKeyList } from './access-keys';
import { AppDetail, AppList } from './apps';
import { EnvironmentAudit } from './env-audit';
import { EnvironmentOverview } from './overview';
import { PrivacyPage } from './privacy';
import { EnvironmentSettings } from './settings';
import { TestGroupDetailPage, TestGroupList } from './test-groups';

const ENV = '/engage/environments/:environmentId';
type P = Record<string, string>;

/** One environment's pages (issue 25): overview, apps with provider credentials, access keys, test groups, privacy erasure, audit events, settings. */
export const environmentRoutes: PageRoute[] = [
  { pattern: ENV, title: (p) => `Environment ${p.environmentId}`, render: (p: P) => h(EnvironmentOverview, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/apps`, title: (p) => `Apps · ${p.environmentId}`, render: (p: P) => h(AppList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/apps/:appId`, title: (p) => `App · ${p.environmentId}`, render: (p: P) => h(AppDetail, { environmentId: p.environmentId, appId: p.appId }) },
  { pattern: `${ENV}/access-keys`, title: (p) => `Access keys · ${p.environmentId}`, render: (p: P) => h(AccessKeyList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/access-keys/:keyId`, title: (p) => `Access key · ${p.environmentId}`, render: (p: P) => h(AccessKeyDetail, { environmentId: p.environmentId, keyId: p.keyId }) },
  { pattern: `${ENV}/test-groups`, title: (p) => `Test groups · ${p.environmentId}`, render: (p: P) => h(TestGroupList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/test-groups/:testGroupId`, title: (p) => `Test group · ${p.environmentId}`, render: (p: P) => h(TestGroupDetailPage, { environmentId: p.environmentId, testGroupId: p.testGroupId }) },
  { pattern: `${ENV}/privacy`, title: (p) => `Privacy erasure · ${p.environmentId}`, render: (p: P) => h(PrivacyPage, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/audit`, title: (p) => `Audit events · ${p.environmentId}`, render: (p: P) => h(EnvironmentAudit, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/settings`, title: (p) => `Settings · ${p.environmentId}`, render: (p: P) => h(EnvironmentSettings, { environmentId: p.environmentId }) },
];
/** An environment's pages are reached through the environment list and its tabs: no entries of their own in the side navigation. */
export const environmentNav: NavEntry[] = [];
