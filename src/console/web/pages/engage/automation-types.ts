/**
 * The automation pages' copy of the administration API's shapes (issue 28): statuses, the
 * definition as the pages read it, an automation, a run and its step executions. The server's
 * schemas are src/engage/automations/{schemas,admin-schemas}.ts; src/console/automation-model.test.ts
 * checks the copied lists against them.
 */

export const AUTOMATION_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];
export const RUN_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const STEP_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const STEP_KINDS = ['push', 'in-app', 'webhook', 'profile-update', 'condition', 'wait', 'exit'] as const;
/** A run under way (it can be cancelled). */
export const LIVE_RUN: readonly RunStatus[] = ['RUNNING', 'WAITING'];

interface EventMatch {
  eventName: string;
  conditions?: { property: string; operator: string; values?: unknown[] }[];
}

/** A step as the definition holds it (only what the pages read is typed). */
export interface Step {
  type: string;
  next?: string;
  then?: string;
  else?: string;
  timeoutNext?: string;
  /** push, in-app, webhook: the step after a failure for good. */
  onFailure?: string;
  template?: string;
  message?: string;
  periodSeconds?: number;
  saveToInbox?: boolean;
  method?: string;
  url?: string;
  set?: Record<string, unknown>;
  remove?: string[];
  addTags?: string[];
  removeTags?: string[];
  conditions?: { attribute: string; operator: string; values?: unknown[]; negate?: boolean }[];
  seconds?: number;
  timeOfDay?: string;
  event?: EventMatch & { timeoutSeconds: number };
}

export interface Definition {
  key: string;
  name: string;
  description?: string;
  entries: { api?: boolean; event?: EventMatch };
  exit?: EventMatch;
  start: string;
  steps: Record<string, Step>;
  [more: string]: unknown;
}

export interface AutomationSummary {
  environmentId: string;
  key: string;
  id: string;
  name: string;
  status: AutomationStatus;
  version: number;
  publishedVersion: number | null;
  apiEntry: boolean;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AutomationDetail extends AutomationSummary {
  definition: Definition;
  changed?: boolean;
  automationApiKey?: string;
  /** Run status → count. */
  runs?: Record<string, number>;
  /** Step id → step execution status → count. */
  steps?: Record<string, Record<string, number>>;
}

export interface RunSummary {
  id: string;
  automationId: string;
  version: number;
  profileId: string;
  status: RunStatus;
  stepId: string | null;
  waitingEvent: string | null;
  dueAt: string | null;
  entry: unknown;
  context: unknown;
  error: string | null;
  enteredAt: string;
  endedAt: string | null;
}

export interface StepExecution {
  seq: number;
  stepId: string;
  kind: string;
  status: StepStatus;
  attempts: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  output: unknown;
}

export interface RunDetail extends RunSummary {
  steps: StepExecution[];
}
