import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Identity tables. Timestamps shown to users are ISO strings (`*_at` text); instants compared
 * on hot paths (expiry) are epoch seconds (`*_at_s` / `expires_at` integer).
 */

export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  /** Path of the managed issuer under the public URL (`/t/<slug at creation>`); never changes. */
  managedPath: text('managed_path').notNull().unique(),
  /** Host-only custom issuer (`https://id.example.com`), or null. */
  customIssuer: text('custom_issuer').unique(),
  customHost: text('custom_host').unique(),
  status: text('status', { enum: ['ACTIVE', 'DISABLED'] }).notNull().default('ACTIVE'),
  registrationMode: text('registration_mode', { enum: ['CONTROLLED', 'SELF_SERVICE'] }).notNull().default('CONTROLLED'),
  isControl: integer('is_control').notNull().default(0),
  configurationManaged: integer('configuration_managed').notNull().default(0),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const signingKeys = pgTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    state: text('state', { enum: ['STAGED', 'ACTIVE', 'RETIRING', 'RETIRED', 'REVOKED'] }).notNull(),
    alg: text('alg').notNull().default('RS256'),
    /** Public JWK as JSON (kty, n, e). */
    publicJwk: text('public_jwk').notNull(),
    /** PKCS#8 PEM sealed with the master key (see platform/crypto Sealer). */
    privateSealed: text('private_sealed').notNull(),
    createdAt: text('created_at').notNull(),
    activatedAt: text('activated_at'),
    retiredAt: text('retired_at'),
    /** Epoch seconds after which a RETIRING key can no longer have valid tokens and becomes RETIRED. */
    retireAfter: bigint('retire_after', { mode: 'number' }),
    /**
     * Epoch seconds after which a STAGED key staged by `keys rotate` becomes ACTIVE (the JWKS cache
     * lifetime after its stage, issue 23), done by the leased job keys.activate-due; null otherwise.
     */
    activateAfter: bigint('activate_after', { mode: 'number' }),
  },
  (t) => [index('signing_keys_tenant_state').on(t.tenantId, t.state)],
);

export const resources = pgTable(
  'resources',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
    audience: text('audience').notNull(),
    /** JSON array of scope strings. */
    scopes: text('scopes').notNull(),
    status: text('status', { enum: ['ACTIVE', 'DISABLED'] }).notNull().default('ACTIVE'),
    /** Owned by `engage apply` or the control tenant's initialisation (migration 0012). */
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('resources_tenant_uri').on(t.tenantId, t.uri), uniqueIndex('resources_tenant_audience').on(t.tenantId, t.audience)],
);

export const clients = pgTable(
  'clients',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    displayName: text('display_name').notNull(),
    applicationType: text('application_type', { enum: ['WEB', 'NATIVE'] }).notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method', { enum: ['CLIENT_SECRET_BASIC', 'NONE'] }).notNull(),
    consentPolicy: text('consent_policy', { enum: ['EXPLICIT', 'PRE_AUTHORIZED'] }).notNull(),
    /** JSON arrays. */
    redirectUris: text('redirect_uris').notNull(),
    /**
     * JSON array of browser origins allowed to call the token, revocation and userinfo
     * endpoints with CORS; null means the origins of the redirect URIs (docs/decisions.md).
     */
    webOrigins: text('web_origins'),
    /** JSON array of URIs a relying party may be sent back to after RP-initiated logout (issue 23); null: none. */
    postLogoutRedirectUris: text('post_logout_redirect_uris'),
    /**
     * JSON array of the grants a client opted in to beyond spec 02's authorization_code and
     * refresh_token (issue 23): client_credentials, urn:ietf:params:oauth:grant-type:device_code; null: none.
     */
    grantTypes: text('grant_types'),
    scopes: text('scopes').notNull(),
    defaultResource: text('default_resource'),
    nativeAuthenticationEnabled: integer('native_authentication_enabled').notNull().default(0),
    /** SHA-256 digest of the client secret; null for public clients. */
    secretDigest: text('secret_digest'),
    status: text('status', { enum: ['ACTIVE', 'DISABLED'] }).notNull().default('ACTIVE'),
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.clientId] })],
);

/** Resource-server credentials (HTTP Basic at introspection and revoke-application-grants). */
export const resourceCredentials = pgTable(
  'resource_credentials',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    resourceId: text('resource_id').notNull().references(() => resources.id, { onDelete: 'cascade' }),
    secretDigest: text('secret_digest').notNull(),
    status: text('status', { enum: ['ACTIVE', 'REVOKED'] }).notNull().default('ACTIVE'),
    /** Owned by `engage apply` (migration 0012). */
    configurationManaged: integer('configuration_managed').notNull().default(0),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [index('resource_credentials_tenant').on(t.tenantId)],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** Tenant-local subject; stable, never reused. */
    subject: text('subject').notNull(),
    /** Lower-cased for lookups; unique per tenant. */
    email: text('email').notNull(),
    emailVerified: integer('email_verified').notNull().default(0),
    /** argon2id PHC string, or null for an account without a password. */
    passwordHash: text('password_hash'),
    status: text('status', { enum: ['ACTIVE', 'DISABLED'] }).notNull().default('ACTIVE'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * A password hash brought by an import (issue 12, identity/transfer/hashes), kept as imported
     * until the first sign-in verifies it and replaces it with an argon2id password_hash. Never
     * shown or logged.
     */
    importedPasswordHash: text('imported_password_hash'),
    importedPasswordFormat: text('imported_password_format'),
  },
  (t) => [
    uniqueIndex('users_tenant_subject').on(t.tenantId, t.subject),
    uniqueIndex('users_tenant_email').on(t.tenantId, t.email),
    // Exports page a tenant's users in creation order (identity/transfer).
    index('users_tenant_created').on(t.tenantId, t.createdAt, t.id),
    // A password check reads one of the tenant's imported hashes not yet re-hashed (issue 21):
    // only those rows are in the index, which empties as imported users sign in.
    index('users_tenant_imported').on(t.tenantId).where(sql`imported_password_hash IS NOT NULL`),
  ],
);

/**
 * A grant is one authorization of a client by a subject: the root of everything issued
 * from one authorization code (access tokens carry its id, refresh tokens hang off it).
 * Revoking the grant ends all of them at once.
 */
/*
 * Grants, authorization codes and refresh tokens have no foreign key to tenants here (migration
 * 0015), unlike on SQLite: each such key made every insert lock its tenant's row (FOR KEY SHARE),
 * so all of a tenant's token writes, from every process, contended on one row. They go with
 * their tenant all the same, through their users (grants, codes) and grants (refresh tokens),
 * whose foreign keys cascade from tenants.
 */
export const grants = pgTable(
  'grants',
  {
    id: text('id').primaryKey(),
    // No foreign key to tenants (migration 0015): see the note above grants.
    tenantId: text('tenant_id').notNull(),
    clientId: text('client_id').notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** Space-delimited scopes granted. */
    scope: text('scope').notNull(),
    /** Resource URI the grant's access tokens are for (or null: no API audience). */
    resource: text('resource'),
    authTime: bigint('auth_time', { mode: 'number' }).notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    /** When the last token of the grant (access or refresh) expires; moved on by each refresh. */
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('grants_subject_client').on(t.tenantId, t.userId, t.clientId), index('grants_expiry').on(t.expiresAt)],
);

export const authorizationCodes = pgTable(
  'authorization_codes',
  {
    /** SHA-256 digest of the code. */
    codeDigest: text('code_digest').primaryKey(),
    // No foreign key to tenants (migration 0015): see the note above grants.
    tenantId: text('tenant_id').notNull(),
    clientId: text('client_id').notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource'),
    nonce: text('nonce'),
    authTime: bigint('auth_time', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    /** Set when exchanged; a second exchange revokes this grant (RFC 6749 §4.1.2). */
    consumedAt: bigint('consumed_at', { mode: 'number' }),
    grantId: text('grant_id'),
    /** SHA-256 digest of the installation binding code the sign-in carried (issue 24); bound at the exchange. */
    bindingCodeDigest: text('binding_code_digest'),
  },
  // The minute sweep finds expired rows by index, a batch at a time (oauth/grants-service.ts).
  (t) => [index('authorization_codes_expiry').on(t.expiresAt)],
);

export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    tokenDigest: text('token_digest').primaryKey(),
    // No foreign key to tenants (migration 0015): see the note above grants.
    tenantId: text('tenant_id').notNull(),
    grantId: text('grant_id').notNull().references(() => grants.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    scope: text('scope').notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    /** Set when rotated; a later use past the grace window revokes the whole grant. */
    rotatedAt: bigint('rotated_at', { mode: 'number' }),
    /** Digest of the token that replaced this one (reuse inside the grace window retires it). */
    replacedBy: text('replaced_by'),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
  },
  (t) => [index('refresh_tokens_grant').on(t.grantId), index('refresh_tokens_expiry').on(t.expiresAt)],
);

/** Individually revoked access tokens (by jti) until they would have expired anyway. */
export const revokedAccessTokens = pgTable(
  'revoked_access_tokens',
  {
    jti: text('jti').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('revoked_access_tokens_expiry').on(t.expiresAt)],
);

/** Remembered consent per subject and client (EXPLICIT clients). */
export const consents = pgTable(
  'consents',
  {
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.clientId] })],
);

/**
 * Device authorization requests (RFC 8628, issue 23): the device code and the user code are kept
 * as digests. PENDING until the user approves in a browser (APPROVED, with the code of the
 * sign-in that approved it) or denies (DENIED); the token endpoint's answer for an APPROVED one
 * makes it CONSUMED, once.
 */
export const deviceAuthorizations = pgTable(
  'device_authorizations',
  {
    deviceCodeDigest: text('device_code_digest').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    userCodeDigest: text('user_code_digest').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource'),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'DENIED', 'CONSUMED'] }).notNull().default('PENDING'),
    /** Seconds the client must wait between polls; slow_down adds 5. */
    pollInterval: integer('poll_interval').notNull(),
    lastPolledAt: bigint('last_polled_at', { mode: 'number' }),
    /** Digest of the browser's verification state (cookie), bound at approval. */
    browserStateDigest: text('browser_state_digest'),
    /** Digest of the authorization code of the approving sign-in. */
    codeDigest: text('code_digest'),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('device_authorizations_user_code').on(t.tenantId, t.userCodeDigest), index('device_authorizations_expiry').on(t.expiresAt)],
);
