import type { signingKeys } from '../../db/schema';
import { updateStatement, type Sql } from '../../platform/store/sql';

export type SigningKeyRow = typeof signingKeys.$inferSelect;
export type NewSigningKeyRow = Omit<SigningKeyRow, 'alg' | 'activatedAt' | 'retiredAt' | 'retireAfter' | 'activateAfter'> &
  Partial<Pick<SigningKeyRow, 'alg' | 'activatedAt' | 'retiredAt' | 'retireAfter' | 'activateAfter'>>;
export type KeyState = SigningKeyRow['state'];

const COLUMNS = `kid, tenant_id AS "tenantId", state, alg, public_jwk AS "publicJwk", private_sealed AS "privateSealed", created_at AS "createdAt",
  activated_at AS "activatedAt", retired_at AS "retiredAt", retire_after AS "retireAfter", activate_after AS "activateAfter"`;

/**
 * Oldest first. Keys made in the same millisecond (a tenant's first key and an immediate rotation,
 * a fixed test clock) come in the order of their lifecycle, the older further along it: neither
 * engine keeps an insertion order (no rowid on PostgreSQL).
 */
const ORDER = `ORDER BY created_at,
  CASE state WHEN 'REVOKED' THEN 0 WHEN 'RETIRED' THEN 1 WHEN 'RETIRING' THEN 2 WHEN 'ACTIVE' THEN 3 ELSE 4 END, kid`;

const SQL = {
  insert: `INSERT INTO signing_keys (kid, tenant_id, state, alg, public_jwk, private_sealed, created_at, activated_at, retired_at, retire_after, activate_after)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // Signing and verification look keys up on every token (behind the catalogue cache).
  byKid: `SELECT ${COLUMNS} FROM signing_keys WHERE tenant_id = ? AND kid = ?`,
  active: `SELECT ${COLUMNS} FROM signing_keys WHERE tenant_id = ? AND state = 'ACTIVE'`,
  listForTenant: `SELECT ${COLUMNS} FROM signing_keys WHERE tenant_id = ? ${ORDER}`,
  retireExpired: `UPDATE signing_keys SET state = 'RETIRED', retired_at = ? WHERE state = 'RETIRING' AND retire_after <= ?`,
  // Scheduled rotations that came due, in every tenant (the activation job; a handful of rows).
  dueForActivation: `SELECT tenant_id AS "tenantId", kid FROM signing_keys WHERE state = 'STAGED' AND activate_after <= ? ORDER BY activate_after, kid`,
  scheduled: `SELECT ${COLUMNS} FROM signing_keys WHERE tenant_id = ? AND state = 'STAGED' AND activate_after IS NOT NULL`,
} as const;

const update = updateStatement(
  'signing_keys', { state: 'state', activatedAt: 'activated_at', retiredAt: 'retired_at', retireAfter: 'retire_after', activateAfter: 'activate_after' }, 'kid = ?',
);

export function createKeyStore(db: Sql) {
  // One lock per tenant, taken first by every key transition: the tenant's row, FOR NO KEY
  // UPDATE (it leaves the FOR KEY SHARE of foreign-key checks alone, so inserts of other rows of
  // the tenant never wait on it). Locking the key rows themselves took them in no fixed order,
  // and concurrent rotations from two processes deadlocked. SQLite: its one writer.
  const lockTenant = db.dialect === 'postgres' ? 'SELECT id FROM tenants WHERE id = ? FOR NO KEY UPDATE' : 'SELECT id FROM tenants WHERE id = ?';
  return {
    async insert(r: NewSigningKeyRow): Promise<void> {
      await db.run(SQL.insert, [
        r.kid, r.tenantId, r.state, r.alg ?? 'RS256', r.publicJwk, r.privateSealed, r.createdAt, r.activatedAt ?? null, r.retiredAt ?? null, r.retireAfter ?? null,
        r.activateAfter ?? null,
      ]);
    },
    find(tenantId: string, kid: string): Promise<SigningKeyRow | undefined> {
      return db.get<SigningKeyRow>(SQL.byKid, [tenantId, kid]);
    },
    /**
     * Locks the tenant's keys until the transaction ends: a key transition reads states and then
     * moves them (one ACTIVE key per tenant), which must not interleave with another (sql.ts).
     */
    async lockTenant(tenantId: string): Promise<void> {
      await db.all(lockTenant, [tenantId]);
    },
    listForTenant(tenantId: string): Promise<SigningKeyRow[]> {
      return db.all<SigningKeyRow>(SQL.listForTenant, [tenantId]);
    },
    inStates(tenantId: string, states: KeyState[]): Promise<SigningKeyRow[]> {
      if (states.length === 0) return Promise.resolve([]);
      return db.all<SigningKeyRow>(`SELECT ${COLUMNS} FROM signing_keys WHERE tenant_id = ? AND state IN (${states.map(() => '?').join(', ')}) ${ORDER}`, [tenantId, ...states]);
    },
    active(tenantId: string): Promise<SigningKeyRow | undefined> {
      return db.get<SigningKeyRow>(SQL.active, [tenantId]);
    },
    /** STAGED keys whose scheduled activation is due (`keys rotate`), oldest due first. */
    dueForActivation(nowSeconds: number): Promise<{ tenantId: string; kid: string }[]> {
      return db.all(SQL.dueForActivation, [nowSeconds]);
    },
    /** The tenant's STAGED keys waiting for their scheduled activation (at most one, see rotate). */
    scheduled(tenantId: string): Promise<SigningKeyRow[]> {
      return db.all<SigningKeyRow>(SQL.scheduled, [tenantId]);
    },
    async setState(kid: string, change: Partial<Pick<SigningKeyRow, 'state' | 'activatedAt' | 'retiredAt' | 'retireAfter' | 'activateAfter'>>): Promise<void> {
      const u = update(change);
      if (u) await db.run(u.text, [...u.values, kid]);
    },
    /** RETIRING keys whose last token has expired become RETIRED. */
    retireExpired(nowSeconds: number, nowIso: string): Promise<number> {
      return db.run(SQL.retireExpired, [nowIso, nowSeconds]);
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
