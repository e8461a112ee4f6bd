/**
 * The engagement administration API as the control tenant knows it (issue 24): its audience,
 * its root under the control issuer and its four scopes, each also the name of the directory
 * permission an operator must hold live. Here, below both halves, because identity creates its
 * resource and grants its permissions to operators (operators/control.ts, `operators create`),
 * and engage serves it (engage/admin/); neither half imports the other.
 */
export const ENGAGE_ADMIN_API = {
  audience: 'engage-admin-api',
  root: '/engage/admin',
  scopes: {
    read: 'engage.admin.read',
    manage: 'engage.admin.manage',
    /** Test sends to TEST_GROUP recipients. */
    send: 'engage.admin.send',
    /** Erasure of profiles and installations (privacy requests). */
    privacy: 'engage.admin.privacy',
  },
} as const;

export type EngageAdminScope = (typeof ENGAGE_ADMIN_API.scopes)[keyof typeof ENGAGE_ADMIN_API.scopes];
export const ENGAGE_ADMIN_SCOPES: readonly EngageAdminScope[] = Object.values(ENGAGE_ADMIN_API.scopes);
