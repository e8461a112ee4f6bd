/**
 * The engagement administration API's test set-up (issue 24): a client of the control tenant
 * allowed the four `engage.admin.*` scopes with the `engage-admin-api` resource as its default,
 * and the management fixture's operator also holding the four permissions unscoped. Tokens are
 * issued through the real code exchange, as in test/helpers/admin.ts.
 */
import type { Harness } from './harness';
import { CALLBACK, publicClientToken } from '../fixtures/oauth';
import { SYSTEM_ACTOR } from '../../src/identity/audit';
import { ENGAGE_ADMIN_API, ENGAGE_ADMIN_SCOPES } from '../../src/platform/operator-apis';
import { createAdminFixture, type AdminFixture } from './admin';

export const ENGAGE_ADMIN_CLIENT = 'engage-admin-test';
export const ALL_ENGAGE_SCOPES: string[] = [...ENGAGE_ADMIN_SCOPES];

export interface EngageAdminFixture {
  /** The management API's fixture (operators, grants, the identity token). */
  identity: AdminFixture;
  /** `/t/control/engage/admin`: prefix of every route in `h.request`. */
  root: string;
  operator: { id: string; subject: string };
  /** A fresh access token for `engage-admin-api` for the operator (or `userId`), with these scopes. */
  token(scopes?: string[], userId?: string): Promise<string>;
  /** A user of the control tenant holding `permissions` (e.g. `engage.admin.read:prod`). */
  newOperator(email: string, permissions?: string[]): Promise<{ id: string; subject: string }>;
  grant(subject: string, permissions: string[]): Promise<void>;
  /** `h.request` on the root with a bearer token and a JSON body. */
  call(method: string, path: string, token: string | undefined, body?: unknown): Promise<Response>;
}

export async function createEngageAdminFixture(h: Harness, identity?: AdminFixture): Promise<EngageAdminFixture> {
  const { services } = h;
  const a = identity ?? (await createAdminFixture(h));
  const control = (await services.tenants.control())!;
  const issuer = services.tenants.issuerOf(control);
  const uri = issuer + ENGAGE_ADMIN_API.root;
  if (!(await services.clients.find(a.controlId, ENGAGE_ADMIN_CLIENT))) {
    await services.clients.create(a.controlId, {
      clientId: ENGAGE_ADMIN_CLIENT, displayName: 'Engage admin test', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', ...ALL_ENGAGE_SCOPES], defaultResource: uri,
    }, SYSTEM_ACTOR);
  }
  await h.services.directory.grantAdministrator(a.controlId, a.operator.subject, ALL_ENGAGE_SCOPES, SYSTEM_ACTOR);
  const root = `/t/${control.slug}${ENGAGE_ADMIN_API.root}`;

  const token = (scopes: string[] = ALL_ENGAGE_SCOPES, userId = a.operator.id): Promise<string> =>
    publicClientToken(h, { tenantId: a.controlId, slug: control.slug, clientId: ENGAGE_ADMIN_CLIENT, userId, scope: scopes, resource: uri });

  async function call(method: string, path: string, bearer: string | undefined, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return h.request(root + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  }

  return { identity: a, root, operator: a.operator, token, newOperator: a.newOperator, grant: a.grant, call };
}
