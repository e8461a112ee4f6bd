/**
 * Events for automations (issue 28): a profile's EVENT_TRACKED operations, acted on once their
 * ingest batch committed (work.ts): exit criteria, event waits and event entries. Each process
 * keeps the environment's published ACTIVE and PAUSED automations for 5 s (`forget` drops them at
 * once after a change through this process).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { TxRunner } from '../../platform/store/store';
import type { AutomationService } from './service';
import type { AutomationDefinition, EventMatch } from './schemas';
import type { AutomationStore } from './store';
import { derivedId, propertiesMatch } from './values';

type Stores = { automations: AutomationStore };

export function createEventHandling(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  automations: Pick<AutomationService, 'publishedDefinition' | 'enter'>;
  /** Runs were woken or ended: the engine looks at once. */
  wake: () => void;
}) {
  const { store, clock, logger } = deps;
  const nowMs = () => clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Event cache per environment: the published definitions of ACTIVE and PAUSED automations, read again after 5 s. */
  const eventCache = new Map<string, { readMs: number; list: { id: string; status: string; publishedVersion: number; def: AutomationDefinition }[] }>();
  async function eventAutomations(environmentId: string) {
    const held = eventCache.get(environmentId);
    const now = nowMs();
    if (held && now - held.readMs < 5_000) return held.list;
    const list = (await store.automations.eventAutomations(environmentId)).map((r) => ({ ...r, def: JSON.parse(r.definition) as AutomationDefinition }));
    eventCache.set(environmentId, { readMs: now, list });
    if (eventCache.size > 1024) eventCache.delete(eventCache.keys().next().value!);
    return list;
  }

  /** Whether the environment has an ACTIVE or PAUSED automation that listens to events (an event entry, an exit criterion or an event wait). */
  async function needsEvents(environmentId: string): Promise<boolean> {
    return (await eventAutomations(environmentId)).some((a) => a.def.entries.event || a.def.exit || Object.values(a.def.steps).some((s) => s.type === 'wait' && s.event));
  }

  /**
   * EVENT_TRACKED operations of a profile, once the ingest batch that recorded them committed (a
   * durable work item, `key` its id): exit criteria end live runs, waiting runs whose event came
   * are woken, and event entries start runs (a refusal by the audience or re-entry is no error
   * here). Acted on twice (a worker that died after it), it changes nothing more: exits and
   * wake-ups are conditional on the run's state, and an entry's run id is derived from `key`.
   */
  async function onEvents(environmentId: string, profileId: string, events: readonly { name: string; properties: Record<string, unknown> }[], key: string = randomUUID()): Promise<void> {
    const list = await eventAutomations(environmentId);
    let woke = false;
    for (const [index, e] of events.entries()) {
      const at = nowMs();
      for (const a of list) {
        if (a.def.exit && matches(a.def.exit, e)) {
          for (const run of await store.automations.liveOf(profileId, a.id)) if (await store.automations.exit(run.id, iso(at), at)) woke = true;
        }
      }
      for (const run of await store.automations.waitingFor(profileId, e.name)) {
        const def = await deps.automations.publishedDefinition(run.automationId, run.version);
        const step = run.stepId ? def.steps[run.stepId] : undefined;
        if (!step || step.type !== 'wait' || !step.event || !matches(step.event, e)) continue;
        await store.tx(async (tx) => {
          if (!(await tx.automations.wakeFor(run.id, e.name, run.stepSeq, at))) return;
          const held = await tx.automations.step(run.id, run.stepSeq);
          if (!held) return;
          await tx.automations.putStep({ ...held, environmentId, profileId, output: JSON.stringify({ ...(JSON.parse(held.output ?? '{}') as object), matched: { name: e.name, at: iso(at) } }) });
          woke = true;
        });
      }
      for (const a of list) {
        if (a.status !== 'ACTIVE' || !a.def.entries.event || !matches(a.def.entries.event, e)) continue;
        const row = await store.automations.byId(environmentId, a.id);
        if (!row) continue;
        try {
          await deps.automations.enter(environmentId, row, profileId, {}, { type: 'EVENT', name: e.name, properties: e.properties }, { runId: derivedId(`${key}:${a.id}:${index}`) });
        } catch (err) {
          const code = (err as { code?: string }).code;
          // profile_not_found: erased since the batch that recorded the event committed.
          if (code !== 'reentry_refused' && code !== 'profile_not_in_audience' && code !== 'automation_not_active' && code !== 'profile_not_found') logger.error('automation event entry failed', { err });
        }
      }
    }
    if (woke) deps.wake();
  }


  return { onEvents, needsEvents, forget: (environmentId: string) => eventCache.delete(environmentId) };
}

const matches = (m: EventMatch, e: { name: string; properties: Record<string, unknown> }) => m.eventName === e.name && propertiesMatch(m.conditions ?? [], e.properties);
