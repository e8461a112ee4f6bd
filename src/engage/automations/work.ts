import { workKind } from '../../platform/work/queue';
import type { AutomationEngine } from './engine';

/** The durable work item of a batch's events for automations (issue 28): written in the ingest transaction. */
export const AUTOMATION_EVENTS_WORK = 'engage.automation.events';

export interface AutomationEventsWork {
  environmentId: string;
  profileId: string;
  events: { name: string; properties: Record<string, unknown> }[];
}

/** Acts on the events once their batch committed, in any process (src/work.ts registers it); its id makes a second run change nothing more. */
export const automationEventsWork = (engine: Pick<AutomationEngine, 'onEvents'>) =>
  workKind<AutomationEventsWork>({
    kind: AUTOMATION_EVENTS_WORK,
    retry: { baseMs: 1_000, capMs: 60_000, maxAttempts: 20 },
    run: (p, item) => engine.onEvents(p.environmentId, p.profileId, p.events, item.id),
  });
