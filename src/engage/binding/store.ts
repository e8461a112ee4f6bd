import type { bindingCodes, bindingTransitions } from '../../db/schema';
import { forUpdate, type Sql } from '../../platform/store/sql';

export type BindingCodeRow = typeof bindingCodes.$inferSelect;
export type BindingTransitionRow = typeof bindingTransitions.$inferSelect;

const CODE_COLUMNS = `code_digest AS "codeDigest", environment_id AS "environmentId", installation_id AS "installationId", generation,
  code_sealed AS "codeSealed", status, expires_ms AS "expiresMs", created_at AS "createdAt"`;
const TRANSITION_COLUMNS = `id, environment_id AS "environmentId", idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  installation_id AS "installationId", response, committed_at AS "committedAt"`;

const SQL = {
  pendingCode: `SELECT ${CODE_COLUMNS} FROM binding_codes WHERE environment_id = ? AND installation_id = ? AND status = 'PENDING'`,
  code: `SELECT ${CODE_COLUMNS} FROM binding_codes WHERE environment_id = ? AND code_digest = ?`,
  // Only in an environment naming the identity tenant (issue 24): any other environment's code is unknown to a sign-in.
  codeOfTenant: `SELECT ${CODE_COLUMNS} FROM binding_codes WHERE code_digest = ?
    AND environment_id IN (SELECT id FROM environments WHERE identity_tenant_id = ? AND status = 'ACTIVE')`,
  // At most one pending code per installation (the partial unique index binding_codes_one_pending):
  // of two concurrent issues, one inserts.
  insertCode: `INSERT INTO binding_codes (code_digest, environment_id, installation_id, generation, code_sealed, status, expires_ms, created_at)
    VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?) ON CONFLICT (installation_id) WHERE status = 'PENDING' DO NOTHING`,
  expireCode: `UPDATE binding_codes SET status = 'EXPIRED' WHERE environment_id = ? AND code_digest = ? AND status = 'PENDING'`,
  consumeCode: `UPDATE binding_codes SET status = 'CONSUMED' WHERE environment_id = ? AND code_digest = ? AND status = 'PENDING' AND expires_ms > ?`,
  transition: `SELECT ${TRANSITION_COLUMNS} FROM binding_transitions WHERE environment_id = ? AND idempotency_key = ?`,
  transitionOfTenant: `SELECT ${TRANSITION_COLUMNS} FROM binding_transitions WHERE idempotency_key = ?
    AND environment_id IN (SELECT id FROM environments WHERE identity_tenant_id = ? AND status = 'ACTIVE')`,
  insertTransition: `INSERT INTO binding_transitions (id, environment_id, idempotency_key, request_hash, installation_id, response, committed_at)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (environment_id, idempotency_key) DO NOTHING`,
  installation: `SELECT id, app_id AS "appId", generation FROM installations WHERE environment_id = ? AND id = ?`,
} as const;

/** Binding codes and committed transitions; the generation fence they advance is profile state's (profiles/service.ts). */
export function createBindingStore(db: Sql) {
  // The installation row locked until the transaction ends (PostgreSQL): binding, ingest and
  // erasure of one installation run one after the other.
  const lockInstallation = `${SQL.installation}${forUpdate(db.dialect)}`;
  return {
    findPendingCode(environmentId: string, installationId: string): Promise<BindingCodeRow | undefined> {
      return db.get<BindingCodeRow>(SQL.pendingCode, [environmentId, installationId]);
    },
    findCode(environmentId: string, codeDigest: string): Promise<BindingCodeRow | undefined> {
      return db.get<BindingCodeRow>(SQL.code, [environmentId, codeDigest]);
    },
    /** A code of an environment that names the identity tenant (issue 24), or undefined. */
    findCodeOfTenant(codeDigest: string, tenantId: string): Promise<BindingCodeRow | undefined> {
      return db.get<BindingCodeRow>(SQL.codeOfTenant, [codeDigest, tenantId]);
    },
    /** Inserts a pending code; false when the installation already has one (another issue won). */
    async insertPendingCode(r: Omit<BindingCodeRow, 'status'>): Promise<boolean> {
      return (await db.run(SQL.insertCode, [r.codeDigest, r.environmentId, r.installationId, r.generation, r.codeSealed, r.expiresMs, r.createdAt])) === 1;
    },
    /** Marks a pending code expired (a no-op once it is not pending). */
    async expireCode(environmentId: string, codeDigest: string): Promise<void> {
      await db.run(SQL.expireCode, [environmentId, codeDigest]);
    },
    /** Consumes a code still pending and unexpired at `nowMs`; false when it is not (any more). */
    async consumeCode(environmentId: string, codeDigest: string, nowMs: number): Promise<boolean> {
      return (await db.run(SQL.consumeCode, [environmentId, codeDigest, nowMs])) === 1;
    },
    findTransition(environmentId: string, idempotencyKey: string): Promise<BindingTransitionRow | undefined> {
      return db.get<BindingTransitionRow>(SQL.transition, [environmentId, idempotencyKey]);
    },
    /** A transition of an environment naming the identity tenant, by its idempotency key (issue 24's sign-in and sign-out). */
    findTransitionOfTenant(idempotencyKey: string, tenantId: string): Promise<BindingTransitionRow | undefined> {
      return db.get<BindingTransitionRow>(SQL.transitionOfTenant, [idempotencyKey, tenantId]);
    },
    /** Records a committed transition; false when its Idempotency-Key was taken meanwhile. */
    async insertTransition(r: BindingTransitionRow): Promise<boolean> {
      return (await db.run(SQL.insertTransition, [r.id, r.environmentId, r.idempotencyKey, r.requestHash, r.installationId, r.response, r.committedAt])) === 1;
    },
    installation(environmentId: string, id: string): Promise<{ id: string; appId: string; generation: number } | undefined> {
      return db.get<{ id: string; appId: string; generation: number }>(SQL.installation, [environmentId, id]);
    },
    /** `installation`, locked until the transaction ends (a read that decides a write). */
    lockInstallation(environmentId: string, id: string): Promise<{ id: string; appId: string; generation: number } | undefined> {
      return db.get<{ id: string; appId: string; generation: number }>(lockInstallation, [environmentId, id]);
    },
  };
}

export type BindingStore = ReturnType<typeof createBindingStore>;
