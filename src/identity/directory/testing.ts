import type { Harness } from '../../../test/helpers/harness';
import { API, API_AUDIENCE, CALLBACK, form, pkce, post } from '../oauth/testing';
import { directoryUrl } from './routes';
import { DIRECTORY_PERMISSIONS } from './permissions';

/**
 * A tenant ready for the directory API: the directory resource (URI and audience the directory
 * root URL, scopes directory.read and directory.manage), another API, a public client allowed
 * both, and helpers for users and tokens.
 */
export async function directoryFixture(h: Harness, slug: string) {
  const { services } = h;
  const tenantId = (await services.tenants.create({ slug })).id;
  const tenant = (await services.tenants.resolveByPath(slug))!;
  const url = directoryUrl(tenant.issuer);
  await services.resources.create(tenantId, { uri: url, audience: url, scopes: Object.values(DIRECTORY_PERMISSIONS) });
  await services.resources.create(tenantId, { uri: API, audience: API_AUDIENCE, scopes: ['api.read'] });
  await services.clients.create(tenantId, {
    clientId: 'console', displayName: 'Console', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [CALLBACK], scopes: ['openid', 'directory.read', 'directory.manage', 'api.read'], defaultResource: url,
  });
  let n = 0;
  const base = `/t/${slug}/identity/directory`;
  const user = async (name = `user${++n}`) => {
    const u = await services.users.create(tenantId, { email: `${name}@${slug}.example`, emailVerified: true });
    return { id: u.id, subject: u.subject };
  };
  const token = async (userId: string, scope: string[], resource: string = url): Promise<string> => {
    const p = pkce();
    const code = await services.oauth.issueAuthorizationCode({
      tenantId, clientId: 'console', userId, redirectUri: CALLBACK, codeChallenge: p.challenge, scope, resource, nonce: null, authTime: h.clock.nowSeconds(),
    });
    const res = await post(h, `/t/${slug}/oauth2/token`, form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: p.verifier, client_id: 'console' }));
    if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return {
    slug,
    tenantId,
    tenant,
    url,
    base,
    /** A new user of the tenant: its id and subject. */
    user,
    /** An access token of the tenant for `userId` with `scope`, for the directory (or `resource`). */
    token,
    /** A user holding both directory permissions (`grantAdministrator`) and a token with both scopes. */
    async admin() {
      const u = await user();
      await services.directory.grantAdministrator(tenantId, u.subject, Object.values(DIRECTORY_PERMISSIONS), { subject: 'test', clientId: null });
      return { ...u, token: await token(u.id, ['directory.read', 'directory.manage']) };
    },
    /** A request to the directory with a bearer token (and a JSON body). */
    call(token: string | undefined, method: string, path: string, body?: unknown, root = base) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return h.request(`${root}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    },
  };
}

export type DirectoryFixture = Awaited<ReturnType<typeof directoryFixture>>;
