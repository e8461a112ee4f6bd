/** The two administration APIs the console is a client of. */
export type ApiName = 'identity' | 'engage';

/**
 * What the console asks for at each API (one grant per API: RFC 8707, a grant has one resource).
 * The operator's live permissions still decide each request; src/console/console.test.ts
 * checks these lists against the server's.
 */
export const API_SCOPES: Record<ApiName, string[]> = {
  identity: ['identity.admin.read', 'identity.admin.manage', 'identity.admin.users.manage', 'identity.admin.users.import', 'identity.admin.users.export'],
  engage: ['engage.admin.read', 'engage.admin.manage', 'engage.admin.send', 'engage.admin.privacy'],
};
