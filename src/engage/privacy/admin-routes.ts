import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { T } from '../../platform/http/schema';
import { adminDoc, adminRoute, type EngageAdminRoutes } from '../admin/routing';
import { adminActor } from '../admin/guards';
import type { PrivacyService } from './service';

const { privacy } = ENGAGE_ADMIN_API.scopes;

const ENV = { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) };
const ERASED = { 204: { description: 'erased and committed' } };

/**
 * Erasure as privacy requests of an operator or a backend (issue 24 point 5), with
 * `engage.admin.privacy`: an installation, or a profile with every installation bound to it.
 * 204 means committed; a repeat is 404 (nothing that names the erased object is kept:
 * docs/decisions.md "Inspection, erasure and audit").
 */
export function privacyAdminRoutes(deps: { privacy: PrivacyService }): EngageAdminRoutes {
  return (admin, guard) => {
    admin.delete('/environments/:environmentId/installations/:installationId', guard(privacy), adminRoute(
      adminDoc('Erase an installation (privacy request): its state, attributes, subscriptions, operations, deliveries and credentials', {
        params: { ...ENV, installationId: T.String({ format: 'uuid' }) },
        responses: ERASED,
        errors: { 400: 'invalid_request', 404: 'unknown_installation (also once erased)' },
      }),
      async (c, { params }) => {
        await deps.privacy.eraseInstallation(c.get('environment').id, params.installationId.toLowerCase(), adminActor(c));
        return c.body(null, 204);
      },
    ));
    admin.delete('/environments/:environmentId/profiles/external/:externalId', guard(privacy), adminRoute(
      adminDoc('Erase the profile bound to an external id (percent-encoded) and every installation bound to it', {
        params: { ...ENV, externalId: T.String({ minLength: 1, maxLength: 255 }) },
        responses: ERASED,
        errors: { 400: 'invalid_request', 404: 'unknown_profile (also once erased)' },
      }),
      async (c, { params }) => {
        await deps.privacy.eraseProfile(c.get('environment').id, { externalId: params.externalId }, adminActor(c));
        return c.body(null, 204);
      },
    ));
    admin.delete('/environments/:environmentId/profiles/:profileId', guard(privacy), adminRoute(
      adminDoc('Erase a profile (privacy request): its attributes, tags, subscriptions, events, every installation bound to it and their deliveries', {
        params: { ...ENV, profileId: T.String({ format: 'uuid' }) },
        responses: ERASED,
        errors: { 400: 'invalid_request', 404: 'unknown_profile (also once erased)' },
      }),
      async (c, { params }) => {
        await deps.privacy.eraseProfile(c.get('environment').id, { id: params.profileId.toLowerCase() }, adminActor(c));
        return c.body(null, 204);
      },
    ));
  };
}
