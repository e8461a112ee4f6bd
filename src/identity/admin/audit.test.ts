import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ADMIN_CLIENT, createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { API, CALLBACK, createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { cliActor } from '../audit';
import { apiError } from '../../../test/helpers/api-error';

/** Issue 11 point 4: every mutation writes an audit event in its transaction; GET /audit-events reads them. */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;
const secrets: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
  secrets.push(acme.webSecret, acme.credentialSecret);
  token = await a.token();
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await a.call(method, path, token, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

interface Event { action: string; actorSubject: string; actorClientId: string | null; targetType: string; targetId: string; tenantId: string | null; details: Record<string, unknown>; createdAt: string }
const events = async (query = ''): Promise<Event[]> => (await call('GET', `/audit-events?size=200${query}`)).body.items;

describe('audit events of management mutations', () => {
  it('every mutation over HTTP records its action, target and the token subject and client', async () => {
    const t = `/tenants/${acme.tenant.tenant.id}`;
    const tenant = (await call('POST', '/tenants', { slug: 'audited' })).body;
    await call('PUT', `/tenants/${tenant.id}`, { slug: 'audited-2', issuer: tenant.issuer, registrationMode: 'SELF_SERVICE' });
    const user = (await call('POST', `${t}/users`, { email: 'audit@example.com' })).body;
    await call('PUT', `${t}/users/${user.id}`, { email: 'audit@example.com', emailVerified: true, status: 'ACTIVE' });
    await call('DELETE', `${t}/users/${user.id}`);
    await call('POST', `${t}/resources`, { uri: 'https://audit.example.com', audience: 'audit', scopes: ['a'] });
    const client = { clientId: 'audited', displayName: 'A', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT', redirectUris: [CALLBACK], scopes: ['openid'] };
    secrets.push((await call('POST', `${t}/clients`, client)).body.clientSecret);
    await call('PUT', `${t}/clients/audited`, { ...client, displayName: 'B' });
    const cred = (await call('POST', `${t}/credentials`, { resourceUri: API })).body;
    secrets.push(cred.credentialSecret);
    await call('DELETE', `${t}/credentials/${cred.credentialId}`);
    const kid = (await call('POST', `${t}/signing-keys`)).body.keyId;
    await call('POST', `${t}/signing-keys/${kid}/activation`);
    const old = (await h.services.keys.list(acme.tenant.tenant.id)).find((k) => k.state === 'RETIRING')!.keyId;
    await call('POST', `${t}/signing-keys/${old}/retirement`);

    const mine = await events(`&actor=${a.operator.subject}`);
    // One fixed clock: events share their time, so compare them as a set.
    const sorted = <T>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(sorted(mine.map((e) => [e.action, e.targetType, e.targetId]))).toEqual(
      sorted([
        ['tenant.created', 'tenant', tenant.id],
        ['tenant.updated', 'tenant', tenant.id],
        ['user.created', 'user', user.id],
        ['user.updated', 'user', user.id],
        ['user.deleted', 'user', user.id],
        ['resource.created', 'resource', 'https://audit.example.com'],
        ['client.created', 'client', 'audited'],
        ['client.updated', 'client', 'audited'],
        ['credential.issued', 'credential', cred.credentialId],
        ['credential.revoked', 'credential', cred.credentialId],
        ['signing_key.staged', 'signing_key', kid],
        ['signing_key.activated', 'signing_key', kid],
        ['signing_key.retired', 'signing_key', old],
      ]),
    );
    for (const e of mine) expect([e.actorSubject, e.actorClientId]).toEqual([a.operator.subject, ADMIN_CLIENT]);
    expect(mine.find((e) => e.action === 'tenant.updated')!.details).toEqual({ slug: 'audited-2', registrationMode: 'SELF_SERVICE' });
  });

  it('a refused mutation records nothing (the event is in the same transaction)', async () => {
    const before = (await events()).length;
    expect((await call('POST', '/tenants', { slug: 'acme' })).status).toBe(409);
    expect((await call('PUT', `/tenants/${a.controlId}`, { slug: 'x', issuer: 'http://engage.test/t/control', registrationMode: 'CONTROLLED' })).status).toBe(409);
    expect((await events()).length).toBe(before);
  });

  it('the services record the CLI actor when called as the CLI does', async () => {
    const cli = cliActor();
    expect(cli.subject).toMatch(/^os:.+/);
    const u = await h.services.users.create(acme.tenant.tenant.id, { email: 'cli@example.com', password: 'correct horse battery' }, cli);
    await h.services.users.setStatus(acme.tenant.tenant.id, u.id, 'DISABLED', cli);
    await h.services.resources.setStatus(acme.tenant.tenant.id, API, 'ACTIVE', cli);
    await h.services.keys.rotate(acme.tenant.tenant.id, cli);
    const got = await events(`&actor=${encodeURIComponent(cli.subject)}`);
    expect(got.map((e) => e.action).sort()).toEqual(['resource.updated', 'signing_key.rotated', 'user.created', 'user.updated']);
    expect(got.every((e) => e.actorClientId === null)).toBe(true);
  });

  it('filters by tenant, action, actor and time, and rejects bad filters', async () => {
    const acmeOnly = await events(`&tenant=${acme.tenant.tenant.id}`);
    expect(acmeOnly.length).toBeGreaterThan(0);
    expect(acmeOnly.every((e) => e.tenantId === acme.tenant.tenant.id)).toBe(true);
    expect((await events('&action=client.updated')).every((e) => e.action === 'client.updated')).toBe(true);

    h.clock.advance(60);
    const cut = h.clock.now().toISOString();
    await call('POST', '/tenants', { slug: 'after-cut' });
    const res = await call('GET', `/audit-events?from=${encodeURIComponent(cut)}`);
    expect(res.status).toBe(200);
    const after: Event[] = res.body.items;
    expect(after.map((e) => e.action)).toEqual(['tenant.created']);
    expect((await events(`&to=${encodeURIComponent(cut)}`)).some((e) => e.createdAt >= cut)).toBe(false);

    for (const q of ['tenantId=' + acme.tenant.tenant.id, 'from=yesterday', 'to=2026-13-01T00:00:00Z', 'tenant=acme', 'action=', 'actor=a&actor=b']) {
      expect(await call('GET', `/audit-events?${q}`)).toEqual({ status: 400, body: apiError('invalid_request') });
    }
  });

  it('holds no secret in any event', async () => {
    const all = JSON.stringify(await h.services.admin.auditEvents({ page: 0, size: 200 }));
    expect(secrets.filter(Boolean).length).toBeGreaterThanOrEqual(4);
    for (const s of secrets) expect(all).not.toContain(s);
    expect(all).not.toMatch(/"(clientSecret|credentialSecret|secretDigest|password|passwordHash|token|code|privateSealed)"/i);
  });
});
