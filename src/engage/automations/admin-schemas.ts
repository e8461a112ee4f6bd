/**
 * Wire shapes of automations on the engagement administration API (issue 28): the automation file
 * (docs/automations.md; `engage automations --print-schema` prints it), what the routes answer, the
 * runs and their timelines. One schema each for validation, types and the OpenAPI document; the
 * rules across fields (entries, waits, the graph at publish) are schemas.ts's violations.
 */
import { pageOf } from '../../platform/http/pagination';
import { DateTime, Enum, FreeValue, Nullable, Strict, T, Uuid } from '../../platform/http/schema';
import { Key } from '../shared/schemas';
import { AUTOMATION_STATUSES, AutomationBounds, AutomationDefinition, RUN_STATUSES, STEP_KINDS, STEP_STATUSES } from './schemas';

export const AutomationKeyPath = Key({ description: 'the automation key' });
export const RunIdPath = T.String({ minLength: 1, maxLength: 100, description: 'the run id (the trigger’s runId)' });
export const AutomationStatusQuery = Enum(AUTOMATION_STATUSES, { description: 'only automations of this status' });
export const RunStatusQuery = Enum(RUN_STATUSES, { description: 'only runs of this status' });
export const ProfileIdQuery = T.String({ minLength: 1, maxLength: 100, description: 'only runs of this profile (its id)' });

/** The automation file: an AutomationDefinition whose `targetApps` name apps by id or by name (stored as ids). */
export const AutomationFile = Strict(
  {
    ...AutomationDefinition.properties,
    targetApps: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 100 }), { maxItems: AutomationBounds.targetApps, uniqueItems: true, description: 'apps of the environment by id or name; absent or empty: every app' }),
    ),
  },
  { description: 'an automation file (docs/automations.md)' },
);
/** An edit's body: the automation file, whose key may be left out (it cannot change). */
export const AutomationUpdate = Strict({ ...AutomationFile.properties, key: T.Optional(AutomationFile.properties.key) });

const Status = Enum(AUTOMATION_STATUSES, {
  description: 'DRAFT: never published, edits stay drafts; ACTIVE: takes runs; PAUSED: no new runs, runs held at their next step; ARCHIVED: for good, its runs cancelled',
});

export const AutomationSummary = Strict({
  environmentId: T.String(),
  key: Key(),
  id: Uuid({ description: 'the automation id (runs name it)' }),
  name: T.String(),
  status: Status,
  version: T.Integer({ minimum: 1, description: 'the latest version; If-Match takes it' }),
  publishedVersion: Nullable(T.Integer({ minimum: 1, description: 'the version new runs enter (null: never published)' })),
  apiEntry: T.Boolean({ description: 'the trigger endpoint starts runs (with the automationApiKey shown at creation or rotation)' }),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: changed only through the file' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export const AutomationPage = pageOf(AutomationSummary);

const Counts = T.Record(T.String(), T.Integer({ minimum: 0 }));

export const AutomationDetail = Strict({
  ...AutomationSummary.properties,
  definition: AutomationDefinition,
  changed: T.Optional(T.Boolean({ description: 'on a change: false when it changed nothing' })),
  automationApiKey: T.Optional(T.String({ description: 'created with an api entry: the trigger’s key, shown this once (never again; rotate-key makes a new one)' })),
  runs: T.Optional(Counts),
  steps: T.Optional(T.Record(T.String(), Counts, { description: 'step id → step execution status → count; INTERRUPTED counts executions left PENDING or RUNNING by a run that ended meanwhile (cancelled, exited, archived): they wait no more' })),
});

export const AutomationKeyAnswer = Strict({
  automationApiKey: T.String({ description: 'the trigger’s new key, shown this once; the previous one no longer works' }),
});

export const RunSummary = Strict({
  id: T.String(),
  automationId: Uuid(),
  version: T.Integer({ minimum: 1, description: 'the version the run entered with (and stays on)' }),
  profileId: T.String(),
  status: Enum(RUN_STATUSES),
  stepId: Nullable(T.String({ description: 'the step it is at (null once ended)' })),
  waitingEvent: Nullable(T.String({ description: 'the event an event wait waits for' })),
  dueAt: Nullable(DateTime({ description: 'when it is next due (a wait’s end, a retry)' })),
  entry: FreeValue({ description: 'how it entered: {type: API} or {type: EVENT, name, properties}' }),
  context: FreeValue({ description: 'the trigger’s context and what webhook steps mapped into it' }),
  error: Nullable(T.String()),
  enteredAt: DateTime(),
  endedAt: Nullable(DateTime()),
});
export const RunPage = pageOf(RunSummary);

export const StepExecution = Strict({
  seq: T.Integer({ minimum: 0, description: 'its place in the run’s timeline' }),
  stepId: T.String(),
  kind: Enum(STEP_KINDS),
  status: Enum(STEP_STATUSES),
  attempts: T.Integer({ minimum: 0 }),
  startedAt: DateTime(),
  finishedAt: Nullable(DateTime()),
  error: Nullable(T.String()),
  output: FreeValue({ description: 'what the step did (a send id, a webhook’s status, a wait’s end, a branch taken)' }),
});
export const RunDetail = Strict({ ...RunSummary.properties, steps: T.Array(StepExecution, { description: 'the timeline, oldest first' }) });

/** The request body example of create and update (docs/automations.md has the full format). */
export const AUTOMATION_EXAMPLE = {
  key: 'order-shipped',
  name: 'Order shipped',
  description: 'Tell the customer, wait a day, ask for a review if they have not opened the app',
  entries: { api: true },
  reentry: { mode: 'ALWAYS', minIntervalSeconds: 3600 },
  exit: { eventName: 'order_cancelled' },
  start: 'notify',
  steps: {
    notify: { type: 'push', template: 'order-shipped', variables: { orderId: '{{context.orderId}}' }, next: 'later' },
    later: { type: 'wait', seconds: 86_400, next: 'review' },
    review: { type: 'in-app', message: 'ask-review', periodSeconds: 604_800 },
  },
};
