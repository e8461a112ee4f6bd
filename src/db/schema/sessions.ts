import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tenants, users } from './identity';

/**
 * Browser sign-in state of the authorization endpoint (spec 02): single sign-on sessions,
 * the accounts signed in to each, pending authorization requests between pages, and the
 * failed sign-in throttle. Instants are epoch seconds.
 */

/** One browser's session at one tenant. The cookie carries a 256-bit secret; only its digest is stored. */
export const browserSessions = sqliteTable(
  'browser_sessions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** SHA-256 digest of the cookie secret; replaced on every sign-in (session fixation). */
    tokenDigest: text('token_digest').notNull().unique(),
    /** The account used when the request does not ask to select one. */
    activeUserId: text('active_user_id'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('browser_sessions_expiry').on(t.expiresAt)],
);

/** Accounts signed in within one session (account selection), with when each authenticated. */
export const sessionAccounts = sqliteTable(
  'session_accounts',
  {
    sessionId: text('session_id').notNull().references(() => browserSessions.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** OIDC auth_time: the last time this account proved its password in this session. */
    authTime: integer('auth_time').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.userId] })],
);

/**
 * A validated authorization request waiting for the user between pages. The form carries
 * only the random id; everything else stays here so it cannot be altered in between.
 */
export const browserInteractions = sqliteTable(
  'browser_interactions',
  {
    /** SHA-256 digest of the random id sent in the form. */
    idDigest: text('id_digest').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** The browser session the interaction is bound to. */
    sessionId: text('session_id').notNull().references(() => browserSessions.id, { onDelete: 'cascade' }),
    /** The validated request as JSON. */
    request: text('request').notNull(),
    /** Set once the user authenticated or chose an account in this interaction. */
    userId: text('user_id'),
    authTime: integer('auth_time'),
    /** Password proven for this user, the second factor not yet (issue 10); the session is not signed in meanwhile. */
    mfaUserId: text('mfa_user_id'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('browser_interactions_expiry').on(t.expiresAt)],
);

/** Failed sign-in counters, keyed by `<tenant id>|email|<email>` or `<tenant id>|ip|<address>`. */
export const loginThrottle = sqliteTable('login_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  /** Last failure; counters older than the window are forgotten. */
  lastFailureAt: integer('last_failure_at').notNull(),
  lockedUntil: integer('locked_until').notNull().default(0),
});
