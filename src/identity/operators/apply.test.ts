import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { digest } from '../../platform/crypto';
import { applyConfiguration } from './apply';
import type { ApplyFile } from './apply-schema';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const actor = { subject: 'os:ci', clientId: null };
const WEB_SECRET = 'w'.repeat(40);
const env = { WEB_SECRET, OPS_PASSWORD: 'correct horse battery staple' };

const file = (): ApplyFile => ({
  version: 1,
  tenants: [
    {
      slug: 'acme',
      registrationMode: 'SELF_SERVICE',
      resources: [{ uri: 'https://api.acme.example', audience: 'orders-api', scopes: ['orders.read', 'orders.write'], credential: {} }],
      clients: [
        {
          clientId: 'web', displayName: 'Acme Web', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT',
          redirectUris: ['https://app.acme.example/cb'], scopes: ['openid', 'orders.read'], defaultResource: 'https://api.acme.example', secretEnv: 'WEB_SECRET',
        },
        {
          clientId: 'batch', displayName: 'Batch', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
          redirectUris: ['https://batch.acme.example/cb'], scopes: ['orders.write'], defaultResource: 'https://api.acme.example',
        },
      ],
      permissions: [{ key: 'orders.approve', displayName: 'Approve orders' }, { key: 'orders.refund', displayName: 'Refund orders' }],
      roles: [{ key: 'approver', displayName: 'Approver', scope: 'TENANT', permissions: ['orders.approve', 'orders.refund'] }],
    },
  ],
  operators: [{ email: 'ops@example.com', passwordEnv: 'OPS_PASSWORD' }],
});

const flag = async (sql: string, params: unknown[]) => (await h.sql.get<{ m: number }>(sql, params))?.m;

describe('engage apply (services)', () => {
  it('plans without writing on a dry run', async () => {
    const r = await applyConfiguration(h.services, file(), { dryRun: true, env, actor });
    expect(r.changed).toBe(true);
    expect(r.steps.every((s) => s.action === 'create')).toBe(true);
    expect(r.secrets).toEqual([]);
    await expect(h.services.tenants.get('acme')).rejects.toMatchObject({ code: 'unknown_tenant' });
    expect(await h.services.users.findByEmail((await h.services.tenants.control())!.id, 'ops@example.com')).toBeUndefined();
  });

  it('creates everything configuration-managed, then changes nothing on a second run', async () => {
    const first = await applyConfiguration(h.services, file(), { dryRun: false, env, actor });
    expect(first.changed).toBe(true);
    const acme = await h.services.tenants.get('acme');
    expect(acme).toMatchObject({ registrationMode: 'SELF_SERVICE', configurationManaged: true });
    const tenantId = acme.id;
    expect(await flag(`SELECT configuration_managed AS "m" FROM resources WHERE tenant_id = ? AND audience = 'orders-api'`, [tenantId])).toBe(1);
    const clients = await h.services.clients.list(tenantId);
    expect(clients.map((c) => [c.clientId, c.configurationManaged]).sort()).toEqual([['batch', true], ['web', true]]);
    // The secret of `web` is the variable's; `batch`'s was generated and is shown once.
    expect((await h.services.clients.find(tenantId, 'web'))!.secretDigest).toBe(digest(WEB_SECRET));
    const batch = first.secrets.find((s) => s.clientId === 'batch')!;
    expect((await h.services.clients.find(tenantId, 'batch'))!.secretDigest).toBe(digest(batch.secret!));
    expect(first.secrets.find((s) => s.clientId === 'web')).toBeUndefined();
    const cred = first.secrets.find((s) => s.kind === 'credential')!;
    expect(await h.services.credentials.authenticate(tenantId, cred.credentialId!, cred.secret!)).toMatchObject({ audience: 'orders-api' });
    expect(await flag(`SELECT configuration_managed AS "m" FROM resource_credentials WHERE tenant_id = ? AND id = ?`, [tenantId, cred.credentialId])).toBe(1);
    const roles = (await h.services.directory.roles(tenantId, { page: 0, size: 50 })).items;
    expect(roles.map((r) => r.key)).toEqual(['approver']);
    const perms = (await h.services.directory.rolePermissions(tenantId, 'approver', { page: 0, size: 50 })).items.map((p) => p.key);
    expect(perms.sort()).toEqual(['orders.approve', 'orders.refund']);
    expect(await flag(`SELECT configuration_managed AS "m" FROM directory_roles WHERE tenant_id = ? AND key = 'approver'`, [tenantId])).toBe(1);
    const control = (await h.services.tenants.control())!;
    const op = (await h.services.users.findByEmail(control.id, 'ops@example.com'))!;
    expect(await h.services.directory.hasPermission(control.id, op.subject, 'identity.admin.manage')).toBe(true);
    expect(await h.services.users.verifyPassword(control.id, 'ops@example.com', env.OPS_PASSWORD)).toBeDefined();
    // No secret in any audit event.
    const events = await h.sql.all<{ details: string }>('SELECT details FROM audit_events');
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) for (const s of [WEB_SECRET, batch.secret!, cred.secret!, env.OPS_PASSWORD]) expect(e.details).not.toContain(s);

    const second = await applyConfiguration(h.services, file(), { dryRun: false, env, actor });
    expect(second.changed).toBe(false);
    expect(second.secrets).toEqual([]);
    expect(second.steps.every((s) => s.action === 'unchanged')).toBe(true);
  });

  it('updates what the file changed, and adopts what existed unmanaged', async () => {
    await applyConfiguration(h.services, file(), { dryRun: false, env, actor });
    const tenantId = (await h.services.tenants.get('acme')).id;
    await h.services.clients.create(tenantId, {
      clientId: 'legacy', displayName: 'Legacy', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'EXPLICIT',
      redirectUris: ['com.acme:/cb'], scopes: ['openid'],
    }, SYSTEM_ACTOR);
    const next = file();
    const t = next.tenants![0];
    t.clients![0].redirectUris = ['https://app.acme.example/callback'];
    t.clients!.push({ clientId: 'legacy', displayName: 'Legacy app', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'EXPLICIT', redirectUris: ['com.acme:/cb'], scopes: ['openid'] });
    t.roles![0].permissions = ['orders.approve'];
    const dry = await applyConfiguration(h.services, next, { dryRun: true, env: { ...env, WEB_SECRET: 'v'.repeat(40) }, actor });
    expect(dry.steps.filter((s) => s.action !== 'unchanged').map((s) => [s.kind, s.key, s.changes])).toEqual([
      ['client', 'web', ['redirectUris', 'secret']],
      ['client', 'legacy', ['displayName', 'adopt']],
      ['role', 'approver', ['permissions']],
    ]);
    await applyConfiguration(h.services, next, { dryRun: false, env: { ...env, WEB_SECRET: 'v'.repeat(40) }, actor });
    const web = (await h.services.clients.find(tenantId, 'web'))!;
    expect(web.redirectUris).toEqual(['https://app.acme.example/callback']);
    expect(web.secretDigest).toBe(digest('v'.repeat(40)));
    expect((await h.services.clients.list(tenantId)).find((c) => c.clientId === 'legacy')).toMatchObject({ displayName: 'Legacy app', configurationManaged: true });
    expect((await h.services.directory.rolePermissions(tenantId, 'approver', { page: 0, size: 50 })).items.map((p) => p.key)).toEqual(['orders.approve']);
    const again = await applyConfiguration(h.services, next, { dryRun: false, env: { ...env, WEB_SECRET: 'v'.repeat(40) }, actor });
    expect(again.changed).toBe(false);
  });

  it('refuses a missing or short secret variable before writing anything', async () => {
    await expect(applyConfiguration(h.services, file(), { dryRun: false, env: { OPS_PASSWORD: 'x' }, actor })).rejects.toThrow(/tenants\[0\]\.clients\[0\]\.secretEnv: environment variable WEB_SECRET is not set/);
    await expect(applyConfiguration(h.services, file(), { dryRun: false, env: { ...env, WEB_SECRET: 'short' }, actor })).rejects.toThrow(/at least 32 characters/);
    await expect(h.services.tenants.get('acme')).rejects.toMatchObject({ code: 'unknown_tenant' });
  });
});
