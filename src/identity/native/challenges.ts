import { randomInt } from 'node:crypto';
import { digest, newId, newSecret, safeEqual } from '../../platform/crypto';
import { composeMail, type MailPurpose } from '../../platform/mail/messages';
import type { TxScope } from '../../platform/store/store';
import type { ResolvedTenant } from '../tenants/service';
import { NATIVE_LIMITS, type NativeDeps, type NativeStores, type Timers } from './context';
import { nativeFailure, tooManyAttempts } from './errors';
import type { ChallengeRow } from './store';

export type ChallengePurpose = 'signin' | 'registration' | 'recovery';

/** What to send for a challenge: a code message, a notice without a code, or nothing. */
export type Delivery = { kind: 'code'; mail: MailPurpose; link?: string } | { kind: 'notice'; mail: MailPurpose } | { kind: 'none' };

/** Six digits, uniformly drawn (spec 02 Limits). */
export function sixDigits(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Stored as SHA-256 of `<challenge id>:<code>`: the id salts it, so one table of a million digests opens no other row. */
const codeDigest = (id: string, code: string) => digest(`${id}:${code}`);

const invalidCode = (detail: string) => nativeFailure('invalid_code', detail);

/**
 * What a challenge is bound to (`interactionDigest`): the native interaction's digest, or for the
 * hosted pages (sessions/hosted-accounts.ts) a value of their own, so a native code never opens
 * a hosted page nor the other way round.
 */
export interface IssueInput {
  interactionDigest: string;
  purpose: ChallengePurpose;
  email: string;
  userId: string | null;
  delivery: Delivery;
}

const TIMERS: Timers = { retryAfterSeconds: NATIVE_LIMITS.resendSeconds, expiresInSeconds: NATIVE_LIMITS.codeSeconds };

/**
 * Emailed six-digit challenges, shared by email sign-in, registration and recovery. One live
 * challenge per tenant, purpose and address; a request answers the same timers whether or not
 * a message goes out, so the answer never tells whether an account exists.
 */
export function createChallenges(deps: NativeDeps) {
  const { store, clock, mail } = deps;

  /**
   * The challenge and its message in the caller's transaction (an administrator's recovery mail
   * audits in the same one); throws too_many_attempts while the address's resend wait runs.
   */
  async function writeIn(tx: NativeStores & TxScope, tenant: ResolvedTenant, input: IssueInput): Promise<void> {
    if (!mail.available) throw nativeFailure('temporarily_unavailable', 'no SMTP server is configured');
    const tenantId = tenant.tenant.id;
    const id = newId();
    const code = input.delivery.kind === 'code' ? sixDigits() : undefined;
    const t = clock.nowSeconds();
    const row = {
      id, tenantId, interactionDigest: input.interactionDigest, purpose: input.purpose, email: input.email, userId: input.userId,
      // No code sent: a digest nobody can match.
      codeDigest: code ? codeDigest(id, code) : digest(newSecret()),
      createdAt: t, resendAfter: t + NATIVE_LIMITS.resendSeconds, expiresAt: t + NATIVE_LIMITS.codeSeconds,
    };
    if (!(await tx.native.upsertChallenge(row))) {
      const resendAfter = (await tx.native.findChallenge(tenantId, input.purpose, input.email))?.resendAfter ?? t + 1;
      throw tooManyAttempts(resendAfter - t);
    }
    if (input.delivery.kind !== 'none') {
      const link = input.delivery.kind === 'code' ? input.delivery.link : undefined;
      const message = composeMail(input.delivery.mail, input.email, { tenantName: tenant.tenant.slug, code, validMinutes: NATIVE_LIMITS.codeSeconds / 60, link });
      await mail.enqueueIn(tx, tenantId, input.delivery.mail, message);
    }
  }

  return {
    /**
     * Writes the challenge and queues its message in one transaction (the outbox): the 202 that
     * follows means both are committed. Counted against the client address first.
     */
    async issue(tenant: ResolvedTenant, input: IssueInput & { ip: string }): Promise<Timers> {
      // Without SMTP nothing can be proven by mail: 503 for every address alike.
      if (!mail.available) throw nativeFailure('temporarily_unavailable', 'no SMTP server is configured');
      // Every request counts against the client address, whatever the address asked for: one
      // client cannot fill many inboxes (docs/decisions.md "Native authentication").
      const addressWait = await deps.sessions.countMailRequest(tenant.tenant.id, input.ip);
      if (addressWait > 0) throw tooManyAttempts(addressWait);
      await store.tx((tx) => writeIn(tx, tenant, input));
      return TIMERS;
    },

    writeIn,

    /**
     * The challenge `code` answers, consumed: only for the interaction that asked for it, while
     * unexpired, within its attempts, and once (of two requests with the same code, one wins).
     */
    async verify(tenant: ResolvedTenant, input: { interactionDigest: string; purpose: ChallengePurpose; email: string; code: string }): Promise<ChallengeRow> {
      const tenantId = tenant.tenant.id;
      const t = clock.nowSeconds();
      const row = await store.native.findChallenge(tenantId, input.purpose, input.email);
      if (!row || !safeEqual(row.interactionDigest, input.interactionDigest)) throw invalidCode('no challenge for this address in this interaction');
      // The email address's budget across its challenges (sessions/throttle.ts `code`), then the challenge's own five tries.
      const wait = await deps.sessions.countCodeAttempt(tenantId, input.email);
      if (wait > 0) throw tooManyAttempts(wait);
      if (!(await store.tx((tx) => tx.native.countAttempt(row.id, t, NATIVE_LIMITS.codeAttempts)))) throw invalidCode('expired, spent or out of attempts');
      if (!safeEqual(row.codeDigest, codeDigest(row.id, input.code))) throw invalidCode('wrong code');
      if (!(await store.tx((tx) => tx.native.consumeChallenge(row.id, t)))) throw invalidCode('already used');
      await deps.sessions.codeSucceeded(tenantId, input.email);
      return row;
    },
  };
}

export type Challenges = ReturnType<typeof createChallenges>;
