/**
 * What the native adapter needs of the second factors (TOTP, recovery codes). Issue 10 part B
 * implements it (`services.mfa`); until then services.ts wires a provisional one that knows of
 * no second factor.
 */
export interface SecondFactors {
  hasSecondFactor(tenantId: string, userId: string): Promise<boolean>;
  /** ok:false for a wrong, reused or unknown code; replacementRecoveryCode when a recovery code was consumed. */
  verifySecondFactor(
    tenantId: string,
    userId: string,
    method: 'totp' | 'recovery',
    code: string,
  ): Promise<{ ok: true; replacementRecoveryCode: string | null } | { ok: false }>;
}
