/** An environment's sync settings on the engagement administration API (issue 26 point 4). */
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor } from '../admin/guards';
import { SyncSettings, SyncSettingsUpdate, type SyncSettingsService } from './settings';

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };

export function syncSettingsAdminRoutes(deps: { settings: SyncSettingsService }): EngageAdminRoutes {
  const { settings } = deps;
  return (admin, guard) => {
    admin.get('/environments/:environmentId/sync-settings', guard(read), adminRoute(
      adminDoc('Read an environment’s sync settings (the refresh interval SDKs are told)', { params: ENV, responses: { 200: { description: 'the settings', schema: SyncSettings } } }),
      async (c) => c.json(await settings.show(c.get('environment').id)),
    ));
    admin.put('/environments/:environmentId/sync-settings', guard(manage), adminRoute(
      adminDoc('Change an environment’s sync settings', {
        params: ENV,
        body: { schema: SyncSettingsUpdate, example: { refreshAfterSeconds: 600 } },
        responses: { 200: { description: 'the settings as changed', schema: SyncSettings } },
        errors: { 400: 'invalid_request', 409: 'configuration_managed, environment_deleting' },
      }),
      async (c, { body }) => c.json(await settings.update(c.get('environment').id, body, adminActor(c))),
    ));
  };
}
