import { digest } from '../../platform/crypto';
import type { AuditActor, AuditTx } from '../audit';
import type { TxScope } from '../../platform/store/store';
import type { ResolvedTenant } from '../tenants/service';
import { checkPasswordPolicy, normalizeEmail } from '../users/service';
import { UserErrors } from '../users/errors';
import type { Challenges } from './challenges';
import type { NativeDeps, NativeStores, Timers } from './context';
import { nativeFailure } from './errors';

/**
 * Recovery codes requested on the hosted pages or mailed by an administrator are bound to this
 * value rather than to an interaction: the code is the proof, and the page it is entered on may
 * be opened from the mail in another browser. A native code (bound to its interaction) never
 * opens a hosted page, nor the other way round; both share the row per address, so the resend
 * wait and the attempts are the same throttle whichever side asked.
 */
export const HOSTED_RECOVERY = 'hosted:recovery';

/** Hosted registration codes are bound to the browser interaction that asked for them, as native ones are. */
export const hostedRegistrationBinding = (interactionId: string) => `hosted:${digest(interactionId)}`;

/** The hosted recovery page with the address filled in: the link of every recovery mail (oauth/authorize-accounts.ts serves it). */
export function recoveryLink(tenant: ResolvedTenant, email: string): string {
  return `${tenant.issuer}/oauth2/authorize/recover?${new URLSearchParams({ email })}`;
}

type AdminTx = NativeStores & TxScope & AuditTx;

/**
 * Registration and password recovery for the hosted browser pages (sessions/hosted-accounts.ts)
 * and the administrator's "send a recovery mail" (issue 23 point 6): the native adapter's
 * challenges, mails, throttles and password policy, one code step instead of code then grant
 * (a page keeps nothing between the code and the password but the form).
 */
export function createHostedAccounts(deps: NativeDeps, challenges: Challenges) {
  const { store, users, oauth, sessions } = deps;

  /** Policy first, then the code (spent), then the account, in that order for every caller. */
  async function resetWithCode(tenant: ResolvedTenant, input: { email: string; code: string; password: string }): Promise<void> {
    const problem = checkPasswordPolicy(input.password);
    if (problem) throw nativeFailure('invalid_new_password', problem);
    const row = await challenges.verify(tenant, { interactionDigest: HOSTED_RECOVERY, purpose: 'recovery', email: normalizeEmail(input.email), code: input.code });
    const tenantId = tenant.tenant.id;
    const user = row.userId ? await users.findById(tenantId, row.userId) : undefined;
    if (!user || user.status !== 'ACTIVE') throw nativeFailure('invalid_code', 'the account is gone or disabled');
    // Checked after the code, never before: otherwise the form would tell anyone the current password.
    if (await users.isCurrentPassword(user, input.password)) throw nativeFailure('invalid_new_password', 'the new password is the current one');
    const passwordHash = await users.hashPassword(input.password);
    await store.tx((tx) => replacePasswordIn(tx, tenantId, user.id, passwordHash));
  }

  /** As the native recovery does: everything the old password opened ends with it. */
  async function replacePasswordIn(tx: NativeStores, tenantId: string, userId: string, passwordHash: string): Promise<void> {
    await users.setPasswordHashIn(tx, tenantId, userId, passwordHash);
    await oauth.revokeAllOfUserIn(tx, tenantId, userId);
    await sessions.signOutEverywhereIn(tx, tenantId, userId);
  }

  return {
    /** A recovery code to an ACTIVE account's address; the same answer, after the same work, for any other. */
    async hostedRecoveryRequest(tenant: ResolvedTenant, input: { email: string; ip: string }): Promise<Timers> {
      const email = normalizeEmail(input.email);
      const user = await users.findByEmail(tenant.tenant.id, email);
      const eligible = !!user && user.status === 'ACTIVE';
      return challenges.issue(tenant, {
        interactionDigest: HOSTED_RECOVERY, purpose: 'recovery', email, userId: eligible ? user.id : null, ip: input.ip,
        delivery: eligible ? { kind: 'code', mail: 'recovery-code', link: recoveryLink(tenant, email) } : { kind: 'none' },
      });
    },

    hostedRecoveryComplete: resetWithCode,

    /** A free address gets a code; a taken one a notice to its owner; the same answer either way. */
    async hostedRegistrationRequest(tenant: ResolvedTenant, input: { interactionId: string; email: string; ip: string }): Promise<Timers> {
      if (tenant.tenant.registrationMode !== 'SELF_SERVICE') throw nativeFailure('registration_closed');
      const email = normalizeEmail(input.email);
      const taken = !!(await users.findByEmail(tenant.tenant.id, email));
      return challenges.issue(tenant, {
        interactionDigest: hostedRegistrationBinding(input.interactionId), purpose: 'registration', email, userId: null, ip: input.ip,
        delivery: taken ? { kind: 'notice', mail: 'registration-taken' } : { kind: 'code', mail: 'registration-code' },
      });
    },

    /** The code proves the address: an ACTIVE account with a verified email, whose id is returned (to sign it in). */
    async hostedRegistrationComplete(tenant: ResolvedTenant, input: { interactionId: string; email: string; code: string; password: string }): Promise<string> {
      if (tenant.tenant.registrationMode !== 'SELF_SERVICE') throw nativeFailure('registration_closed');
      const problem = checkPasswordPolicy(input.password);
      if (problem) throw nativeFailure('invalid_password', problem);
      const email = normalizeEmail(input.email);
      await challenges.verify(tenant, { interactionDigest: hostedRegistrationBinding(input.interactionId), purpose: 'registration', email, code: input.code });
      const passwordHash = await users.hashPassword(input.password);
      const tenantId = tenant.tenant.id;
      const created = await store.tx((tx) => users.createVerifiedIn(tx, tenantId, email, passwordHash));
      const user = created ? await users.findByEmail(tenantId, email) : undefined;
      if (!user) throw nativeFailure('registration_conflict');
      return user.id;
    },

    /**
     * An administrator mails a user a recovery code whose message links to the hosted recovery
     * page (`engage users send-recovery-mail`, POST …/users/{userId}/recovery-mail). The rank rule
     * and the audit event run in the transaction that writes the challenge and queues the mail;
     * the address's resend wait applies (too_many_attempts). Only an ACTIVE user can recover.
     */
    async sendRecoveryMail<X>(
      tenant: ResolvedTenant,
      userId: string,
      input: { actor: AuditActor; authorize?: (tx: X, user: { tenantId: string; subject: string }) => Promise<void> },
    ): Promise<{ email: string }> {
      const tenantId = tenant.tenant.id;
      const user = await users.findById(tenantId, userId);
      if (!user) throw UserErrors.unknown(userId);
      if (user.status !== 'ACTIVE') throw UserErrors.invalid('the user is DISABLED: a disabled account cannot recover its password');
      const link = recoveryLink(tenant, user.email);
      await store.tx(async (tx: AdminTx) => {
        // The rank rule reads the directory in this transaction: the app's store carries every context's stores.
        await input.authorize?.(tx as unknown as X, user);
        await challenges.writeIn(tx, tenant, {
          interactionDigest: HOSTED_RECOVERY, purpose: 'recovery', email: user.email, userId: user.id,
          delivery: { kind: 'code', mail: 'recovery-code', link },
        });
        await tx.audit.record(input.actor, { at: deps.clock.now(), tenantId, action: 'user.recovery_mail_sent', targetType: 'user', targetId: user.id, details: {} });
      });
      return { email: user.email };
    },
  };
}
