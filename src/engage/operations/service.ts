import type { Clock } from '../../platform/clock';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner } from '../../platform/store/store';
import type { InstallationPrincipal } from '../installations/service';
import { UUID, isObject, missing, noExtra, violation, ViolationCode, type Obj, type Violation } from '../shared/check';
import { EdgeErrors } from '../shared/errors';
import { OperationErrorCode } from './errors';
import type { IngestState, OperationStore } from './store';
import { TRACKED_TYPES, checkOperation, parseDateTime } from './validate';

export interface OperationResult {
  operationId: string;
  status: 'ACCEPTED' | 'DUPLICATE' | 'REJECTED';
  errorCode: string | null;
  message: string | null;
}

/** The batch answer, already serialized: it is stored as-is for replays. */
export interface IngestOutcome {
  replayed: boolean;
  body: string;
}

type Stores = { operations: OperationStore };
const BATCH_KEYS = new Set(['batchId', 'operations']);
export const MAX_BATCH = 100;

/** OperationBatchRequest envelope: anything wrong here is a 400 for the whole batch. */
function checkEnvelope(body: unknown): Violation | null {
  if (!isObject(body)) return violation(ViolationCode.type, 'body', 'must be a JSON object');
  const extra = noExtra(body, BATCH_KEYS, '');
  if (extra) return extra;
  if (body.batchId === undefined) return missing('batchId');
  if (typeof body.batchId !== 'string' || !UUID.test(body.batchId)) return violation(ViolationCode.format, 'batchId', 'must be a UUID');
  const ops = body.operations;
  if (ops === undefined) return missing('operations');
  if (!Array.isArray(ops)) return violation(ViolationCode.type, 'operations', 'must be an array');
  if (ops.length < 1 || ops.length > MAX_BATCH) return violation(ViolationCode.range, 'operations', `must have 1 to ${MAX_BATCH} items`);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as unknown;
    if (!isObject(op)) return violation(ViolationCode.type, `operations[${i}]`, 'must be an object');
    // A result cannot be reported without a usable operationId (docs/decisions.md).
    if (op.operationId === undefined) return missing(`operations[${i}].operationId`);
    if (typeof op.operationId !== 'string' || !UUID.test(op.operationId))
      return violation(ViolationCode.format, `operations[${i}].operationId`, 'must be a UUID');
  }
  return null;
}

const rejected = (operationId: string, errorCode: string, message: string): OperationResult => ({ operationId, status: 'REJECTED', errorCode, message });

export function createOperationService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;

  /**
   * POST /v1/sdk/operations:batch. Shapes are checked before the transaction; ledger,
   * fencing, privacy and effects run in one transaction with the stored answer, so a 202
   * means every accepted operation is committed (DESIGN.md "Durability promise").
   */
  async function ingest(p: InstallationPrincipal, body: unknown): Promise<IngestOutcome> {
    const bad = checkEnvelope(body);
    if (bad) throw EdgeErrors.fromViolation(bad);
    const batch = body as { batchId: string; operations: Obj[] };
    const ops = batch.operations;
    const n = ops.length;
    const violations: (Violation | null)[] = new Array(n);
    for (let i = 0; i < n; i++) violations[i] = checkOperation(ops[i]);
    const batchKey = batch.batchId.toLowerCase();
    const now = clock.now();
    const nowMs = now.getTime();
    const serverTime = now.toISOString();

    return grouped({ p, batch, violations, batchKey, nowMs, serverTime });
  }

  /**
   * Group commit (platform/store/group-commit.ts): batches that arrive in the same turn of the
   * event loop share one transaction and each answers after that commit; a batch that throws
   * has only its own writes undone and only its caller gets the error.
   */
  const grouped = createGroupCommit(store, (tx, job: Job) => processBatch(tx.operations, job));

  return { ingest };
}

interface Job {
  p: InstallationPrincipal;
  batch: { batchId: string; operations: Obj[] };
  violations: (Violation | null)[];
  batchKey: string;
  nowMs: number;
  serverTime: string;
}

/** One batch inside the (group) transaction: ledger, fencing, privacy, effects, stored answer. */
function processBatch(s: OperationStore, job: Job): IngestOutcome {
  const { p, batch, violations, batchKey, nowMs, serverTime } = job;
  const ops = batch.operations;
  const n = ops.length;
  const previous = s.findBatchResult(p.id, batchKey);
  if (previous !== undefined) return { replayed: true, body: previous };
  const state = s.ingestState(p.environmentId, p.id);
  if (!state) throw EdgeErrors.unauthorized();
  const profiles = new Map<number, string | undefined>();
  const results: OperationResult[] = new Array(n);
  let changed = false;
  for (let i = 0; i < n; i++) {
    const op = ops[i];
    const opId = op.operationId as string;
    const key = opId.toLowerCase();
    const v = violations[i];
    const type = typeof op.type === 'string' ? op.type : '';
    const generation = typeof op.generation === 'number' ? op.generation : -1;
    let reject: OperationResult | undefined;
    if (v) reject = rejected(opId, v.code, v.message);
    else if (generation > state.generation)
      reject = rejected(opId, OperationErrorCode.generationNotReached, `generation: ${generation} has not been reached (current ${state.generation})`);
    else if (state.privacy === 'OPTED_OUT' && TRACKED_TYPES.has(type))
      reject = rejected(opId, OperationErrorCode.privacyOptedOut, `type: ${type} is not recorded while privacy is OPTED_OUT`);

    if (reject) {
      // Rejected operations keep only their ids, so a retry is answered DUPLICATE.
      const fresh = s.recordOperation({
        installationId: p.id,
        operationId: key,
        environmentId: p.environmentId,
        profileId: null,
        generation: generation < 0 ? 0 : generation,
        type,
        status: 'REJECTED',
        occurredMs: null,
        receivedMs: nowMs,
        payload: null,
      });
      results[i] = fresh ? reject : { operationId: opId, status: 'DUPLICATE', errorCode: null, message: null };
      continue;
    }
    let profileId = profiles.get(generation);
    if (!profiles.has(generation)) profiles.set(generation, (profileId = s.profileOfGeneration(p.id, generation)));
    const ms = parseDateTime(op.occurredAt as string);
    const fresh = s.recordOperation({
      installationId: p.id,
      operationId: key,
      environmentId: p.environmentId,
      profileId: profileId ?? null,
      generation,
      type,
      status: 'ACCEPTED',
      occurredMs: ms,
      receivedMs: nowMs,
      payload: JSON.stringify(op.payload),
    });
    if (!fresh) {
      results[i] = { operationId: opId, status: 'DUPLICATE', errorCode: null, message: null };
      continue;
    }
    if (!TRACKED_TYPES.has(type)) {
      changed = applyState(s, p, state, profileId, type, op.payload as Obj, ms, key) || changed;
    }
    results[i] = { operationId: opId, status: 'ACCEPTED', errorCode: null, message: null };
  }
  if (changed) s.touchInstallation(p.environmentId, p.id, serverTime);
  const out = JSON.stringify({ batchId: batch.batchId, results, serverTime });
  s.insertBatchResult(p.id, batchKey, out, serverTime);
  return { replayed: false, body: out };
}

/** Applies one accepted state operation; returns whether installation-level state may have changed. */
function applyState(
  s: OperationStore,
  p: InstallationPrincipal,
  state: IngestState,
  profileId: string | undefined,
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
      const write = onProfile ? s.setProfileAttribute : s.setInstallationAttribute;
      const set = payload.set as Obj | undefined;
      // Removal after set: a key named in both ends removed (docs/decisions.md).
      if (set) for (const k in set) write(owner, k, JSON.stringify(set[k]), ms, op);
      const remove = payload.remove as string[] | undefined;
      if (remove) for (const k of remove) write(owner, k, null, ms, op);
      return !onProfile;
    }
    case 'PROFILE_TAGS_EDITED': {
      if (!profileId) return false;
      for (const t of (payload.add as string[] | undefined) ?? []) s.setProfileTag(profileId, t, true, ms, op);
      for (const t of (payload.remove as string[] | undefined) ?? []) s.setProfileTag(profileId, t, false, ms, op);
      return false;
    }
    case 'INSTALLATION_SUBSCRIPTIONS_EDITED':
      for (const c of payload.changes as { list: string; subscribed: boolean }[]) s.setInstallationSubscription(p.id, c.list, c.subscribed, ms, op);
      return true;
    case 'PROFILE_SUBSCRIPTIONS_EDITED':
      if (!profileId) return false;
      for (const c of payload.changes as { list: string; channel: string; subscribed: boolean }[])
        s.setProfileSubscription(profileId, c.list, c.channel, c.subscribed, ms, op);
      return false;
    case 'PUSH_TOKEN_SET':
      return s.setInstallationState(p.environmentId, p.id, 'pushToken', payload.token as string | null, ms, op);
    case 'PUSH_SUBSCRIPTION_SET':
      return s.setInstallationState(p.environmentId, p.id, 'pushSubscription', payload.state as string, ms, op);
    case 'PUSH_PERMISSION_SET':
      return s.setInstallationState(p.environmentId, p.id, 'pushPermission', payload.state as string, ms, op);
    case 'PRIVACY_STATE_SET': {
      const landed = s.setInstallationState(p.environmentId, p.id, 'privacy', payload.state as string, ms, op);
      // Later operations of this batch see the privacy state as it now stands.
      if (landed) {
        state.privacy = payload.state as IngestState['privacy'];
        state.privacyMs = ms;
        state.privacyOp = op;
      }
      return landed;
    }
    default:
      return false;
  }
}

export type OperationService = ReturnType<typeof createOperationService>;
