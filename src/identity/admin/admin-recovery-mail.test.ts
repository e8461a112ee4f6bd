import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { FormDriver } from '../../../test/conformance/form-driver';
import { createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { cliActor } from '../audit';
import { ADMIN_SCOPES } from './schemas';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 23 point 6: an administrator sends a user a recovery mail (`engage users
 * send-recovery-mail`, POST …/users/{userId}/recovery-mail). The mail carries a code and a link
 * to the hosted recovery page, where the user chooses a new password; audited as
 * `user.recovery_mail_sent`; the issue 21 rank rule and the address's resend wait apply.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test' });
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

const acmeId = () => acme.tenant.tenant.id;
const mailPath = (tenantId: string, userId: string) => `/tenants/${tenantId}/users/${userId}/recovery-mail`;
const call = async (token: string, path: string) => {
  const res = await a.call('POST', path, token);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
};
/** The plain text of a mail's quoted-printable parts, soft line breaks joined. */
const mailText = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

describe('POST /tenants/{tenantId}/users/{userId}/recovery-mail', () => {
  it('queues a mail whose link opens the hosted recovery page, where the code sets a new password; audited', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    expect(await call(token, mailPath(acmeId(), acme.userId))).toEqual({ status: 202, body: null, retryAfter: null });
    await h.services.mail.sendDue();
    const text = mailText(smtp.to('ada@example.com').at(-1)!.raw);
    const url = /You can also enter it on this page: (\S+)/.exec(text)![1];
    expect(url).toBe(`${acme.tenant.issuer}/oauth2/authorize/recover?email=ada%40example.com`);
    const code = smtp.codeFor('ada@example.com');

    const d = new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
    const page = await d.get(url);
    expect(page.status).toBe(200);
    const done = await d.submit(await page.text(), { code, password: 'chosen after the mail' });
    expect(done.status).toBe(200);
    expect((await h.services.users.verifyPassword(acmeId(), 'ada@example.com', 'chosen after the mail'))?.id).toBe(acme.userId);

    const events = await h.services.admin.auditEvents({ action: 'user.recovery_mail_sent', actorSubject: a.operator.subject, page: 0, size: 50 });
    expect(events.items.find((e) => e.targetId === acme.userId)).toMatchObject({ targetType: 'user', tenantId: acmeId(), details: {} });
    expect(JSON.stringify(events.items)).not.toContain(code);
  });

  it('waits the resend minute per address (429, Retry-After), refuses a DISABLED or unknown user, and needs the users scope', async () => {
    const token = await a.token([ADMIN_SCOPES.usersManage]);
    const u = await h.services.users.create(acmeId(), { email: 'eve@example.com', emailVerified: true, password: 'correct horse battery' }, SYSTEM_ACTOR);
    expect((await call(token, mailPath(acmeId(), u.id))).status).toBe(202);
    expect(await call(token, mailPath(acmeId(), u.id))).toMatchObject({ status: 429, body: { error: 'too_many_attempts' }, retryAfter: '60' });
    h.clock.advance(61);
    expect((await call(token, mailPath(acmeId(), u.id))).status).toBe(202);
    await h.services.users.setStatus(acmeId(), u.id, 'DISABLED', cliActor());
    h.clock.advance(61);
    expect(await call(token, mailPath(acmeId(), u.id))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await call(token, mailPath(acmeId(), '00000000-0000-4000-8000-000000000000'))).toMatchObject({ status: 404, body: { error: 'unknown_user' } });
    const reader = await a.token([ADMIN_SCOPES.read]);
    expect((await call(reader, mailPath(acmeId(), acme.userId))).status).toBe(403);
    await h.services.mail.sendDue();
    expect(smtp.to('eve@example.com')).toHaveLength(2);
  });

  it('refuses a control-tenant user who holds a permission the operator lacks (issue 21 point 2), and audits nothing', async () => {
    const mallory = await a.newOperator('mallory@example.com', [ADMIN_SCOPES.usersManage]);
    const token = await a.token([ADMIN_SCOPES.usersManage], mallory.id);
    const res = await call(token, mailPath(a.controlId, a.operator.id));
    expect(res).toMatchObject({ status: 403, body: { error: 'access_denied' } });
    const events = await h.services.admin.auditEvents({ action: 'user.recovery_mail_sent', actorSubject: mallory.subject, page: 0, size: 50 });
    expect(events.items).toEqual([]);
    const peer = await a.newOperator('peer@example.com', [ADMIN_SCOPES.usersManage]);
    expect((await call(token, mailPath(a.controlId, peer.id))).status).toBe(202);
  });

  it('the CLI\u2019s service call is the same operation, audited as the CLI actor', async () => {
    const u = await h.services.users.create(acmeId(), { email: 'cli-mail@example.com', emailVerified: true }, SYSTEM_ACTOR);
    const tenant = await h.services.tenants.get('acme');
    await h.services.native.sendRecoveryMail({ tenant, issuer: h.services.tenants.issuerOf(tenant) }, u.id, { actor: cliActor() });
    const events = await h.services.admin.auditEvents({ action: 'user.recovery_mail_sent', actorSubject: cliActor().subject, page: 0, size: 50 });
    expect(events.items.map((e) => e.targetId)).toContain(u.id);
  });
});

describe('without an SMTP server', () => {
  it('answers 503 temporarily_unavailable and audits nothing', async () => {
    const bare = await createHarness();
    try {
      const b = await createAdminFixture(bare);
      const token = await b.token([ADMIN_SCOPES.usersManage]);
      const res = await b.call('POST', mailPath(b.controlId, b.operator.id), token);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
    } finally {
      await bare.close();
    }
  });
});
