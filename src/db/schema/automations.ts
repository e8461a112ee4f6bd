import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Automations (issue 28): definitions with their versions and the digest of their API entry's
 * key, runs (each run is its own durable work item: claimed when `due_ms` comes, held while its
 * automation is paused), the execution of each step, and the trigger endpoint's idempotency
 * ledger. Migration 0036 (SQLite and PostgreSQL).
 */

export const automations = sqliteTable(
  'automations',
  {
    environmentId: text('environment_id').notNull(),
    key: text('key').notNull(),
    id: text('id').notNull(),
    status: text('status', { enum: ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] }).notNull(),
    /** The latest edit's version and definition (JSON). */
    version: integer('version').notNull(),
    definition: text('definition').notNull(),
    /** The version new runs enter (null until published). */
    publishedVersion: integer('published_version'),
    /** SHA-256 (hex) of the API entry's key (the trigger's path segment); null: no API entry key yet. */
    apiKeyDigest: text('api_key_digest'),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.key] }), uniqueIndex('automations_id').on(t.id), uniqueIndex('automations_api_key').on(t.apiKeyDigest)],
);

/** Every published version: what a run executes (it stays on the version it entered with). */
export const automationVersions = sqliteTable(
  'automation_versions',
  {
    automationId: text('automation_id').notNull(),
    version: integer('version').notNull(),
    environmentId: text('environment_id').notNull(),
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.automationId, t.version] }), index('automation_versions_environment').on(t.environmentId)],
);

export const automationRuns = sqliteTable(
  'automation_runs',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    automationId: text('automation_id').notNull(),
    version: integer('version').notNull(),
    profileId: text('profile_id').notNull(),
    status: text('status', { enum: ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] }).notNull(),
    /** The step to execute next (null once ended). */
    stepId: text('step_id'),
    /** Steps executed so far: the next automation_steps row's seq. */
    stepSeq: integer('step_seq').notNull().default(0),
    /** When the run is next claimable; while claimed, when the lease lapses; null: not claimable (ended, waiting for an event without timeout, held). */
    dueMs: integer('due_ms'),
    /** Attempts of the current step. */
    attempts: integer('attempts').notNull().default(0),
    /** 1 while its automation is paused (resume makes it due again). */
    held: integer('held').notNull().default(0),
    /** The EVENT_TRACKED name a wait step waits for. */
    waitingEvent: text('waiting_event'),
    /** JSON: the trigger's context, and what webhook steps mapped into it. */
    context: text('context').notNull(),
    /** JSON: how the run entered ({type: API} or {type: EVENT, name, properties}). */
    entry: text('entry').notNull(),
    error: text('error'),
    enteredAt: text('entered_at').notNull(),
    enteredMs: integer('entered_ms').notNull(),
    endedAt: text('ended_at'),
    endedMs: integer('ended_ms'),
  },
  (t) => [
    index('automation_runs_due').on(t.dueMs),
    index('automation_runs_profile').on(t.profileId, t.automationId),
    index('automation_runs_automation').on(t.automationId, t.status),
    index('automation_runs_environment').on(t.environmentId),
  ],
);

/** One execution of one step of a run. */
export const automationSteps = sqliteTable(
  'automation_steps',
  {
    runId: text('run_id').notNull(),
    seq: integer('seq').notNull(),
    environmentId: text('environment_id').notNull(),
    profileId: text('profile_id').notNull(),
    stepId: text('step_id').notNull(),
    kind: text('kind').notNull(),
    status: text('status', { enum: ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at'),
    error: text('error'),
    output: text('output'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] }), index('automation_steps_environment').on(t.environmentId), index('automation_steps_profile').on(t.profileId)],
);

/** The trigger endpoint's Idempotency-Key ledger: the first answer per key. */
export const automationTriggers = sqliteTable(
  'automation_triggers',
  {
    environmentId: text('environment_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    accessKeyId: text('access_key_id').notNull(),
    requestHash: text('request_hash').notNull(),
    response: text('response').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.idempotencyKey] })],
);
