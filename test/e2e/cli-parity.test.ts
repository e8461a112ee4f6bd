/**
 * Issue 11 point 7 on dist/engage: every management operation has a CLI command on the database
 * with --json, calling the same services as the management API (so the same messages), and
 * every CLI mutation leaves an audit event naming the operating-system user, without secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

interface Tenant { id: string; slug: string; issuer: string; managedIssuer: string; registrationMode: string; status: string }
interface User { id: string; email: string; emailVerified: boolean; status: string }
interface Client { clientId: string; displayName: string; scopes: string[]; consentPolicy: string; status: string; clientSecret?: string | null }
interface Resource { uri: string; audience: string; scopes: string[]; status: string }
interface Credential { credentialId: string; status: string }
interface AuditPage { items: { action: string; actorSubject: string; actorClientId: string | null; details: unknown }[]; page: number; size: number; hasMore: boolean }

describe('dist/engage management parity', () => {
  let sb: Sandbox;
  const T = ['--tenant', 'acme'];
  const printed: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-' });
  });
  afterAll(async () => {
    await sb?.cleanup();
  });
  const json = async <V>(args: string[]) => {
    const v = await sb.cliJson<V>(args);
    printed.push(JSON.stringify(v));
    return v;
  };

  it('tenants update changes slug, issuer and registration mode, within the locks', async () => {
    const t = await json<Tenant>(['tenants', 'create', '--slug', 'acme-old']);
    const u = await json<Tenant>(['tenants', 'update', '--tenant', 'acme-old', '--slug', 'acme', '--registration-mode', 'SELF_SERVICE', '--issuer', 'https://id.acme.test']);
    expect(u).toMatchObject({ id: t.id, slug: 'acme', registrationMode: 'SELF_SERVICE', issuer: 'https://id.acme.test', managedIssuer: t.managedIssuer });
    expect((await json<Tenant>(['tenants', 'update', ...T, '--clear-issuer'])).issuer).toBe(t.managedIssuer);
    const refused = await sb.run(['tenants', 'update', '--tenant', 'control', '--slug', 'other']);
    expect([refused.code, refused.stderr.trim()]).toEqual([1, "engage: tenant_slug_locked: the control tenant's slug names the control issuer"]);
  });

  it('users show, update, disable, enable and delete, by id or email', async () => {
    const u = await json<User>(['users', 'create', ...T, '--email', 'ada@acme.test']);
    expect(await json<User>(['users', 'show', ...T, '--user', 'ada@acme.test'])).toMatchObject({ id: u.id });
    expect(await json<User>(['users', 'update', ...T, '--user', u.id, '--email', 'ada.l@acme.test', '--verified'])).toMatchObject({ email: 'ada.l@acme.test', emailVerified: true, status: 'ACTIVE' });
    expect((await json<User>(['users', 'disable', ...T, '--user', u.id])).status).toBe('DISABLED');
    expect((await json<User>(['users', 'enable', ...T, '--user', 'ada.l@acme.test'])).status).toBe('ACTIVE');
    await json(['users', 'create', ...T, '--email', 'bob@acme.test']);
    const conflict = await sb.run(['users', 'update', ...T, '--user', u.id, '--email', 'bob@acme.test']);
    expect([conflict.code, conflict.stderr.trim()]).toEqual([1, 'engage: user_conflict: a user with email bob@acme.test exists']);
    expect(await json(['users', 'delete', ...T, '--user', u.id])).toEqual({ id: u.id, email: 'ada.l@acme.test', deleted: true });
    const gone = await sb.run(['users', 'show', ...T, '--user', u.id, '--json']);
    // Under --json the error is one JSON line on stderr (issue 23 point 4).
    expect([gone.code, JSON.parse(gone.stderr)]).toEqual([1, { error: 'unknown_user', message: `no user ${u.id} in this tenant` }]);
  });

  it('resources update, disable and enable; clients update, disable and enable', async () => {
    await json(['resources', 'create', ...T, '--uri', 'https://api.acme.test', '--audience', 'acme-api', '--scope', 'read']);
    expect(await json<Resource>(['resources', 'update', ...T, '--uri', 'https://api.acme.test', '--scope', 'read write'])).toMatchObject({ audience: 'acme-api', scopes: ['read', 'write'] });
    expect((await json<Resource>(['resources', 'disable', ...T, '--uri', 'https://api.acme.test'])).status).toBe('DISABLED');
    expect((await json<Resource>(['resources', 'enable', ...T, '--uri', 'https://api.acme.test'])).status).toBe('ACTIVE');

    const issued = await json<Client>(['clients', 'create', ...T, '--client-id', 'web', '--name', 'Web', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC',
      '--redirect-uri', 'https://app.acme.test/cb', '--scope', 'openid']);
    secrets.push(issued.clientSecret!);
    const updated = await json<Client>(['clients', 'update', ...T, '--client-id', 'web', '--name', 'Web 2', '--consent', 'PRE_AUTHORIZED', '--scope', 'openid', 'email']);
    expect(updated).toMatchObject({ clientId: 'web', displayName: 'Web 2', consentPolicy: 'PRE_AUTHORIZED', scopes: ['openid', 'email'], clientSecret: null });
    expect((await json<Client>(['clients', 'disable', ...T, '--client-id', 'web'])).status).toBe('DISABLED');
    const bad = await sb.run(['clients', 'update', ...T, '--client-id', 'web', '--default-resource', 'https://nowhere.test']);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'engage: unknown_client_resource: resource https://nowhere.test is not registered for the tenant']);
  });

  it('credentials delete revokes, and a second delete is an operation_conflict', async () => {
    const c = await json<{ credentialId: string; credentialSecret: string }>(['credentials', 'issue', ...T, '--resource', 'https://api.acme.test']);
    secrets.push(c.credentialSecret);
    expect(await json<Credential[]>(['credentials', 'delete', ...T, '--credential', c.credentialId])).toEqual([expect.objectContaining({ credentialId: c.credentialId, status: 'REVOKED' })]);
    const again = await sb.run(['credentials', 'delete', ...T, '--credential', c.credentialId]);
    expect([again.code, again.stderr.trim()]).toEqual([1, `engage: operation_conflict: credential ${c.credentialId} is already REVOKED`]);
  });

  it('audit list shows each CLI mutation with the OS user, filtered, without a secret', async () => {
    await json(['keys', 'rotate', ...T]);
    const page = await json<AuditPage>(['audit', 'list', ...T, '--size', '200']);
    const actions = page.items.map((e) => e.action);
    for (const a of ['tenant.created', 'tenant.updated', 'user.created', 'user.updated', 'user.deleted', 'resource.created', 'resource.updated', 'client.created',
      'client.updated', 'credential.issued', 'credential.revoked', 'signing_key.rotated']) expect(actions).toContain(a);
    expect(page.items.every((e) => /^os:.+/.test(e.actorSubject) && e.actorClientId === null)).toBe(true);
    const filtered = await json<AuditPage>(['audit', 'list', '--action', 'user.deleted']);
    expect(filtered.items.map((e) => e.action)).toEqual(['user.deleted']);
    expect((await json<AuditPage>(['audit', 'list', '--from', '2999-01-01T00:00:00Z'])).items).toEqual([]);
    const bad = await sb.run(['audit', 'list', '--from', 'yesterday']);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'engage: invalid_request: from: must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z']);
    const text = await sb.cli(['audit', 'list', '--size', '1']);
    expect(text).toMatch(/^createdAt\s+action\s+actorSubject/);
    expect(secrets).toHaveLength(2);
    for (const s of secrets) expect(JSON.stringify(page)).not.toContain(s);
    // The secrets were printed once, at issuance, and never by another command.
    for (const s of secrets) expect(printed.filter((p) => p.includes(s))).toHaveLength(1);
  });

  it('serve answers the management API under the control issuer only, and 404 administration_disabled with --no-administration-api', async () => {
    const on = await sb.serve();
    try {
      const res = await fetch(`${on.url}/t/control/identity/admin/overview`);
      expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([401, 'Bearer error="invalid_token"', { error: 'invalid_token' }]);
      // acme was created as acme-old: its managed issuer keeps that path after the rename.
      const elsewhere = await fetch(`${on.url}/t/acme-old/identity/admin/overview`);
      expect([elsewhere.status, await elsewhere.json()]).toEqual([404, { error: 'not_found' }]);
    } finally {
      await on.stop();
    }
    const off = await sb.serve({ args: ['--no-administration-api'] });
    try {
      const res = await fetch(`${off.url}/t/control/identity/admin/overview`);
      expect([res.status, await res.json()]).toEqual([404, { error: 'administration_disabled' }]);
    } finally {
      await off.stop();
    }
  });
});
