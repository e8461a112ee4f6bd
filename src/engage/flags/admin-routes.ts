/**
 * Feature flags on the engagement administration API (issue 26), under
 * `/environments/{environmentId}/flags`: thin handlers over the services the CLI calls
 * (service.ts, schedules.ts). A flag of another environment is unknown here (404 flag_not_found).
 * Edits take `If-Match: "<version>"` (409 flag_version_conflict when the flag moved on), as
 * Firebase Remote Config's ETag; a flag's read answers its version as the ETag.
 */
import type { Context } from 'hono';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageQuery } from '../../platform/http/pagination';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor, type EngageAdminEnv } from '../admin/guards';
import * as S from './admin-schemas';
import type { FlagSchedules } from './schedules';
import type { EditOptions, FlagService, FlagView } from './service';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const BAD = 'invalid_request';
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const FLAG = { ...ENV, flagKey: S.FlagKeyPath };
const IF_MATCH = {
  'If-Match': {
    schema: T.String({ pattern: '^(\\*|"[1-9][0-9]{0,8}")$', description: '"<version>" (the ETag of a read), or *' }),
    description: 'apply only while the flag is at this version (409 flag_version_conflict otherwise)',
  },
};
const ETAG = { ETag: 'the flag’s version, quoted: send it back in If-Match' };
const WRITE_409 = 'flag_version_conflict, configuration_managed';
/** The request body example of create and update (docs/flags.md has the full format). */
const FLAG_EXAMPLE = {
  key: 'new-checkout',
  description: 'The new checkout flow',
  kind: 'BOOLEAN',
  variants: { on: true, off: false },
  defaultVariant: 'off',
  offVariant: 'off',
  bucketBy: 'profile-sticky',
  targetApps: ['shop-ios'],
  rules: [
    { conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }], rollout: { variants: [{ variant: 'on', weight: 1000 }, { variant: 'off', weight: 9000 }] } },
  ],
};

const envId = (c: { get(k: 'environment'): { id: string } }) => c.get('environment').id;
/** `If-Match: "7"` → 7; `*` or none → no condition. */
const expected = (h: string | undefined): EditOptions => (h === undefined || h === '*' ? { origin: 'API' } : { origin: 'API', expectedVersion: Number(h.slice(1, -1)) });
const withTag = (c: Context<EngageAdminEnv>, v: FlagView, status: 200 | 201 = 200, changed?: boolean) => {
  c.header('ETag', `"${v.version}"`);
  return c.json(changed === undefined ? v : { ...v, changed }, status);
};

export function flagAdminRoutes(deps: { flags: FlagService; schedules: FlagSchedules }): EngageAdminRoutes {
  const { flags, schedules } = deps;
  return (admin, guard) => {
    const base = '/environments/:environmentId/flags';
    const one = `${base}/:flagKey`;

    admin.get(base, guard(read), adminRoute(
      adminDoc('List the feature flags of an environment', { params: ENV, query: pageQuery, responses: { 200: { description: 'a page of flags, by key', schema: S.FlagPage } }, errors: { 400: BAD } }),
      async (c, { query }) => c.json(await flags.page(envId(c), query)),
    ));
    admin.post(base, guard(manage), adminRoute(
      adminDoc('Create a feature flag from a flag file: version 1, ACTIVE unless the file says otherwise (docs/flags.md)', {
        params: ENV, body: { schema: S.FlagFile, example: FLAG_EXAMPLE },
        responses: { 201: { description: 'the flag', schema: S.FlagDetail, headers: ETAG } },
        errors: { 400: BAD, 409: 'flag_exists' },
      }),
      async (c, { body }) => withTag(c, await flags.create({ environment: envId(c), file: body }, adminActor(c), { origin: 'API' }), 201),
    ));
    admin.get(one, guard(read), adminRoute(
      adminDoc('Read a feature flag with its current definition', {
        params: FLAG, responses: { 200: { description: 'the flag', schema: S.FlagDetail, headers: ETAG } }, errors: { 400: BAD, 404: 'flag_not_found' },
      }),
      async (c, { params }) => withTag(c, await flags.show(envId(c), params.flagKey)),
    ));
    admin.put(one, guard(manage), adminRoute(
      adminDoc('Edit a feature flag: its next version from the flag file (a file equal to the current definition makes none)', {
        params: FLAG, headers: IF_MATCH, body: { schema: S.FlagUpdate, example: FLAG_EXAMPLE },
        responses: { 200: { description: 'the flag, and whether it changed', schema: S.FlagDetail, headers: ETAG } },
        errors: { 400: BAD, 404: 'flag_not_found', 409: WRITE_409 },
      }),
      async (c, { params, headers, body }) => {
        const out = await flags.update({ environment: envId(c), key: params.flagKey, file: body }, adminActor(c), expected(headers['If-Match']));
        return withTag(c, out.view, 200, out.changed);
      },
    ));
    for (const verb of ['archive', 'restore'] as const) {
      admin.post(`${one}/${verb}`, guard(manage), adminRoute(
        adminDoc(verb === 'archive' ? 'Archive a feature flag (a new version): devices get a tombstone' : 'Restore an archived feature flag (a new version, ACTIVE, its definition as archived)', {
          params: FLAG, headers: IF_MATCH,
          responses: { 200: { description: 'the flag, and whether it changed', schema: S.FlagDetail, headers: ETAG } },
          errors: { 400: BAD, 404: 'flag_not_found', 409: WRITE_409 },
        }),
        async (c, { params, headers }) => {
          const out = await flags[verb](envId(c), params.flagKey, adminActor(c), expected(headers['If-Match']));
          return withTag(c, out.view, 200, out.changed);
        },
      ));
    }
    admin.post(`${one}/rollback`, guard(manage), adminRoute(
      adminDoc('Roll a feature flag back: a new version (origin ROLLBACK) whose definition is an earlier version’s', {
        params: FLAG, headers: IF_MATCH, body: { schema: S.RollbackRequest, example: { version: 3 } },
        responses: { 200: { description: 'the flag, and whether it changed', schema: S.FlagDetail, headers: ETAG } },
        errors: { 400: BAD, 404: 'flag_not_found, version_not_found', 409: WRITE_409 },
      }),
      async (c, { params, headers, body }) => {
        const out = await flags.rollback(envId(c), params.flagKey, body.version, adminActor(c), expected(headers['If-Match']));
        return withTag(c, out.view, 200, out.changed);
      },
    ));
    admin.get(`${one}/versions`, guard(read), adminRoute(
      adminDoc('List the versions of a feature flag, newest first', {
        params: FLAG, query: pageQuery, responses: { 200: { description: 'a page of versions', schema: S.FlagVersionPage } }, errors: { 400: BAD, 404: 'flag_not_found' },
      }),
      async (c, { params, query }) => c.json(await flags.versions(envId(c), params.flagKey, query)),
    ));
    admin.get(`${one}/versions/:version`, guard(read), adminRoute(
      adminDoc('Read one version of a feature flag with its definition', {
        params: { ...FLAG, version: S.FlagVersionPath }, responses: { 200: { description: 'the version', schema: S.FlagVersionDetail } },
        errors: { 400: BAD, 404: 'flag_not_found, version_not_found' },
      }),
      async (c, { params }) => c.json(await flags.version(envId(c), params.flagKey, Number(params.version))),
    ));

    // Scheduled changes.
    admin.post(`${one}/schedules`, guard(manage), adminRoute(
      adminDoc('Schedule changes of a feature flag: a definition at a time, or a rollout plan (one change per step)', {
        params: FLAG,
        body: { schema: S.ScheduleRequest, example: { rollout: { rule: 0, variant: 'on', steps: [{ at: '2027-03-01T09:00:00Z', percentage: 25 }, { at: '2027-03-02T09:00:00Z', percentage: 50 }, { at: '2027-03-03T09:00:00Z', percentage: 100 }] } } },
        responses: { 201: { description: 'the scheduled changes, by due time', schema: S.ScheduleList } },
        errors: { 400: BAD, 404: 'flag_not_found', 409: 'too_many_schedules, configuration_managed' },
      }),
      async (c, { params, body }) => c.json({ items: await schedules.schedule(envId(c), params.flagKey, body, adminActor(c)) }, 201),
    ));
    admin.get(`${one}/schedules`, guard(read), adminRoute(
      adminDoc('List the scheduled changes of a feature flag, by due time', {
        params: FLAG, query: { ...pageQuery, status: { schema: S.ScheduleStatusQuery, description: 'only those of this status (default: all)' } },
        responses: { 200: { description: 'a page of scheduled changes', schema: S.SchedulePage } }, errors: { 400: BAD, 404: 'flag_not_found' },
      }),
      async (c, { params, query }) => c.json(await schedules.list(envId(c), params.flagKey, query.status, { page: query.page, size: query.size })),
    ));
    admin.post(`${one}/schedules/:scheduleId/cancel`, guard(manage), adminRoute(
      adminDoc('Cancel a pending scheduled change', {
        params: { ...FLAG, scheduleId: S.ScheduleIdPath }, responses: { 200: { description: 'the change, CANCELLED', schema: S.Schedule } },
        errors: { 400: BAD, 404: 'flag_not_found, schedule_not_found', 409: 'schedule_not_pending, configuration_managed' },
      }),
      async (c, { params }) => c.json(await schedules.cancel(envId(c), params.flagKey, params.scheduleId, adminActor(c))),
    ));

    // Exposures.
    admin.get(`${one}/exposures`, guard(read), adminRoute(
      adminDoc('Count the exposures of a feature flag’s experiments per experiment, flag version and variant (FLAG_EXPOSED, once per installation per experiment version)', {
        params: FLAG, responses: { 200: { description: 'the counts', schema: S.Exposures } }, errors: { 400: BAD, 404: 'flag_not_found' },
      }),
      async (c, { params }) => c.json(await flags.exposures(envId(c), params.flagKey)),
    ));
  };
}
