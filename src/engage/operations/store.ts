import { forUpdate, valuesList, type Sql } from '../../platform/store/sql';

/** One installation-level state column's value and its last-writer-wins clock ('' op: never written). */
export interface LwwValue<V> {
  value: V;
  ms: number;
  op: string;
}

/**
 * The installation state an ingest transaction starts from, read with the row locked
 * (PostgreSQL) until the transaction ends: everything the batch decides from it (fences,
 * privacy, last-writer-wins of installation-level state) holds until its writes commit.
 */
export interface IngestState {
  generation: number;
  /** The profile bound in the current generation. */
  profileId: string | null;
  privacy: LwwValue<'OPTED_IN' | 'OPTED_OUT'>;
  pushSubscription: LwwValue<string>;
  pushPermission: LwwValue<string>;
  pushToken: LwwValue<string | null>;
}

export type InstallationStateColumn = 'privacy' | 'pushSubscription' | 'pushPermission' | 'pushToken';

/** One row of the operation ledger (and event/state history). */
export interface OperationRow {
  operationId: string;
  profileId: string | null;
  generation: number;
  type: string;
  status: 'ACCEPTED' | 'REJECTED';
  occurredMs: number | null;
  payload: string | null;
}

/** A batch answered before: the answer byte for byte, and the SHA-256 (hex) of its request. */
export interface StoredBatch {
  digest: string | null;
  result: string;
}
const DIGEST_PREFIX = 'sha256:';

/**
 * A stored answer and the digest of the request it answered. The digest rides in the same
 * column, ahead of the answer: `sha256:<64 hex>\n<answer>`. Rows stored before digests existed
 * hold the answer alone (it starts with `{`): their digest is null.
 */
function storedBatch(r: string): StoredBatch {
  return r.startsWith(DIGEST_PREFIX)
    ? { digest: r.slice(DIGEST_PREFIX.length, DIGEST_PREFIX.length + 64), result: r.slice(DIGEST_PREFIX.length + 65) }
    : { digest: null, result: r };
}

/**
 * The effect tables an ingest writes, last-writer-wins per row on (ms, op): each with its key
 * columns and its value column. A row of `upsert` is the key values, the value, ms and op.
 */
const EFFECTS = {
  installationAttributes: { table: 'installation_attributes', keys: ['installation_id', 'key'], value: 'value' },
  profileAttributes: { table: 'profile_attributes', keys: ['profile_id', 'key'], value: 'value' },
  profileTags: { table: 'profile_tags', keys: ['profile_id', 'tag'], value: 'present' },
  installationSubscriptions: { table: 'installation_subscriptions', keys: ['installation_id', 'list'], value: 'subscribed' },
  profileSubscriptions: { table: 'profile_subscriptions', keys: ['profile_id', 'list', 'channel'], value: 'subscribed' },
} as const;
export type EffectKind = keyof typeof EFFECTS;
export const EFFECT_KINDS = Object.keys(EFFECTS) as EffectKind[];
/** How many key columns each effect's rows start with. */
export const EFFECT_KEY_COLUMNS: Record<EffectKind, number> = Object.fromEntries(EFFECT_KINDS.map((k) => [k, EFFECTS[k].keys.length])) as Record<EffectKind, number>;

/**
 * Rows per multi-row statement. A batch's rows go in statements of exactly as many rows as it
 * has (one statement for a batch of up to this many), so each kind of statement has at most
 * this many texts, each prepared once and kept (platform/store/sql.ts caches by text).
 */
export const MAX_ROWS_PER_STATEMENT = 100;

const LEDGER_COLUMNS = 'installation_id, operation_id, environment_id, profile_id, generation, type, status, occurred_ms, received_ms, payload';

/** Multi-row upsert; a row lands when it is newer, or as new with a greater-or-equal operation id (last-writer-wins). */
function upsertText(kind: EffectKind, rows: number): string {
  const { table, keys, value } = EFFECTS[kind];
  const cols = [...keys, value, 'ms', 'op'];
  return `INSERT INTO ${table} (${cols.join(', ')}) VALUES ${valuesList(rows, cols.length)}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${value} = excluded.${value}, ms = excluded.ms, op = excluded.op
    WHERE excluded.ms > ${table}.ms OR (excluded.ms = ${table}.ms AND excluded.op >= ${table}.op)`;
}

/** Texts made once per (kind, rows). */
function memo(make: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>();
  return (rows) => {
    let t = texts.get(rows);
    if (t === undefined) texts.set(rows, (t = make(rows)));
    return t;
  };
}

// The multi-row statements by row count, built once per process (both engines: same text).
const seenText = memo((n) => `SELECT operation_id AS "operationId" FROM operations WHERE installation_id = ? AND operation_id IN (${valuesList(1, n).slice(1, -1)})`);
const profilesText = memo(
    (n) => `SELECT generation, profile_id AS "profileId" FROM installation_generations WHERE installation_id = ? AND generation IN (${valuesList(1, n).slice(1, -1)})`,
  );
const ledgerText = memo((n) => `INSERT INTO operations (${LEDGER_COLUMNS}) VALUES ${valuesList(n, 10)}`);
const upsertTexts = Object.fromEntries(EFFECT_KINDS.map((k) => [k, memo((n) => upsertText(k, n))])) as Record<EffectKind, (rows: number) => string>;

/**
 * The ingest hot path. A batch is a handful of statements whatever its size: the locked
 * installation state, the batch's stored answer with the current profile, the operation ids already seen, one multi-row insert
 * into the ledger, one multi-row upsert per kind of effect, one update of the installation
 * row, and the answer stored (operations/service.ts).
 */
const PUSH_RECEIPT = {
  delivered: `UPDATE push_deliveries SET delivered_at = COALESCE(delivered_at, ?), updated_at = ?,
      state = CASE WHEN state IN ('PENDING', 'SENT') THEN 'DELIVERED' ELSE state END
    WHERE id = ? AND installation_id = ? AND environment_id = ?`,
  opened: `UPDATE push_deliveries SET opened_at = COALESCE(opened_at, ?), updated_at = ?,
      state = CASE WHEN state IN ('PENDING', 'SENT', 'DELIVERED') THEN 'OPENED' ELSE state END
    WHERE id = ? AND installation_id = ? AND environment_id = ?`,
} as const;

export function createOperationStore(db: Sql) {
  const SQL = {
    state: `SELECT i.generation, i.privacy, i.privacy_ms AS "privacyMs", i.privacy_op AS "privacyOp",
        i.push_subscription AS "pushSubscription", i.push_subscription_ms AS "pushSubscriptionMs", i.push_subscription_op AS "pushSubscriptionOp",
        i.push_permission AS "pushPermission", i.push_permission_ms AS "pushPermissionMs", i.push_permission_op AS "pushPermissionOp",
        i.push_token AS "pushToken", i.push_token_ms AS "pushTokenMs", i.push_token_op AS "pushTokenOp"
      FROM installations i WHERE i.environment_id = ? AND i.id = ?${forUpdate(db.dialect)}`,
    // Read after the lock, in a statement of its own: on PostgreSQL a statement that waited for
    // the lock sees the locked row as committed, but other tables as they were when it began.
    batchAndProfile: `SELECT (SELECT result FROM operation_batches WHERE installation_id = ? AND batch_id = ?) AS "batchResult",
        (SELECT profile_id FROM installation_generations WHERE installation_id = ? AND generation = ?) AS "profileId"`,
    insertBatch: `INSERT INTO operation_batches (installation_id, batch_id, result, created_at) VALUES (?, ?, ?, ?)`,
    writeState: `UPDATE installations SET privacy = ?, privacy_ms = ?, privacy_op = ?,
        push_subscription = ?, push_subscription_ms = ?, push_subscription_op = ?,
        push_permission = ?, push_permission_ms = ?, push_permission_op = ?,
        push_token = ?, push_token_ms = ?, push_token_op = ?, updated_at = ?
      WHERE environment_id = ? AND id = ?`,
  } as const;

  type RawState = {
    generation: number;
    privacy: 'OPTED_IN' | 'OPTED_OUT';
    privacyMs: number;
    privacyOp: string;
    pushSubscription: string;
    pushSubscriptionMs: number;
    pushSubscriptionOp: string;
    pushPermission: string;
    pushPermissionMs: number;
    pushPermissionOp: string;
    pushToken: string | null;
    pushTokenMs: number;
    pushTokenOp: string;
  };

  return {
    /**
     * The installation's state, its row locked until the transaction ends (PostgreSQL), and the
     * stored answer of `batchId` if it was answered before. Undefined for no such installation.
     */
    async ingestState(environmentId: string, installationId: string, batchId: string): Promise<{ state: IngestState; previous: StoredBatch | undefined } | undefined> {
      const r = await db.get<RawState>(SQL.state, [environmentId, installationId]);
      if (r === undefined) return undefined;
      const more = (await db.get<{ batchResult: string | null; profileId: string | null }>(SQL.batchAndProfile, [installationId, batchId, installationId, r.generation]))!;
      const state: IngestState = {
        generation: r.generation,
        profileId: more.profileId,
        privacy: { value: r.privacy, ms: r.privacyMs, op: r.privacyOp },
        pushSubscription: { value: r.pushSubscription, ms: r.pushSubscriptionMs, op: r.pushSubscriptionOp },
        pushPermission: { value: r.pushPermission, ms: r.pushPermissionMs, op: r.pushPermissionOp },
        pushToken: { value: r.pushToken, ms: r.pushTokenMs, op: r.pushTokenOp },
      };
      return { state, previous: more.batchResult === null ? undefined : storedBatch(more.batchResult) };
    },
    /**
     * PUSH_RECEIPT_RECORDED (spec 01) linked back to its delivery (engage/messaging, issue 13):
     * the first time of each receipt stays, and the state only moves forward (SENT -> DELIVERED
     * -> OPENED; a FAILED or EXPIRED one keeps its state). Only a delivery to this installation.
     */
    async recordPushReceipt(environmentId: string, installationId: string, deliveryId: string, type: 'DELIVERED' | 'OPENED', at: string): Promise<void> {
      await db.run(type === 'DELIVERED' ? PUSH_RECEIPT.delivered : PUSH_RECEIPT.opened, [at, at, deliveryId, installationId, environmentId]);
    },
    async insertBatchResult(installationId: string, batchId: string, digest: string, result: string, createdAt: string): Promise<void> {
      await db.run(SQL.insertBatch, [installationId, batchId, `${DIGEST_PREFIX}${digest}\n${result}`, createdAt]);
    },
    /** The profiles bound in `generations` of the installation (the fence of spec 01); distinct generations. */
    async profilesOfGenerations(installationId: string, generations: readonly number[]): Promise<Map<number, string>> {
      const found = new Map<number, string>();
      for (let i = 0; i < generations.length; i += MAX_ROWS_PER_STATEMENT) {
        const part = generations.slice(i, i + MAX_ROWS_PER_STATEMENT);
        for (const r of await db.all<{ generation: number; profileId: string }>(profilesText(part.length), [installationId, ...part])) found.set(r.generation, r.profileId);
      }
      return found;
    },
    /** Which of `operationIds` (distinct) the installation's ledger already holds. */
    async seenOperations(installationId: string, operationIds: readonly string[]): Promise<Set<string>> {
      const seen = new Set<string>();
      for (let i = 0; i < operationIds.length; i += MAX_ROWS_PER_STATEMENT) {
        const part = operationIds.slice(i, i + MAX_ROWS_PER_STATEMENT);
        for (const r of await db.all<{ operationId: string }>(seenText(part.length), [installationId, ...part])) seen.add(r.operationId);
      }
      return seen;
    },
    /**
     * Inserts operations the ledger does not hold yet (`seenOperations`, read under the
     * installation's lock): a plain insert, so a duplicate could only fail the batch, never be
     * answered as accepted.
     */
    async insertOperations(environmentId: string, installationId: string, receivedMs: number, rows: readonly OperationRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_STATEMENT) {
        const n = Math.min(MAX_ROWS_PER_STATEMENT, rows.length - i);
        const params: unknown[] = new Array(n * 10);
        for (let j = 0, p = 0; j < n; j++) {
          const r = rows[i + j];
          params[p++] = installationId;
          params[p++] = r.operationId;
          params[p++] = environmentId;
          params[p++] = r.profileId;
          params[p++] = r.generation;
          params[p++] = r.type;
          params[p++] = r.status;
          params[p++] = r.occurredMs;
          params[p++] = receivedMs;
          params[p++] = r.payload;
        }
        await db.run(ledgerText(n), params);
      }
    },
    /**
     * Last-writer-wins upsert of effect rows of one kind: each row is its key values, then the
     * value, ms and op (booleans as 0/1). Keys must be distinct (PostgreSQL updates a row at
     * most once per statement): the service keeps each key's winner within the batch.
     */
    async upsert(kind: EffectKind, rows: readonly (readonly unknown[])[]): Promise<void> {
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_STATEMENT) {
        const n = Math.min(MAX_ROWS_PER_STATEMENT, rows.length - i);
        const params: unknown[] = [];
        for (let j = 0; j < n; j++) for (const v of rows[i + j]) params.push(v);
        await db.run(upsertTexts[kind](n), params);
      }
    },
    /** Writes the installation-level state (as decided under the lock of `ingestState`) and when it changed. */
    async writeInstallationState(environmentId: string, installationId: string, s: IngestState, updatedAt: string): Promise<void> {
      await db.run(SQL.writeState, [
        s.privacy.value, s.privacy.ms, s.privacy.op,
        s.pushSubscription.value, s.pushSubscription.ms, s.pushSubscription.op,
        s.pushPermission.value, s.pushPermission.ms, s.pushPermission.op,
        s.pushToken.value, s.pushToken.ms, s.pushToken.op,
        updatedAt, environmentId, installationId,
      ]);
    },
  };
}

export type OperationStore = ReturnType<typeof createOperationStore>;
