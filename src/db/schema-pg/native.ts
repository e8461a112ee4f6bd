import { index, bigint, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenants } from './identity';

/**
 * The native authentication adapter's state (spec 02 "Native flow"): interactions, email
 * challenges (sign-in, registration, recovery) and registration/reset grants. Every secret
 * (interaction id, MFA challenge token, six-digit code, grant) is stored as a SHA-256 digest.
 * Instants are epoch seconds.
 */

/** An authorization request validated at POST /interactions, waiting for one proof flow. */
export const nativeInteractions = pgTable(
  'native_interactions',
  {
    idDigest: text('id_digest').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    /** The validated request as JSON (redirect URI, scopes, resource, state, nonce, PKCE challenge). */
    request: text('request').notNull(),
    /** The proof flow that claimed it (password, social, email); null until the first proof. */
    flow: text('flow'),
    /** OPEN, MFA (primary proof done, second factor pending) or DONE (code issued or ended). */
    state: text('state', { enum: ['OPEN', 'MFA', 'DONE'] }).notNull().default('OPEN'),
    userId: text('user_id'),
    authTime: bigint('auth_time', { mode: 'number' }),
    /** Digest of the MFA challenge token while state is MFA. */
    challengeDigest: text('challenge_digest'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('native_interactions_expiry').on(t.expiresAt)],
);

/** One live six-digit email challenge per tenant, purpose and address (the resend wait is per address). */
export const nativeChallenges = pgTable(
  'native_challenges',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** The interaction that asked for it; verification must name the same one. */
    interactionDigest: text('interaction_digest').notNull(),
    /** signin, registration or recovery. */
    purpose: text('purpose').notNull(),
    email: text('email').notNull(),
    /** The account it proves (sign-in, recovery); null for registration and for unknown addresses. */
    userId: text('user_id'),
    /** SHA-256 of `<id>:<code>`; a random value nobody knows when no code was sent. */
    codeDigest: text('code_digest').notNull(),
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    resendAfter: bigint('resend_after', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    consumedAt: bigint('consumed_at', { mode: 'number' }),
  },
  (t) => [uniqueIndex('native_challenges_address').on(t.tenantId, t.purpose, t.email), index('native_challenges_expiry').on(t.expiresAt)],
);

/** A registration or reset grant: one use, short-lived, never a token (spec 02). */
export const nativeGrants = pgTable(
  'native_grants',
  {
    grantDigest: text('grant_digest').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    interactionDigest: text('interaction_digest').notNull(),
    /** registration or reset. */
    purpose: text('purpose').notNull(),
    email: text('email').notNull(),
    userId: text('user_id'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    consumedAt: bigint('consumed_at', { mode: 'number' }),
  },
  (t) => [index('native_grants_expiry').on(t.expiresAt)],
);
