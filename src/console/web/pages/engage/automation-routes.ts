import { h } from 'preact';
import type { PageRoute } from '../registry';
import { AutomationPage } from './automation-detail';
import { RunList, RunPage } from './automation-runs';
import { AutomationCreate, AutomationEdit, AutomationList } from './automations';

const ENV = '/engage/environments/:environmentId';
const ONE = `${ENV}/automations/:automationKey`;
type P = Record<string, string>;

/** Automations of an environment (issue 28 "Inspection"): the list, the file editor, an automation's page with its graph and counts, its runs and a run's timeline. */
export const automationRoutes: PageRoute[] = [
  { pattern: `${ENV}/automations`, title: () => 'Automations', render: (p: P) => h(AutomationList, { environmentId: p.environmentId }) },
  // Not under automations/: every word could be an automation key.
  { pattern: `${ENV}/new-automation`, title: () => 'New automation', render: (p: P) => h(AutomationCreate, { environmentId: p.environmentId }) },
  // Keyed by what it shows: opening another automation starts its page afresh.
  { pattern: ONE, title: (p) => `Automation ${p.automationKey}`, render: (p: P) => h(AutomationPage, { key: `${p.environmentId}/${p.automationKey}`, environmentId: p.environmentId, automationKey: p.automationKey }) },
  { pattern: `${ONE}/edit`, title: (p) => `Edit automation ${p.automationKey}`, render: (p: P) => h(AutomationEdit, { key: `${p.environmentId}/${p.automationKey}`, environmentId: p.environmentId, automationKey: p.automationKey }) },
  { pattern: `${ONE}/runs`, title: (p) => `Runs of ${p.automationKey}`, render: (p: P) => h(RunList, { environmentId: p.environmentId, automationKey: p.automationKey }) },
  {
    pattern: `${ONE}/runs/:runId`,
    title: (p) => `Run ${p.runId}`,
    render: (p: P) => h(RunPage, { key: `${p.environmentId}/${p.runId}`, environmentId: p.environmentId, automationKey: p.automationKey, runId: p.runId }),
  },
];
