import type { Clock } from '../../platform/clock';
import type { AuditTx } from '../audit';
import type { MailService } from '../../platform/mail/outbox';
import type { MailOutboxStore } from '../../platform/mail/store';
import type { TxRunner } from '../../platform/store/store';
import type { ClientService } from '../clients/service';
import type { SecondFactors } from '../mfa/port';
import type { OAuthTx } from '../oauth/context';
import type { OAuthService } from '../oauth/service';
import type { SessionService, SessionTx } from '../sessions/service';
import type { ResolvedTenant } from '../tenants/service';
import type { UserService, UserTx } from '../users/service';
import type { NativeStore } from './store';

/**
 * Social sign-in as the native adapter needs it (issue 10 part B provides `services.providers`):
 * verifies the upstream ID token and finds or creates the linked user, or throws a DomainError
 * whose code is the wire code (provider_unavailable, invalid_credentials, account_link_required,
 * email_verification_required, registration_closed).
 */
export interface SocialSignIn {
  signInWithIdToken(tenant: ResolvedTenant, input: { provider: string; idToken: string; nonce: string; audience: string }): Promise<{ userId: string }>;
}

/**
 * Spec 02 leaves these open (docs/decisions.md "Native authentication"). Seconds unless named.
 */
export const NATIVE_LIMITS = {
  /** An interaction lives this long: a registration (ten-minute challenge, five-minute grant) fits in it. */
  interactionSeconds: 30 * 60,
  /** Every emailed code (sign-in, registration, recovery): spec 02's ten minutes for registration, the same for the others. */
  codeSeconds: 10 * 60,
  /** Wrong guesses a code survives; the next request needs a new code. */
  codeAttempts: 5,
  /** The resend wait per address and purpose (retryAfterSeconds). */
  resendSeconds: 60,
  /** Spec 02: a registration grant is one use, five minutes; a reset grant five minutes. */
  registrationGrantSeconds: 5 * 60,
  resetGrantSeconds: 5 * 60,
} as const;

export type NativeStores = { native: NativeStore; mail: MailOutboxStore } & OAuthTx & UserTx & SessionTx & AuditTx;

export interface NativeDeps {
  store: NativeStores & TxRunner<NativeStores>;
  clock: Clock;
  clients: ClientService;
  users: UserService;
  oauth: OAuthService;
  sessions: SessionService;
  mail: MailService;
  mfa: SecondFactors;
  providers: SocialSignIn;
}

/** The validated authorization request an interaction keeps (what the code will be bound to). */
export interface NativeRequest {
  redirectUri: string;
  scope: string[];
  state: string;
  nonce: string | null;
  codeChallenge: string;
  resource: string | null;
  /** SHA-256 of the installation binding code the app passed (issue 24); never the code itself. */
  bindingCodeDigest?: string;
}

/** Spec 02 "Authorization code result". */
export interface CodeResult {
  code: string;
  state: string;
  issuer: string;
  redirectUri: string;
  replacementRecoveryCode: string | null;
}

export type ProofResult = CodeResult | { status: 'mfa_required'; challengeToken: string };

export interface Timers {
  retryAfterSeconds: number;
  expiresInSeconds: number;
}
