import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import type { EnvironmentService } from './service';
import type { EnvironmentRow } from './store';

const { read } = ENGAGE_ADMIN_API.scopes;

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

export const environmentView = (e: EnvironmentRow) => ({
  id: e.id,
  name: e.name,
  displayName: e.displayName ?? e.name,
  status: e.status,
  identityTenantId: e.identityTenantId ?? null,
  configurationManaged: e.configurationManaged === 1,
  createdAt: e.createdAt,
});

/** The environments' administration routes (issue 24 point 1). */
export function environmentAdminRoutes(deps: { environments: EnvironmentService }): EngageAdminRoutes {
  const { environments } = deps;
  return (admin, guard) => {
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
