import { renderSVG } from 'uqr';
import type { Clock } from '../../platform/clock';
import type { Sealer } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import { MfaErrors } from './errors';
import type { SecondFactors } from './port';
import { newRecoveryCode, normalizeRecoveryCode, recoveryDigester, RECOVERY_CODE_COUNT } from './recovery-codes';
import type { MfaStore } from './store';
import type { AuditActor, AuditTx } from '../audit';
import { matchStep, newTotpSecret, otpauthUri } from './totp';

type Stores = { mfa: MfaStore } & AuditTx;

/** What an operator may see of a user's second factor: never a secret (`engage users mfa show`). */
export interface MfaStatus {
  enrolled: boolean;
  enrolledAt: string | null;
  /** An enrolment was started and not yet confirmed with a first code. */
  pending: boolean;
  recoveryCodesLeft: number;
}

export interface Enrolment {
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  uri: string;
  /** The URI as a QR code, an inline SVG document (no script, no external reference). */
  qrSvg: string;
}

/**
 * Second factors (issue 10): a TOTP authenticator (RFC 6238) and single-use recovery codes
 * (docs/decisions.md "Second factors and social providers"). The TOTP secret is sealed with the
 * master key and bound to its user; recovery codes are keyed digests. Every one-use rule is a
 * conditional write, so it holds with parallel requests on either engine.
 */
export function createMfaService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; sealer: Sealer; masterKey: Buffer }) {
  const { store, clock, sealer } = deps;
  const codeDigest = recoveryDigester(deps.masterKey);
  const aad = (tenantId: string, userId: string) => `totp|${tenantId}|${userId}`;
  const nowIso = () => clock.now().toISOString();

  /** Fresh codes replace every earlier one; the plain codes are returned once and never stored. */
  async function issueRecoveryCodes(tenantId: string, userId: string, inTx: Stores): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await inTx.mfa.deleteRecoveryCodes(tenantId, userId);
    const t = nowIso();
    for (const c of codes) await inTx.mfa.insertRecoveryCode(tenantId, userId, codeDigest(tenantId, userId, normalizeRecoveryCode(c)!), t);
    return codes;
  }

  function enrolment(secret: string, issuerName: string, account: string): Enrolment {
    const uri = otpauthUri(secret, issuerName, account);
    return { secret, uri, qrSvg: renderSVG(uri, { border: 2 }) };
  }

  const factors = {
    async hasSecondFactor(tenantId: string, userId: string): Promise<boolean> {
      return !!(await store.mfa.findTotp(tenantId, userId))?.activatedAt;
    },

    async verifySecondFactor(tenantId: string, userId: string, method: 'totp' | 'recovery', code: string) {
      const factor = await store.mfa.findTotp(tenantId, userId);
      if (!factor?.activatedAt) return { ok: false } as const;
      if (method === 'totp') {
        const step = matchStep(sealer.open(factor.secretSealed, aad(tenantId, userId)), code, clock.now().getTime());
        if (step === undefined) return { ok: false } as const;
        const fresh = await store.tx((tx) => tx.mfa.useTotpStep(tenantId, userId, step));
        return fresh ? ({ ok: true, replacementRecoveryCode: null } as const) : ({ ok: false } as const);
      }
      if (method !== 'recovery') return { ok: false } as const;
      const normalized = normalizeRecoveryCode(code);
      if (!normalized) return { ok: false } as const;
      const replacement = newRecoveryCode();
      const consumed = await store.tx(async (tx) => {
        if (!(await tx.mfa.consumeRecoveryCode(tenantId, userId, codeDigest(tenantId, userId, normalized)))) return false;
        await tx.mfa.insertRecoveryCode(tenantId, userId, codeDigest(tenantId, userId, normalizeRecoveryCode(replacement)!), nowIso());
        return true;
      });
      return consumed ? ({ ok: true, replacementRecoveryCode: replacement } as const) : ({ ok: false } as const);
    },
  } satisfies SecondFactors;

  return {
    ...factors,

    /** TOTP factors of a bulk import, active at once (secrets sealed by the caller). Called inside the importer's transaction, it joins it (platform/store/tx-frame.ts). */
    importTotpFactors(tenantId: string, rows: readonly { userId: string; secretSealed: string }[], now: string): Promise<void> {
      return store.tx((tx) => tx.mfa.insertActiveTotp(tenantId, rows, now));
    },

    async status(tenantId: string, userId: string): Promise<MfaStatus> {
      const f = await store.mfa.findTotp(tenantId, userId);
      return {
        enrolled: !!f?.activatedAt,
        enrolledAt: f?.activatedAt ?? null,
        pending: !!f && !f.activatedAt,
        recoveryCodesLeft: f?.activatedAt ? await store.mfa.countRecoveryCodes(tenantId, userId) : 0,
      };
    },

    /** Starts (or restarts) an enrolment with a new secret; the factor is not active yet. */
    async beginEnrolment(tenantId: string, userId: string, issuerName: string, account: string): Promise<Enrolment> {
      const secret = newTotpSecret();
      const sealed = sealer.seal(secret, aad(tenantId, userId));
      const ok = await store.tx((tx) => tx.mfa.putPendingTotp(tenantId, userId, sealed, nowIso()));
      if (!ok) throw MfaErrors.alreadyEnrolled();
      return enrolment(secret, issuerName, account);
    },

    /** The enrolment in progress, to show its QR code again; undefined when there is none. */
    async pendingEnrolment(tenantId: string, userId: string, issuerName: string, account: string): Promise<Enrolment | undefined> {
      const f = await store.mfa.findTotp(tenantId, userId);
      if (!f || f.activatedAt) return undefined;
      return enrolment(sealer.open(f.secretSealed, aad(tenantId, userId)), issuerName, account);
    },

    /** A first correct code activates the factor (and uses its step); returns the recovery codes, shown once. */
    async confirmEnrolment(tenantId: string, userId: string, code: string): Promise<string[]> {
      const f = await store.mfa.findTotp(tenantId, userId);
      if (!f) throw MfaErrors.noPendingEnrolment();
      if (f.activatedAt) throw MfaErrors.alreadyEnrolled();
      const step = matchStep(sealer.open(f.secretSealed, aad(tenantId, userId)), code, clock.now().getTime());
      if (step === undefined) throw MfaErrors.invalidCode();
      return store.tx(async (tx) => {
        if (!(await tx.mfa.activateTotp(tenantId, userId, f.secretSealed, step, nowIso()))) throw MfaErrors.noPendingEnrolment();
        return issueRecoveryCodes(tenantId, userId, tx);
      });
    },

    /** New codes for an active factor; every earlier code stops working. */
    async regenerateRecoveryCodes(tenantId: string, userId: string): Promise<string[]> {
      return store.tx(async (tx) => {
        if (!(await tx.mfa.findTotp(tenantId, userId))?.activatedAt) throw MfaErrors.notEnrolled();
        return issueRecoveryCodes(tenantId, userId, tx);
      });
    },

    /**
     * Removes the authenticator and the recovery codes (the caller has checked the user's proof);
     * `actor` when an operator does it (`users mfa reset`, DELETE …/users/{userId}/second-factor):
     * audited, and `authorize` (the management API's operator rank) runs first in the same
     * transaction, refusing by throwing. The user's own removal is not a management mutation.
     */
    async remove<X>(tenantId: string, userId: string, actor?: AuditActor, opts: { authorize?: (tx: X) => Promise<void> } = {}): Promise<boolean> {
      return store.tx(async (tx) => {
        // The app's store carries every context's stores: the rank rule reads the directory in this transaction.
        await opts.authorize?.(tx as unknown as X);
        await tx.mfa.deleteRecoveryCodes(tenantId, userId);
        const removed = await tx.mfa.deleteTotp(tenantId, userId);
        if (actor) await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'user.mfa_reset', targetType: 'user', targetId: userId, details: { removed } });
        return removed;
      });
    },
  };
}

export type MfaService = ReturnType<typeof createMfaService>;
