import { digest, newSecret } from '../../platform/crypto';
import type { ResolvedTenant } from '../tenants/service';
import { checkPasswordPolicy, normalizeEmail } from '../users/service';
import type { Challenges } from './challenges';
import { NATIVE_LIMITS, type NativeDeps, type Timers } from './context';
import { nativeFailure } from './errors';
import type { Interactions, LiveInteraction } from './interactions';
import type { GrantRow } from './store';

const invalidGrant = (detail: string) => nativeFailure('invalid_grant', detail);

/**
 * Registration and password recovery (spec 02 state table). Both stay bound to the interaction
 * they started in: their challenges and grants name it and only it can redeem them. Their grants
 * are random secrets in a table of their own, which the token endpoint and the API guards never
 * read: they cannot become tokens or call an API.
 */
export function createAccounts(deps: NativeDeps, interactions: Interactions, challenges: Challenges) {
  const { store, clock, users, oauth, sessions } = deps;
  const now = () => clock.nowSeconds();

  function assertSelfService(tenant: ResolvedTenant): void {
    if (tenant.tenant.registrationMode !== 'SELF_SERVICE') throw nativeFailure('registration_closed');
  }

  /** Any open or MFA-pending interaction (not a finished one) can host registration or recovery. */
  const load = (tenant: ResolvedTenant, id: string) => interactions.load(tenant, id, ['OPEN', 'MFA']);

  async function issueGrant(tenant: ResolvedTenant, it: LiveInteraction, purpose: 'registration' | 'reset', email: string, userId: string | null, seconds: number): Promise<string> {
    const grant = newSecret();
    const t = now();
    await store.tx((tx) =>
      tx.native.insertGrant({ grantDigest: digest(grant), tenantId: tenant.tenant.id, interactionDigest: it.digest, purpose, email, userId, createdAt: t, expiresAt: t + seconds }),
    );
    return grant;
  }

  /** The unconsumed, unexpired grant of this purpose issued in this interaction. */
  async function findGrant(tenant: ResolvedTenant, it: LiveInteraction, grant: string, purpose: 'registration' | 'reset'): Promise<GrantRow> {
    const row = await store.native.findGrant(tenant.tenant.id, digest(grant));
    if (!row || row.purpose !== purpose || row.interactionDigest !== it.digest || row.consumedAt !== null || row.expiresAt <= now()) {
      throw invalidGrant('unknown, expired or consumed grant');
    }
    return row;
  }

  return {
    /**
     * POST /registration/request. A free address gets a code; a taken one gets a notice to its
     * owner instead ("someone tried to register"), and the caller the same 202 either way.
     */
    async registrationRequest(tenant: ResolvedTenant, input: { interactionId: string; email: string; ip: string }): Promise<Timers> {
      assertSelfService(tenant);
      const it = await load(tenant, input.interactionId);
      const email = normalizeEmail(input.email);
      const taken = !!(await users.findByEmail(tenant.tenant.id, email));
      return challenges.issue(tenant, {
        interactionDigest: it.digest, purpose: 'registration', email, userId: null, ip: input.ip,
        delivery: taken ? { kind: 'notice', mail: 'registration-taken' } : { kind: 'code', mail: 'registration-code' },
      });
    },

    /** POST /registration/verify: a one-use, five-minute grant; no account exists yet. */
    async registrationVerify(tenant: ResolvedTenant, input: { interactionId: string; email: string; code: string }): Promise<{ registrationGrant: string; expiresInSeconds: number }> {
      assertSelfService(tenant);
      const it = await load(tenant, input.interactionId);
      const row = await challenges.verify(tenant, { interactionDigest: it.digest, purpose: 'registration', email: normalizeEmail(input.email), code: input.code });
      const registrationGrant = await issueGrant(tenant, it, 'registration', row.email, null, NATIVE_LIMITS.registrationGrantSeconds);
      return { registrationGrant, expiresInSeconds: NATIVE_LIMITS.registrationGrantSeconds };
    },

    /**
     * POST /registration/complete: an ACTIVE account with a verified email, not signed in (201,
     * empty body). The interaction ends: spec 02 asks for a fresh interaction and a password sign-in.
     */
    async registrationComplete(tenant: ResolvedTenant, input: { interactionId: string; registrationGrant: string; password: string }): Promise<void> {
      assertSelfService(tenant);
      const it = await load(tenant, input.interactionId);
      const grant = await findGrant(tenant, it, input.registrationGrant, 'registration');
      const problem = checkPasswordPolicy(input.password);
      if (problem) throw nativeFailure('invalid_password', problem);
      const passwordHash = await users.hashPassword(input.password);
      const outcome = await store.tx(async (tx) => {
        if (!(await tx.native.consumeGrant(tenant.tenant.id, grant.grantDigest, now()))) return 'gone' as const;
        // The grant is spent even when the address was taken meanwhile: that flow must restart.
        const created = await users.createVerifiedIn(tx, tenant.tenant.id, grant.email, passwordHash);
        await tx.native.end(tenant.tenant.id, it.digest);
        return created ? ('created' as const) : ('conflict' as const);
      });
      if (outcome === 'gone') throw invalidGrant('consumed by another request');
      if (outcome === 'conflict') throw nativeFailure('registration_conflict');
    },

    /** POST /password/recovery/request: a code to an ACTIVE account's address; the same 202 for any other. */
    async recoveryRequest(tenant: ResolvedTenant, input: { interactionId: string; email: string; ip: string }): Promise<Timers> {
      const it = await load(tenant, input.interactionId);
      const email = normalizeEmail(input.email);
      const user = await users.findByEmail(tenant.tenant.id, email);
      const eligible = !!user && user.status === 'ACTIVE';
      return challenges.issue(tenant, {
        interactionDigest: it.digest, purpose: 'recovery', email, userId: eligible ? user.id : null, ip: input.ip,
        delivery: eligible ? { kind: 'code', mail: 'recovery-code' } : { kind: 'none' },
      });
    },

    /** POST /password/recovery/verify: a five-minute, one-use reset grant. */
    async recoveryVerify(tenant: ResolvedTenant, input: { interactionId: string; email: string; code: string }): Promise<{ resetGrant: string; expiresInSeconds: number }> {
      const it = await load(tenant, input.interactionId);
      const row = await challenges.verify(tenant, { interactionDigest: it.digest, purpose: 'recovery', email: normalizeEmail(input.email), code: input.code });
      if (!row.userId) throw nativeFailure('invalid_code');
      const resetGrant = await issueGrant(tenant, it, 'reset', row.email, row.userId, NATIVE_LIMITS.resetGrantSeconds);
      return { resetGrant, expiresInSeconds: NATIVE_LIMITS.resetGrantSeconds };
    },

    /**
     * POST /password/recovery/complete (204): the password is replaced and, as Keycloak and Auth0
     * do after a reset, everything the old password opened ends in the same transaction: the
     * user's grants and refresh tokens at every client (access tokens turn inactive) and their
     * browser sign-ins. The interaction stays open for the password sign-in that follows.
     */
    async recoveryComplete(tenant: ResolvedTenant, input: { interactionId: string; resetGrant: string; newPassword: string }): Promise<void> {
      const it = await load(tenant, input.interactionId);
      const grant = await findGrant(tenant, it, input.resetGrant, 'reset');
      const tenantId = tenant.tenant.id;
      const user = grant.userId ? await users.findById(tenantId, grant.userId) : undefined;
      if (!user || user.status !== 'ACTIVE') throw invalidGrant('the account is gone or disabled');
      const problem = checkPasswordPolicy(input.newPassword);
      if (problem) throw nativeFailure('invalid_new_password', problem);
      if (await users.isCurrentPassword(user, input.newPassword)) throw nativeFailure('invalid_new_password', 'the new password is the current one');
      const passwordHash = await users.hashPassword(input.newPassword);
      const done = await store.tx(async (tx) => {
        if (!(await tx.native.consumeGrant(tenantId, grant.grantDigest, now()))) return false;
        await users.setPasswordHashIn(tx, tenantId, user.id, passwordHash);
        await oauth.revokeAllOfUserIn(tx, tenantId, user.id);
        await sessions.signOutEverywhereIn(tx, tenantId, user.id);
        return true;
      });
      if (!done) throw invalidGrant('consumed by another request');
    },
  };
}
