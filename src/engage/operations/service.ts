import type { Clock } from '../../platform/clock';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner } from '../../platform/store/store';
import type { InstallationPrincipal } from '../installations/service';
import { EdgeErrors } from '../shared/errors';
import { parseDateTime, type Violation } from '../../platform/http/schema';
import { batchDigest, checkBatchEnvelope, checkOperations, KNOWN_TYPES } from './check';
import { OperationErrorCode, OperationErrors } from './errors';
import { TRACKED_TYPES, type OperationResult } from './schemas';
import type { IngestState, OperationStore } from './store';

export type { OperationResult };
export { MAX_BATCH } from './schemas';

type Obj = Record<string, unknown>;

/** The batch answer, already serialized: it is stored as-is for replays. */
export interface IngestOutcome {
  replayed: boolean;
  body: string;
}

type Stores = { operations: OperationStore };

const rejected = (operationId: string, errorCode: string, message: string): OperationResult => ({ operationId, status: 'REJECTED', errorCode, message });

export function createOperationService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;

  /**
   * POST /v1/sdk/operations:batch. Shapes are checked before the transaction; ledger,
   * fencing, privacy and effects run in one transaction with the stored answer, so a 202
   * means every accepted operation is committed (DESIGN.md "Durability promise").
   */
  async function ingest(p: InstallationPrincipal, body: unknown): Promise<IngestOutcome> {
    const bad = checkBatchEnvelope(body);
    if (bad) throw EdgeErrors.fromViolation(bad);
    const batch = body as { batchId: string; operations: Obj[] };
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

    return grouped({ p, batch, violations, payloads, digest, batchKey, nowMs, serverTime });
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
  /** JSON of each valid operation's payload, as checked (stored as-is). */
  payloads: (string | undefined)[];
  /** SHA-256 of the request's operations (check.ts batchDigest). */
  digest: string;
  batchKey: string;
  nowMs: number;
  serverTime: string;
}

/** One batch inside the (group) transaction: ledger, fencing, privacy, effects, stored answer. */
function processBatch(s: OperationStore, job: Job): IngestOutcome {
  const { p, batch, violations, payloads, digest, batchKey, nowMs, serverTime } = job;
  const ops = batch.operations;
  const n = ops.length;
  const previous = s.findBatchResult(p.id, batchKey);
  if (previous !== undefined) {
    // Same operations: the first answer again. Other operations under a used batchId would
    // otherwise be answered with results that are not theirs and never stored (409, nothing
    // written). A batch stored before digests existed replays whatever the body.
    if (previous.digest !== null && previous.digest !== digest) throw OperationErrors.batchConflict();
    return { replayed: true, body: previous.result };
  }
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
    // The ledger keeps a type only when it is one of ours: never the client's text.
    const type = KNOWN_TYPES.has(op.type as string) ? (op.type as string) : 'UNKNOWN';
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
      payload: payloads[i]!,
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
  s.insertBatchResult(p.id, batchKey, digest, out, serverTime);
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
