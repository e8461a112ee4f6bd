import { forUpdate, type Sql } from '../../platform/store/sql';

/**
 * The inbox (engage/inbox owns inbox_entries, inbox_owners, inbox_batches, inbox_operations).
 * An entry belongs to one owner (a profile or an installation); the owner's row numbers its
 * entries (under its lock: commit order), holds the read-all watermark and the unread count.
 */
export interface EntryRow {
  id: string;
  scope: 'PROFILE' | 'INSTALLATION';
  ownerId: string;
  seq: number;
  key: string;
  content: string;
  sentAt: string;
  sentMs: number;
  expiresMs: number | null;
  readState: 'READ' | 'UNREAD' | null;
  readVersion: number;
  readMs: number | null;
}

/** An entry as a page lists it: everything but its content. */
export type ListedEntry = Omit<EntryRow, 'content'>;

export interface OwnerRow {
  ownerId: string;
  lastSeq: number;
  watermarkSeq: number;
  watermarkVersion: number;
  unread: number;
  watermarkAt: string | null;
}

/** An entry's columns but its content (a page's: the payloads it shows are mostly kept by the service, parsed). */
const LISTED = `id, scope, owner_id AS "ownerId", seq, key, sent_at AS "sentAt", sent_ms AS "sentMs", expires_ms AS "expiresMs",
  read_state AS "readState", read_version AS "readVersion", read_ms AS "readMs"`;
const ENTRY = `${LISTED}, content`;
const OWNER = `owner_id AS "ownerId", last_seq AS "lastSeq", watermark_seq AS "watermarkSeq", watermark_version AS "watermarkVersion", unread, watermark_at AS "watermarkAt"`;
const LIVE = 'deleted = 0 AND (expires_ms IS NULL OR expires_ms > ?)';
/** Unread under the owner's watermark: a read state set under its current version, else the watermark. */
const UNREAD = `((read_version = ? AND read_state = 'UNREAD') OR ((read_version <> ? OR read_state IS NULL) AND seq > ?))`;

/** What an operation needs of an entry (its read state; not its content). */
export type EntryState = Pick<EntryRow, 'id' | 'ownerId' | 'seq' | 'readState' | 'readVersion' | 'readMs'>;
/** An entry's state at the end of an operation batch, as written back. */
export type EntryChange = EntryState & { deleted: boolean };
const STATE = `id, owner_id AS "ownerId", seq, read_state AS "readState", read_version AS "readVersion", read_ms AS "readMs"`;

/**
 * A statement's parameters as a one-row table (as src/engage/sync/store.ts does): SQLite as built
 * here (STAT4) compiles a statement that flattens subqueries or joins again whenever a parameter
 * compared with an indexed column gets a new value (every page: another owner), and better-sqlite3
 * then builds a new row constructor; read from a materialized CTE they are not part of the plan and
 * the statement is compiled once (bench/inbox.mjs: the page statement 190 -> 66 us with owners
 * varying, docs/benchmarks.md). PostgreSQL plans the same index searches (an InitPlan each).
 */
const params = (names: Record<string, 'TEXT' | 'BIGINT'>) =>
  `WITH k(${Object.keys(names).join(', ')}) AS MATERIALIZED (SELECT ${Object.values(names).map((t) => `CAST(? AS ${t})`).join(', ')})\n`;

/** Both owners' live entries beyond their bounds, each by its entry numbers, in one statement. */
const pageOf = (cmp: '<' | '>', dir: 'ASC' | 'DESC') => {
  const one = (o: string, b: string) => `SELECT ${LISTED} FROM inbox_entries WHERE owner_id = (SELECT ${o} FROM k) AND deleted = 0
    AND (expires_ms IS NULL OR expires_ms > (SELECT now_ms FROM k)) AND seq ${cmp} (SELECT ${b} FROM k) ORDER BY seq ${dir} LIMIT (SELECT lim FROM k)`;
  return `${params({ o1: 'TEXT', b1: 'BIGINT', o2: 'TEXT', b2: 'BIGINT', now_ms: 'BIGINT', lim: 'BIGINT' })}SELECT * FROM (${one('o1', 'b1')}) AS a
    UNION ALL SELECT * FROM (${one('o2', 'b2')}) AS b`;
};

const SQL = {
  // SQLite: the owner's next number by an update of its row (every entry but its first), else its
  // row made (the write lock is held, so nobody makes it in between): an INSERT … ON CONFLICT
  // tried the insert first, a second search of the owner's key on every send.
  bumpSeq: `UPDATE inbox_owners SET last_seq = last_seq + 1, unread = unread + 1 WHERE owner_id = ? RETURNING last_seq AS "lastSeq"`,
  nextSeq: `INSERT INTO inbox_owners (owner_id, environment_id, scope, last_seq, unread) VALUES (?, ?, ?, 1, 1)
    ON CONFLICT (owner_id) DO UPDATE SET last_seq = inbox_owners.last_seq + 1, unread = inbox_owners.unread + 1
    RETURNING last_seq AS "lastSeq"`,
  insertEntry: `INSERT INTO inbox_entries (id, environment_id, scope, owner_id, seq, key, send_id, template_id, content, sent_at, sent_ms, expires_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // PostgreSQL: the owner's next number and the entry in one statement (one round trip of a send's
  // transaction instead of two; SQLite has no INSERT in a WITH, and no round trips to save).
  appendEntry: `WITH o AS (INSERT INTO inbox_owners (owner_id, environment_id, scope, last_seq, unread) VALUES (?, ?, ?, 1, 1)
      ON CONFLICT (owner_id) DO UPDATE SET last_seq = inbox_owners.last_seq + 1, unread = inbox_owners.unread + 1
      RETURNING last_seq)
    INSERT INTO inbox_entries (id, environment_id, scope, owner_id, seq, key, send_id, template_id, content, sent_at, sent_ms, expires_ms)
    SELECT ?, ?, ?, ?, o.last_seq, ?, ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM o`,
  owner: `SELECT ${OWNER} FROM inbox_owners WHERE owner_id = ?`,
  // Both owners' counters with their expired unread entries not purged yet, in one statement (a page's and a badge's read).
  counters: `${params({ now_ms: 'BIGINT', o1: 'TEXT', o2: 'TEXT' })}SELECT ${OWNER}, CASE WHEN o.unread > 0 THEN (SELECT COUNT(*) FROM inbox_entries e
      WHERE e.owner_id = o.owner_id AND e.expires_ms <= (SELECT now_ms FROM k) AND e.deleted = 0
      AND ((e.read_version = o.watermark_version AND e.read_state = 'UNREAD') OR ((e.read_version <> o.watermark_version OR e.read_state IS NULL) AND e.seq > o.watermark_seq))) ELSE 0 END AS "expiredUnread"
    FROM inbox_owners o WHERE o.owner_id IN ((SELECT o1 FROM k), (SELECT o2 FROM k))`,
  // The page of an installation's inbox: its own entries and its profile's in ONE statement, so one
  // snapshot (two statements let a writer commit between them: the page could show a newer entry of
  // one owner and not an older one of the other, which the cursor then passes over). Each owner's
  // range is by its entry numbers (commit order), one seek of inbox_entries_owner_seq.
  newer: pageOf('<', 'DESC'),
  older: pageOf('>', 'ASC'),
  entry: `SELECT ${ENTRY} FROM inbox_entries WHERE id = ? AND owner_id IN (?, ?) AND ${LIVE}`,
  addUnread: 'UPDATE inbox_owners SET unread = unread + ? WHERE owner_id = ?',
  readAll: 'UPDATE inbox_owners SET watermark_seq = last_seq, watermark_version = watermark_version + 1, unread = 0, watermark_at = ? WHERE owner_id = ?',
  batch: 'SELECT result FROM inbox_batches WHERE installation_id = ? AND batch_id = ?',
  insertBatch: 'INSERT INTO inbox_batches (installation_id, batch_id, environment_id, result, created_at) VALUES (?, ?, ?, ?, ?)',
  // The purge (issue 27 point 6): entries expired before a cutoff, oldest expiry first (inbox_entries_expiry).
  expiredBefore: `SELECT id, owner_id AS "ownerId" FROM inbox_entries WHERE expires_ms <= ? ORDER BY expires_ms, id LIMIT ?`,
} as const;

const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
/** Of the given entries of one owner expired before the cutoff: those that count as unread (neither deleted nor read). */
const purgeUnread = (n: number) => `SELECT COUNT(*) AS n FROM inbox_entries WHERE owner_id = ? AND expires_ms <= ? AND deleted = 0 AND ${UNREAD} AND id IN (${list(n)})`;
const seenOperations = (n: number) => `SELECT operation_id AS "operationId" FROM inbox_operations WHERE installation_id = ? AND operation_id IN (${list(n)})`;
const insertOperations = (n: number) => `INSERT INTO inbox_operations (installation_id, operation_id, environment_id, status) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?)').join(', ')}`;
/** The final states of n entries of a batch in one statement (each column a CASE over the ids; casts for PostgreSQL's parameter types). */
const writeStates = (n: number) => {
  const cases = (type: string) => `CASE id ${Array.from({ length: n }, () => `WHEN ? THEN CAST(? AS ${type})`).join(' ')} END`;
  return `UPDATE inbox_entries SET read_state = ${cases('TEXT')}, read_version = ${cases('BIGINT')}, read_ms = ${cases('BIGINT')}, deleted = ${cases('INTEGER')} WHERE id IN (${list(n)})`;
};
// CAST keeps SQLite on the primary key: with `owner_id IN (?, ?)` bare it chose inbox_entries_owner_seq
// and read every entry of the owner (2,966 us for 10 ids of a 10,000-entry inbox, 56 us by the key).
const entryStates = (n: number) => `SELECT ${STATE} FROM inbox_entries WHERE id IN (${list(n)}) AND CAST(owner_id AS TEXT) IN (?, ?) AND ${LIVE}`;
const purgeDelete = (n: number) => `DELETE FROM inbox_entries WHERE owner_id = ? AND expires_ms <= ? AND id IN (${list(n)})`;

const entryOf = <R extends ListedEntry>(r: R): R => ({
  ...r,
  seq: Number(r.seq),
  sentMs: Number(r.sentMs),
  expiresMs: r.expiresMs === null ? null : Number(r.expiresMs),
  readVersion: Number(r.readVersion),
  readMs: r.readMs === null ? null : Number(r.readMs),
});

export function createInboxStore(db: Sql) {
  const lockedOwner = `${SQL.owner}${forUpdate(db.dialect)}`;
  return {
    /** The engine (the service groups operation batches' transactions on SQLite only). */
    dialect: db.dialect,
    /**
     * Writes an entry under its owner's next number, the owner's unread count raised by one and
     * its row locked until the transaction ends (so numbers follow commit order).
     */
    async appendEntry(e: {
      id: string; environmentId: string; scope: 'PROFILE' | 'INSTALLATION'; ownerId: string; key: string; sendId: string | null; templateId: string | null;
      content: string; sentAt: string; sentMs: number; expiresMs: number | null;
    }): Promise<void> {
      const rest = [e.key, e.sendId, e.templateId, e.content, e.sentAt, e.sentMs, e.expiresMs];
      if (db.dialect === 'postgres') {
        await db.run(SQL.appendEntry, [e.ownerId, e.environmentId, e.scope, e.id, e.environmentId, e.scope, e.ownerId, ...rest]);
        return;
      }
      const bumped = await db.get<{ lastSeq: number }>(SQL.bumpSeq, [e.ownerId]);
      const seq = Number((bumped ?? (await db.get<{ lastSeq: number }>(SQL.nextSeq, [e.ownerId, e.environmentId, e.scope]))!).lastSeq);
      await db.run(SQL.insertEntry, [e.id, e.environmentId, e.scope, e.ownerId, seq, ...rest]);
    },
    /** The owner's counters (locked until the transaction ends with `lock`, PostgreSQL); undefined while it has had no entry. */
    async owner(ownerId: string, lock = false): Promise<OwnerRow | undefined> {
      const r = await db.get<OwnerRow>(lock ? lockedOwner : SQL.owner, [ownerId]);
      return r && { ...r, lastSeq: Number(r.lastSeq), watermarkSeq: Number(r.watermarkSeq), watermarkVersion: Number(r.watermarkVersion), unread: Number(r.unread) };
    },
    /** The counters of the two owners (those that have a row), each with its unread entries that expired and are not purged yet. */
    async counters(ownerIds: readonly [string, string], nowMs: number): Promise<Map<string, OwnerRow & { expiredUnread: number }>> {
      const rows = await db.all<OwnerRow & { expiredUnread: number }>(SQL.counters, [nowMs, ownerIds[0], ownerIds[1]]);
      return new Map(rows.map((r) => [r.ownerId, { ...r, lastSeq: Number(r.lastSeq), watermarkSeq: Number(r.watermarkSeq), watermarkVersion: Number(r.watermarkVersion), unread: Number(r.unread), expiredUnread: Number(r.expiredUnread) }]));
    },
    /**
     * Up to `limit` live entries of each of the two owners beyond its bound (exclusive: below it
     * newest first, above it oldest first), each owner's in the order of its entry numbers, read in
     * one snapshot (unsorted).
     */
    async page(owners: readonly [{ id: string; bound: number }, { id: string; bound: number }], nowMs: number, newestFirst: boolean, limit: number): Promise<ListedEntry[]> {
      return (await db.all<ListedEntry>(newestFirst ? SQL.newer : SQL.older, [owners[0].id, owners[0].bound, owners[1].id, owners[1].bound, nowMs, limit])).map(entryOf);
    },
    /** The contents of those of `ids` that still exist (an entry's content never changes once written). */
    async contents(ids: readonly string[]): Promise<Map<string, string>> {
      const rows = await db.all<{ id: string; content: string }>(`SELECT id, content FROM inbox_entries WHERE id IN (${list(ids.length)})`, [...ids]);
      return new Map(rows.map((r) => [r.id, r.content]));
    },
    /** A live entry of one of the two owners (an installation and its current profile); undefined otherwise, whatever the reason. */
    async entry(id: string, ownerIds: readonly [string, string], nowMs: number): Promise<EntryRow | undefined> {
      const r = await db.get<EntryRow>(SQL.entry, [id, ownerIds[0], ownerIds[1], nowMs]);
      return r && entryOf(r);
    },
    /** The read states of those of `ids` that are live entries of one of the two owners (one statement for a batch's operations). */
    async entryStates(ids: readonly string[], ownerIds: readonly [string, string], nowMs: number): Promise<EntryState[]> {
      if (ids.length === 0) return [];
      const rows = await db.all<EntryState>(entryStates(ids.length), [...ids, ownerIds[0], ownerIds[1], nowMs]);
      return rows.map((r) => ({ ...r, seq: Number(r.seq), readVersion: Number(r.readVersion), readMs: r.readMs === null ? null : Number(r.readMs) }));
    },
    /** Writes the final read state (and deletion) of each changed entry of a batch, in one statement. */
    async writeStates(changes: readonly EntryChange[]): Promise<void> {
      if (changes.length === 0) return;
      const column = (value: (c: EntryChange) => unknown) => changes.flatMap((c) => [c.id, value(c)]);
      await db.run(writeStates(changes.length), [
        ...column((c) => c.readState), ...column((c) => c.readVersion), ...column((c) => c.readMs), ...column((c) => (c.deleted ? 1 : 0)), ...changes.map((c) => c.id),
      ]);
    },
    async addUnread(ownerId: string, delta: number): Promise<void> {
      await db.run(SQL.addUnread, [delta, ownerId]);
    },
    async readAll(ownerId: string, at: string): Promise<void> {
      await db.run(SQL.readAll, [at, ownerId]);
    },
    /** Up to `limit` entries expired at or before `cutoffMs` (the purge's candidates), oldest expiry first. */
    expiredBefore: async (cutoffMs: number, limit: number) => db.all<{ id: string; ownerId: string }>(SQL.expiredBefore, [cutoffMs, limit]),
    /** How many of `ids` (entries of `o` expired at or before `cutoffMs`) are unread under its counters; read under its row lock. */
    async unreadAmong(o: OwnerRow, cutoffMs: number, ids: readonly string[]): Promise<number> {
      return Number((await db.get<{ n: number }>(purgeUnread(ids.length), [o.ownerId, cutoffMs, o.watermarkVersion, o.watermarkVersion, o.watermarkSeq, ...ids]))!.n);
    },
    /** Deletes `ids` of the owner still expired at or before `cutoffMs`; how many went. */
    async deleteExpired(ownerId: string, cutoffMs: number, ids: readonly string[]): Promise<number> {
      return db.run(purgeDelete(ids.length), [ownerId, cutoffMs, ...ids]);
    },
    storedBatch: async (installationId: string, batchId: string) => (await db.get<{ result: string }>(SQL.batch, [installationId, batchId]))?.result,
    async storeBatch(installationId: string, batchId: string, environmentId: string, result: string, at: string): Promise<void> {
      await db.run(SQL.insertBatch, [installationId, batchId, environmentId, result, at]);
    },
    /** Which of `operationIds` the installation has used before (one statement for a batch). */
    async seenOperations(installationId: string, operationIds: readonly string[]): Promise<Set<string>> {
      return new Set((await db.all<{ operationId: string }>(seenOperations(operationIds.length), [installationId, ...operationIds])).map((r) => r.operationId));
    },
    /** Records a batch's new operation ids with their outcome (one statement). */
    async recordOperations(installationId: string, environmentId: string, ops: readonly { operationId: string; status: 'ACCEPTED' | 'REJECTED' }[]): Promise<void> {
      if (ops.length) await db.run(insertOperations(ops.length), ops.flatMap((o) => [installationId, o.operationId, environmentId, o.status]));
    },
  };
}

export type InboxStore = ReturnType<typeof createInboxStore>;
