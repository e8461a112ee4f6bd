import { ENGAGE_ADMIN_SCOPES } from '../../platform/operator-apis';

/**
 * Permission keys are the scope names (issue 11 contracts §1): a route needs its scope in the
 * token AND the same-named live directory permission of the subject in the token's tenant.
 * `.manage` implies the read of the same area (spec 03: `directory.manage` reads and mutates).
 */
export const DIRECTORY_PERMISSIONS = {
  read: 'directory.read',
  manage: 'directory.manage',
} as const;

export const ADMIN_PERMISSIONS = {
  read: 'identity.admin.read',
  manage: 'identity.admin.manage',
  usersManage: 'identity.admin.users.manage',
  usersImport: 'identity.admin.users.import',
  usersExport: 'identity.admin.users.export',
} as const;

/**
 * What an operator of the control tenant is granted (`engage operators create`, `engage apply`
 * operators): the management API's five permissions and the engagement administration API's four
 * (platform/operator-apis.ts), each unscoped, so on every environment.
 */
export const OPERATOR_PERMISSIONS: readonly string[] = [...Object.values(ADMIN_PERMISSIONS), ...ENGAGE_ADMIN_SCOPES];

/** The role `grantAdministrator` creates (TENANT scope) or adds permissions to. */
export const ADMINISTRATOR_ROLE = 'administrator';
