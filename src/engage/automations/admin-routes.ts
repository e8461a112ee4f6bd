/**
 * Automations on the engagement administration API (issue 28), under
 * `/environments/{environmentId}/automations` and `/environments/{environmentId}/automation-runs`:
 * thin handlers over the service the CLI and `engage apply` call (service.ts). An automation or a
 * run of another environment is unknown here (404). Edits and transitions take
 * `If-Match: "<version>"` (409 automation_version_conflict when the latest version moved on); a
 * read answers the version as its ETag. The API entry's key is answered by create and rotate-key
 * only, once: it is stored as a digest and never read back, audited or listed.
 */
import type { Context } from 'hono';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageQuery } from '../../platform/http/pagination';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor, type EngageAdminEnv } from '../admin/guards';
import * as S from './admin-schemas';
import type { AutomationService, EditOptions } from './service';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const AUTOMATION = { ...ENV, automationKey: S.AutomationKeyPath };
const RUN = { ...ENV, runId: S.RunIdPath };
const IF_MATCH = {
  'If-Match': {
    schema: T.String({ pattern: '^(\\*|"[1-9][0-9]{0,8}")$', description: '"<version>" (the ETag of a read), or *' }),
    description: 'apply only while the automation’s latest version is this one (409 automation_version_conflict otherwise)',
  },
};
const ETAG = { ETag: 'the automation’s latest version, quoted: send it back in If-Match' };
const NOT_FOUND = 'automation_not_found';
const WRITE_409 = 'automation_version_conflict, automation_status_conflict, configuration_managed';

const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
/** `If-Match: "7"` → 7; `*` or none → no condition. */
const expected = (h: string | undefined): EditOptions => (h === undefined || h === '*' ? {} : { expectedVersion: Number(h.slice(1, -1)) });
const withTag = <V extends { version: number }>(c: Context<EngageAdminEnv>, v: V, status: 200 | 201 = 200, changed?: boolean) => {
  c.header('ETag', `"${v.version}"`);
  return c.json(changed === undefined ? v : { ...v, changed }, status);
};

const TRANSITIONS = {
  publish: ['Publish a DRAFT automation: its latest version, checked (graph, placeholders, templates, messages), is the one runs enter; it is ACTIVE', 'automation_version_conflict, automation_status_conflict (PAUSED: resume it; ARCHIVED), configuration_managed'],
  pause: ['Pause an ACTIVE automation: no new runs; runs under way are held at their next step', WRITE_409],
  resume: ['Resume a PAUSED automation: it takes runs again, and held runs continue where they were', WRITE_409],
  archive: ['Archive an automation for good: its runs under way are cancelled; its runs stay readable', 'automation_version_conflict, configuration_managed'],
} as const;

export function automationAdminRoutes(deps: { automations: AutomationService }): EngageAdminRoutes {
  const { automations } = deps;
  return (admin, guard) => {
    const base = '/environments/:environmentId/automations';
    const one = `${base}/:automationKey`;
    const runs = '/environments/:environmentId/automation-runs/:runId';

    admin.get(base, guard(read), adminRoute(
      adminDoc('List the automations of an environment, by key', {
        params: ENV, query: { ...pageQuery, status: { schema: S.AutomationStatusQuery, description: 'only those of this status (default: all)' } },
        responses: { 200: { description: 'a page of automations, by key', schema: S.AutomationPage } }, errors: { 400: BAD },
      }),
      async (c, { query }) => c.json(await automations.page(envId(c), { page: query.page, size: query.size }, query.status)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create an automation from an automation file: version 1, DRAFT until published (docs/automations.md). With an api entry, the answer holds its automationApiKey, this once', {
        params: ENV, body: { schema: S.AutomationFile, example: S.AUTOMATION_EXAMPLE },
        responses: { 201: { description: 'the automation (and its automationApiKey once)', schema: S.AutomationDetail, headers: ETAG } },
        errors: { 400: BAD, 409: 'automation_exists' },
      }),
      async (c, { body }) => withTag(c, await automations.create({ environment: envId(c), file: body }, adminActor(c)), 201),
    ));
    admin.get(one, guard(read), adminRoute(
      adminDoc('Read an automation: its latest version, its runs counted by status and its steps’ executions by step and status', {
        params: AUTOMATION, responses: { 200: { description: 'the automation', schema: S.AutomationDetail, headers: ETAG } }, errors: { 400: BAD, 404: NOT_FOUND },
      }),
      async (c, { params }) => withTag(c, await automations.show(envId(c), params.automationKey)),
    ));
    admin.put(one, guard(manage), adminRoute(
      adminDoc('Edit an automation from the automation file: a DRAFT keeps it as its draft; an ACTIVE or PAUSED one publishes it as a new version at once (checked as at publish), runs under way staying on theirs. A file equal to the latest version makes none', {
        params: AUTOMATION, headers: IF_MATCH, body: { schema: S.AutomationUpdate, example: S.AUTOMATION_EXAMPLE },
        responses: { 200: { description: 'the automation, and whether it changed', schema: S.AutomationDetail, headers: ETAG } },
        errors: { 400: BAD, 404: NOT_FOUND, 409: WRITE_409 },
      }),
      async (c, { params, headers, body }) => {
        const out = await automations.update({ environment: envId(c), key: params.automationKey, file: body }, adminActor(c), expected(headers['If-Match']));
        return withTag(c, out.view, 200, out.changed);
      },
    ));
    for (const verb of ['publish', 'pause', 'resume', 'archive'] as const) {
      const [summary, conflicts] = TRANSITIONS[verb];
      admin.post(`${one}/${verb}`, guard(manage), adminRoute(
        adminDoc(summary, {
          params: AUTOMATION, headers: IF_MATCH,
          responses: { 200: { description: 'the automation, and whether it changed (false: it already was)', schema: S.AutomationDetail, headers: ETAG } },
          errors: { 400: BAD, 404: NOT_FOUND, 409: conflicts },
        }),
        async (c, { params, headers }) => {
          const out = await automations[verb](envId(c), params.automationKey, adminActor(c), expected(headers['If-Match']));
          return withTag(c, out.view, 200, out.changed);
        },
      ));
    }
    admin.post(`${one}/rotate-key`, guard(manage), adminRoute(
      adminDoc('Make a new automationApiKey for the automation’s api entry: the previous key stops working at once; the new one is answered this once', {
        params: AUTOMATION,
        responses: { 200: { description: 'the new key', schema: S.AutomationKeyAnswer } },
        errors: { 400: BAD, 404: NOT_FOUND, 409: 'automation_status_conflict (the automation has no api entry)' },
      }),
      // engage apply never manages the key: a declared (configuration-managed) automation's key is obtained here.
      async (c, { params }) => c.json(await automations.rotateKey(envId(c), params.automationKey, adminActor(c), { allowManaged: true })),
    ));
    admin.get(`${one}/runs`, guard(read), adminRoute(
      adminDoc('List an automation’s runs, newest first', {
        params: AUTOMATION,
        query: { ...pageQuery, status: { schema: S.RunStatusQuery, description: 'only runs of this status' }, profileId: { schema: S.ProfileIdQuery, description: 'only runs of this profile' } },
        responses: { 200: { description: 'a page of runs, newest first', schema: S.RunPage } }, errors: { 400: BAD, 404: NOT_FOUND },
      }),
      async (c, { params, query }) =>
        c.json(await automations.runs(envId(c), params.automationKey, { page: query.page, size: query.size }, { status: query.status, profileId: query.profileId })),
    ));
    admin.get(runs, guard(read), adminRoute(
      adminDoc('Read a run with its timeline: each step’s execution, its status, attempts, error and output', {
        params: RUN, responses: { 200: { description: 'the run', schema: S.RunDetail } }, errors: { 400: BAD, 404: 'run_not_found' },
      }),
      async (c, { params }) => c.json(await automations.run(envId(c), params.runId)),
    ));
    admin.post(`${runs}/cancel`, guard(manage), adminRoute(
      adminDoc('Cancel a run under way: it is CANCELLED and executes no further step', {
        params: RUN, responses: { 200: { description: 'the run', schema: S.RunDetail } }, errors: { 400: BAD, 404: 'run_not_found', 409: 'run_ended' },
      }),
      async (c, { params }) => c.json(await automations.cancelRun(envId(c), params.runId, adminActor(c))),
    ));
  };
}
