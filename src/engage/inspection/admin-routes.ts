import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { EngageAdminErrors } from '../admin/errors';
import { oneQuery } from '../admin/query';
import type { InspectionService } from './service';
import type { createMessagingInspection } from '../messaging/inspection';
import { DELIVERY_STATES } from '../messaging/inspection';

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const { read } = ENGAGE_ADMIN_API.scopes;

const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const Id = (description: string) => T.String({ format: 'uuid', description });
const Values = T.Object({}, { additionalProperties: true, description: 'key to JSON value' });

/** A line of the installations page: never the push token, only whether one is held. */
export const InstallationLine = T.Object(
  {
    id: Id('the installation id'),
    appId: Id('its app'),
    platform: Enum(['IOS', 'ANDROID']),
    bindingState: Enum(['ANONYMOUS', 'BOUND']),
    generation: T.Integer({ minimum: 0 }),
    profileId: Id('the profile of its current generation'),
    privacy: Enum(['OPTED_IN', 'OPTED_OUT']),
    pushSubscription: Enum(['OPTED_IN', 'OPTED_OUT']),
    pushPermission: T.String(),
    pushTokenHeld: T.Boolean({ description: 'whether the installation holds a push token (the token is never shown)' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { additionalProperties: false },
);

export const InstallationKeysetPage = T.Object(
  {
    items: T.Array(InstallationLine),
    size: T.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE }),
    hasMore: T.Boolean(),
    next: Nullable(T.String({ description: 'pass as `after` for the next page; null on the last page' })),
  },
  { additionalProperties: false },
);

export const Installation = T.Object(
  {
    id: Id('the installation id'),
    environmentId: Id('its environment'),
    appId: Id('its app'),
    platform: Enum(['IOS', 'ANDROID']),
    locale: T.String(),
    timezone: T.String(),
    sdkVersion: T.String(),
    appVersion: T.String(),
    appBuild: Nullable(T.String()),
    deviceModel: Nullable(T.String()),
    osVersion: Nullable(T.String()),
    generation: T.Integer({ minimum: 0 }),
    bindingState: Enum(['ANONYMOUS', 'BOUND']),
    profileId: Id('the profile of the current generation'),
    externalId: Nullable(T.String({ description: 'the external id of that profile; null when anonymous' })),
    privacy: Enum(['OPTED_IN', 'OPTED_OUT']),
    pushSubscription: Enum(['OPTED_IN', 'OPTED_OUT']),
    pushPermission: T.String(),
    pushTokenHeld: T.Boolean({ description: 'whether a push token is held (never the token)' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    attributes: Values,
    subscriptions: T.Object({}, { additionalProperties: T.Boolean(), description: 'list to subscribed' }),
    generations: T.Array(
      T.Object(
        { generation: T.Integer({ minimum: 0 }), profileId: Id('the profile bound in it'), bindingState: Enum(['ANONYMOUS', 'BOUND']), committedAt: DateTime() },
        { additionalProperties: false },
      ),
      { description: 'the binding history, oldest first' },
    ),
    operations: T.Array(
      T.Object(
        {
          operationId: T.String(),
          generation: T.Integer({ minimum: 0 }),
          type: T.String(),
          status: Enum(['ACCEPTED', 'REJECTED']),
          occurredAt: Nullable(DateTime()),
          receivedAt: DateTime(),
        },
        { additionalProperties: false },
      ),
      { description: 'its last operations, newest first (no payload)' },
    ),
  },
  { additionalProperties: false },
);

export const Profile = T.Object(
  {
    id: Id('the profile id'),
    environmentId: Id('its environment'),
    externalId: Nullable(T.String({ description: 'null for an anonymous profile' })),
    state: Enum(['BOUND', 'UNBOUND'], { description: 'BOUND while an installation is bound to it' }),
    createdAt: DateTime(),
    attributes: Values,
    tags: T.Array(T.String()),
    subscriptions: T.Array(T.Object({ list: T.String(), channel: T.String(), subscribed: T.Boolean() }, { additionalProperties: false })),
    installations: T.Array(
      T.Object({ id: Id('an installation bound to it'), appId: Id('its app'), platform: Enum(['IOS', 'ANDROID']), generation: T.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

const SendLine = {
  id: Id('the send id'),
  templateId: Id('its template'),
  templateKey: Nullable(T.String()),
  templateVersion: T.Integer({ minimum: 1 }),
  recipient: T.Object({ type: T.String(), value: T.String() }, { additionalProperties: false }),
  accessKeyId: T.String({ description: 'the access key that sent it (a test send: the console)' }),
  isTest: T.Boolean({ description: 'a test send (TEST_GROUP): excluded from rate limits and counts' }),
  createdAt: DateTime(),
};
export const SendPage = pageOf(T.Object(SendLine, { additionalProperties: false }));
export const Send = T.Object(
  { ...SendLine, deliveries: T.Object({}, { additionalProperties: T.Integer({ minimum: 0 }), description: 'its deliveries counted by state' }) },
  { additionalProperties: false },
);
export const DeliveryPage = pageOf(
  T.Object(
    {
      id: Id('the delivery id'),
      sendId: Id('its send'),
      installationId: Id('its installation'),
      appId: Id('its app'),
      provider: Enum(['APNS', 'FCM']),
      state: Enum(DELIVERY_STATES),
      attempts: T.Integer({ minimum: 0 }),
      lastError: Nullable(T.String()),
      nextAttemptAt: Nullable(DateTime()),
      createdAt: DateTime(),
      sentAt: Nullable(DateTime()),
      deliveredAt: Nullable(DateTime()),
      openedAt: Nullable(DateTime()),
    },
    { additionalProperties: false, description: 'a delivery: never its push token' },
  ),
);

/**
 * Inspection through the engagement administration API (issue 24 point 5): installations,
 * profiles, sends and deliveries of the path's environment, read with `engage.admin.read`.
 * An id of another environment answers 404 as one that never existed.
 */
export function inspectionAdminRoutes(deps: { inspection: InspectionService; messaging: ReturnType<typeof createMessagingInspection>; }): EngageAdminRoutes {
  const { inspection, messaging } = deps;
  const one = oneQuery;
  const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
  return (admin, guard) => {
    admin.get('/environments/:environmentId/installations', guard(read), adminRoute(
      adminDoc('A page of the installations of the environment, in id order (keyset: pass the answer\'s next as after)', {
        params: ENV,
        query: {
          after: {
            schema: T.String({ format: 'uuid' }),
            description: 'the last id of the page before (its next); absent for the first page',
            // An installation id: anything else is a mistake to report, not an empty page (an outside review).
            read: (v: string[]) => {
              const after = one('after')(v);
              if (after !== undefined && !UUID_TEXT.test(after)) throw EngageAdminErrors.invalid('after: must be an installation id (a UUID), the next of the page before');
              return after;
            },
          },
          size: pageQuery.size,
        },
        responses: { 200: { description: 'a page of installations', schema: InstallationKeysetPage } },
        errors: { 400: 'invalid_request' },
      }),
      async (c, { query }) => c.json(await inspection.installationPage(envId(c), query.after, query.size ?? DEFAULT_PAGE_SIZE)),
    ));
    admin.get('/environments/:environmentId/installations/:installationId', guard(read), adminRoute(
      adminDoc('An installation: state, binding history, attributes, subscriptions, whether a push token is held, its last operations', {
        params: { ...ENV, installationId: Id('the installation id') },
        responses: { 200: { description: 'the installation', schema: Installation } },
        errors: { 400: 'invalid_request', 404: 'unknown_installation' },
      }),
      async (c, { params }) => c.json(await inspection.installationDetail(envId(c), params.installationId.toLowerCase())),
    ));
    admin.get('/environments/:environmentId/installations/:installationId/deliveries', guard(read), adminRoute(
      adminDoc('A page of the deliveries to an installation, newest first (never a push token): its timeline\'s pushes (issue 25)', {
        params: { ...ENV, installationId: Id('the installation id') },
        query: { ...pageQuery, state: { schema: Enum(DELIVERY_STATES), description: 'only deliveries in this state', read: one('state') } },
        responses: { 200: { description: 'a page of deliveries', schema: DeliveryPage } },
        errors: { 400: 'invalid_request', 404: 'unknown_installation' },
      }),
      async (c, { params, query }) => {
        const id = params.installationId.toLowerCase();
        await inspection.installationDetail(envId(c), id, 0); // unknown_installation when not the environment's
        return c.json(await messaging.deliveriesToInstallation(id, query.state, { page: query.page, size: query.size }));
      },
    ));
    admin.get('/environments/:environmentId/profiles/external/:externalId', guard(read), adminRoute(
      adminDoc('A profile by the external id it is bound to (percent-encoded)', {
        params: { ...ENV, externalId: T.String({ minLength: 1, maxLength: 255 }) },
        responses: { 200: { description: 'the profile', schema: Profile } },
        errors: { 400: 'invalid_request', 404: 'unknown_profile' },
      }),
      async (c, { params }) => c.json(await inspection.profileByExternalId(envId(c), params.externalId)),
    ));
    admin.get('/environments/:environmentId/profiles/:profileId', guard(read), adminRoute(
      adminDoc('A profile by its id: attributes, tags, subscriptions, its installations', {
        params: { ...ENV, profileId: Id('the profile id') },
        responses: { 200: { description: 'the profile', schema: Profile } },
        errors: { 400: 'invalid_request', 404: 'unknown_profile' },
      }),
      async (c, { params }) => c.json(await inspection.profileById(envId(c), params.profileId.toLowerCase())),
    ));
    admin.get('/environments/:environmentId/sends', guard(read), adminRoute(
      adminDoc('A page of the sends of the environment, newest first; filtered by template, test mark, delivery state, installation', {
        params: ENV,
        query: {
          ...pageQuery,
          template: { schema: T.String({ maxLength: 100 }), description: 'only sends of this template key', read: one('template') },
          test: { schema: Enum(['true', 'false']), description: 'only test sends (true) or only the others (false)', read: (v: string[]) => {
            const t = one('test')(v);
            if (t !== undefined && t !== 'true' && t !== 'false') throw EngageAdminErrors.invalid('test: must be true or false');
            return t === undefined ? undefined : t === 'true';
          } },
          state: { schema: Enum(DELIVERY_STATES), description: 'only sends with a delivery in this state', read: one('state') },
          installation: {
            schema: T.String({ format: 'uuid' }),
            description: 'only sends with a delivery to this installation (its id)',
            read: (v: string[]) => {
              const id = one('installation')(v);
              if (id !== undefined && !UUID_TEXT.test(id)) throw EngageAdminErrors.invalid('installation: must be an installation id (a UUID)');
              return id?.toLowerCase();
            },
          },
        },
        responses: { 200: { description: 'a page of sends', schema: SendPage } },
        errors: { 400: 'invalid_request' },
      }),
      async (c, { query }) => c.json(await messaging.pageSends(envId(c), { template: query.template, test: query.test, state: query.state, installation: query.installation }, { page: query.page, size: query.size })),
    ));
    admin.get('/environments/:environmentId/sends/:sendId', guard(read), adminRoute(
      adminDoc('A send with its deliveries counted by state', {
        params: { ...ENV, sendId: Id('the send id') },
        responses: { 200: { description: 'the send', schema: Send } },
        errors: { 400: 'invalid_request', 404: 'send_not_found' },
      }),
      async (c, { params }) => c.json(await messaging.sendOf(envId(c), params.sendId.toLowerCase())),
    ));
    admin.get('/environments/:environmentId/sends/:sendId/deliveries', guard(read), adminRoute(
      adminDoc('A page of the deliveries of a send, oldest first (never a push token)', {
        params: { ...ENV, sendId: Id('the send id') },
        query: { ...pageQuery, state: { schema: Enum(DELIVERY_STATES), description: 'only deliveries in this state', read: one('state') } },
        responses: { 200: { description: 'a page of deliveries', schema: DeliveryPage } },
        errors: { 400: 'invalid_request', 404: 'send_not_found' },
      }),
      async (c, { params, query }) => c.json(await messaging.deliveriesOf(envId(c), params.sendId.toLowerCase(), query.state, { page: query.page, size: query.size })),
    ));
  };
}
