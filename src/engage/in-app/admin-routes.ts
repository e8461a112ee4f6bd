/**
 * In-app messages on the engagement administration API (issue 27), under
 * `/environments/{environmentId}/in-app-messages`: thin handlers over the service the CLI and
 * `engage apply` call (service.ts). A message of another environment is unknown here (404
 * message_not_found). Edits and transitions take `If-Match: "<version>"` (409
 * message_version_conflict when the latest edit moved on); a read answers the version as its ETag.
 */
import type { Context } from 'hono';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageQuery } from '../../platform/http/pagination';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor, type EngageAdminEnv } from '../admin/guards';
import * as S from './admin-schemas';
import { RESULT_DAYS, type EditOptions, type InAppService, type MessageView } from './service';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const MESSAGE = { ...ENV, messageKey: S.MessageKeyPath };
const IF_MATCH = {
  'If-Match': {
    schema: T.String({ pattern: '^(\\*|"[1-9][0-9]{0,8}")$', description: '"<version>" (the ETag of a read), or *' }),
    description: 'apply only while the message’s latest edit is this version (409 message_version_conflict otherwise)',
  },
};
const ETAG = { ETag: 'the message’s version (its latest edit), quoted: send it back in If-Match' };
const WRITE_409 = 'message_version_conflict, message_status_conflict, configuration_managed';

const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
/** `If-Match: "7"` → 7; `*` or none → no condition. */
const expected = (h: string | undefined): EditOptions => (h === undefined || h === '*' ? {} : { expectedVersion: Number(h.slice(1, -1)) });
const withTag = (c: Context<EngageAdminEnv>, v: MessageView, status: 200 | 201 = 200, changed?: boolean) => {
  c.header('ETag', `"${v.version}"`);
  return c.json(changed === undefined ? v : { ...v, changed }, status);
};

const TRANSITIONS = {
  publish: 'Publish an in-app message: devices get its latest edit (from DRAFT, from ACTIVE with an edit pending, or from PAUSED to resume it)',
  pause: 'Pause an ACTIVE in-app message: devices get a tombstone at their next sync; publish resumes it',
  archive: 'Archive an in-app message for good: devices get a tombstone; its results stay readable',
} as const;

export function inAppAdminRoutes(deps: { inApp: InAppService }): EngageAdminRoutes {
  const { inApp } = deps;
  return (admin, guard) => {
    const base = '/environments/:environmentId/in-app-messages';
    const one = `${base}/:messageKey`;

    admin.get(base, guard(read), adminRoute(
      adminDoc('List the in-app messages of an environment, by key', {
        params: ENV, query: { ...pageQuery, status: { schema: S.MessageStatusQuery, description: 'only those of this status (default: all)' } },
        responses: { 200: { description: 'a page of messages, by key', schema: S.MessagePage } }, errors: { 400: BAD },
      }),
      async (c, { query }) => c.json(await inApp.page(envId(c), { page: query.page, size: query.size }, query.status)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create an in-app message from a message file: version 1, DRAFT until published (docs/in-app.md)', {
        params: ENV, body: { schema: S.MessageFile, example: S.MESSAGE_EXAMPLE },
        responses: { 201: { description: 'the message', schema: S.MessageDetail, headers: ETAG } },
        errors: { 400: BAD, 409: 'message_exists' },
      }),
      async (c, { body }) => withTag(c, await inApp.create({ environment: envId(c), file: body }, adminActor(c)), 201),
    ));
    admin.get(one, guard(read), adminRoute(
      adminDoc('Read an in-app message: its latest edit and the version devices are served', {
        params: MESSAGE, responses: { 200: { description: 'the message', schema: S.MessageDetail, headers: ETAG } }, errors: { 400: BAD, 404: 'message_not_found' },
      }),
      async (c, { params }) => withTag(c, await inApp.show(envId(c), params.messageKey)),
    ));
    admin.put(one, guard(manage), adminRoute(
      adminDoc('Edit an in-app message: its next version from the message file, which devices get once published (a file equal to the latest edit makes none)', {
        params: MESSAGE, headers: IF_MATCH, body: { schema: S.MessageUpdate, example: S.MESSAGE_EXAMPLE },
        responses: { 200: { description: 'the message, and whether it changed', schema: S.MessageDetail, headers: ETAG } },
        errors: { 400: BAD, 404: 'message_not_found', 409: WRITE_409 },
      }),
      async (c, { params, headers, body }) => {
        const out = await inApp.update({ environment: envId(c), key: params.messageKey, file: body }, adminActor(c), expected(headers['If-Match']));
        return withTag(c, out.view, 200, out.changed);
      },
    ));
    for (const verb of ['publish', 'pause', 'archive'] as const) {
      admin.post(`${one}/${verb}`, guard(manage), adminRoute(
        adminDoc(TRANSITIONS[verb], {
          params: MESSAGE, headers: IF_MATCH,
          responses: { 200: { description: 'the message, and whether it changed (false: it already was)', schema: S.MessageDetail, headers: ETAG } },
          errors: { 400: BAD, 404: 'message_not_found', 409: WRITE_409 },
        }),
        async (c, { params, headers }) => {
          const out = await inApp[verb](envId(c), params.messageKey, adminActor(c), expected(headers['If-Match']));
          return withTag(c, out.view, 200, out.changed);
        },
      ));
    }
    admin.get(`${one}/results`, guard(read), adminRoute(
      adminDoc('Count an in-app message’s interactions (INTERACTION_TRACKED) per variant and type over the last days, with the daily series', {
        params: MESSAGE, query: { days: { schema: S.ResultDaysQuery, description: `days back, today included (1 to ${RESULT_DAYS.max}, default ${RESULT_DAYS.default})` } },
        responses: { 200: { description: 'the counts', schema: S.MessageResults } }, errors: { 400: BAD, 404: 'message_not_found' },
      }),
      async (c, { params, query }) => c.json(await inApp.results(envId(c), params.messageKey, query.days === undefined ? RESULT_DAYS.default : Number(query.days))),
    ));
  };
}
