import { createHmac } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret, safeEqual } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import type { ValidRequest } from './ports';
import type { InteractionRow, SessionAccountRow, SessionRow, SessionStore } from './store';
import { afterFailure, lockRemaining, throttleKey, THROTTLE } from './throttle';

/** The validated authorization request kept server-side between the browser pages. */
export type PendingRequest = Omit<ValidRequest, 'client'> & { clientId: string };

export interface LiveSession {
  session: SessionRow;
  accounts: SessionAccountRow[];
}

export interface Interaction {
  row: InteractionRow;
  request: PendingRequest;
}

/** What beginAttempt counted, to settle a successful attempt. */
export interface AttemptTicket {
  emailKey: string;
  ipKey: string;
  ipLockBefore: number;
  ipLockCounted: number;
}

/** Refused (wait > 0, nothing counted) or admitted and already counted as a failure. */
export type SignInAttempt = { wait: number; ticket?: undefined } | { wait: 0; ticket: AttemptTicket };

/** Pending interactions expire after this many seconds (a user filling a form). */
export const INTERACTION_TTL = 15 * 60;

type Stores = { sessions: SessionStore };

/** A transaction's stores, for contexts that end a user's browser sign-ins in their own transaction. */
export type SessionTx = Stores;

/**
 * Browser single sign-on for one tenant at a time: session cookies are 256-bit secrets
 * stored as digests; every lookup is by tenant and digest, so a cookie from one tenant
 * never signs anyone in at another.
 */
export function createSessionService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; sessionTtl: number }) {
  const { store, clock } = deps;
  const now = () => clock.nowSeconds();

  async function lookup(tenantId: string, token: string | undefined): Promise<LiveSession | undefined> {
    if (!token) return undefined;
    const session = await store.sessions.findLiveSession(tenantId, digest(token), now());
    return session && { session, accounts: await store.sessions.listAccounts(session.id) };
  }

  /** Per-session CSRF token: derived from the cookie secret, so nothing more is stored. */
  function csrfToken(sessionToken: string): string {
    return createHmac('sha256', sessionToken).update('engage csrf v1').digest('base64url');
  }

  /** Housekeeping piggybacks on session creation, at most every ten minutes per process. */
  let lastSweep = 0;
  async function sweep(): Promise<void> {
    const t = now();
    lastSweep = t;
    await store.tx(async (tx) => {
      await tx.sessions.deleteExpiredInteractions(t);
      await tx.sessions.deleteExpiredSessions(t);
      await tx.sessions.deleteStaleThrottles(t - THROTTLE.windowSeconds);
    });
  }

  /**
   * Admits one sign-in attempt or refuses it, before any password is verified. In one write
   * transaction both counters are locked (serialized with every other attempt on them, in this
   * process and any other) and read and, unless one is locked, both count this attempt as a failure. So of
   * any number of parallel attempts at most the free ones get to the (costly, guessable)
   * verification; the rest wait. A correct password then settles the attempt (attemptSucceeded).
   * Inside another transaction it joins it (the native password proof binds its interaction in the same one).
   */
  const beginAttempt = (tenantId: string, email: string, ip: string): Promise<SignInAttempt> => store.tx(async (tx) => {
    const t = now();
    const emailKey = throttleKey(tenantId, 'email', email);
    const ipKey = throttleKey(tenantId, 'ip', ip);
    // Email first, then address: the one lock order of every attempt (lockThrottle).
    const emailRow = await tx.sessions.lockThrottle(emailKey);
    const ipRow = await tx.sessions.lockThrottle(ipKey);
    const wait = Math.max(lockRemaining(emailRow, t), lockRemaining(ipRow, t));
    if (wait > 0) return { wait };
    const ipCounted = afterFailure(ipRow, ipKey, 'ip', t);
    await tx.sessions.saveThrottle(afterFailure(emailRow, emailKey, 'email', t));
    await tx.sessions.saveThrottle(ipCounted);
    return { wait: 0, ticket: { emailKey, ipKey, ipLockBefore: ipRow.lockedUntil, ipLockCounted: ipCounted.lockedUntil } };
  });

  /**
   * The attempt's password was right: the email counter is cleared and the address gets its
   * attempt back (and its lock as it was, unless a later failure has set another), since the
   * address counter only counts failures. Inside another transaction it joins it (the native
   * proofs settle it with the code they issue).
   */
  const attemptSucceeded = (ticket: AttemptTicket): Promise<void> => store.tx(async (tx) => {
    await tx.sessions.clearThrottle(ticket.emailKey);
    await tx.sessions.refundThrottle(ticket.ipKey, ticket.ipLockCounted, ticket.ipLockBefore);
  });

  /** Counts a request of client address `ip`: the wait in seconds when the address is locked (nothing counted), else 0 after counting it. */
  function countRequest(tenantId: string, kind: 'mail' | 'deviceStart' | 'code', ip: string): Promise<number> {
    const t = now();
    const key = throttleKey(tenantId, kind, ip);
    return store.tx(async (tx) => {
      const row = await tx.sessions.lockThrottle(key);
      const wait = lockRemaining(row, t);
      if (wait === 0) await tx.sessions.saveThrottle(afterFailure(row, key, kind, t));
      return wait;
    });
  }

  return {
    now,
    ttl: deps.sessionTtl,
    lookup,
    sweep,

    /** A new session without accounts (it carries interactions before anyone signs in). */
    async start(tenantId: string): Promise<{ session: SessionRow; token: string }> {
      const token = newSecret();
      const t = now();
      const session: SessionRow = { id: newId(), tenantId, tokenDigest: digest(token), activeUserId: null, createdAt: t, expiresAt: t + deps.sessionTtl };
      await store.tx((tx) => tx.sessions.insertSession(session));
      if (t - lastSweep > 600) await sweep();
      return { session, token };
    },

    /**
     * Records a successful authentication and makes the account active. The cookie secret
     * is replaced, so a secret planted before sign-in is worthless after (session fixation),
     * and the session lives sessionTtl from this sign-in.
     */
    async signIn(sessionId: string, userId: string, authTime: number, tenantId: string): Promise<string> {
      const token = newSecret();
      const tokenDigest = digest(token);
      await store.tx(async (tx) => {
        await tx.sessions.upsertAccount({ sessionId, tenantId, userId, authTime });
        await tx.sessions.setActiveAccount(sessionId, userId);
        await tx.sessions.renewSession(sessionId, tokenDigest, now() + deps.sessionTtl);
      });
      return token;
    },

    /**
     * Signs the user out of every browser session of the tenant, in the caller's transaction
     * (password recovery): their account leaves each session; the sessions' other accounts stay.
     */
    async signOutEverywhereIn(tx: SessionTx, tenantId: string, userId: string): Promise<void> {
      await tx.sessions.removeAccountEverywhere(tenantId, userId);
    },

    /** The same in every session but `keepSessionId` (a password change on the account page, issue 21). */
    async signOutOtherSessionsIn(tx: SessionTx, tenantId: string, userId: string, keepSessionId: string): Promise<void> {
      await tx.sessions.removeAccountElsewhere(tenantId, userId, keepSessionId);
    },

    /** Ends a browser session: its cookie signs no one in any more (RP-initiated logout, issue 23). */
    async end(tenantId: string, sessionId: string): Promise<void> {
      await store.tx((tx) => tx.sessions.deleteSession(tenantId, sessionId));
    },

    async selectAccount(sessionId: string, userId: string): Promise<void> {
      await store.tx((tx) => tx.sessions.setActiveAccount(sessionId, userId));
    },

    csrfToken,

    /** Constant-time comparison of the hidden form field with the session's token. */
    checkCsrf(sessionToken: string, submitted: string | undefined): boolean {
      return typeof submitted === 'string' && safeEqual(csrfToken(sessionToken), submitted);
    },

    /** `account` when the user is already known and only consent is missing. */
    async openInteraction(tenantId: string, sessionId: string, request: PendingRequest, account?: { userId: string; authTime: number }): Promise<string> {
      const id = newSecret();
      const t = now();
      await store.tx((tx) =>
        tx.sessions.insertInteraction({
          idDigest: digest(id),
          tenantId,
          sessionId,
          request: JSON.stringify(request),
          userId: account?.userId ?? null,
          authTime: account?.authTime ?? null,
          mfaUserId: null,
          createdAt: t,
          expiresAt: t + INTERACTION_TTL,
        }),
      );
      return id;
    },

    /** The interaction only for the browser session that opened it, and only while fresh. */
    async loadInteraction(tenantId: string, id: string | undefined, sessionId: string): Promise<Interaction | undefined> {
      if (!id) return undefined;
      const row = await store.sessions.findInteraction(tenantId, digest(id));
      if (!row || row.expiresAt <= now() || !safeEqual(row.sessionId, sessionId)) return undefined;
      return { row, request: JSON.parse(row.request) as PendingRequest };
    },

    async authenticateInteraction(id: string, userId: string, authTime: number): Promise<void> {
      const idDigest = digest(id);
      await store.tx((tx) => tx.sessions.markInteractionAuthenticated(idDigest, userId, authTime));
    },

    /** The password was right and a second factor is needed: the interaction waits for it (issue 10). */
    async awaitSecondFactor(id: string, userId: string | null): Promise<void> {
      const idDigest = digest(id);
      await store.tx((tx) => tx.sessions.setInteractionMfaUser(idDigest, userId));
    },

    /** One-use: false if a concurrent submit already finished it. */
    async finishInteraction(id: string): Promise<boolean> {
      const idDigest = digest(id);
      return store.tx((tx) => tx.sessions.consumeInteraction(idDigest));
    },

    beginAttempt,

    /**
     * Counts a request for an emailed code from client address `ip` (spec 02 limits the resend
     * per address and purpose; this bounds how many inboxes one client can fill): the wait in
     * seconds when the address is locked (nothing counted), else 0 after counting it.
     */
    countMailRequest: (tenantId: string, ip: string): Promise<number> => countRequest(tenantId, 'mail', ip),

    /** Counts a device authorization started from `ip` (RFC 8628 §3.1), as countMailRequest counts mail. */
    countDeviceStart: (tenantId: string, ip: string): Promise<number> => countRequest(tenantId, 'deviceStart', ip),

    /** Counts an emailed code checked for `email`, across challenges and client addresses: the wait when the address is locked, else 0. */
    countCodeAttempt: (tenantId: string, email: string): Promise<number> => countRequest(tenantId, 'code', email),

    /** A right code: the email address's code budget starts again. */
    codeSucceeded: (tenantId: string, email: string): Promise<void> => store.tx((tx) => tx.sessions.clearThrottle(throttleKey(tenantId, 'code', email))),

    /**
     * A device user code typed from `ip` (RFC 8628 §5.1), after it was looked up (`found`): the
     * seconds the address must wait (the code, right or wrong, is then not used), else 0; a
     * wrong one is counted. Decided under the address's counter locked until the transaction
     * ends, so wrong codes sent in parallel are counted one after the other and the lock stops
     * them after THROTTLE.deviceFreeFailures.
     */
    async gateDeviceCode(tenantId: string, ip: string, found: boolean): Promise<number> {
      const t = now();
      const key = throttleKey(tenantId, 'device', ip);
      return store.tx(async (tx) => {
        const row = await tx.sessions.lockThrottle(key);
        const wait = lockRemaining(row, t);
        if (wait === 0 && !found) await tx.sessions.saveThrottle(afterFailure(row, key, 'device', t));
        return wait;
      });
    },

    attemptSucceeded,
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
