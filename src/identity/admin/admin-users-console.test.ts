import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../../test/helpers/harness';
import { createAdminTenant, type AdminFixture } from '../../../test/helpers/admin';
import type { OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';
import { stepAt, totpCode } from '../mfa/totp';
import { ADMIN_SCOPES } from './schemas';

/**
 * What the console's user pages need of the management API (issue 25): the users list filtered
 * by email (GET …/users?email=, the same substring match as `engage users list --email`), and a
 * user's second factor read and reset (GET and DELETE …/users/{userId}/second-factor, the twins
 * of `engage users mfa show|reset`), audited and under the operator-rank rule.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;

beforeAll(async () => {
  ({ h, a, acme } = await createAdminTenant());
  for (const email of ['ann.lee@example.com', 'bob@example.com', 'Anna_Q@other.test', 'zed%x@other.test']) {
    await h.services.users.create(acme.tenant.tenant.id, { email }, SYSTEM_ACTOR);
  }
});
afterAll(() => h.close());

const acmeId = () => acme.tenant.tenant.id;
const call = (token: string, method: string, path: string, body?: unknown) => a.json(method, path, token, body);
const emails = (body: { items: { email: string }[] }) => body.items.map((u) => u.email).sort();

describe('GET /tenants/{tenantId}/users?email=', () => {
  it('answers only the users whose address contains the text, case-insensitively, with pages', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    const ann = await call(token, 'GET', `/tenants/${acmeId()}/users?email=ANN`);
    expect(ann.status).toBe(200);
    expect(emails(ann.body)).toEqual(['anna_q@other.test', 'ann.lee@example.com'].sort());
    expect(emails((await call(token, 'GET', `/tenants/${acmeId()}/users?email=${encodeURIComponent('bob@example.com')}`)).body)).toEqual(['bob@example.com']);
    expect(emails((await call(token, 'GET', `/tenants/${acmeId()}/users?email=${encodeURIComponent('@other.test')}`)).body)).toEqual(['anna_q@other.test', 'zed%x@other.test']);
    // LIKE's wildcards are plain characters: `_` and `%` match only themselves.
    expect(emails((await call(token, 'GET', `/tenants/${acmeId()}/users?email=${encodeURIComponent('a_q')}`)).body)).toEqual(['anna_q@other.test']);
    expect(emails((await call(token, 'GET', `/tenants/${acmeId()}/users?email=${encodeURIComponent('d%')}`)).body)).toEqual(['zed%x@other.test']);
    expect(emails((await call(token, 'GET', `/tenants/${acmeId()}/users?email=${encodeURIComponent('n_')}`)).body)).toEqual([]);
    const first = await call(token, 'GET', `/tenants/${acmeId()}/users?email=ann&size=1`);
    expect(first.body).toMatchObject({ page: 0, size: 1, hasMore: true });
    const second = await call(token, 'GET', `/tenants/${acmeId()}/users?email=ann&size=1&page=1`);
    expect(second.body).toMatchObject({ page: 1, hasMore: false });
    expect([...emails(first.body), ...emails(second.body)].sort()).toEqual(emails(ann.body));
    // Without the filter: every user of the tenant (the fixture's own too).
    expect((await call(token, 'GET', `/tenants/${acmeId()}/users?size=200`)).body.items.length).toBe(5);
  });

  it('refuses an empty or repeated filter in the error form', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    expect(await call(token, 'GET', `/tenants/${acmeId()}/users?email=`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await call(token, 'GET', `/tenants/${acmeId()}/users?email=a&email=b`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await call(token, 'GET', `/tenants/${acmeId()}/users?email=${'a'.repeat(321)}`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('GET and DELETE /tenants/{tenantId}/users/{userId}/second-factor', () => {
  const path = (tenantId: string, userId: string) => `/tenants/${tenantId}/users/${userId}/second-factor`;
  async function enrol(tenantId: string, userId: string) {
    const e = await h.services.mfa.beginEnrolment(tenantId, userId, 'acme', 'x@example.com');
    await h.services.mfa.confirmEnrolment(tenantId, userId, totpCode(e.secret, stepAt(h.clock.now().getTime())));
  }

  it('shows the factor without a secret, resets it (204, audited) and answers 204 again when none is left', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    expect(await call(token, 'GET', path(acmeId(), acme.userId))).toEqual({ status: 200, body: { enrolled: false, enrolledAt: null, pending: false, recoveryCodesLeft: 0 } });
    await enrol(acmeId(), acme.userId);
    const shown = await call(token, 'GET', path(acmeId(), acme.userId));
    expect(shown).toEqual({ status: 200, body: { enrolled: true, enrolledAt: h.clock.now().toISOString(), pending: false, recoveryCodesLeft: 10 } });

    expect(await call(token, 'DELETE', path(acmeId(), acme.userId))).toEqual({ status: 204, body: null });
    expect(await h.services.mfa.hasSecondFactor(acmeId(), acme.userId)).toBe(false);
    expect((await call(token, 'GET', path(acmeId(), acme.userId))).body).toMatchObject({ enrolled: false, recoveryCodesLeft: 0 });
    expect(await call(token, 'DELETE', path(acmeId(), acme.userId))).toEqual({ status: 204, body: null });

    const events = await h.services.admin.auditEvents({ action: 'user.mfa_reset', actorSubject: a.operator.subject, page: 0, size: 50 });
    expect(events.items.map((e) => ({ targetId: e.targetId, tenantId: e.tenantId, removed: e.details.removed }))).toEqual([
      { targetId: acme.userId, tenantId: acmeId(), removed: false },
      { targetId: acme.userId, tenantId: acmeId(), removed: true },
    ]);
  });

  it('answers unknown users, bad ids and missing scopes in the error form', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    const nobody = '00000000-0000-4000-8000-000000000000';
    expect(await call(token, 'GET', path(acmeId(), nobody))).toMatchObject({ status: 404, body: { error: 'unknown_user' } });
    expect(await call(token, 'DELETE', path(acmeId(), nobody))).toMatchObject({ status: 404, body: { error: 'unknown_user' } });
    expect(await call(token, 'DELETE', path(acmeId(), 'not-a-uuid'))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // A user of another tenant is not found through this one.
    expect(await call(token, 'DELETE', path(a.controlId, acme.userId))).toMatchObject({ status: 404, body: { error: 'unknown_user' } });
    await enrol(acmeId(), acme.userId);
    const reader = await a.token([ADMIN_SCOPES.read]);
    expect((await call(reader, 'DELETE', path(acmeId(), acme.userId))).status).toBe(403);
    expect((await call(reader, 'GET', path(acmeId(), acme.userId))).status).toBe(403);
    expect(await h.services.mfa.hasSecondFactor(acmeId(), acme.userId)).toBe(true);
  });

  it('refuses a control-tenant user who holds a permission the operator lacks (issue 21 point 2)', async () => {
    const mallory = await a.newOperator('mallory@example.com', [ADMIN_SCOPES.usersManage]);
    const token = await a.token([ADMIN_SCOPES.usersManage], mallory.id);
    await enrol(a.controlId, a.operator.id);
    expect(await call(token, 'DELETE', path(a.controlId, a.operator.id))).toMatchObject({ status: 403, body: { error: 'access_denied' } });
    expect(await h.services.mfa.hasSecondFactor(a.controlId, a.operator.id)).toBe(true);
    const peer = await a.newOperator('peer@example.com', [ADMIN_SCOPES.usersManage]);
    await enrol(a.controlId, peer.id);
    expect((await call(token, 'DELETE', path(a.controlId, peer.id))).status).toBe(204);
    expect(await h.services.mfa.hasSecondFactor(a.controlId, peer.id)).toBe(false);
  });
});
