import { bigint, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenants, users } from './identity';

/**
 * Second factors and social identity providers (issue 10, docs/decisions.md "Second factors and
 * social providers"). Migration 0007 creates them by hand on both engines.
 */

/** A user's TOTP authenticator (RFC 6238). Pending until confirmed with a first code (activated_at set). */
export const userTotpFactors = pgTable('user_totp_factors', {
  userId: text('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  /** The base32 secret sealed with the master key (platform/crypto.ts Sealer), bound to the user. */
  secretSealed: text('secret_sealed').notNull(),
  /** The last accepted 30-second step: a code is accepted only for a later step (one use). */
  lastStep: bigint('last_step', { mode: 'number' }).notNull().default(0),
  createdAt: text('created_at').notNull(),
  activatedAt: text('activated_at'),
});

/** Single-use recovery codes, as SHA-256 digests bound to their user. */
export const userRecoveryCodes = pgTable(
  'user_recovery_codes',
  {
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    codeDigest: text('code_digest').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeDigest] })],
);

/** An OpenID Connect issuer a tenant accepts ID tokens from (`engage providers add`). */
export const identityProviders = pgTable(
  'identity_providers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    issuer: text('issuer').notNull(),
    /** JSON array of accepted `aud` values. */
    audiences: text('audiences').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('identity_providers_tenant_name').on(t.tenantId, t.name)],
);

/** An upstream identity (issuer, subject: OIDC Core 5.7) linked to a user of the tenant. */
export const userIdentities = pgTable(
  'user_identities',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** The provider's name when linked (for operators). */
    provider: text('provider').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.issuer, t.subject] }), index('user_identities_user').on(t.userId)],
);

/**
 * Upstream ID tokens already accepted by a social sign-in (issue 21): one row per token, keyed
 * by a SHA-256 digest of (issuer, jti), or of the token's signed part when it has no jti, kept
 * until the token can no longer be accepted (epoch seconds). The primary key makes a second use
 * fail its insert, in every process on the database. No personal data: digests only.
 */
export const upstreamTokenUses = pgTable(
  'upstream_token_uses',
  {
    digest: text('digest').primaryKey(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('upstream_token_uses_expiry').on(t.expiresAt)],
);
