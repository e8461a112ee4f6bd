import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import type { EnvironmentService } from './service';
import type { EnvironmentOverview as EnvironmentOverviewService } from './overview';
import { EnvironmentCreate, EnvironmentUpdate } from './schemas';
import { adminActor } from '../admin/guards';
import { EngageAdminErrors } from '../admin/errors';
import { environmentView } from './views';

const { read, manage } = ENGAGE_ADMIN_API.scopes;

/** An environment as the administration API shows it. */
export const Environment = T.Object(
  {
    id: T.String({ format: 'uuid' }),
    name: T.String({ description: 'unique; also the suffix that narrows a permission to this environment (engage.admin.manage:<name>)' }),
    displayName: T.String({ description: 'shown to people; the name unless set' }),
    status: Enum(['ACTIVE', 'DISABLED', 'DELETING']),
    identityTenantId: Nullable(T.String({ format: 'uuid', description: 'the identity tenant whose user subjects are the external ids (docs/sign-in-binding.md)' })),
    configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
    createdAt: DateTime(),
  },
  { additionalProperties: false },
);
export const EnvironmentPage = pageOf(Environment);

const Count = () => T.Integer({ minimum: 0 });
const Window = T.Object(
  {
    operations: T.Object({ accepted: Count(), rejected: Count() }, { additionalProperties: false, description: 'operations received from installations, by outcome' }),
    sends: T.Integer({ minimum: 0, description: 'sends admitted (test sends not counted)' }),
    deliveries: T.Object(
      { PENDING: Count(), SENT: Count(), DELIVERED: Count(), OPENED: Count(), FAILED: Count(), EXPIRED: Count() },
      { additionalProperties: false, description: 'deliveries of those sends created in the window, by their state now' },
    ),
  },
  { additionalProperties: false },
);
const Minute = () => DateTime({ description: "the minute's start" });
/** The last 60 minutes minute by minute (issue 25: the console's charts), oldest first, the current minute last. */
const PerMinute = T.Object(
  {
    operations: T.Array(
      T.Object({ minute: Minute(), accepted: Count(), rejected: Count() }, { additionalProperties: false }),
      { minItems: 60, maxItems: 60, description: 'operations received from installations in each minute, by outcome' },
    ),
    deliveries: T.Array(
      T.Object(
        { minute: Minute(), PENDING: Count(), SENT: Count(), DELIVERED: Count(), OPENED: Count(), FAILED: Count(), EXPIRED: Count() },
        { additionalProperties: false },
      ),
      { minItems: 60, maxItems: 60, description: 'deliveries created in each minute (test sends not counted), by their state now' },
    ),
  },
  { additionalProperties: false, description: 'the last 60 minutes, every minute present (zeros when nothing happened)' },
);
/** The environment overview (issue 24 point 1; per minute: issue 25). */
export const EnvironmentOverview = T.Object(
  {
    environmentId: T.String({ format: 'uuid' }),
    at: DateTime(),
    installations: T.Object(
      {
        total: Count(),
        bound: T.Integer({ minimum: 0, description: 'installations bound to an external id' }),
        apps: T.Array(
          T.Object(
            {
              appId: T.String({ format: 'uuid' }),
              name: T.String(),
              platform: Enum(['IOS', 'ANDROID']),
              status: Enum(['ACTIVE', 'DISABLED']),
              installations: Count(),
              pushReady: T.Integer({ minimum: 0, description: 'installations a push may reach now: a token held, opted in, permission as messaging readiness requires, the app enabled' }),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    lastHour: Window,
    lastDay: Window,
    perMinute: PerMinute,
  },
  { additionalProperties: false },
);

export { environmentView };

/** The environments' administration routes (issue 24 point 1). */
export function environmentAdminRoutes(deps: {
  environments: EnvironmentService;
  /** The environment overview (environments/overview.ts), wired with the owning contexts' services. */
  overview?: EnvironmentOverviewService;
  /** Whether an identity tenant has this id: the composition knows the identity half (engage never imports it). */
  tenantExists?: (id: string) => Promise<boolean>;
}): EngageAdminRoutes {
  const { environments } = deps;
  const ref = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment\'s id or name' }) };
  return (admin, guard) => {
    admin.post('/environments', guard(manage), adminRoute(
      adminDoc('Create an environment (operators with the unscoped engage.admin.manage only)', {
        body: { schema: EnvironmentCreate },
        responses: { 201: { description: 'the environment', schema: Environment } },
        errors: { 400: 'invalid_request (a name that is no slug, an unknown identityTenantId)', 409: 'name_taken' },
      }),
      async (c, { body }) => c.json(environmentView(await environments.create(body, adminActor(c), { tenantExists: deps.tenantExists })), 201),
    ));
    admin.put('/environments/:environmentId', guard(manage), adminRoute(
      adminDoc('Change an environment: display name, identity tenant, status (ACTIVE or DISABLED)', {
        params: ref,
        body: { schema: EnvironmentUpdate },
        responses: { 200: { description: 'the environment as changed', schema: Environment } },
        errors: { 400: 'invalid_request', 409: 'configuration_managed, environment_deleting' },
      }),
      async (c, { body }) => {
        // Which identity tenant's users bind the environment's installations is beyond one environment: the unscoped permission only (an outside review).
        if (body.identityTenantId !== undefined && !c.get('unscoped')) throw EngageAdminErrors.accessDenied(`${manage} (unscoped, to set identityTenantId)`);
        return c.json(environmentView(await environments.update(c.get('environment').id, body, adminActor(c), { tenantExists: deps.tenantExists })));
      },
    ));
    admin.delete('/environments/:environmentId', guard(manage), adminRoute(
      adminDoc('Delete an environment: DELETING at once, every row of it erased by a durable job', {
        params: ref,
        responses: { 202: { description: 'the environment, DELETING; it is gone once GET answers 404', schema: Environment } },
        errors: { 409: 'configuration_managed, environment_deleting' },
      }),
      async (c) => c.json(environmentView(await environments.remove(c.get('environment').id, adminActor(c))), 202),
    ));
    const overview = deps.overview;
    if (overview)
      admin.get('/environments/:environmentId/overview', guard(read), adminRoute(
        adminDoc('An environment at a glance: installations, push readiness per app, operations, sends and deliveries of the last hour and day', {
          params: ref,
          responses: { 200: { description: 'the overview (test sends not counted)', schema: EnvironmentOverview } },
        }),
        async (c) => c.json(await overview(c.get('environment'))),
      ));
    admin.get('/environments', guard(read, 'listing'), adminRoute(
      adminDoc('List the environments the operator holds a permission on', { query: pageQuery, responses: { 200: { description: 'a page of environments, oldest first', schema: EnvironmentPage } }, errors: { 400: 'invalid_request (page query)' } }),
      async (c, { query }) => {
        const all = c.get('visibleEnvironments');
        const from = query.page * query.size;
        return c.json({ items: all.slice(from, from + query.size).map(environmentView), page: query.page, size: query.size, hasMore: all.length > from + query.size });
      },
    ));
    admin.get('/environments/:environmentId', guard(read), adminRoute(
      adminDoc('Read an environment (by id or name)', { params: { environmentId: T.String({ minLength: 1, maxLength: 100 }) }, responses: { 200: { description: 'the environment', schema: Environment } } }),
      async (c) => c.json(environmentView(c.get('environment'))),
    ));
  };
}
