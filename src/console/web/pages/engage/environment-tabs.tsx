import { useRoute } from '../../router';
import { Tabs } from '../tabs';

/** Every page of one environment, in the order the tabs show them. Paths are relative to /engage/environments/{environmentId}. */
export const ENVIRONMENT_TABS = [
  { label: 'Overview', path: '' },
  { label: 'Apps', path: '/apps' },
  { label: 'Access keys', path: '/access-keys' },
  { label: 'Templates', path: '/templates' },
  { label: 'In-app', path: '/in-app-messages' },
  { label: 'Automations', path: '/automations' },
  { label: 'Flags', path: '/flags' },
  { label: 'Lists', path: '/lists' },
  { label: 'Test groups', path: '/test-groups' },
  { label: 'Sends', path: '/sends' },
  { label: 'Installations', path: '/installations' },
  { label: 'Privacy', path: '/privacy' },
  { label: 'Audit', path: '/audit' },
  { label: 'Settings', path: '/settings' },
];

export function EnvironmentTabs({ environmentId }: { environmentId: string }) {
  const { path } = useRoute();
  return <Tabs label="Environment pages" base={`/engage/environments/${encodeURIComponent(environmentId)}`} current={path} tabs={ENVIRONMENT_TABS} />;
}
