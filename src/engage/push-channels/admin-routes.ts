/**
 * Push channels (ANDROID apps) and categories (IOS apps) on the engagement administration API
 * (issue 26 PUSH), under `/environments/{environmentId}/apps/{appId}/push-channels`: thin
 * handlers over the service the CLI calls. The app is named by id, public app key or name, as on
 * the app routes; another environment's app or channel is unknown here (404). A read answers the
 * channel's revision as its ETag; an edit or a deletion takes it back in `If-Match` (409
 * push_channel_version_conflict when it moved on; src/engage/shared/if-match.ts).
 */
import type { Context } from 'hono';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Strict, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor, type EngageAdminEnv } from '../admin/guards';
import { etagOf, expectedRevisionOf, revisionETag, revisionIfMatch } from '../shared/if-match';
import { FreeObject } from '../shared/schemas';
import { AndroidChannelFile, IosCategoryFile, PushChannelFile } from './schemas';
import type { PushChannelService, PushChannelView } from './service';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const APP = { ...ENV, appId: T.String({ minLength: 1, maxLength: 200, description: 'the app id, public app key or name' }) };
const CHANNEL = { ...APP, channelKey: T.String({ minLength: 1, maxLength: 128, description: 'the channel or category key' }) };
const EXAMPLE = { key: 'orders', kind: 'ANDROID_CHANNEL', name: 'Orders', description: 'Shipping and delivery', importance: 'HIGH', sound: 'chime' };
/** Checked by the service against the schema of the kind it names (a union's refusal would name no field). */
const Body = { schema: PushChannelFile, check: FreeObject(), example: EXAMPLE };
/** An update's body: the same, its key optional (it cannot change). */
const UpdateBody = {
  schema: T.Union([
    Strict({ ...AndroidChannelFile.properties, key: T.Optional(AndroidChannelFile.properties.key) }),
    Strict({ ...IosCategoryFile.properties, key: T.Optional(IosCategoryFile.properties.key) }),
  ]),
  check: FreeObject(),
  example: EXAMPLE,
};

const Meta = {
  environmentId: T.String(),
  appId: T.String(),
  revision: T.Integer({ description: 'the definitions revision of its last change' }),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
};
export const PushChannel = T.Union([
  T.Object({ ...AndroidChannelFile.properties, ...Meta }, { additionalProperties: false }),
  T.Object({ ...IosCategoryFile.properties, ...Meta }, { additionalProperties: false }),
]);
const PushChannelPage = pageOf(PushChannel);
const IF_MATCH = revisionIfMatch('channel or category', 'push_channel_version_conflict');
const ETAG = revisionETag('channel or category');
const withTag = (c: Context<EngageAdminEnv>, v: PushChannelView, status: 200 | 201 = 200) => {
  c.header('ETag', etagOf(v.revision));
  return c.json(v, status);
};

export function pushChannelAdminRoutes(deps: { pushChannels: PushChannelService }): EngageAdminRoutes {
  const { pushChannels } = deps;
  const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
  return (admin, guard) => {
    const base = '/environments/:environmentId/apps/:appId/push-channels';
    admin.get(base, guard(read), adminRoute(
      adminDoc('List the notification channels (ANDROID app) or categories (IOS app) of an app', {
        params: APP, query: pageQuery, responses: { 200: { description: 'a page of channels or categories, by key', schema: PushChannelPage } }, errors: { 400: BAD, 404: 'unknown_app' },
      }),
      async (c, { params, query }) => c.json(await pushChannels.page(envId(c), params.appId, query)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create a notification channel (ANDROID app) or category (IOS app); a deleted key is created anew', {
        params: APP, body: Body,
        responses: { 201: { description: 'the channel or category', schema: PushChannel, headers: ETAG } },
        errors: { 400: BAD, 404: 'unknown_app', 409: 'push_channel_exists' },
      }),
      async (c, { params, body }) => withTag(c, await pushChannels.create({ environment: envId(c), app: params.appId, file: body }, adminActor(c)), 201),
    ));
    admin.get(`${base}/:channelKey`, guard(read), adminRoute(
      adminDoc('Read a notification channel or category', {
        params: CHANNEL, responses: { 200: { description: 'the channel or category', schema: PushChannel, headers: ETAG } }, errors: { 400: BAD, 404: 'unknown_app, push_channel_not_found' },
      }),
      async (c, { params }) => withTag(c, await pushChannels.show(envId(c), params.appId, params.channelKey)),
    ));
    admin.put(`${base}/:channelKey`, guard(manage), adminRoute(
      adminDoc('Replace a notification channel’s or category’s definition (the key may be left out; it cannot change)', {
        params: CHANNEL, headers: IF_MATCH, body: UpdateBody,
        responses: { 200: { description: 'the channel or category', schema: PushChannel, headers: ETAG } },
        errors: { 400: BAD, 404: 'unknown_app, push_channel_not_found', 409: 'push_channel_version_conflict, configuration_managed' },
      }),
      async (c, { params, headers, body }) =>
        withTag(c, await pushChannels.update({ environment: envId(c), app: params.appId, key: params.channelKey, file: body }, adminActor(c), { expectedRevision: expectedRevisionOf(headers['If-Match']) })),
    ));
    admin.delete(`${base}/:channelKey`, guard(manage), adminRoute(
      adminDoc('Delete a notification channel or category: the SDKs get its tombstone', {
        params: CHANNEL, headers: IF_MATCH, responses: { 204: { description: 'empty body' } },
        errors: { 400: BAD, 404: 'unknown_app, push_channel_not_found', 409: 'push_channel_version_conflict, configuration_managed' },
      }),
      async (c, { params, headers }) => {
        await pushChannels.delete(envId(c), params.appId, params.channelKey, adminActor(c), { expectedRevision: expectedRevisionOf(headers['If-Match']) });
        return c.body(null, 204);
      },
    ));
  };
}
