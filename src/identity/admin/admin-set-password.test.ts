import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../../test/helpers/harness';
import { createAdminTenant, type AdminFixture } from '../../../test/helpers/admin';
import { exchange, form, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { cliActor } from '../audit';
import { ADMIN_SCOPES } from './schemas';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 23 point 6: an administrator sets a user's password, by the CLI (`engage users
 * set-password`, which calls the users service) and by the management API (POST
 * …/users/{userId}/password). The registration policy applies; the old password stops working
 * and, as after a recovery, the user's refresh tokens and browser sessions end; it is audited.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;

beforeAll(async () => {
  ({ h, a, acme } = await createAdminTenant());
});
afterAll(() => h.close());

const OLD = 'correct horse battery';
const acmeId = () => acme.tenant.tenant.id;
const refresh = (token: string) => post(h, `${acme.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: token, client_id: acme.publicClient }));
const call = async (token: string, method: string, path: string, body?: unknown) => {
  const res = await a.call(method, path, token, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, cacheControl: res.headers.get('cache-control') };
};
const passwordPath = (tenantId: string, userId: string) => `/tenants/${tenantId}/users/${userId}/password`;

describe('the users service sets a password for an administrator (engage users set-password)', () => {
  it('replaces the password, ends refresh tokens and browser sessions, and is audited without the password', async () => {
    const u = await h.services.users.create(acmeId(), { email: 'cli@example.com', emailVerified: true, password: OLD }, SYSTEM_ACTOR);
    const tokens = await exchange(h, { ...acme, userId: u.id }, { scope: ['openid', 'offline_access'] });
    const { session } = await h.services.sessions.start(acmeId());
    await h.services.sessions.signIn(session.id, u.id, h.clock.nowSeconds(), acmeId());
    expect(Number((await h.sql.get<{ n: number }>('SELECT count(*) AS n FROM session_accounts WHERE user_id = ?', [u.id]))!.n)).toBe(1);

    const view = await h.services.users.setPassword(acmeId(), u.id, 'a brand new secret', cliActor());
    expect(view).toMatchObject({ id: u.id, email: 'cli@example.com', status: 'ACTIVE' });

    expect(await h.services.users.verifyPassword(acmeId(), 'cli@example.com', OLD)).toBeUndefined();
    expect((await h.services.users.verifyPassword(acmeId(), 'cli@example.com', 'a brand new secret'))?.id).toBe(u.id);
    const r = await refresh(tokens.refresh_token!);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'invalid_grant' });
    const held = await h.sql.get<{ n: number }>('SELECT count(*) AS n FROM session_accounts WHERE user_id = ?', [u.id]);
    expect(Number(held!.n)).toBe(0);
    expect((await h.sql.get<{ id: string | null }>('SELECT active_user_id AS id FROM browser_sessions WHERE id = ?', [session.id]))!.id).toBeNull();

    const events = await h.services.admin.auditEvents({ action: 'user.password_set', page: 0, size: 50 });
    const e = events.items.find((x) => x.targetId === u.id)!;
    expect(e).toMatchObject({ actorSubject: cliActor().subject, targetType: 'user', tenantId: acmeId(), details: {} });
    expect(JSON.stringify(e)).not.toContain('a brand new secret');
  });

  it('applies the registration policy before anything changes', async () => {
    const u = await h.services.users.create(acmeId(), { email: 'short@example.com', password: OLD }, SYSTEM_ACTOR);
    await expect(h.services.users.setPassword(acmeId(), u.id, 'short', cliActor())).rejects.toMatchObject({ code: 'invalid_password' });
    expect((await h.services.users.verifyPassword(acmeId(), 'short@example.com', OLD))?.id).toBe(u.id);
    await expect(h.services.users.setPassword(acmeId(), '00000000-0000-4000-8000-000000000000', 'long enough secret', cliActor())).rejects.toMatchObject({ code: 'unknown_user' });
  });
});

describe('POST /tenants/{tenantId}/users/{userId}/password', () => {
  it('sets the password (204, no-store), ends the refresh tokens, and records the operator', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    const tokens = await exchange(h, acme, { scope: ['openid', 'offline_access'] });
    const res = await call(token, 'POST', passwordPath(acmeId(), acme.userId), { password: 'set over http' });
    expect(res).toEqual({ status: 204, body: null, cacheControl: 'no-store' });
    expect(await h.services.users.verifyPassword(acmeId(), 'ada@example.com', OLD)).toBeUndefined();
    expect((await h.services.users.verifyPassword(acmeId(), 'ada@example.com', 'set over http'))?.id).toBe(acme.userId);
    expect((await refresh(tokens.refresh_token!)).status).toBe(400);
    const events = await h.services.admin.auditEvents({ action: 'user.password_set', actorSubject: a.operator.subject, page: 0, size: 50 });
    expect(events.items.map((e) => e.targetId)).toContain(acme.userId);
  });

  it('answers bad bodies, unknown users and missing scopes in the error form', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    const short = await call(token, 'POST', passwordPath(acmeId(), acme.userId), { password: 'short' });
    expect(short).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'password must be at least 8 characters' } });
    expect((await call(token, 'POST', passwordPath(acmeId(), acme.userId), { password: 'long enough', extra: 1 })).status).toBe(400);
    expect((await call(token, 'POST', passwordPath(acmeId(), acme.userId), {})).status).toBe(400);
    const missing = await call(token, 'POST', passwordPath(acmeId(), '00000000-0000-4000-8000-000000000000'), { password: 'long enough' });
    expect(missing).toMatchObject({ status: 404, body: { error: 'unknown_user' } });
    const reader = await a.token([ADMIN_SCOPES.read]);
    expect((await call(reader, 'POST', passwordPath(acmeId(), acme.userId), { password: 'long enough' })).status).toBe(403);
    expect((await h.services.users.verifyPassword(acmeId(), 'ada@example.com', 'long enough'))).toBeUndefined();
  });

  it('refuses a control-tenant user who holds a permission the operator lacks (issue 21 point 2)', async () => {
    const mallory = await a.newOperator('mallory@example.com', [ADMIN_SCOPES.usersManage]);
    const token = await a.token([ADMIN_SCOPES.usersManage], mallory.id);
    await h.services.users.changePassword(a.controlId, a.operator.id, 'the operator secret');
    const res = await call(token, 'POST', passwordPath(a.controlId, a.operator.id), { password: 'taken over by mallory' });
    expect(res).toMatchObject({ status: 403, body: { error: 'access_denied' } });
    expect((await h.services.users.verifyPassword(a.controlId, 'operator@example.com', 'the operator secret'))?.id).toBe(a.operator.id);
    // A peer holding no more than she does is within reach, as for the PUT.
    const peer = await a.newOperator('peer@example.com', [ADMIN_SCOPES.usersManage]);
    expect((await call(token, 'POST', passwordPath(a.controlId, peer.id), { password: 'peer new secret' })).status).toBe(204);
  });
});
