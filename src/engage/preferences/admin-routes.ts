/**
 * Subscription lists on the engagement administration API (issue 26 PREFERENCES), under
 * `/environments/{environmentId}/lists`: thin handlers over the service the CLI calls. A list of
 * another environment is unknown here (404 list_not_found). A read answers the list's revision as
 * its ETag; an edit or a deletion takes it back in `If-Match` (409 list_version_conflict when the
 * list moved on), as flags do with their versions (src/engage/shared/if-match.ts).
 */
import type { Context } from 'hono';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Enum, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor, type EngageAdminEnv } from '../admin/guards';
import { etagOf, expectedRevisionOf, revisionETag, revisionIfMatch } from '../shared/if-match';
import { Key } from '../shared/schemas';
import { LIST_CHANNELS } from './read-store';
import { ListFile, ListUpdate } from './schemas';
import type { ListView, PreferenceService } from './service';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const LIST = { ...ENV, listKey: T.String({ minLength: 1, maxLength: 128, description: 'the list key' }) };
const EXAMPLE = { key: 'order-updates', displayName: 'Order updates', description: 'Shipping and delivery news', channels: ['PUSH', 'EMAIL'], defaultSubscribed: true, critical: false };

export const List = T.Object(
  {
    key: Key(),
    displayName: T.String(),
    description: T.Optional(T.String()),
    channels: T.Array(Enum(LIST_CHANNELS)),
    defaultSubscribed: T.Boolean({ description: 'subscribed when nobody chose' }),
    critical: T.Boolean({ description: 'nobody can leave it: never skipped by a send' }),
    environmentId: T.String(),
    revision: T.Integer({ description: 'the definitions revision of its last change' }),
    configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { additionalProperties: false },
);
const ListPage = pageOf(List);
const IF_MATCH = revisionIfMatch('list', 'list_version_conflict');
const ETAG = revisionETag('list');
const withTag = (c: Context<EngageAdminEnv>, v: ListView, status: 200 | 201 = 200) => {
  c.header('ETag', etagOf(v.revision));
  return c.json(v, status);
};

export function listAdminRoutes(deps: { lists: PreferenceService }): EngageAdminRoutes {
  const { lists } = deps;
  const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
  return (admin, guard) => {
    const base = '/environments/:environmentId/lists';
    admin.get(base, guard(read), adminRoute(
      adminDoc('List the subscription lists of an environment', { params: ENV, query: pageQuery, responses: { 200: { description: 'a page of lists, by key', schema: ListPage } }, errors: { 400: BAD } }),
      async (c, { query }) => c.json(await lists.page(envId(c), query)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create a subscription list (a deleted key is created anew)', {
        params: ENV, body: { schema: ListFile, example: EXAMPLE },
        responses: { 201: { description: 'the list', schema: List, headers: ETAG } },
        errors: { 400: BAD, 409: 'list_exists' },
      }),
      async (c, { body }) => withTag(c, await lists.create({ environment: envId(c), file: body }, adminActor(c)), 201),
    ));
    admin.get(`${base}/:listKey`, guard(read), adminRoute(
      adminDoc('Read a subscription list', { params: LIST, responses: { 200: { description: 'the list', schema: List, headers: ETAG } }, errors: { 400: BAD, 404: 'list_not_found' } }),
      async (c, { params }) => withTag(c, await lists.show(envId(c), params.listKey)),
    ));
    admin.put(`${base}/:listKey`, guard(manage), adminRoute(
      adminDoc('Replace a subscription list’s definition (the key cannot change; omitted optional fields take their defaults)', {
        params: LIST, headers: IF_MATCH, body: { schema: ListUpdate, example: EXAMPLE },
        responses: { 200: { description: 'the list', schema: List, headers: ETAG } },
        errors: { 400: BAD, 404: 'list_not_found', 409: 'list_version_conflict, configuration_managed' },
      }),
      async (c, { params, headers, body }) =>
        withTag(c, await lists.update({ environment: envId(c), key: params.listKey, file: body }, adminActor(c), { expectedRevision: expectedRevisionOf(headers['If-Match']) })),
    ));
    admin.delete(`${base}/:listKey`, guard(manage), adminRoute(
      adminDoc('Delete a subscription list: the SDKs get its tombstone; templates naming it send as if it named none', {
        params: LIST, headers: IF_MATCH, responses: { 204: { description: 'empty body' } }, errors: { 400: BAD, 404: 'list_not_found', 409: 'list_version_conflict, configuration_managed' },
      }),
      async (c, { params, headers }) => {
        await lists.delete(envId(c), params.listKey, adminActor(c), { expectedRevision: expectedRevisionOf(headers['If-Match']) });
        return c.body(null, 204);
      },
    ));
  };
}
