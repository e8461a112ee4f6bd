import { createGroupCommit } from '../../platform/store/group-commit';
import { forKeyShare, type Dialect, type Sql } from '../../platform/store/sql';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { claimText, nextDueText, type ClaimTable } from '../../platform/work/claim';
import type { AutomationStatus, RunStatus, StepStatus } from './schemas';

/**
 * Automations' rows (issue 28; engage/automations owns automations, automation_versions,
 * automation_runs, automation_steps and automation_triggers). A run is its own durable work item
 * (platform/work's claim over `automation_runs`): claimable while RUNNING or WAITING, not held,
 * and due; the claim moves `due_ms` to the lease's end and counts the attempt, and every write of
 * the executor is conditional on that lease, so a process that lost its lease changes nothing.
 */
export interface AutomationRow {
  key: string;
  id: string;
  status: AutomationStatus;
  version: number;
  definition: string;
  publishedVersion: number | null;
  apiKeyDigest: string | null;
  configurationManaged: number;
  createdAt: string;
  updatedAt: string;
}

export interface RunRow {
  id: string;
  environmentId: string;
  automationId: string;
  version: number;
  profileId: string;
  status: RunStatus;
  stepId: string | null;
  stepSeq: number;
  dueMs: number | null;
  attempts: number;
  waitingEvent: string | null;
  context: string;
  entry: string;
  error: string | null;
  enteredAt: string;
  enteredMs: number;
  endedAt: string | null;
}

export interface StepRow {
  runId: string;
  seq: number;
  stepId: string;
  kind: string;
  status: StepStatus;
  attempts: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  output: string | null;
}

const AUTOMATION = `key, id, status, version, definition, published_version AS "publishedVersion", api_key_digest AS "apiKeyDigest",
  configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt"`;
const RUN = `id, environment_id AS "environmentId", automation_id AS "automationId", version, profile_id AS "profileId", status, step_id AS "stepId",
  step_seq AS "stepSeq", due_ms AS "dueMs", attempts, waiting_event AS "waitingEvent", context, entry, error, entered_at AS "enteredAt",
  entered_ms AS "enteredMs", ended_at AS "endedAt"`;
const STEP = `run_id AS "runId", seq, step_id AS "stepId", kind, status, attempts, started_at AS "startedAt", finished_at AS "finishedAt", error, output`;

export const AUTOMATION_RUNS = {
  table: 'automation_runs',
  id: 'id',
  due: 'due_ms',
  attempts: 'attempts',
  pending: `status IN ('RUNNING', 'WAITING') AND held = 0 AND due_ms IS NOT NULL`,
  returning: RUN,
} satisfies ClaimTable;

const LIVE = `status IN ('RUNNING', 'WAITING')`;
const STEP_COUNTED = `CASE WHEN s.status IN ('PENDING', 'RUNNING') AND r.status NOT IN ('RUNNING', 'WAITING') THEN 'INTERRUPTED' ELSE s.status END`;

const SQL = {
  insert: `INSERT INTO automations (environment_id, key, id, status, version, definition, created_at, updated_at)
    VALUES (?, ?, ?, 'DRAFT', 1, ?, ?, ?) ON CONFLICT (environment_id, key) DO NOTHING`,
  replace: `UPDATE automations SET status = ?, version = ?, definition = ?, published_version = ?, updated_at = ?
    WHERE environment_id = ? AND key = ? AND version = ? AND status = ?`,
  setApiKey: 'UPDATE automations SET api_key_digest = ?, updated_at = ? WHERE environment_id = ? AND key = ?',
  find: `SELECT ${AUTOMATION} FROM automations WHERE environment_id = ? AND key = ?`,
  byId: `SELECT ${AUTOMATION} FROM automations WHERE environment_id = ? AND id = ?`,
  byApiKey: `SELECT ${AUTOMATION}, environment_id AS "environmentId" FROM automations WHERE api_key_digest = ?`,
  page: `SELECT ${AUTOMATION} FROM automations WHERE environment_id = ? AND (? = '' OR status = ?) ORDER BY key LIMIT ? OFFSET ?`,
  mark: 'UPDATE automations SET configuration_managed = 1 WHERE environment_id = ? AND key = ? AND configuration_managed = 0',
  eventAutomations: `SELECT a.id, a.status, a.published_version AS "publishedVersion", v.definition FROM automations a
    JOIN automation_versions v ON v.automation_id = a.id AND v.version = a.published_version
    WHERE a.environment_id = ? AND a.status IN ('ACTIVE', 'PAUSED')`,
  insertVersion: 'INSERT INTO automation_versions (automation_id, version, environment_id, definition, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  version: 'SELECT definition FROM automation_versions WHERE automation_id = ? AND version = ?',
  insertRun: `INSERT INTO automation_runs (id, environment_id, automation_id, version, profile_id, status, step_id, step_seq, due_ms, attempts, held, context, entry, entered_at, entered_ms)
    VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, 0, ?, 0, 0, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  run: `SELECT ${RUN} FROM automation_runs WHERE environment_id = ? AND id = ?`,
  runs: `SELECT ${RUN} FROM automation_runs WHERE environment_id = ? AND automation_id = ? AND (? = '' OR status = ?) AND (? = '' OR profile_id = ?)
    ORDER BY entered_ms DESC, id DESC LIMIT ? OFFSET ?`,
  // Re-entry: the profile's runs of the automation, newest first (their number and the latest's state).
  profileRuns: `SELECT COUNT(*) AS n, SUM(CASE WHEN ${LIVE} THEN 1 ELSE 0 END) AS live, MAX(entered_ms) AS "lastMs"
    FROM automation_runs WHERE profile_id = ? AND automation_id = ?`,
  steps: `SELECT ${STEP} FROM automation_steps WHERE run_id = ? ORDER BY seq`,
  step: `SELECT ${STEP} FROM automation_steps WHERE run_id = ? AND seq = ?`,
  insertStep: `INSERT INTO automation_steps (run_id, seq, environment_id, profile_id, step_id, kind, status, attempts, started_at, finished_at, error, output)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (run_id, seq) DO UPDATE SET status = excluded.status, attempts = excluded.attempts, finished_at = excluded.finished_at, error = excluded.error, output = excluded.output`,
  // The executor's writes, each conditional on the lease it holds (due_ms as its claim wrote it).
  advance: `UPDATE automation_runs SET status = ?, step_id = ?, step_seq = ?, due_ms = ?, attempts = 0, waiting_event = ?, context = ?, error = ?, ended_at = ?, ended_ms = ?
    WHERE id = ? AND due_ms = ? AND ${LIVE}`,
  retryStep: `UPDATE automation_runs SET due_ms = ?, error = ? WHERE id = ? AND due_ms = ? AND ${LIVE}`,
  // Held: not claimable until resumed; the claim that found it paused is not counted as an attempt.
  hold: `UPDATE automation_runs SET held = 1, due_ms = ?, attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END WHERE id = ? AND due_ms = ? AND ${LIVE}`,
  renew: `UPDATE automation_runs SET due_ms = ? WHERE id = ? AND due_ms = ? AND ${LIVE}`,
  resume: `UPDATE automation_runs SET held = 0 WHERE automation_id = ? AND held = 1 AND ${LIVE}`,
  cancelAll: `UPDATE automation_runs SET status = 'CANCELLED', due_ms = NULL, held = 0, waiting_event = NULL, ended_at = ?, ended_ms = ? WHERE automation_id = ? AND ${LIVE}`,
  cancel: `UPDATE automation_runs SET status = 'CANCELLED', due_ms = NULL, held = 0, waiting_event = NULL, ended_at = ?, ended_ms = ? WHERE environment_id = ? AND id = ? AND ${LIVE}`,
  // Events (after ingest commits): runs of the profile waiting for it, and live runs an exit criterion ends.
  waitingFor: `SELECT ${RUN} FROM automation_runs WHERE profile_id = ? AND status = 'WAITING' AND waiting_event = ?`,
  wakeFor: `UPDATE automation_runs SET due_ms = ?, waiting_event = NULL WHERE id = ? AND status = 'WAITING' AND waiting_event = ? AND step_seq = ?`,
  liveOf: `SELECT ${RUN} FROM automation_runs WHERE profile_id = ? AND automation_id = ? AND ${LIVE}`,
  exit: `UPDATE automation_runs SET status = 'EXITED', due_ms = NULL, held = 0, waiting_event = NULL, ended_at = ?, ended_ms = ? WHERE id = ? AND ${LIVE}`,
  // An execution left PENDING or RUNNING by a run that ended meanwhile (cancelled, exited, archived) waits no more: INTERRUPTED.
  stepCounts: `SELECT s.step_id AS "stepId", ${STEP_COUNTED} AS status, COUNT(*) AS n FROM automation_steps s JOIN automation_runs r ON r.id = s.run_id
    WHERE r.automation_id = ? GROUP BY s.step_id, ${STEP_COUNTED}`,
  runCounts: `SELECT status, COUNT(*) AS n FROM automation_runs WHERE automation_id = ? GROUP BY status`,
  findTrigger: `SELECT access_key_id AS "accessKeyId", request_hash AS "requestHash", response FROM automation_triggers WHERE environment_id = ? AND idempotency_key = ?`,
  insertTrigger: `INSERT INTO automation_triggers (environment_id, idempotency_key, access_key_id, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT DO NOTHING`,
} as const;

const automation = (r: AutomationRow): AutomationRow => ({
  ...r,
  version: Number(r.version),
  publishedVersion: r.publishedVersion === null ? null : Number(r.publishedVersion),
  configurationManaged: Number(r.configurationManaged),
});
const run = (r: RunRow): RunRow => ({
  ...r,
  version: Number(r.version),
  stepSeq: Number(r.stepSeq),
  dueMs: r.dueMs === null ? null : Number(r.dueMs),
  attempts: Number(r.attempts),
  enteredMs: Number(r.enteredMs),
});
const step = (r: StepRow): StepRow => ({ ...r, seq: Number(r.seq), attempts: Number(r.attempts) });

export function createAutomationStore(db: Sql) {
  const claim = claimText(AUTOMATION_RUNS, db.dialect);
  const nextDue = nextDueText(AUTOMATION_RUNS);
  const holdProfile = `SELECT 1 AS one FROM profiles WHERE environment_id = ? AND id = ?${forKeyShare(db.dialect)}`;
  const one = async (text: string, params: unknown[]) => (await db.run(text, params)) === 1;
  return {
    /** The engine these rows are in (automationCommitter, work.ts). */
    dialect: db.dialect,
    async insert(environmentId: string, a: { key: string; id: string; definition: string }, at: string): Promise<boolean> {
      return (await db.run(SQL.insert, [environmentId, a.key, a.id, a.definition, at, at])) === 1;
    },
    replace: (environmentId: string, key: string, from: { version: number; status: AutomationStatus }, next: Pick<AutomationRow, 'status' | 'version' | 'definition' | 'publishedVersion'>, at: string) =>
      one(SQL.replace, [next.status, next.version, next.definition, next.publishedVersion, at, environmentId, key, from.version, from.status]),
    setApiKey: (environmentId: string, key: string, digest: string, at: string) => one(SQL.setApiKey, [digest, at, environmentId, key]),
    async find(environmentId: string, key: string): Promise<AutomationRow | undefined> {
      const r = await db.get<AutomationRow>(SQL.find, [environmentId, key]);
      return r && automation(r);
    },
    async byId(environmentId: string, id: string): Promise<AutomationRow | undefined> {
      const r = await db.get<AutomationRow>(SQL.byId, [environmentId, id]);
      return r && automation(r);
    },
    async byApiKey(digest: string): Promise<(AutomationRow & { environmentId: string }) | undefined> {
      const r = await db.get<AutomationRow & { environmentId: string }>(SQL.byApiKey, [digest]);
      return r && { ...automation(r), environmentId: r.environmentId };
    },
    page: async (environmentId: string, status: AutomationStatus | '', limit: number, offset: number) => (await db.all<AutomationRow>(SQL.page, [environmentId, status, status, limit, offset])).map(automation),
    mark: (environmentId: string, key: string) => one(SQL.mark, [environmentId, key]),
    /**
     * Serializes the entries of one profile into one automation until the transaction ends
     * (PostgreSQL: a transaction-level advisory lock on the pair; SQLite has one writer), so two
     * concurrent triggers cannot both pass the re-entry policy.
     */
    async lockEntry(profileId: string, automationId: string): Promise<void> {
      if (db.dialect === 'postgres') await db.get('SELECT pg_advisory_xact_lock(hashtext(?)) AS locked', [`${automationId}:${profileId}`]);
    },
    /**
     * Whether the profile is there, kept from erasure until the transaction ends (FOR KEY SHARE,
     * as a send keeps its recipient: messaging/recipient-store.ts): a run inserted for it commits
     * before a profile erasure's statements, which then erase it, or the profile is found gone.
     */
    async holdProfile(environmentId: string, profileId: string): Promise<boolean> {
      return (await db.get(holdProfile, [environmentId, profileId])) !== undefined;
    },
    /** The published definitions of the environment's ACTIVE and PAUSED automations (event entries and exits). */
    eventAutomations: async (environmentId: string) =>
      (await db.all<{ id: string; status: AutomationStatus; publishedVersion: number; definition: string }>(SQL.eventAutomations, [environmentId])).map((r) => ({ ...r, publishedVersion: Number(r.publishedVersion) })),
    async insertVersion(automationId: string, version: number, environmentId: string, definition: string, at: string): Promise<void> {
      await db.run(SQL.insertVersion, [automationId, version, environmentId, definition, at]);
    },
    version: async (automationId: string, version: number) => (await db.get<{ definition: string }>(SQL.version, [automationId, version]))?.definition,
    /** False when a run of that id exists already (an event entry acted on twice). */
    async insertRun(r: { id: string; environmentId: string; automationId: string; version: number; profileId: string; stepId: string; dueMs: number; context: string; entry: string; at: string; atMs: number }) {
      return (await db.run(SQL.insertRun, [r.id, r.environmentId, r.automationId, r.version, r.profileId, r.stepId, r.dueMs, r.context, r.entry, r.at, r.atMs])) === 1;
    },
    async run(environmentId: string, id: string): Promise<RunRow | undefined> {
      const r = await db.get<RunRow>(SQL.run, [environmentId, id]);
      return r && run(r);
    },
    runs: async (environmentId: string, automationId: string, filter: { status?: RunStatus; profileId?: string }, limit: number, offset: number) =>
      (await db.all<RunRow>(SQL.runs, [environmentId, automationId, filter.status ?? '', filter.status ?? '', filter.profileId ?? '', filter.profileId ?? '', limit, offset])).map(run),
    async profileRuns(profileId: string, automationId: string): Promise<{ count: number; live: number; lastMs: number | null }> {
      const r = await db.get<{ n: number; live: number | null; lastMs: number | null }>(SQL.profileRuns, [profileId, automationId]);
      return { count: Number(r?.n ?? 0), live: Number(r?.live ?? 0), lastMs: r?.lastMs === null || r?.lastMs === undefined ? null : Number(r.lastMs) };
    },
    steps: async (runId: string) => (await db.all<StepRow>(SQL.steps, [runId])).map(step),
    async step(runId: string, seq: number): Promise<StepRow | undefined> {
      const r = await db.get<StepRow>(SQL.step, [runId, seq]);
      return r && step(r);
    },
    async putStep(r: { runId: string; seq: number; environmentId: string; profileId: string; stepId: string; kind: string; status: StepStatus; attempts: number; startedAt: string; finishedAt: string | null; error: string | null; output: string | null }) {
      await db.run(SQL.insertStep, [r.runId, r.seq, r.environmentId, r.profileId, r.stepId, r.kind, r.status, r.attempts, r.startedAt, r.finishedAt, r.error, r.output]);
    },
    claim: async (now: number, leaseUntil: number, limit: number) => (await db.all<RunRow>(claim, [leaseUntil, now, limit])).map(run),
    async nextDue(): Promise<number | undefined> {
      const r = await db.get<{ dueMs: number | null }>(nextDue, []);
      return r?.dueMs === null || r?.dueMs === undefined ? undefined : Number(r.dueMs);
    },
    advance: (id: string, lease: number, n: { status: RunStatus; stepId: string | null; stepSeq: number; dueMs: number | null; waitingEvent: string | null; context: string; error: string | null; endedAt: string | null; endedMs: number | null }) =>
      one(SQL.advance, [n.status, n.stepId, n.stepSeq, n.dueMs, n.waitingEvent, n.context, n.error, n.endedAt, n.endedMs, id, lease]),
    retryStep: (id: string, lease: number, dueMs: number, error: string) => one(SQL.retryStep, [dueMs, error, id, lease]),
    hold: (id: string, lease: number, dueMs: number) => one(SQL.hold, [dueMs, id, lease]),
    renew: (id: string, from: number, to: number) => one(SQL.renew, [to, id, from]),
    resume: (automationId: string) => db.run(SQL.resume, [automationId]),
    cancelAll: (automationId: string, at: string, atMs: number) => db.run(SQL.cancelAll, [at, atMs, automationId]),
    cancel: (environmentId: string, id: string, at: string, atMs: number) => one(SQL.cancel, [at, atMs, environmentId, id]),
    waitingFor: async (profileId: string, eventName: string) => (await db.all<RunRow>(SQL.waitingFor, [profileId, eventName])).map(run),
    wakeFor: (id: string, eventName: string, stepSeq: number, dueMs: number) => one(SQL.wakeFor, [dueMs, id, eventName, stepSeq]),
    liveOf: async (profileId: string, automationId: string) => (await db.all<RunRow>(SQL.liveOf, [profileId, automationId])).map(run),
    exit: (id: string, at: string, atMs: number) => one(SQL.exit, [at, atMs, id]),
    stepCounts: async (automationId: string) => (await db.all<{ stepId: string; status: StepStatus | 'INTERRUPTED'; n: number }>(SQL.stepCounts, [automationId])).map((r) => ({ ...r, n: Number(r.n) })),
    runCounts: async (automationId: string) => (await db.all<{ status: RunStatus; n: number }>(SQL.runCounts, [automationId])).map((r) => ({ ...r, n: Number(r.n) })),
    findTrigger: (environmentId: string, key: string) => db.get<{ accessKeyId: string; requestHash: string; response: string }>(SQL.findTrigger, [environmentId, key]),
    insertTrigger: (environmentId: string, key: string, accessKeyId: string, requestHash: string, response: string, at: string) =>
      one(SQL.insertTrigger, [environmentId, key, accessKeyId, requestHash, response, at]),
  };
}

export type AutomationStore = ReturnType<typeof createAutomationStore>;

/**
 * How automations commit a trigger's run and an engine step (issue 28 "Performance"): on SQLite,
 * whose one writer serializes every transaction of the process anyway, the transactions that
 * arrive in one turn of the event loop share one commit (platform/store/group-commit.ts), each in
 * its own SAVEPOINT: a throw (a refused re-entry, a lost lease, a refused step) undoes that one's
 * writes and after-commit hooks only and reaches its caller alone, and every caller is answered
 * after the shared COMMIT. On PostgreSQL each is its own transaction, on its own connection of the
 * pool (grouping would put them one after the other on one connection: each statement a round trip).
 * `lockOrder` orders a group's items (rows they lock, as group-commit.ts asks).
 */
export function automationCommitter<S>(store: TxRunner<S>, dialect: Dialect, lockOrder: (key: string) => string = (k) => k) {
  type Job = { key: string; run: (tx: S & TxScope) => Promise<unknown> };
  const grouped = dialect === 'sqlite' ? createGroupCommit(store, (tx: S & TxScope, job: Job) => job.run(tx), (job) => lockOrder(job.key)) : undefined;
  return <T>(key: string, run: (tx: S & TxScope) => Promise<T>): Promise<T> => (grouped ? (grouped({ key, run }) as Promise<T>) : store.tx(run));
}
