import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tenants } from './identity';

/**
 * Federations between tenants (issue 11 point 3, docs/decisions.md "Federations"): the source
 * tenant's users sign in at the target issuer through the source issuer, by OpenID Connect
 * brokering. Migration 0010 creates them by hand on both engines.
 */
export const federations = sqliteTable(
  'federations',
  {
    sourceTenantId: text('source_tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    targetTenantId: text('target_tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    /** The internal confidential client in the source tenant that the target signs in through. */
    clientId: text('client_id').notNull(),
    /** Its secret, sealed with the master key (bound to the two tenants). */
    clientSecretSealed: text('client_secret_sealed').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceTenantId, t.targetTenantId] }), index('federations_target').on(t.targetTenantId)],
);

/**
 * A brokered sign-in under way: the `state` sent to the source issuer (as a SHA-256 digest),
 * bound to the target's browser session and interaction. One use; ten minutes.
 */
export const federationLogins = sqliteTable(
  'federation_logins',
  {
    stateDigest: text('state_digest').primaryKey(),
    targetTenantId: text('target_tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    sourceTenantId: text('source_tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    interactionId: text('interaction_id').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('federation_logins_expiry').on(t.expiresAt)],
);
