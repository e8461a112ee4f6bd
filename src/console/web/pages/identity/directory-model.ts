/** The directory tab's shapes (the management API's JSON) and what its pages share. */
export interface Organization {
  id: string;
  slug: string;
  displayName: string;
  status: string;
}
export interface Team extends Organization {
  organizationId: string;
}
export interface Member {
  subject: string;
  status: string;
}
export interface Role {
  id: string;
  key: string;
  displayName: string;
  scope: string;
  status: string;
}
export interface Permission {
  key: string;
  displayName: string;
  status: string;
}
export interface Assignment {
  roleKey: string;
  subject: string;
  scope: string;
  organizationId: string | null;
  teamId: string | null;
}

export const A = '/identity/admin/tenants/{tenantId}/directory';
export const SLUG_HINT = 'Lower-case letters, digits and inner hyphens, 1 to 63 characters.';
export const KEY_HINT = 'Letters, digits, dots, colons, - or _, e.g. orders.read (1 to 128 characters).';

/** What a removal needs: what to type, what happens, and the call. */
export interface Removal {
  title: string;
  name: string;
  consequence: string;
  action: string;
  run: () => Promise<void>;
  done: string;
}
