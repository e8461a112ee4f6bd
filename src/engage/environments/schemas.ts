import { Enum, Strict, T, checker } from '../../platform/http/schema';
import { PLATFORMS } from '../shared/schemas';

export { PLATFORMS };
const Name = () => T.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' });

/**
 * A new environment's name (issue 24 point 1): also the suffix that narrows an operator's
 * permission to it (`engage.admin.manage:<name>`), so a slug: lower-case letters, digits and
 * hyphens, starting and ending with a letter or digit, at most 63. Names made before the rule
 * keep working (looked up as they are, narrowed by the environment's id when no valid key).
 */
export const EnvironmentName = () =>
  T.String({
    minLength: 1,
    maxLength: 63,
    // Not in the form of a UUID: paths name an environment by id first, so it could not be reached by its name (an outside review).
    pattern: '^(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$',
    description: 'lower-case letters, digits and hyphens, 1 to 63, not starting or ending with a hyphen, not in the form of a UUID',
  });
const DisplayName = () => T.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'shown to people, 1 to 100 characters, not only spaces' });
const TenantId = () => T.String({ format: 'uuid', description: 'the id of an identity tenant whose user subjects are the external ids' });
export const ENVIRONMENT_STATUSES = ['ACTIVE', 'DISABLED'] as const;

export const EnvironmentCreate = Strict({ name: EnvironmentName(), displayName: T.Optional(DisplayName()), identityTenantId: T.Optional(T.Union([TenantId(), T.Null()])) });
/** An update: what is present changes (null clears a display name or the identity tenant); status ACTIVE or DISABLED. */
export const EnvironmentUpdate = Strict({
  displayName: T.Optional(T.Union([DisplayName(), T.Null()])),
  identityTenantId: T.Optional(T.Union([TenantId(), T.Null()])),
  status: T.Optional(Enum(ENVIRONMENT_STATUSES)),
});
export const checkEnvironmentUpdate = checker(EnvironmentUpdate);
export const checkEnvironmentCreate = checker(EnvironmentCreate);

/** An iOS bundle id or an Android package name (issue 24: `apps.bundle_id`). */
export const BundleId = () =>
  T.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'the iOS bundle id or Android package name, e.g. com.acme.shop' });
export const APP_STATUSES = ['ACTIVE', 'DISABLED'] as const;

export const AppCreate = Strict({ environment: T.String({ minLength: 1 }), platform: Enum(PLATFORMS), name: Name(), bundleId: T.Optional(BundleId()) });
export const checkAppCreate = checker(AppCreate);
export const AppUpdate = Strict({ name: T.Optional(Name()), bundleId: T.Optional(T.Union([BundleId(), T.Null()])), status: T.Optional(Enum(APP_STATUSES)) });
export const checkAppUpdate = checker(AppUpdate);

export const AccessKeyCreate = Strict({
  environment: T.String({ minLength: 1 }),
  apps: T.Array(T.String({ minLength: 1 }), { minItems: 1, description: 'the apps the key may act for (at least one)' }),
  name: T.Optional(Name()),
  expiresAt: T.Optional(T.String({ format: 'date-time', description: 'when the key stops working (absent: never)' })),
});
export const checkAccessKeyCreate = checker(AccessKeyCreate);
/** A rotation's overlap: how long the previous secret keeps working, 0 (at once) to 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
