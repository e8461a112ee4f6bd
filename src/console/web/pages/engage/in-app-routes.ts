import { h } from 'preact';
import type { PageRoute } from '../registry';
import { MessageCreate, MessageDetail, MessageList } from './in-app';

const ENV = '/engage/environments/:environmentId';

/** In-app messages of an environment (issue 27): the list, the editor with its live previews, a message's page with its results. */
export const inAppRoutes: PageRoute[] = [
  { pattern: `${ENV}/in-app-messages`, title: () => 'In-app messages', render: (p) => h(MessageList, { environmentId: p.environmentId }) },
  // Not under in-app-messages/: every word could be a message key.
  { pattern: `${ENV}/new-in-app-message`, title: () => 'New in-app message', render: (p) => h(MessageCreate, { environmentId: p.environmentId }) },
  // Keyed by what it shows: opening another message starts its form afresh.
  {
    pattern: `${ENV}/in-app-messages/:messageKey`,
    title: (p) => `In-app message ${p.messageKey}`,
    render: (p) => h(MessageDetail, { key: `${p.environmentId}/${p.messageKey}`, environmentId: p.environmentId, messageKey: p.messageKey }),
  },
];
