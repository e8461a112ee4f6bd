import { normalizeEmail } from '../users/service';
import type { ResolvedTenant } from '../tenants/service';
import { createAccounts } from './accounts';
import { createChallenges } from './challenges';
import type { CodeResult, NativeDeps, ProofResult, Timers } from './context';
import { nativeFailure, tooManyAttempts } from './errors';
import { createHostedAccounts } from './hosted';
import { createInteractions } from './interactions';

/**
 * `services.native`: the native authentication adapter (spec 02). The routes hand it validated
 * form fields and the client address; it answers spec 02's native responses or throws a
 * DomainError with a code of the native error table.
 */
export function createNativeService(deps: NativeDeps) {
  const { users, sessions, mfa, providers } = deps;
  const interactions = createInteractions(deps);
  const challenges = createChallenges(deps);
  const accounts = createAccounts(deps, interactions, challenges);
  // The hosted pages' registration and recovery, and the administrator's recovery mail (issue 23 point 6).
  const hosted = createHostedAccounts(deps, challenges);

  return {
    /** POST /interactions. */
    openInteraction: (tenant: ResolvedTenant, form: Record<string, string>) => interactions.open(tenant, form),

    /**
     * POST /password: argon2id verification behind the browser sign-in's throttle
     * (sessions/throttle.ts: per account and per client address, counted before the hash is
     * verified, settled when the password was right). An unknown address, a wrong password and a
     * disabled account answer alike, after the same work (a dummy hash is verified when there is
     * no account: users/service.ts).
     */
    async password(tenant: ResolvedTenant, input: { interactionId: string; email: string; password: string; ip: string }): Promise<ProofResult> {
      const it = await interactions.load(tenant, input.interactionId);
      const tenantId = tenant.tenant.id;
      // One transaction binds the interaction to this flow and admits (counts) the attempt; the
      // one that issues the code (or starts MFA) settles it: two commits per proof, not four.
      const admitted = await deps.store.tx(async () => {
        await interactions.claim(tenant, it, 'password');
        return sessions.beginAttempt(tenantId, input.email, input.ip);
      });
      const { ticket } = admitted;
      if (!ticket) throw tooManyAttempts(admitted.wait);
      const user = await users.verifyPassword(tenantId, input.email, input.password);
      if (!user) throw nativeFailure('invalid_credentials');
      return interactions.afterPrimaryProof(tenant, it, user.id, () => sessions.attemptSucceeded(ticket));
    },

    /** POST /social: the upstream ID token, verified and linked by the identity providers (services.providers). */
    async social(tenant: ResolvedTenant, input: { interactionId: string; provider: string; idToken: string; nonce: string; audience: string }): Promise<ProofResult> {
      const it = await interactions.load(tenant, input.interactionId);
      await interactions.claim(tenant, it, 'social');
      const { userId } = await providers.signInWithIdToken(tenant, { provider: input.provider, idToken: input.idToken, nonce: input.nonce, audience: input.audience });
      const user = await users.findById(tenant.tenant.id, userId);
      if (!user || user.status !== 'ACTIVE') throw nativeFailure('invalid_credentials', 'the linked account is disabled');
      return interactions.afterPrimaryProof(tenant, it, userId);
    },

    /** POST /email/request: a code to an ACTIVE account's address; the same 202 for any other address. */
    async emailRequest(tenant: ResolvedTenant, input: { interactionId: string; email: string; ip: string }): Promise<Timers> {
      const it = await interactions.load(tenant, input.interactionId);
      await interactions.claim(tenant, it, 'email');
      const email = normalizeEmail(input.email);
      const user = await users.findByEmail(tenant.tenant.id, email);
      const eligible = !!user && user.status === 'ACTIVE';
      return challenges.issue(tenant, {
        interactionDigest: it.digest, purpose: 'signin', email, userId: eligible ? user.id : null, ip: input.ip,
        delivery: eligible ? { kind: 'code', mail: 'email-code' } : { kind: 'none' },
      });
    },

    /** POST /email/verify: the code proves the address, and so the account. */
    async emailVerify(tenant: ResolvedTenant, input: { interactionId: string; email: string; code: string }): Promise<ProofResult> {
      const it = await interactions.load(tenant, input.interactionId);
      await interactions.claim(tenant, it, 'email');
      const row = await challenges.verify(tenant, { interactionDigest: it.digest, purpose: 'signin', email: normalizeEmail(input.email), code: input.code });
      const user = row.userId ? await users.findById(tenant.tenant.id, row.userId) : undefined;
      if (!user || user.status !== 'ACTIVE') throw nativeFailure('invalid_code', 'the account is gone or disabled');
      // The code came back from the address: it is verified now (as Auth0's passwordless email does).
      if (!user.emailVerified) await users.markEmailVerified(tenant.tenant.id, user.id);
      return interactions.afterPrimaryProof(tenant, it, user.id);
    },

    /** POST /mfa: the second factor of an mfa_required interaction, throttled per user and address. */
    async mfa(tenant: ResolvedTenant, input: { interactionId: string; challengeToken: string; method: 'totp' | 'recovery'; code: string; ip: string }): Promise<CodeResult> {
      const it = await interactions.load(tenant, input.interactionId, ['MFA']);
      const userId = interactions.checkChallenge(it, input.challengeToken);
      const tenantId = tenant.tenant.id;
      const admitted = await sessions.beginAttempt(tenantId, `mfa:${userId}`, input.ip);
      const { ticket } = admitted;
      if (!ticket) throw tooManyAttempts(admitted.wait);
      const verified = await mfa.verifySecondFactor(tenantId, userId, input.method, input.code);
      if (!verified.ok) throw nativeFailure('invalid_code', 'wrong second-factor code');
      return interactions.complete(tenant, it, userId, 'MFA', verified.replacementRecoveryCode, () => sessions.attemptSucceeded(ticket));
    },

    ...accounts,
    ...hosted,

    /** Whether mail can go out: the hosted pages offer registration and recovery only then. */
    mailAvailable: deps.mail.available,

    /** Housekeeping (src/jobs.ts): interactions, challenges and grants a day past their expiry. */
    async purgeExpired(): Promise<number> {
      const before = deps.clock.nowSeconds() - 86400;
      return deps.store.tx((tx) => tx.native.purgeExpired(before));
    },
  };
}

export type NativeService = ReturnType<typeof createNativeService>;
