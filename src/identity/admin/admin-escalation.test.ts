import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ALL_ADMIN_SCOPES, createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { CALLBACK, createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { nativePost, openInteraction, redeem, type NativeFixture } from '../../../test/fixtures/native';
import { ADMIN_ROOT, ADMIN_SCOPES } from './schemas';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 21 point 2: an operator holding only `identity.admin.users.manage` took over a full
 * operator by changing their email to a mailbox of theirs, recovering the password through the
 * native adapter and signing in. An operator may not change, disable or delete a user of the
 * control tenant who holds a permission they do not hold (403 access_denied, spec 03), and an
 * email change resets `emailVerified` unless the same request sets it.
 */
let h: Harness;
let a: AdminFixture;
let smtp: TestSmtp;
let acme: OAuthFixture;
/** The control tenant seen by the native adapter, with a native client asking for the management API. */
let control: NativeFixture;

const OPERATOR_PASSWORD = 'the full operator secret';
const TAKEN_OVER = 'new secret of mallory';
const MALLORY_MAILBOX = 'mallory.takeover@attacker.example';
const { usersManage } = ADMIN_SCOPES;

beforeAll(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test' });
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
  const { services } = h;
  const tenant = (await services.tenants.control())!;
  // The full operator signs in with a password; the control tenant has a native app of its own
  // (as the audited environment had) whose tokens are for the management API.
  await services.users.changePassword(a.controlId, a.operator.id, OPERATOR_PASSWORD);
  await services.clients.create(a.controlId, {
    clientId: 'app', displayName: 'Ops app', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [CALLBACK], scopes: ['openid', 'email', 'offline_access', ...ALL_ADMIN_SCOPES], defaultResource: services.tenants.issuerOf(tenant) + ADMIN_ROOT,
    nativeAuthenticationEnabled: true,
  }, SYSTEM_ACTOR);
  control = {
    slug: tenant.slug, tenant: (await services.tenants.resolveByPath(tenant.slug))!, base: `/t/${tenant.slug}/oauth2/native`, issuerPath: `/t/${tenant.slug}`, userId: a.operator.id,
  };
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

const call = async (token: string, method: string, path: string, body?: unknown) => {
  const res = await a.call(method, path, token, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const controlUser = (id: string) => `/tenants/${a.controlId}/users/${id}`;
const stored = async (tenantId: string, id: string) => {
  const u = (await h.services.users.findById(tenantId, id))!;
  return u && { email: u.email, emailVerified: u.emailVerified, status: u.status };
};

/** A native password sign-in at the control tenant; the management API token it yields, or the failing status. */
async function signIn(email: string, password: string): Promise<{ status: number; accessToken?: string }> {
  const it = await openInteraction(h.request, control, { scope: `openid ${ALL_ADMIN_SCOPES.join(' ')}` });
  const res = await nativePost(h.request, control, '/password', { interaction_id: it.interactionId, email, password });
  if (res.status !== 200) return { status: res.status };
  const { code } = (await res.json()) as { code: string };
  const tokens = (await (await redeem(h.request, control, code, it.verifier)).json()) as { access_token: string };
  return { status: 200, accessToken: tokens.access_token };
}

/** Password recovery through the native adapter for `email`: the new password set, or where it stopped. */
async function recover(email: string, password: string): Promise<string> {
  const it = await openInteraction(h.request, control);
  const sent = smtp.messages.length;
  const req = await nativePost(h.request, control, '/password/recovery/request', { interaction_id: it.interactionId, email });
  if (req.status !== 202) return `request ${req.status}`;
  await h.services.mail.sendDue();
  if (smtp.messages.length === sent) return 'no mail';
  const verify = await nativePost(h.request, control, '/password/recovery/verify', { interaction_id: it.interactionId, email, code: smtp.codeFor(email) });
  if (verify.status !== 200) return `verify ${verify.status}`;
  const { resetGrant } = (await verify.json()) as { resetGrant: string };
  const done = await nativePost(h.request, control, '/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: resetGrant, new_password: password });
  return done.status === 204 ? 'password replaced' : `complete ${done.status}`;
}

describe('vertical privilege escalation through the users of the control tenant', () => {
  it('the exact audited sequence stops at the PUT: a users.manage-only operator cannot take over a full operator', async () => {
    const mallory = await a.newOperator('mallory@example.com', [usersManage]);
    const token = await a.token([usersManage], mallory.id);
    const before = await stored(a.controlId, a.operator.id);

    // 1. She reads the full operator (allowed: the user list and read are hers) and puts her mailbox in.
    const target = await call(token, 'GET', controlUser(a.operator.id));
    expect(target.status).toBe(200);
    const put = await call(token, 'PUT', controlUser(a.operator.id), { email: MALLORY_MAILBOX, emailVerified: target.body.emailVerified, status: 'ACTIVE' });
    expect(put).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect(await stored(a.controlId, a.operator.id)).toEqual(before);

    // 2. Recovery through the native adapter for her mailbox finds no account: nothing is mailed.
    expect(await recover(MALLORY_MAILBOX, TAKEN_OVER)).toBe('no mail');
    // 3. She cannot sign in as the operator, by her mailbox or theirs.
    expect((await signIn(MALLORY_MAILBOX, TAKEN_OVER)).status).toBe(401);
    expect((await signIn(before.email, TAKEN_OVER)).status).toBe(401);
    // The operator still signs in with their own password, with every permission.
    const own = await signIn(before.email, OPERATOR_PASSWORD);
    expect(own.status).toBe(200);
    expect((await call(own.accessToken!, 'GET', '/overview')).status).toBe(200);
    // Nothing was recorded as changed.
    const events = await h.services.admin.auditEvents({ action: 'user.updated', page: 0, size: 50 });
    expect(events.items.filter((e) => e.targetId === a.operator.id)).toEqual([]);
  });

  it('disabling or deleting a user who holds more is refused the same way, and nothing changes', async () => {
    const mallory = await a.newOperator('mallory2@example.com', [usersManage]);
    const token = await a.token([usersManage], mallory.id);
    const before = await stored(a.controlId, a.operator.id);
    expect(await call(token, 'PUT', controlUser(a.operator.id), { email: before.email, emailVerified: before.emailVerified, status: 'DISABLED' })).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect(await call(token, 'DELETE', controlUser(a.operator.id))).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect(await stored(a.controlId, a.operator.id)).toEqual(before);
    // A user who holds one permission she lacks is out of reach too, however few they hold.
    const exporter = await a.newOperator('exporter@example.com', [ADMIN_SCOPES.usersExport]);
    expect(await call(token, 'DELETE', controlUser(exporter.id))).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect(await stored(a.controlId, exporter.id)).toMatchObject({ email: 'exporter@example.com', status: 'ACTIVE' });
  });

  it('a peer with the same permissions, or more, may change, disable and delete; users without permissions and other tenants are unaffected', async () => {
    const mallory = await a.newOperator('mallory3@example.com', [usersManage]);
    const peer = await a.newOperator('peer@example.com', [usersManage]);
    const plain = await a.newOperator('plain@example.com');
    const token = await a.token([usersManage], mallory.id);

    const changed = await call(token, 'PUT', controlUser(peer.id), { email: 'peer.new@example.com', emailVerified: true, status: 'DISABLED' });
    expect(changed).toMatchObject({ status: 200, body: { email: 'peer.new@example.com', emailVerified: true, status: 'DISABLED' } });
    expect((await call(token, 'PUT', controlUser(plain.id), { email: 'plain@example.com', status: 'DISABLED' })).status).toBe(200);
    expect(await call(token, 'DELETE', controlUser(plain.id))).toEqual({ status: 204, body: null });
    // Herself: she holds what she holds.
    expect((await call(token, 'PUT', controlUser(mallory.id), { email: 'mallory3.new@example.com', status: 'ACTIVE' })).status).toBe(200);
    // A user of another tenant holds no management permission: users.manage suffices.
    expect((await call(token, 'PUT', `/tenants/${acme.tenant.tenant.id}/users/${acme.userId}`, { email: 'ada@example.com', emailVerified: true, status: 'ACTIVE' })).status).toBe(200);

    // The full operator holds more than mallory: they may change her, and delete the peer.
    const full = await a.token();
    expect((await call(full, 'PUT', controlUser(mallory.id), { email: 'mallory3.new@example.com', emailVerified: true, status: 'DISABLED' })).status).toBe(200);
    expect(await call(full, 'DELETE', controlUser(peer.id))).toEqual({ status: 204, body: null });
    expect(await stored(a.controlId, peer.id)).toBeUndefined();
  });

  it('counts live permissions: once the target loses the one she lacked, she may act', async () => {
    const mallory = await a.newOperator('mallory4@example.com', [usersManage]);
    const reader = await a.newOperator('reader@example.com', [usersManage, ADMIN_SCOPES.read]);
    const token = await a.token([usersManage], mallory.id);
    expect(await call(token, 'DELETE', controlUser(reader.id))).toEqual({ status: 403, body: { error: 'access_denied' } });
    await a.revoke(reader.subject);
    expect(await call(token, 'DELETE', controlUser(reader.id))).toEqual({ status: 204, body: null });
  });
});

describe('an email change resets emailVerified unless the request sets it', () => {
  const acmeUser = (id: string) => `/tenants/${acme.tenant.tenant.id}/users/${id}`;

  it('on a user of any tenant, over the management API', async () => {
    const token = await a.token();
    const u = (await call(token, 'POST', `/tenants/${acme.tenant.tenant.id}/users`, { email: 'grace@example.com', emailVerified: true })).body;
    // Without emailVerified and with the same email: the mark stays.
    expect((await call(token, 'PUT', acmeUser(u.id), { email: 'grace@example.com', status: 'ACTIVE' })).body).toMatchObject({ emailVerified: true });
    // A new email without emailVerified: the new address is not verified.
    expect(await call(token, 'PUT', acmeUser(u.id), { email: 'grace.h@example.com', status: 'ACTIVE' })).toMatchObject({ status: 200, body: { email: 'grace.h@example.com', emailVerified: false } });
    expect(await stored(acme.tenant.tenant.id, u.id)).toEqual({ email: 'grace.h@example.com', emailVerified: false, status: 'ACTIVE' });
    // The same request may set it: the operator vouches for the new address.
    expect((await call(token, 'PUT', acmeUser(u.id), { email: 'grace.hopper@example.com', emailVerified: true, status: 'ACTIVE' })).body).toMatchObject({ emailVerified: true });
    const events = await h.services.admin.auditEvents({ action: 'user.updated', page: 0, size: 50 });
    expect(events.items.find((e) => e.targetId === u.id && e.details.email === 'grace.h@example.com')?.details).toEqual({ email: 'grace.h@example.com', emailVerified: false });
  });

  it('through the service the CLI calls (engage users update --email without --verified)', async () => {
    const u = await h.services.users.create(acme.tenant.tenant.id, { email: 'linus@example.com', emailVerified: true }, SYSTEM_ACTOR);
    const cli = { subject: 'os:root', clientId: null };
    expect(await h.services.users.update(acme.tenant.tenant.id, u.id, { email: 'linus.t@example.com', status: 'ACTIVE' }, cli)).toMatchObject({ emailVerified: false });
    expect(await h.services.users.update(acme.tenant.tenant.id, u.id, { email: 'linus.t@example.com', emailVerified: true, status: 'ACTIVE' }, cli)).toMatchObject({ emailVerified: true });
  });
});
