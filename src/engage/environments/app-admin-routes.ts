/**
 * Apps, their provider credentials and access keys on the engagement administration API (issue
 * 24 points 2 and 3), under `/environments/{environmentId}`: thin handlers over the services the
 * CLI calls (service.ts, messaging/credentials.ts). An id of another environment's app or key is
 * unknown here (404). Keys are shown once, at creation and rotation; provider keys never.
 */
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, Strict, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor } from '../admin/guards';
import type { CredentialService } from '../messaging/credentials';
import type { EnvironmentService } from './service';
import { APP_STATUSES, AppUpdate, BundleId, MAX_ROTATION_OVERLAP_SECONDS, PLATFORMS } from './schemas';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const Ref = (description: string) => T.String({ minLength: 1, maxLength: 200, description });
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const APP = { ...ENV, appId: Ref('the app id, public app key or name') };
const KEY = { ...ENV, keyId: Ref('the access key id') };
const PROVIDER = { ...APP, provider: Enum(['apns', 'fcm'], { description: 'the push provider' }) };
const Name = T.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' });

export const App = T.Object(
  {
    id: T.String(),
    environmentId: T.String(),
    platform: Enum(PLATFORMS),
    name: T.String({ description: 'unique in the environment' }),
    appKey: T.String({ description: 'the public app key (svc_app_...) the SDK bootstraps with: not a secret' }),
    status: Enum(APP_STATUSES, { description: 'a DISABLED app bootstraps nothing and its installations get 401' }),
    bundleId: Nullable(T.String({ description: 'the iOS bundle id or Android package name' })),
    configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
    createdAt: DateTime(),
  },
  { additionalProperties: false },
);
export const AppCreateBody = Strict({ platform: Enum(PLATFORMS), name: Name, bundleId: T.Optional(BundleId()) });

export const Credentials = T.Object(
  {
    appId: T.String(),
    provider: Enum(['APNS', 'FCM']),
    keyId: T.Optional(T.String({ description: 'APNs: the key id of the .p8 key' })),
    teamId: T.Optional(T.String({ description: 'APNs: the Apple developer team id' })),
    topic: T.Optional(T.String({ description: 'APNs: the bundle id (apns-topic)' })),
    sandbox: T.Optional(T.Boolean({ description: 'APNs: pushes go to the sandbox (development builds)' })),
    projectId: T.Optional(T.String({ description: 'FCM: the Firebase project' })),
    clientEmail: T.Optional(T.String({ description: "FCM: the service account's client email" })),
    tokenUri: T.Optional(T.String({ description: "FCM: the service account's token endpoint" })),
    fingerprint: T.String({ description: 'SHA-256 of the public key (SubjectPublicKeyInfo DER), hex: never the key' }),
    updatedAt: DateTime(),
  },
  { additionalProperties: false },
);
const CheckResult = T.Object(
  {
    ok: T.Boolean({ description: 'the provider accepted the credentials' }),
    status: T.Optional(T.Integer({ description: "the provider's HTTP status (absent when it could not be reached)" })),
    reason: T.Optional(T.String({ description: "the provider's reason (BadDeviceToken, InvalidProviderToken, invalid_grant) or the transport error" })),
    checkedAt: DateTime(),
  },
  { additionalProperties: false },
);
export const CredentialCheck = T.Object({ ...Credentials.properties, check: CheckResult }, { additionalProperties: false });
const ApnsBody = Strict({
  keyId: T.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the key id (10 characters at Apple)' }),
  teamId: T.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the Apple developer team id' }),
  topic: T.String({ minLength: 1, maxLength: 255, description: 'the bundle id (apns-topic)' }),
  sandbox: T.Optional(T.Boolean({ description: 'use the APNs sandbox (development builds); default false' })),
  privateKey: T.String({ minLength: 1, maxLength: 16384, description: 'the .p8 file: an EC P-256 private key in PEM' }),
});
const FcmBody = Strict({
  serviceAccount: T.Record(T.String(), T.Unknown(), { description: 'the Google service-account JSON key file, as an object' }),
});

const keyProps = {
  id: T.String(),
  environmentId: T.String(),
  name: Nullable(T.String()),
  appIds: T.Array(T.String(), { description: 'the apps the key may act for' }),
  status: Enum(['ACTIVE', 'REVOKED']),
  createdAt: DateTime(),
  rotatedAt: Nullable(DateTime()),
  revokedAt: Nullable(DateTime()),
  prefix: T.String({ description: 'svc_key_' }),
  keyHint: Nullable(T.String({ description: 'the last four characters of the current secret' })),
  expiresAt: Nullable(DateTime({ description: 'when the key stops working; null: never' })),
  previousExpiresAt: Nullable(DateTime({ description: "during a rotation's overlap: when the previous secret stops working" })),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
};
export const AccessKey = T.Object(keyProps, { additionalProperties: false });
export const AccessKeyWithSecret = T.Object(
  { ...keyProps, key: T.String({ description: 'the key (svc_key_...): shown this once, stored as a digest' }) },
  { additionalProperties: false },
);
const AccessKeyCreateBody = Strict({
  name: T.Optional(Name),
  apps: T.Array(Ref('an app id or name'), { minItems: 1, maxItems: 100, description: 'the apps the key may act for (at least one)' }),
  expiresAt: T.Optional(DateTime({ description: 'when the key stops working (absent: never); in the future' })),
});
const RotationBody = Strict({
  overlapSeconds: T.Optional(
    T.Integer({ minimum: 0, maximum: MAX_ROTATION_OVERLAP_SECONDS, description: 'how long the previous secret keeps working: 0 (default, at once) to 604800 (7 days)' }),
  ),
});

const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
const slice = <I>(all: I[], q: { page: number; size: number }) => {
  const from = q.page * q.size;
  return { items: all.slice(from, from + q.size), page: q.page, size: q.size, hasMore: all.length > from + q.size };
};
const providerOf = (p: 'apns' | 'fcm') => (p === 'apns' ? 'APNS' : 'FCM') as 'APNS' | 'FCM';

/** Apps and their provider credentials (issue 24 point 2). */
export function appAdminRoutes(deps: { environments: EnvironmentService; credentials: CredentialService }): EngageAdminRoutes {
  const { environments, credentials } = deps;
  return (admin, guard) => {
    const base = '/environments/:environmentId/apps';
    admin.get(base, guard(read), adminRoute(
      adminDoc('List the apps of an environment', { params: ENV, query: pageQuery, responses: { 200: { description: 'a page of apps, oldest first', schema: pageOf(App) } }, errors: { 400: BAD } }),
      async (c, { query }) => c.json(slice(await environments.listApps(envId(c)), query)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create an app: its public app key is generated', {
        params: ENV, body: { schema: AppCreateBody }, responses: { 201: { description: 'the app', schema: App } }, errors: { 400: BAD, 409: 'name_taken' },
      }),
      async (c, { body }) => c.json(await environments.createApp({ environment: envId(c), ...body }, adminActor(c)), 201),
    ));
    admin.get(`${base}/:appId`, guard(read), adminRoute(
      adminDoc('Read an app (by id, public app key or name)', { params: APP, responses: { 200: { description: 'the app', schema: App } }, errors: { 400: BAD, 404: 'unknown_app' } }),
      async (c, { params }) => c.json(await environments.showApp(envId(c), params.appId)),
    ));
    admin.patch(`${base}/:appId`, guard(manage), adminRoute(
      adminDoc('Change an app: its name, bundle id (null clears it) or status (DISABLED: no bootstrap, its installations get 401)', {
        params: APP, body: { schema: AppUpdate }, responses: { 200: { description: 'the app', schema: App } },
        errors: { 400: BAD, 404: 'unknown_app', 409: 'name_taken, configuration_managed' },
      }),
      async (c, { params, body }) => c.json(await environments.updateApp(envId(c), params.appId, body, adminActor(c))),
    ));
    admin.delete(`${base}/:appId`, guard(manage), adminRoute(
      adminDoc('Delete an app that has no installations and no provider credentials (disable it otherwise)', {
        params: APP, responses: { 204: { description: 'empty body' } }, errors: { 400: BAD, 404: 'unknown_app', 409: 'app_in_use, configuration_managed' },
      }),
      async (c, { params }) => {
        await environments.deleteApp(envId(c), params.appId, adminActor(c));
        return c.body(null, 204);
      },
    ));

    // Provider credentials: sealed at rest, read back as metadata.
    admin.get(`${base}/:appId/credentials`, guard(read), adminRoute(
      adminDoc("An app's provider credentials as metadata (never a key)", {
        params: APP, responses: { 200: { description: 'APNs then FCM, those set', schema: T.Object({ items: T.Array(Credentials) }, { additionalProperties: false }) } },
        errors: { 400: BAD, 404: 'unknown_app' },
      }),
      async (c, { params }) => c.json({ items: await credentials.metadata({ app: params.appId, environment: envId(c) }) }),
    ));
    admin.put(`${base}/:appId/credentials/apns`, guard(manage), adminRoute(
      adminDoc('Set the APNs token-based credentials of an IOS app: the .p8 key is sealed at rest and never shown again', {
        params: APP, body: { schema: ApnsBody }, responses: { 200: { description: 'the credentials as metadata', schema: Credentials } },
        errors: { 400: 'invalid_request, invalid_credentials (not an EC P-256 key, not an IOS app)', 404: 'unknown_app', 409: 'configuration_managed' },
      }),
      async (c, { params, body }) =>
        c.json(await credentials.setApns({ app: params.appId, environment: envId(c), keyPem: body.privateKey, keyId: body.keyId, teamId: body.teamId, topic: body.topic, sandbox: body.sandbox ?? false }, adminActor(c))),
    ));
    admin.put(`${base}/:appId/credentials/fcm`, guard(manage), adminRoute(
      adminDoc('Set the FCM HTTP v1 credentials of an ANDROID app: the service-account key is sealed at rest and never shown again', {
        params: APP, body: { schema: FcmBody }, responses: { 200: { description: 'the credentials as metadata', schema: Credentials } },
        errors: { 400: 'invalid_request, invalid_credentials (missing fields, not an RSA key, not an ANDROID app)', 404: 'unknown_app', 409: 'configuration_managed' },
      }),
      async (c, { params, body }) => c.json(await credentials.setFcm({ app: params.appId, environment: envId(c), serviceAccount: body.serviceAccount }, adminActor(c))),
    ));
    admin.get(`${base}/:appId/credentials/:provider`, guard(read), adminRoute(
      adminDoc("An app's credentials of one provider as metadata", {
        params: PROVIDER, responses: { 200: { description: 'the credentials as metadata', schema: Credentials } }, errors: { 400: BAD, 404: 'unknown_app, credentials_not_found' },
      }),
      async (c, { params }) => c.json(await credentials.metadataOf({ app: params.appId, environment: envId(c), provider: providerOf(params.provider) })),
    ));
    admin.delete(`${base}/:appId/credentials/:provider`, guard(manage), adminRoute(
      adminDoc("Delete an app's credentials of one provider: its pushes to that provider fail until new ones are set", {
        params: PROVIDER, responses: { 204: { description: 'empty body' } }, errors: { 400: BAD, 404: 'unknown_app, credentials_not_found', 409: 'configuration_managed' },
      }),
      async (c, { params }) => {
        await credentials.remove({ app: params.appId, environment: envId(c), provider: providerOf(params.provider) }, adminActor(c));
        return c.body(null, 204);
      },
    ));
    admin.post(`${base}/:appId/credentials/:provider/check`, guard(manage), adminRoute(
      adminDoc("Ask the provider whether it accepts the credentials, without sending a push (FCM: a token from the token endpoint; APNs: a request to a device token that cannot exist)", {
        params: PROVIDER, responses: { 200: { description: "the credentials and the provider's answer (ok false when refused or unreachable)", schema: CredentialCheck } },
        errors: { 400: BAD, 404: 'unknown_app, credentials_not_found' },
      }),
      async (c, { params }) => c.json(await credentials.check({ app: params.appId, environment: envId(c), provider: providerOf(params.provider) })),
    ));
  };
}

/** Access keys (issue 24 point 3). */
export function accessKeyAdminRoutes(deps: { environments: EnvironmentService }): EngageAdminRoutes {
  const { environments } = deps;
  return (admin, guard) => {
    const base = '/environments/:environmentId/access-keys';
    admin.get(base, guard(read), adminRoute(
      adminDoc('List the access keys of an environment (a prefix and the last four characters, never the key)', {
        params: ENV, query: pageQuery, responses: { 200: { description: 'a page of access keys, oldest first', schema: pageOf(AccessKey) } }, errors: { 400: BAD },
      }),
      async (c, { query }) => c.json(slice(await environments.listAccessKeys(envId(c)), query)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create an access key for some apps; the key is shown in this answer only', {
        params: ENV, body: { schema: AccessKeyCreateBody }, responses: { 201: { description: 'the access key with its secret', schema: AccessKeyWithSecret } },
        errors: { 400: 'invalid_request (expiresAt in the past)', 404: 'unknown_app' },
      }),
      async (c, { body }) => c.json(await environments.createAccessKey({ environment: envId(c), ...body }, adminActor(c)), 201),
    ));
    admin.get(`${base}/:keyId`, guard(read), adminRoute(
      adminDoc('Read an access key (never the key)', { params: KEY, responses: { 200: { description: 'the access key', schema: AccessKey } }, errors: { 400: BAD, 404: 'unknown_access_key' } }),
      async (c, { params }) => c.json(await environments.showAccessKey(envId(c), params.keyId)),
    ));
    admin.post(`${base}/:keyId/rotation`, guard(manage), adminRoute(
      adminDoc('Rotate an access key: a new secret, shown in this answer only; the previous one keeps working for overlapSeconds (0: stops at once)', {
        params: KEY, body: { schema: RotationBody, required: false }, responses: { 200: { description: 'the access key with its new secret', schema: AccessKeyWithSecret } },
        errors: { 400: 'invalid_request (overlapSeconds out of 0..604800)', 404: 'unknown_access_key', 409: 'access_key_revoked, access_key_expired, configuration_managed, operation_conflict (rotated by another request at the same time)' },
      }),
      async (c, { params, body }) =>
        c.json(await environments.rotateAccessKey(params.keyId, adminActor(c), { environment: envId(c), overlapSeconds: body?.overlapSeconds ?? 0 })),
    ));
    admin.delete(`${base}/:keyId`, guard(manage), adminRoute(
      adminDoc('Revoke an access key: refused from the next request on, by every process (its current and previous secrets)', {
        params: KEY, responses: { 204: { description: 'empty body' } }, errors: { 400: BAD, 404: 'unknown_access_key', 409: 'configuration_managed' },
      }),
      async (c, { params }) => {
        await environments.revokeAccessKey(params.keyId, adminActor(c), { environment: envId(c) });
        return c.body(null, 204);
      },
    ));
  };
}
