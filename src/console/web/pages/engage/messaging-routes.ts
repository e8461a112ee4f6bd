import { h } from 'preact';
import type { NavEntry, PageRoute } from '../registry';
import { InstallationDetail, InstallationList } from './installations';
import { ProfileDetail } from './profiles';
import { SendDetail, SendList } from './sends';
import { TemplateCreate, TemplateDetail, TemplateList, TemplateVersionPage } from './templates';

const ENV = '/engage/environments/:environmentId';

/** Templates (edit, preview, publish, archive, versions, test send), sends and deliveries, installations and profiles of an environment (issue 25). */
export const messagingRoutes: PageRoute[] = [
  { pattern: `${ENV}/templates`, title: () => 'Templates', render: (p) => h(TemplateList, { environmentId: p.environmentId }) },
  // Not under templates/: every word could be a template key.
  { pattern: `${ENV}/new-template`, title: () => 'Create a template', render: (p) => h(TemplateCreate, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/templates/:templateKey`, title: (p) => `Template ${p.templateKey}`, render: (p) => h(TemplateDetail, { environmentId: p.environmentId, templateKey: p.templateKey }) },
  {
    pattern: `${ENV}/templates/:templateKey/versions/:version`,
    title: (p) => `Template ${p.templateKey}, version ${p.version}`,
    render: (p) => h(TemplateVersionPage, { environmentId: p.environmentId, templateKey: p.templateKey, version: p.version }),
  },
  { pattern: `${ENV}/sends`, title: () => 'Sends', render: (p) => h(SendList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/sends/:sendId`, title: (p) => `Send ${p.sendId}`, render: (p) => h(SendDetail, { environmentId: p.environmentId, sendId: p.sendId }) },
  { pattern: `${ENV}/installations`, title: () => 'Installations', render: (p) => h(InstallationList, { environmentId: p.environmentId }) },
  { pattern: `${ENV}/installations/:installationId`, title: (p) => `Installation ${p.installationId}`, render: (p) => h(InstallationDetail, { environmentId: p.environmentId, installationId: p.installationId }) },
  { pattern: `${ENV}/profiles/external/:externalId`, title: (p) => `Profile of ${p.externalId}`, render: (p) => h(ProfileDetail, { environmentId: p.environmentId, externalId: p.externalId }) },
  { pattern: `${ENV}/profiles/:profileId`, title: (p) => `Profile ${p.profileId}`, render: (p) => h(ProfileDetail, { environmentId: p.environmentId, profileId: p.profileId }) },
];

/** An environment's pages are reached through its tabs, not the side navigation. */
export const messagingNav: NavEntry[] = [];
