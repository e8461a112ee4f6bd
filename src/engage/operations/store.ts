import { textsByRows, valuesList, type Sql } from '../../platform/store/sql';
import type { InstallationState } from '../profiles/service';

/**
 * The state an ingest transaction starts from: the installation's state read with its row
 * locked (PostgreSQL, profiles `lockStateIn`) until the transaction ends, so everything the
 * batch decides from it (fences, privacy, last-writer-wins of installation-level state) holds
 * until its writes commit; and the profile bound in the current generation.
 */
export interface IngestState extends InstallationState {
  /** The profile bound in the current generation. */
  profileId: string | null;
}

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
/** A tracked event as the ledger holds it. */
export interface EventRow {
  operationId: string;
  installationId: string;
  generation: number;
  type: string;
  occurredMs: number;
  payload: string;
}

/** The operation types that record what a user did (profiles show's recent events). */
const TRACKED = `('EVENT_TRACKED','SCREEN_VIEWED','SCREEN_CLEARED','INTERACTION_TRACKED','PUSH_RECEIPT_RECORDED','FLAG_EXPOSED')`;

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
 * Rows per multi-row statement. A batch's rows go in statements of exactly as many rows as it
 * has (one statement for a batch of up to this many), so each kind of statement has at most
 * this many texts, each prepared once and kept (platform/store/sql.ts caches by text).
 */
export const MAX_ROWS_PER_STATEMENT = 100;

const LEDGER_COLUMNS = 'installation_id, operation_id, environment_id, profile_id, generation, type, status, occurred_ms, received_ms, payload';

// The multi-row statements by row count, built once per process (both engines: same text).
const seenText = textsByRows((n) => `SELECT operation_id AS "operationId" FROM operations WHERE installation_id = ? AND operation_id IN (${valuesList(1, n).slice(1, -1)})`);
const ledgerText = textsByRows((n) => `INSERT INTO operations (${LEDGER_COLUMNS}) VALUES ${valuesList(n, 10)}`);

/**
 * The ingest hot path (operations/service.ts): a batch is a handful of statements whatever its
 * size: the batch's stored answer with the current profile, the operation ids already seen, one
 * multi-row insert into the ledger, and the answer stored; the installation's state and effects
 * go through the profile-state context (profiles/service.ts).
 */
export function createOperationStore(db: Sql) {
  const SQL = {
    // Read after the installation's lock (profiles `lockStateIn`), in a statement of its own: on
    // PostgreSQL a statement that waited for the lock sees the locked row as committed, but other
    // tables as they were when it began. The profile of the generation is a read of profile
    // state, kept in this one statement on the hot path.
    batchAndProfile: `SELECT (SELECT result FROM operation_batches WHERE installation_id = ? AND batch_id = ?) AS "batchResult",
        (SELECT profile_id FROM installation_generations WHERE installation_id = ? AND generation = ?) AS "profileId"`,
    insertBatch: `INSERT INTO operation_batches (installation_id, batch_id, result, created_at) VALUES (?, ?, ?, ?)`,
    // Read models for operators (inspection/service.ts).
    counts: `SELECT type, status, COUNT(*) AS n FROM operations WHERE environment_id = ? AND installation_id = ?
      GROUP BY type, status ORDER BY type, status`,
    recentEvents: `SELECT operation_id AS "operationId", installation_id AS "installationId", generation, type, occurred_ms AS "occurredMs", payload
        FROM operations WHERE profile_id = ? AND environment_id = ? AND status = 'ACCEPTED' AND type IN ${TRACKED}
       ORDER BY seq DESC LIMIT ?`,
    // The installation's last operations with their status (administration API, issue 24): ids,
    // type, status and times only, never a payload.
    recentOperations: `SELECT operation_id AS "operationId", generation, type, status, occurred_ms AS "occurredMs", received_ms AS "receivedMs"
        FROM operations WHERE installation_id = ? AND environment_id = ? ORDER BY seq DESC LIMIT ?`,
  } as const;

  return {
    /**
     * The stored answer of `batchId` if it was answered before, and the profile bound in
     * `generation`. Call with the installation locked (profiles `lockStateIn`).
     */
    async batchAndProfile(installationId: string, batchId: string, generation: number): Promise<{ previous: StoredBatch | undefined; profileId: string | null }> {
      const r = (await db.get<{ batchResult: string | null; profileId: string | null }>(SQL.batchAndProfile, [installationId, batchId, installationId, generation]))!;
      return { previous: r.batchResult === null ? undefined : storedBatch(r.batchResult), profileId: r.profileId };
    },
    async insertBatchResult(installationId: string, batchId: string, digest: string, result: string, createdAt: string): Promise<void> {
      await db.run(SQL.insertBatch, [installationId, batchId, `${DIGEST_PREFIX}${digest}\n${result}`, createdAt]);
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
    /** How many operations of each type and status the installation's ledger holds. */
    counts: (environmentId: string, installationId: string) => db.all<{ type: string; status: string; n: number }>(SQL.counts, [environmentId, installationId]),
    /** Tracked events attributed to the profile, newest first. */
    recentEvents: (environmentId: string, profileId: string, limit: number) => db.all<EventRow>(SQL.recentEvents, [profileId, environmentId, limit]),
    /** The installation's operations, newest first (ids, type, status, times; no payload). */
    recentOperations: (environmentId: string, installationId: string, limit: number) =>
      db.all<{ operationId: string; generation: number; type: string; status: string; occurredMs: number | null; receivedMs: number }>(SQL.recentOperations, [
        installationId,
        environmentId,
        limit,
      ]),
  };
}

export type OperationStore = ReturnType<typeof createOperationStore>;
