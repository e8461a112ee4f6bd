import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { pkce } from '../../../test/fixtures/oauth';
import { ADMIN_API_AUDIENCE, ADMIN_API_SCOPES, CLI_CLIENT_ID, ensureControlObjects } from './control';
import { ENGAGE_ADMIN_SCOPES } from '../../platform/operator-apis';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const ADMIN_URI = `${PUBLIC_URL}/t/control/identity/admin`;
const ENGAGE_URI = `${PUBLIC_URL}/t/control/engage/admin`;
/** The control tenant's two API resources: the management API and the engagement administration API (issue 24). */
const RESOURCES = [
  { uri: ENGAGE_URI, audience: 'engage-admin-api', status: 'ACTIVE', scopes: [...ENGAGE_ADMIN_SCOPES] },
  { uri: ADMIN_URI, audience: 'identity-admin-api', status: 'ACTIVE', scopes: [...ADMIN_API_SCOPES] },
];
const CLI_SCOPES = ['openid', 'email', 'offline_access', ...ADMIN_API_SCOPES, ...ENGAGE_ADMIN_SCOPES].sort();
const resources = async (id: string) => (await h.services.resources.list(id)).sort((a, b) => a.uri.localeCompare(b.uri));

async function controlId() {
  return (await h.services.tenants.control())!.id;
}

async function managedFlags(tenantId: string) {
  const r = await h.sql.get<{ m: number }>(`SELECT configuration_managed AS "m" FROM resources WHERE tenant_id = ? AND audience = ?`, [tenantId, ADMIN_API_AUDIENCE]);
  const c = await h.sql.get<{ m: number }>(`SELECT configuration_managed AS "m" FROM clients WHERE tenant_id = ? AND client_id = ?`, [tenantId, CLI_CLIENT_ID]);
  return { resource: r?.m, client: c?.m };
}

describe('control tenant initialisation', () => {
  it('creates the management API resource and the CLI client, configuration-managed', async () => {
    const id = await controlId();
    expect(await resources(id)).toEqual(RESOURCES);
    const [client] = await h.services.clients.list(id);
    expect(client).toMatchObject({
      clientId: 'engage-cli',
      applicationType: 'NATIVE',
      tokenEndpointAuthMethod: 'NONE',
      consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: ['http://127.0.0.1/callback'],
      defaultResource: ADMIN_URI,
      configurationManaged: true,
      status: 'ACTIVE',
    });
    expect([...client.scopes].sort()).toEqual(CLI_SCOPES);
    expect(await managedFlags(id)).toEqual({ resource: 1, client: 1 });
    // Another tenant gets neither.
    const other = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    expect(await h.services.resources.list(other.id)).toEqual([]);
    expect(await h.services.clients.list(other.id)).toEqual([]);
  });

  it('is idempotent: a second start changes nothing', async () => {
    const before = await h.sql.get<{ v: number }>("SELECT version AS \"v\" FROM version_channels WHERE name = 'catalog'");
    await h.services.tenants.ensureControl();
    const other = await h.otherProcess();
    await other.tenants.ensureControl();
    const after = await h.sql.get<{ v: number }>("SELECT version AS \"v\" FROM version_channels WHERE name = 'catalog'");
    expect(after).toEqual(before);
    expect(await h.services.resources.list(await controlId())).toHaveLength(2);
    expect((await h.services.clients.list(await controlId())).map((c) => c.clientId)).toEqual(['engage-cli', 'engage-console']);
  });

  it('gives a database made before them the system objects, and follows a changed public URL', async () => {
    const id = await controlId();
    await h.changedElsewhere(async () => {
      await h.sql.run('DELETE FROM clients WHERE tenant_id = ?', [id]);
      await h.sql.run(`UPDATE resources SET uri = ?, scopes = ?, configuration_managed = 0 WHERE tenant_id = ? AND audience = ?`, ['http://old.example/t/control/identity/admin', '["identity.admin.read"]', id, ADMIN_API_AUDIENCE]);
      await h.sql.run(`DELETE FROM resources WHERE tenant_id = ? AND audience = 'engage-admin-api'`, [id]);
    });
    await h.services.tenants.ensureControl();
    expect(await resources(id)).toEqual(RESOURCES);
    expect((await h.services.clients.list(id)).map((c) => c.clientId)).toEqual(['engage-cli', 'engage-console']);
    expect(await managedFlags(id)).toEqual({ resource: 1, client: 1 });
    expect((await h.services.clients.find(id, 'engage-console'))!.configurationManaged).toBe(true);
  });

  it('without followPublicUrl (a CLI command given no public URL) the stored URIs stay; missing scopes are still added', async () => {
    const id = await controlId();
    const old = 'http://engage.internal:9000/t/control';
    await h.changedElsewhere(async () => {
      await h.sql.run(`UPDATE resources SET uri = ?, scopes = ? WHERE tenant_id = ? AND audience = ?`, [`${old}/identity/admin`, '["identity.admin.read"]', id, ADMIN_API_AUDIENCE]);
      await h.sql.run(`UPDATE resources SET uri = ? WHERE tenant_id = ? AND audience = 'engage-admin-api'`, [`${old}/engage/admin`, id]);
      await h.sql.run(`UPDATE clients SET default_resource = ? WHERE tenant_id = ? AND client_id = ?`, [`${old}/identity/admin`, id, CLI_CLIENT_ID]);
    });
    const control = (await h.services.tenants.control())!;
    const view = await h.services.tenants.view(control);
    await ensureControlObjects({ store: h.services.store, resources: h.services.resources, clients: h.services.clients, clock: h.clock }, view, { followPublicUrl: false });
    expect((await resources(id)).map((r) => [r.uri, r.scopes.length])).toEqual([[`${old}/engage/admin`, ENGAGE_ADMIN_SCOPES.length], [`${old}/identity/admin`, ADMIN_API_SCOPES.length]]);
    expect((await h.services.clients.find(id, CLI_CLIENT_ID))!.defaultResource).toBe(`${old}/identity/admin`);
    // A start that follows the public URL moves them back.
    await h.services.tenants.ensureControl();
    expect(await resources(id)).toEqual(RESOURCES);
  });

  it("gives an engage-cli registered before `email` was among its scopes that scope (engage login prints the operator's email)", async () => {
    const id = await controlId();
    await h.changedElsewhere(() => h.sql.run(`UPDATE clients SET scopes = ? WHERE tenant_id = ? AND client_id = ?`, [JSON.stringify(['openid', 'offline_access', ...ADMIN_API_SCOPES]), id, CLI_CLIENT_ID]));
    await h.services.tenants.ensureControl();
    const client = (await h.services.clients.find(id, CLI_CLIENT_ID))!;
    expect([...client.scopes].sort()).toEqual(CLI_SCOPES);
    expect(await managedFlags(id)).toEqual({ resource: 1, client: 1 });
  });

  it('accepts the CLI loopback redirect on any port (RFC 8252 §7.3) and no other host', async () => {
    const { challenge } = pkce();
    const authorize = (redirect: string) =>
      h.request(
        `/t/control/oauth2/authorize?${new URLSearchParams({
          client_id: CLI_CLIENT_ID,
          redirect_uri: redirect,
          response_type: 'code',
          scope: 'openid offline_access identity.admin.read',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        })}`,
      );
    const ok = await authorize('http://127.0.0.1:49152/callback');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Sign in');
    expect((await authorize('http://localhost:49152/callback')).status).toBe(400);
    expect((await authorize('http://127.0.0.1:49152/other')).status).toBe(400);
  });
});
