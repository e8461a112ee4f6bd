/**
 * What the native adapter needs of the second factors (TOTP, recovery codes), implemented by
 * the MFA service (`services.mfa`, mfa/service.ts).
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
