import { useRoute } from '../../router';
import { Tabs } from '../tabs';

/** Every page of one environment, in the order the tabs show them. Paths are relative to /engage/environments/{environmentId}; `also`: other pages of the tab (a creation form, profiles under Installations). */
export const ENVIRONMENT_TABS = [
  { label: 'Overview', path: '' },
  { label: 'Apps', path: '/apps' },
  { label: 'Access keys', path: '/access-keys' },
  { label: 'Templates', path: '/templates', also: ['/new-template'] },
  { label: 'In-app', path: '/in-app-messages', also: ['/new-in-app-message'] },
  { label: 'Automations', path: '/automations', also: ['/new-automation'] },
  { label: 'Flags', path: '/flags', also: ['/new-flag'] },
  { label: 'Lists', path: '/lists', also: ['/new-list'] },
  { label: 'Test groups', path: '/test-groups' },
  { label: 'Sends', path: '/sends' },
  { label: 'Installations', path: '/installations', also: ['/profiles'] },
  { label: 'Privacy', path: '/privacy' },
  { label: 'Audit', path: '/audit' },
  { label: 'Settings', path: '/settings' },
];

export function EnvironmentTabs({ environmentId }: { environmentId: string }) {
  const { path } = useRoute();
  return <Tabs label="Environment pages" base={`/engage/environments/${encodeURIComponent(environmentId)}`} current={path} tabs={ENVIRONMENT_TABS} />;
}
