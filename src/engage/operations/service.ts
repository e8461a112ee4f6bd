import { DomainError } from '../../platform/errors';
import type { Clock } from '../../platform/clock';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner, TxScope } from '../../platform/store/store';
import type { WorkStore } from '../../platform/work/store';
import type { InstallationPrincipal } from '../installations/service';
import { EdgeErrors } from '../shared/errors';
import { parseDateTime, type Violation } from '../../platform/http/schema';
import { batchDigest, checkOperations, KNOWN_TYPES } from './check';
import { OperationErrorCode, OperationErrors } from './errors';
import { createKeyBudget, MAX_LIVE_KEYS } from './key-budget';
import { TRACKED_TYPES, type OperationBatchEnvelope, type OperationResult } from './schemas';
import { recordPushReceiptIn, type ReceiptTx } from '../messaging/receipts';
import { applyIn, lockStateIn, profilesOfGenerationsIn, setState, StateEffects, type ProfileTx, type StateChanges, type StateKind } from '../profiles/service';
import type { IngestState, OperationRow, OperationStore } from './store';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { createExposureCounter, type ExposureCounter, type ExposureRow, type ExposureTx } from '../flags/exposures';
import { countInteractionsIn, type InteractionRow, type InteractionTx } from '../in-app/interactions';

export type { OperationResult };
export { MAX_BATCH } from './schemas';

type Obj = Record<string, unknown>;

/** The batch answer, already serialized: it is stored as-is for replays. */
export interface IngestOutcome {
  replayed: boolean;
  body: string;
  /** Operations of a stored (not replayed) batch, by result status. */
  statuses?: Record<string, number>;
  /** Whose state the batch changed (its change notices, said once it committed). */
  changed?: StateChanges;
}

/**
 * Records a batch's accepted EVENT_TRACKED operations of one profile for automations (event
 * entries, event waits, exit criteria; issue 28), in the ingest transaction: a durable work item,
 * acted on once the batch committed, by any process.
 */
export type EventRecorder = (tx: Stores & TxScope & { work: WorkStore }, environmentId: string, profileId: string, events: readonly { name: string; properties: Obj }[]) => Promise<void>;

/** Counts what ingest does (platform/metrics.ts). */
export interface IngestMetrics {
  ingestOperations: { inc(labels: { status: string }, by?: number): void };
  ingestBatches: { inc(labels: { outcome: string }): void };
}

// Profile state and delivery receipts through their owners' `…In(tx)` functions (db/owners.ts).
type Stores = { operations: OperationStore } & ProfileTx & ReceiptTx & ExposureTx & InteractionTx;

const rejected = (operationId: string, errorCode: string, message: string): OperationResult => ({ operationId, status: 'REJECTED', errorCode, message });

export function createOperationService(deps: { store: Stores & { work: WorkStore } & TxRunner<Stores & { work: WorkStore }>; clock: Clock; metrics?: IngestMetrics; notices?: ChangeNotices; events?: { record?: EventRecorder } }) {
  const { store, clock } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const exposures = createExposureCounter();

  /**
   * POST /v1/sdk/operations:batch. Shapes are checked before the transaction; ledger,
   * fencing, privacy and effects run in one transaction with the stored answer, so a 202
   * means every accepted operation is committed (DESIGN.md "Durability promise").
   */
  async function ingest(p: InstallationPrincipal, envelope: OperationBatchEnvelope): Promise<IngestOutcome> {
    // The route checked the envelope; each operation is checked here, on its own.
    const batch = envelope as { batchId: string; operations: Obj[] };
    const ops = batch.operations;
    const n = ops.length;
    const violations: (Violation | null)[] = new Array(n);
    const payloads: (string | undefined)[] = new Array(n);
    checkOperations(ops, violations, payloads);
    const digest = batchDigest(ops, violations, payloads);
    const batchKey = batch.batchId.toLowerCase();
    const now = clock.now();
    const nowMs = now.getTime();
    const serverTime = now.toISOString();

    const m = deps.metrics;
    if (!m) return told(p, await grouped({ p, batch, violations, payloads, digest, batchKey, nowMs, serverTime }));
    try {
      const outcome = told(p, await grouped({ p, batch, violations, payloads, digest, batchKey, nowMs, serverTime }));
      m.ingestBatches.inc({ outcome: outcome.replayed ? 'replayed' : 'stored' });
      for (const [status, n] of Object.entries(outcome.statuses ?? {})) m.ingestOperations.inc({ status }, n);
      return outcome;
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'conflict') m.ingestBatches.inc({ outcome: 'conflict' });
      throw e;
    }
  }

  /** The batch committed: the streams of the installation and of each profile it changed are told (issue 26 point 6). */
  function told(p: InstallationPrincipal, outcome: IngestOutcome): IngestOutcome {
    if (outcome.changed?.installation) notices.installationChanged(p.environmentId, p.id);
    for (const id of outcome.changed?.profiles ?? []) notices.profileChanged(p.environmentId, id);
    return outcome;
  }

  /**
   * Group commit (platform/store/group-commit.ts): batches that arrive in the same turn of the
   * event loop share one transaction and each answers after that commit; a batch that throws
   * has only its own writes undone and only its caller gets the error.
   */
  const grouped = createGroupCommit(
    store,
    (tx, job: Job) => processBatch(tx, job, exposures, deps.events),
    // Each batch locks its installation's row: in id order, across processes.
    (job) => job.p.id,
  );

  /** Read models for operators (inspection/service.ts): the ledger's counts per type and status, and a profile's recent tracked events. */
  const history = {
    counts: (environmentId: string, installationId: string) => store.operations.counts(environmentId, installationId),
    recentEvents: (environmentId: string, profileId: string, limit: number) => store.operations.recentEvents(environmentId, profileId, limit),
    recentOperations: (environmentId: string, installationId: string, limit: number) => store.operations.recentOperations(environmentId, installationId, limit),
  };

  return { ingest, history };
}

interface Job {
  p: InstallationPrincipal;
  batch: { batchId: string; operations: Obj[] };
  violations: (Violation | null)[];
  /** JSON of each valid operation's payload, as checked (stored as-is). */
  payloads: (string | undefined)[];
  /** SHA-256 of the request's operations (check.ts batchDigest). */
  digest: string;
  batchKey: string;
  nowMs: number;
  serverTime: string;
}

const duplicate = (operationId: string): OperationResult => ({ operationId, status: 'DUPLICATE', errorCode: null, message: null });
const accepted = (operationId: string): OperationResult => ({ operationId, status: 'ACCEPTED', errorCode: null, message: null });

/**
 * One batch inside the (group) transaction: ledger, fencing, privacy, effects, stored answer.
 * Set-oriented, so a batch costs the same few statements whatever its size: the installation's
 * state (locked), the stored answer (replay) with the current profile, the operation ids already in the ledger, the
 * profiles of older generations when the batch names any, then one insert into the ledger,
 * one upsert per kind of effect, one update of the installation and the answer stored. Each
 * operation is still decided as if the batch ran one operation after the other (duplicates
 * inside the batch, privacy changed by an earlier operation, last-writer-wins ties).
 */
async function processBatch(tx: Stores & TxScope & { work: WorkStore }, job: Job, counter: ExposureCounter, events?: { record?: EventRecorder }): Promise<IngestOutcome> {
  const s = tx.operations;
  const { p, batch, violations, payloads, digest, batchKey, nowMs, serverTime } = job;
  const ops = batch.operations;
  const n = ops.length;
  // The installation's row, locked (PostgreSQL), then the batch's stored answer: a copy of this
  // batch, or another batch of this installation, sent to another process waits here until this
  // one commits, and then finds its stored answer and its operations in the ledger.
  const locked = await lockStateIn(tx, p.environmentId, p.id);
  if (!locked) throw EdgeErrors.unauthorized();
  const { previous, profileId: currentProfile } = await s.batchAndProfile(p.id, batchKey, locked.generation);
  const state: IngestState = { ...locked, profileId: currentProfile };
  if (previous !== undefined) {
    // Same operations: the first answer again. Other operations under a used batchId would
    // otherwise be answered with results that are not theirs and never stored (409, nothing
    // written). A batch stored before digests existed replays whatever the body.
    if (previous.digest !== null && previous.digest !== digest) throw OperationErrors.batchConflict();
    return { replayed: true, body: previous.result };
  }

  const keys: string[] = new Array(n);
  for (let i = 0; i < n; i++) keys[i] = (ops[i].operationId as string).toLowerCase();
  const distinct = [...new Set(keys)];
  // Operation ids already in the ledger, and those this batch records: anything in it is a duplicate.
  const known = await s.seenOperations(p.id, distinct);
  // Profiles of the generations the batch names below the current one (the current one came with the state).
  const profiles = new Map<number, string | null>([[state.generation, state.profileId]]);
  const older: number[] = [];
  for (let i = 0; i < n; i++) {
    const g = ops[i].generation;
    if (violations[i] === null && typeof g === 'number' && g < state.generation && !profiles.has(g) && !older.includes(g)) older.push(g);
  }
  if (older.length > 0) {
    const found = await profilesOfGenerationsIn(tx, p.id, older);
    for (const g of older) profiles.set(g, found.get(g) ?? null);
  }

  const results: OperationResult[] = new Array(n);
  const ledger: OperationRow[] = [];
  const effects = new StateEffects();
  const receipts: { deliveryId: string; type: 'DELIVERED' | 'OPENED'; at: string }[] = [];
  const exposures: ExposureRow[] = [];
  const interactions: InteractionRow[] = [];
  const tracked = new Map<string, { name: string; properties: Obj }[]>();
  const budget = createKeyBudget(tx);
  let changed = false;
  for (let i = 0; i < n; i++) {
    const op = ops[i];
    const opId = op.operationId as string;
    const key = keys[i];
    const v = violations[i];
    // The ledger keeps a type only when it is one of ours: never the client's text.
    const type = KNOWN_TYPES.has(op.type as string) ? (op.type as string) : 'UNKNOWN';
    const generation = typeof op.generation === 'number' ? op.generation : -1;
    if (known.has(key)) {
      results[i] = duplicate(opId);
      continue;
    }
    known.add(key);
    let reject: OperationResult | undefined;
    if (v) reject = rejected(opId, v.code, v.message);
    else if (generation > state.generation)
      reject = rejected(opId, OperationErrorCode.generationNotReached, `generation: ${generation} has not been reached (current ${state.generation})`);
    else if (state.privacy.value === 'OPTED_OUT' && TRACKED_TYPES.has(type))
      reject = rejected(opId, OperationErrorCode.privacyOptedOut, `type: ${type} is not recorded while privacy is OPTED_OUT`);
    else reject = await overCap(budget, p.id, profiles.get(generation) ?? null, type, op.payload as Obj, opId);

    if (reject) {
      // Rejected operations keep only their ids, so a retry is answered DUPLICATE.
      ledger.push({ operationId: key, profileId: null, generation: generation < 0 ? 0 : generation, type, status: 'REJECTED', occurredMs: null, payload: null });
      results[i] = reject;
      continue;
    }
    const profileId = profiles.get(generation) ?? null;
    const ms = parseDateTime(op.occurredAt as string);
    ledger.push({ operationId: key, profileId, generation, type, status: 'ACCEPTED', occurredMs: ms, payload: payloads[i]! });
    if (type === 'FLAG_EXPOSED') {
      const x = op.payload as { flagKey: string; experimentId: string; variantKey: string; revision: number };
      exposures.push({ flagKey: x.flagKey, experimentId: x.experimentId, revision: x.revision, variantKey: x.variantKey, exposedMs: ms });
    }
    if (type === 'EVENT_TRACKED' && profileId !== null) {
      const x = op.payload as { name: string; properties: Obj };
      const list = tracked.get(profileId);
      if (list) list.push({ name: x.name, properties: x.properties });
      else tracked.set(profileId, [{ name: x.name, properties: x.properties }]);
    }
    if (type === 'INTERACTION_TRACKED') {
      const x = op.payload as { experienceId: string; messageId: string; variantId?: string | null; type: InteractionRow['type'] };
      interactions.push({ experienceId: x.experienceId, messageId: x.messageId, variantId: x.variantId ?? null, type: x.type, occurredMs: ms });
    }
    if (type === 'PUSH_RECEIPT_RECORDED') receipts.push({ ...(op.payload as { deliveryId: string; type: 'DELIVERED' | 'OPENED' }), at: new Date(ms).toISOString() });
    if (!TRACKED_TYPES.has(type)) changed = applyState(effects, p, state, profileId, type, op.payload as Obj, ms, key) || changed;
    results[i] = accepted(opId);
  }
  await s.insertOperations(p.environmentId, p.id, nowMs, ledger);
  // In-app interactions, counted by the in-app context; a frequency cap reached changes the installation's IN_APP documents.
  const { capReached } = await countInteractionsIn(tx, { environmentId: p.environmentId, installationId: p.id }, interactions, nowMs);
  const stateChanges = await applyIn(tx, { environmentId: p.environmentId, installationId: p.id, at: serverTime }, effects, changed ? state : undefined, capReached);
  for (const r of receipts) await recordPushReceiptIn(tx, p.environmentId, p.id, r);
  // Experiment exposures, counted by the flags context (one statement for the batch).
  await counter.recordIn(tx, { environmentId: p.environmentId, installationId: p.id }, exposures);
  const out = JSON.stringify({ batchId: batch.batchId, results, serverTime });
  await s.insertBatchResult(p.id, batchKey, digest, out, serverTime);
  const statuses: Record<string, number> = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  if (events?.record) for (const [profileId, list] of tracked) await events.record(tx, p.environmentId, profileId, list);
  return { replayed: false, body: out, statuses, changed: stateChanges };
}

/** The REJECTED result of an attribute or tag operation that would pass its owner's cap on distinct keys, or undefined. */
async function overCap(budget: ReturnType<typeof createKeyBudget>, installationId: string, profileId: string | null, type: string, payload: Obj, opId: string): Promise<OperationResult | undefined> {
  let kind: 'installationAttributes' | 'profileAttributes' | 'profileTags';
  let owner: string | null;
  let adds: string[];
  let field: string;
  if (type === 'INSTALLATION_ATTRIBUTES_EDITED' || type === 'PROFILE_ATTRIBUTES_EDITED') {
    const onProfile = type === 'PROFILE_ATTRIBUTES_EDITED';
    [kind, owner, field] = onProfile ? ['profileAttributes', profileId, 'set'] : ['installationAttributes', installationId, 'set'];
    // A key set and removed by the same operation ends removed: it adds nothing.
    const removed = new Set((payload.remove as string[] | undefined) ?? []);
    adds = Object.keys((payload.set as Obj | undefined) ?? {}).filter((k) => !removed.has(k));
  } else if (type === 'PROFILE_TAGS_EDITED') {
    [kind, owner, field] = ['profileTags', profileId, 'add'];
    const removed = new Set((payload.remove as string[] | undefined) ?? []);
    adds = ((payload.add as string[] | undefined) ?? []).filter((t) => !removed.has(t));
  } else return undefined;
  // No profile bound in that generation: the operation changes nothing (applyState).
  if (owner === null || adds.length === 0) return undefined;
  const r = await budget.admit(kind, owner, adds);
  if (r.ok) return undefined;
  const what = kind === 'profileTags' ? 'tags' : 'attributes';
  const whose = kind === 'installationAttributes' ? 'installation' : 'profile';
  return rejected(opId, OperationErrorCode.keyLimitExceeded, `${field}: the ${whose} would hold more than ${MAX_LIVE_KEYS} ${what} (it holds ${r.held}); remove some first`);
}

/** Applies one accepted state operation; returns whether installation-level state may have changed. */
function applyState(
  e: StateEffects,
  p: InstallationPrincipal,
  state: IngestState,
  profileId: string | null,
  type: string,
  payload: Obj,
  ms: number,
  op: string,
): boolean {
  switch (type) {
    case 'INSTALLATION_ATTRIBUTES_EDITED':
    case 'PROFILE_ATTRIBUTES_EDITED': {
      const onProfile = type === 'PROFILE_ATTRIBUTES_EDITED';
      if (onProfile && !profileId) return false;
      const owner = onProfile ? profileId! : p.id;
      const kind: StateKind = onProfile ? 'profileAttributes' : 'installationAttributes';
      const set = payload.set as Obj | undefined;
      // Removal after set: a key named in both ends removed (docs/decisions.md).
      if (set) for (const k in set) e.put(kind, [owner, k, JSON.stringify(set[k]), ms, op]);
      const remove = payload.remove as string[] | undefined;
      if (remove) for (const k of remove) e.put(kind, [owner, k, null, ms, op]);
      return !onProfile;
    }
    case 'PROFILE_TAGS_EDITED': {
      if (!profileId) return false;
      for (const t of (payload.add as string[] | undefined) ?? []) e.put('profileTags', [profileId, t, 1, ms, op]);
      for (const t of (payload.remove as string[] | undefined) ?? []) e.put('profileTags', [profileId, t, 0, ms, op]);
      return false;
    }
    case 'INSTALLATION_SUBSCRIPTIONS_EDITED':
      for (const c of payload.changes as { list: string; subscribed: boolean }[]) e.put('installationSubscriptions', [p.id, c.list, c.subscribed ? 1 : 0, ms, op]);
      return true;
    case 'PROFILE_SUBSCRIPTIONS_EDITED':
      if (!profileId) return false;
      for (const c of payload.changes as { list: string; channel: string; subscribed: boolean }[])
        e.put('profileSubscriptions', [profileId, c.list, c.channel, c.subscribed ? 1 : 0, ms, op]);
      return false;
    case 'PUSH_TOKEN_SET':
      return setState(state.pushToken, payload.token as string | null, ms, op);
    case 'PUSH_SUBSCRIPTION_SET':
      return setState(state.pushSubscription, payload.state as string, ms, op);
    case 'PUSH_PERMISSION_SET':
      return setState(state.pushPermission, payload.state as string, ms, op);
    case 'PRIVACY_STATE_SET':
      // Later operations of this batch see the privacy state as it now stands.
      return setState(state.privacy, payload.state as IngestState['privacy']['value'], ms, op);
    default:
      return false;
  }
}

export type OperationService = ReturnType<typeof createOperationService>;
export type { EventRow } from './store';
