/**
 * The management API's schemas (spec 03 "Management objects"): what its routes validate and
 * what the OpenAPI document publishes. Request bodies the CLI shares live with their context
 * (tenants, users, clients, resources schemas.ts) and are re-used here.
 */
import { DateTime, Enum, Nullable, Strict, T, Uuid, checker } from '../../platform/http/schema';
import { pageOf } from '../../platform/http/pagination';
import { Tenant, TenantCreate, TenantUpdate } from '../tenants/schemas';
import { Email, User, UserUpdate } from '../users/schemas';
import { ClientInput } from '../clients/schemas';
import { CredentialIssue, ResourceInput } from '../resources/schemas';

export { Tenant, TenantCreate, TenantUpdate, User, UserUpdate, ClientInput, CredentialIssue, ResourceInput };

/** The five scopes of the control tenant's `identity-admin-api` resource (spec 03 "Authentication"). */
export const ADMIN_SCOPES = {
  read: 'identity.admin.read',
  manage: 'identity.admin.manage',
  usersManage: 'identity.admin.users.manage',
  usersImport: 'identity.admin.users.import',
  usersExport: 'identity.admin.users.export',
} as const;
export type AdminScope = (typeof ADMIN_SCOPES)[keyof typeof ADMIN_SCOPES];

/** The audience of management API tokens (spec 03; contracts §3). */
export const ADMIN_AUDIENCE = 'identity-admin-api';
/** The management API's root under the control issuer. */
export const ADMIN_ROOT = '/identity/admin';

/** Spec 03 user create body over HTTP: email and emailVerified (a first password is the CLI's). */
export const AdminUserCreate = Strict({ email: Email(), emailVerified: T.Optional(T.Boolean()) });
export const checkAdminUserCreate = checker(AdminUserCreate);

/** POST …/users/{userId}/password (issue 23 point 6): the new password, under the registration policy (8 to 1024 characters). */
export const AdminPasswordSet = Strict({ password: T.String({ description: 'the new password: 8 to 1024 characters, never returned or logged' }) });
export const checkAdminPasswordSet = checker(AdminPasswordSet);

/** POST signing-keys: spec 03 shows no body; none, or an empty JSON object. */
export const KeyStage = Strict({});
export const checkKeyStage = checker(KeyStage);

export const Overview = T.Object({
  tenants: T.Integer({ minimum: 0 }),
  clients: T.Integer({ minimum: 0 }),
  resources: T.Integer({ minimum: 0 }),
  activeFederations: T.Integer({ minimum: 0 }),
});

export const Resource = T.Object({ uri: T.String(), audience: T.String(), status: Enum(['ACTIVE', 'DISABLED']), scopes: T.Array(T.String()) });

/** Client (list entry): the request fields plus status, createdAt, configurationManaged; never the secret. */
export const ClientEntry = T.Object({
  clientId: T.String(),
  displayName: T.String(),
  applicationType: Enum(['WEB', 'NATIVE']),
  tokenEndpointAuthMethod: Enum(['CLIENT_SECRET_BASIC', 'NONE']),
  consentPolicy: Enum(['EXPLICIT', 'PRE_AUTHORIZED']),
  redirectUris: T.Array(T.String()),
  scopes: T.Array(T.String()),
  defaultResource: Nullable(T.String()),
  nativeAuthenticationEnabled: T.Boolean(),
  webOrigins: Nullable(T.Array(T.String())),
  postLogoutRedirectUris: T.Array(T.String(), { description: 'an engage extension: where RP-initiated logout may return the browser (exact match)' }),
  grantTypes: T.Array(T.String(), { description: 'an engage extension: grants opted in to beyond authorization_code and refresh_token (client_credentials, urn:ietf:params:oauth:grant-type:device_code)' }),
  status: Enum(['ACTIVE', 'DISABLED']),
  createdAt: DateTime(),
  configurationManaged: T.Boolean(),
});

export const ClientIssuance = T.Object({
  clientId: T.String(),
  clientSecret: Nullable(T.String({ description: 'returned only at issuance; null for a public client and on an update that keeps the secret' })),
});

export const CredentialIssuance = T.Object({ credentialId: Uuid(), credentialSecret: T.String({ description: 'returned only at issuance' }) });
export const CredentialEntry = T.Object({ credentialId: Uuid(), resourceUri: T.String(), status: Enum(['ACTIVE', 'REVOKED']), createdAt: DateTime() });

export const SigningKeyEntry = T.Object({
  keyId: T.String(),
  state: Enum(['STAGED', 'ACTIVE', 'RETIRING', 'RETIRED', 'REVOKED']),
  createdAt: DateTime(),
  activatedAt: Nullable(DateTime()),
  retiredAt: Nullable(DateTime()),
});
export const StagedKey = T.Object({ keyId: T.String() });

export const AuditEvent = T.Object({
  id: Uuid(),
  tenantId: Nullable(Uuid({ description: 'null for an environment-wide event' })),
  environmentId: Nullable(Uuid({ description: 'the engagement environment the event is about (an engage extension); null for identity events' })),
  actorSubject: T.String({ description: 'the token subject, or os:<user> for the CLI' }),
  actorClientId: Nullable(T.String()),
  action: T.String({ description: 'dotted, past tense: tenant.updated, user.deleted, signing_key.activated, …' }),
  targetType: T.String(),
  targetId: T.String(),
  details: T.Record(T.String(), T.Unknown(), { description: 'what changed; never a secret' }),
  createdAt: DateTime(),
});

/** GET …/users/{userId}/second-factor: what an operator may know of a user's second factor (`engage users mfa show`), never a secret. */
export const SecondFactorStatus = T.Object({
  enrolled: T.Boolean({ description: 'a TOTP authenticator is active' }),
  enrolledAt: Nullable(DateTime({ description: 'when it was activated' })),
  pending: T.Boolean({ description: 'an enrolment was started and not confirmed with a first code' }),
  recoveryCodesLeft: T.Integer({ minimum: 0, description: 'unused recovery codes (0 when not enrolled)' }),
}, { additionalProperties: false });

export const TenantPage = pageOf(Tenant);
export const UserPage = pageOf(User);
export const ResourcePage = pageOf(Resource);
export const ClientPage = pageOf(ClientEntry);
export const CredentialPage = pageOf(CredentialEntry);
export const SigningKeyPage = pageOf(SigningKeyEntry);
export const AuditEventPage = pageOf(AuditEvent);

/** Path parameters. */
export const TenantIdParam = Uuid({ description: 'the tenant id' });
export const UserIdParam = Uuid({ description: 'the user id' });
export const ClientIdParam = T.String({ description: 'the client id' });
export const CredentialIdParam = Uuid({ description: 'the credential id' });
export const KeyIdParam = T.String({ description: 'the signing key id (kid)' });
