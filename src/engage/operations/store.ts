import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/store/sqlite';

/** The installation state an ingest transaction starts from. */
export interface IngestState {
  generation: number;
  privacy: 'OPTED_IN' | 'OPTED_OUT';
  privacyMs: number;
  privacyOp: string;
}

/** One row of the operation ledger (and event/state history). */
export interface OperationRow {
  installationId: string;
  operationId: string;
  environmentId: string;
  profileId: string | null;
  generation: number;
  type: string;
  status: 'ACCEPTED' | 'REJECTED';
  occurredMs: number | null;
  receivedMs: number;
  payload: string | null;
}

/** A batch answered before: the answer byte for byte, and the SHA-256 (hex) of its request. */
export interface StoredBatch {
  digest: string | null;
  result: string;
}
const DIGEST_PREFIX = 'sha256:';

/** Last-writer-wins guard: a write lands if it is newer, or as new with a greater-or-equal operation id. */
const LWW = (t: string) => `WHERE excluded.ms > ${t}.ms OR (excluded.ms = ${t}.ms AND excluded.op >= ${t}.op)`;
const upsert = (table: string, keyCols: string[], valueCols: string[]) =>
  `INSERT INTO ${table} (${[...keyCols, ...valueCols, 'ms', 'op'].join(', ')}) VALUES (${[...keyCols, ...valueCols, 'ms', 'op'].map(() => '?').join(', ')})
   ON CONFLICT (${keyCols.join(', ')}) DO UPDATE SET ${[...valueCols, 'ms', 'op'].map((c) => `${c} = excluded.${c}`).join(', ')} ${LWW(table)}`;
/** Installation-level state columns, each with its own LWW clock; '' means never written. */
const setState = (col: string) =>
  `UPDATE installations SET ${col} = ?, ${col}_ms = ?, ${col}_op = ?
    WHERE environment_id = ? AND id = ? AND (${col}_op = '' OR ${col}_ms < ? OR (${col}_ms = ? AND ${col}_op <= ?))`;

const SQL = {
  state: `SELECT generation, privacy, privacy_ms AS privacyMs, privacy_op AS privacyOp FROM installations WHERE environment_id = ? AND id = ?`,
  batch: `SELECT result FROM operation_batches WHERE installation_id = ? AND batch_id = ?`,
  insertBatch: `INSERT INTO operation_batches (installation_id, batch_id, result, created_at) VALUES (?, ?, ?, ?)`,
  profileOf: `SELECT profile_id AS profileId FROM installation_generations WHERE installation_id = ? AND generation = ?`,
  insertOp: `INSERT OR IGNORE INTO operations (installation_id, operation_id, environment_id, profile_id, generation, type, status, occurred_ms, received_ms, payload)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  installationAttr: upsert('installation_attributes', ['installation_id', 'key'], ['value']),
  profileAttr: upsert('profile_attributes', ['profile_id', 'key'], ['value']),
  profileTag: upsert('profile_tags', ['profile_id', 'tag'], ['present']),
  installationSub: upsert('installation_subscriptions', ['installation_id', 'list'], ['subscribed']),
  profileSub: upsert('profile_subscriptions', ['profile_id', 'list', 'channel'], ['subscribed']),
  privacy: setState('privacy'),
  pushSubscription: setState('push_subscription'),
  pushPermission: setState('push_permission'),
  pushToken: setState('push_token'),
  touch: `UPDATE installations SET updated_at = ? WHERE environment_id = ? AND id = ?`,
} as const;

type Key = keyof typeof SQL;
export type InstallationStateColumn = 'privacy' | 'pushSubscription' | 'pushPermission' | 'pushToken';

/**
 * The ingest hot path: prepared statements on the raw better-sqlite3 connection, compiled
 * once per connection and reused by every batch (a batch is one `store.tx`).
 */
export function createOperationStore(db: Db) {
  const raw = db.$client;
  const cache = new Map<Key, Statement>();
  const st = (k: Key): Statement => {
    let s = cache.get(k);
    if (!s) cache.set(k, (s = raw.prepare(SQL[k])));
    return s;
  };
  return {
    ingestState(environmentId: string, installationId: string): IngestState | undefined {
      return st('state').get(environmentId, installationId) as IngestState | undefined;
    },
    /**
     * The stored answer of a batch and the digest of the request it answered. The digest rides
     * in the same column, ahead of the answer: `sha256:<64 hex>\n<answer>`. Rows stored before
     * digests existed hold the answer alone (it starts with `{`): their digest is null.
     */
    findBatchResult(installationId: string, batchId: string): StoredBatch | undefined {
      const row = st('batch').get(installationId, batchId) as { result: string } | undefined;
      if (row === undefined) return undefined;
      const r = row.result;
      return r.startsWith(DIGEST_PREFIX)
        ? { digest: r.slice(DIGEST_PREFIX.length, DIGEST_PREFIX.length + 64), result: r.slice(DIGEST_PREFIX.length + 65) }
        : { digest: null, result: r };
    },
    insertBatchResult(installationId: string, batchId: string, digest: string, result: string, createdAt: string): void {
      st('insertBatch').run(installationId, batchId, `${DIGEST_PREFIX}${digest}\n${result}`, createdAt);
    },
    /** The profile bound in `generation` of the installation (the fence of spec 01). */
    profileOfGeneration(installationId: string, generation: number): string | undefined {
      return (st('profileOf').get(installationId, generation) as { profileId: string } | undefined)?.profileId;
    },
    /** Inserts into the ledger; false when (installation, operationId) was already seen. */
    recordOperation(r: OperationRow): boolean {
      return (
        st('insertOp').run(r.installationId, r.operationId, r.environmentId, r.profileId, r.generation, r.type, r.status, r.occurredMs, r.receivedMs, r.payload)
          .changes === 1
      );
    },
    setInstallationAttribute(installationId: string, key: string, value: string | null, ms: number, op: string): void {
      st('installationAttr').run(installationId, key, value, ms, op);
    },
    setProfileAttribute(profileId: string, key: string, value: string | null, ms: number, op: string): void {
      st('profileAttr').run(profileId, key, value, ms, op);
    },
    setProfileTag(profileId: string, tag: string, present: boolean, ms: number, op: string): void {
      st('profileTag').run(profileId, tag, present ? 1 : 0, ms, op);
    },
    setInstallationSubscription(installationId: string, list: string, subscribed: boolean, ms: number, op: string): void {
      st('installationSub').run(installationId, list, subscribed ? 1 : 0, ms, op);
    },
    setProfileSubscription(profileId: string, list: string, channel: string, subscribed: boolean, ms: number, op: string): void {
      st('profileSub').run(profileId, list, channel, subscribed ? 1 : 0, ms, op);
    },
    /** Last-writer-wins update of one installation-level state; true when it landed. */
    setInstallationState(
      environmentId: string,
      installationId: string,
      column: InstallationStateColumn,
      value: string | null,
      ms: number,
      op: string,
    ): boolean {
      return st(column).run(value, ms, op, environmentId, installationId, ms, ms, op).changes === 1;
    },
    touchInstallation(environmentId: string, installationId: string, at: string): void {
      st('touch').run(at, environmentId, installationId);
    },
  };
}

export type OperationStore = ReturnType<typeof createOperationStore>;
