import type { userTotpFactors } from '../../db/schema';
import { insertMany, type Sql } from '../../platform/store/sql';

export type TotpFactorRow = typeof userTotpFactors.$inferSelect;

const TOTP_COLUMNS = `user_id AS "userId", tenant_id AS "tenantId", secret_sealed AS "secretSealed", last_step AS "lastStep",
  created_at AS "createdAt", activated_at AS "activatedAt"`;

const SQL = {
  findTotp: `SELECT ${TOTP_COLUMNS} FROM user_totp_factors WHERE tenant_id = ? AND user_id = ?`,
  // A new pending secret replaces a pending one, never an active factor (removal comes first).
  putPending: `INSERT INTO user_totp_factors (user_id, tenant_id, secret_sealed, last_step, created_at, activated_at)
    VALUES (?, ?, ?, 0, ?, NULL)
    ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, last_step = 0, created_at = excluded.created_at
    WHERE user_totp_factors.activated_at IS NULL AND user_totp_factors.tenant_id = excluded.tenant_id`,
  activate: `UPDATE user_totp_factors SET activated_at = ?, last_step = ?
    WHERE tenant_id = ? AND user_id = ? AND activated_at IS NULL AND secret_sealed = ?`,
  // RFC 6238 §5.2: a verifier must not accept the second attempt of the same OTP. The step only
  // moves forward, in one conditional UPDATE: of two parallel uses of one code, one changes the row.
  useStep: `UPDATE user_totp_factors SET last_step = ?
    WHERE tenant_id = ? AND user_id = ? AND activated_at IS NOT NULL AND last_step < ?`,
  deleteTotp: `DELETE FROM user_totp_factors WHERE tenant_id = ? AND user_id = ?`,
  insertCode: `INSERT INTO user_recovery_codes (user_id, tenant_id, code_digest, created_at) VALUES (?, ?, ?, ?)`,
  consumeCode: `DELETE FROM user_recovery_codes WHERE tenant_id = ? AND user_id = ? AND code_digest = ?`,
  deleteCodes: `DELETE FROM user_recovery_codes WHERE tenant_id = ? AND user_id = ?`,
  countCodes: `SELECT COUNT(*) AS "n" FROM user_recovery_codes WHERE tenant_id = ? AND user_id = ?`,
} as const;

/** Second-factor rows; every statement names the tenant and the user (CONVENTIONS.md "Stores"). */
export function createMfaStore(db: Sql) {
  return {
    /** Active TOTP factors (RFC 6238) of imported users, secrets sealed beforehand; set-oriented. */
    async insertActiveTotp(tenantId: string, rows: readonly { userId: string; secretSealed: string }[], now: string): Promise<void> {
      await insertMany(db, rows, 6, 'INSERT INTO user_totp_factors (user_id, tenant_id, secret_sealed, last_step, created_at, activated_at)',
        (r) => [r.userId, tenantId, r.secretSealed, 0, now, now]);
    },
    findTotp(tenantId: string, userId: string): Promise<TotpFactorRow | undefined> {
      return db.get<TotpFactorRow>(SQL.findTotp, [tenantId, userId]);
    },
    /** False when an active factor is in the way. */
    async putPendingTotp(tenantId: string, userId: string, secretSealed: string, now: string): Promise<boolean> {
      return (await db.run(SQL.putPending, [userId, tenantId, secretSealed, now])) === 1;
    },
    /** Activates the pending secret the code was checked against (not one replaced meanwhile). */
    async activateTotp(tenantId: string, userId: string, secretSealed: string, step: number, now: string): Promise<boolean> {
      return (await db.run(SQL.activate, [now, step, tenantId, userId, secretSealed])) === 1;
    },
    /** True when this step is later than every step used before (and is now the last used). */
    async useTotpStep(tenantId: string, userId: string, step: number): Promise<boolean> {
      return (await db.run(SQL.useStep, [step, tenantId, userId, step])) === 1;
    },
    async deleteTotp(tenantId: string, userId: string): Promise<boolean> {
      return (await db.run(SQL.deleteTotp, [tenantId, userId])) > 0;
    },
    async insertRecoveryCode(tenantId: string, userId: string, codeDigest: string, now: string): Promise<void> {
      await db.run(SQL.insertCode, [userId, tenantId, codeDigest, now]);
    },
    /** One use: of two parallel deletes of the same row, one deletes it. */
    async consumeRecoveryCode(tenantId: string, userId: string, codeDigest: string): Promise<boolean> {
      return (await db.run(SQL.consumeCode, [tenantId, userId, codeDigest])) === 1;
    },
    async deleteRecoveryCodes(tenantId: string, userId: string): Promise<void> {
      await db.run(SQL.deleteCodes, [tenantId, userId]);
    },
    async countRecoveryCodes(tenantId: string, userId: string): Promise<number> {
      return Number((await db.get<{ n: number | string }>(SQL.countCodes, [tenantId, userId]))?.n ?? 0);
    },
  };
}

export type MfaStore = ReturnType<typeof createMfaStore>;
