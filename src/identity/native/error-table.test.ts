import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { DomainError } from '../../platform/errors';
import { FORM, form, pkce } from '../../../test/fixtures/oauth';
import { EMAIL, PASSWORD, appWith, createNativeFixture, interactionFields, nativePost, openInteraction, type NativeFixture, type Request } from '../../../test/fixtures/native';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Spec 02's native error table, row by row: each case reaches the error through the HTTP
 * routes and checks status, the exact body and the headers the row calls for.
 */
let h: Harness;
let f: NativeFixture;
let closed: NativeFixture;
let smtp: TestSmtp;
let noMail: Harness;
let noMailFixture: NativeFixture;
beforeAll(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test' });
  f = await createNativeFixture(h);
  closed = await createNativeFixture(h, { slug: 'closed', registrationMode: 'CONTROLLED' });
  noMail = await createHarness();
  noMailFixture = await createNativeFixture(noMail);
});
afterAll(async () => {
  await h.close();
  await noMail.close();
  await smtp.close();
});
// Each case starts from fresh throttle counters and resend waits.
beforeEach(() => h.clock.advance(3600));

interface Case {
  name: string;
  status: number;
  error: string;
  /** Builds and sends the request. */
  send: () => Promise<Response>;
  headers?: Record<string, RegExp>;
  /** What an invalid_request's error_description must mention (issue 23). */
  describes?: string[];
}

const post = (route: string, fields: Record<string, string>, headers?: Record<string, string>, fx = f, request: Request = h.request) => nativePost(request, fx, route, fields, headers);
const open = (fx = f, change: Record<string, string | undefined> = {}) => openInteraction(h.request, fx, change);
const openFields = (change: Record<string, string | undefined> = {}) => interactionFields(pkce().challenge, change);

/** A registration grant for `email` in a fresh interaction. */
async function registrationGrant(email: string) {
  const it = await open();
  await post('/registration/request', { interaction_id: it.interactionId, email });
  await h.services.mail.sendDue();
  const code = smtp.codeFor(email);
  const res = await post('/registration/verify', { interaction_id: it.interactionId, email, code });
  return { it, grant: ((await res.json()) as { registrationGrant: string }).registrationGrant };
}

async function resetGrant() {
  const it = await open();
  await post('/password/recovery/request', { interaction_id: it.interactionId, email: EMAIL });
  await h.services.mail.sendDue();
  const res = await post('/password/recovery/verify', { interaction_id: it.interactionId, email: EMAIL, code: smtp.codeFor(EMAIL) });
  return { it, grant: ((await res.json()) as { resetGrant: string }).resetGrant };
}

const failingProvider = (code: string) => appWith(h, {
  providers: {
    signInWithIdToken: async () => {
      throw new DomainError('conflict', code);
    },
  },
});

async function social(request: Request) {
  const it = await openInteraction(request, f);
  return nativePost(request, f, '/social', { interaction_id: it.interactionId, provider: 'google', id_token: 'x.y.z', nonce: 'n', audience: 'app' });
}

const cases: Case[] = [
  // 400 invalid_request
  { name: 'wrong content type', status: 400, error: 'invalid_request', send: async () => h.request(`${f.base}/interactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(openFields()) }) },
  { name: 'no content type', status: 400, error: 'invalid_request', send: async () => h.request(`${f.base}/interactions`, { method: 'POST', body: form(openFields()) }) },
  { name: 'duplicated field', status: 400, error: 'invalid_request', send: async () => h.request(`${f.base}/password`, { method: 'POST', headers: { 'content-type': FORM }, body: `${form({ interaction_id: (await open()).interactionId, email: EMAIL, password: PASSWORD })}&email=${encodeURIComponent(EMAIL)}` }) },
  { name: 'missing field', status: 400, error: 'invalid_request', send: async () => post('/password', { interaction_id: (await open()).interactionId, email: EMAIL }) },
  { name: 'two malformed fields, both named', status: 400, error: 'invalid_request', describes: ['email: must match', 'password: is required'], send: async () => post('/password', { interaction_id: (await open()).interactionId, email: 'nope' }) },
  { name: 'empty field', status: 400, error: 'invalid_request', send: async () => post('/password', { interaction_id: (await open()).interactionId, email: EMAIL, password: '' }) },
  { name: 'malformed email', status: 400, error: 'invalid_request', send: async () => post('/email/request', { interaction_id: (await open()).interactionId, email: 'not-an-address' }) },
  { name: 'malformed code (five digits)', status: 400, error: 'invalid_request', send: async () => post('/email/verify', { interaction_id: (await open()).interactionId, email: EMAIL, code: '12345' }) },
  { name: 'unknown mfa method', status: 400, error: 'invalid_request', send: async () => post('/mfa', { interaction_id: (await open()).interactionId, challenge_token: 't', method: 'sms', code: '123456' }) },
  { name: 'interaction without state', status: 400, error: 'invalid_request', send: () => post('/interactions', openFields({ state: undefined })) },
  { name: 'interaction without PKCE', status: 400, error: 'invalid_request', send: () => post('/interactions', openFields({ code_challenge_method: 'plain' })) },
  { name: 'interaction with response_type token', status: 400, error: 'invalid_request', send: () => post('/interactions', openFields({ response_type: 'token' })) },
  { name: 'unregistered redirect_uri', status: 400, error: 'invalid_request', send: () => post('/interactions', openFields({ redirect_uri: 'https://evil.example.com/cb' })) },
  // 400 invalid_interaction
  { name: 'unknown interaction', status: 400, error: 'invalid_interaction', send: () => post('/password', { interaction_id: 'nope', email: EMAIL, password: PASSWORD }) },
  {
    name: 'expired interaction', status: 400, error: 'invalid_interaction', send: async () => {
      const it = await open();
      h.clock.advance(30 * 60 + 1);
      return post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
    },
  },
  {
    name: 'interaction already used', status: 400, error: 'invalid_interaction', send: async () => {
      const it = await open();
      await post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
      return post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
    },
  },
  { name: 'mfa without a pending second factor', status: 400, error: 'invalid_interaction', send: async () => post('/mfa', { interaction_id: (await open()).interactionId, challenge_token: 't', method: 'totp', code: '123456' }) },
  // 400 invalid_client, invalid_scope, invalid_target
  { name: 'unknown client', status: 400, error: 'invalid_client', send: () => post('/interactions', openFields({ client_id: 'nobody' })) },
  { name: 'client of another tenant', status: 400, error: 'invalid_client', send: () => post('/interactions', openFields({ client_id: 'app' }), undefined, { ...f, base: '/t/control/oauth2/native' }) },
  { name: 'scope not registered for the client', status: 400, error: 'invalid_scope', send: () => post('/interactions', openFields({ scope: 'openid admin' })) },
  { name: 'resource not available to the client', status: 400, error: 'invalid_target', send: () => post('/interactions', openFields({ resource: 'https://other.example.com' })) },
  // 400 invalid_password, invalid_new_password
  {
    name: 'registration password below the policy', status: 400, error: 'invalid_password', send: async () => {
      const { it, grant } = await registrationGrant('short@example.com');
      return post('/registration/complete', { interaction_id: it.interactionId, registration_grant: grant, password: 'short' });
    },
  },
  {
    name: 'new password below the policy', status: 400, error: 'invalid_new_password', send: async () => {
      const { it, grant } = await resetGrant();
      return post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: grant, new_password: 'short' });
    },
  },
  {
    name: 'new password is the current one', status: 400, error: 'invalid_new_password', send: async () => {
      const { it, grant } = await resetGrant();
      return post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: grant, new_password: PASSWORD });
    },
  },
  // 401
  { name: 'wrong password', status: 401, error: 'invalid_credentials', send: async () => post('/password', { interaction_id: (await open()).interactionId, email: EMAIL, password: 'wrong password' }) },
  { name: 'unknown account', status: 401, error: 'invalid_credentials', send: async () => post('/password', { interaction_id: (await open()).interactionId, email: 'nobody@example.com', password: PASSWORD }) },
  {
    name: 'disabled account', status: 401, error: 'invalid_credentials', send: async () => {
      const u = await h.services.users.create(f.tenant.tenant.id, { email: 'off@example.com', password: PASSWORD }, SYSTEM_ACTOR);
      await h.sql.run(`UPDATE users SET status = 'DISABLED' WHERE id = ?`, [u.id]);
      return post('/password', { interaction_id: (await open()).interactionId, email: 'off@example.com', password: PASSWORD });
    },
  },
  { name: 'upstream identity rejected', status: 401, error: 'invalid_credentials', send: () => social(failingProvider('invalid_credentials')) },
  {
    name: 'wrong email code', status: 401, error: 'invalid_code', send: async () => {
      const it = await open();
      await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
      await h.services.mail.sendDue();
      const code = smtp.codeFor(EMAIL);
      return post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code: code === '999999' ? '999998' : '999999' });
    },
  },
  { name: 'email code never requested', status: 401, error: 'invalid_code', send: async () => post('/email/verify', { interaction_id: (await open()).interactionId, email: 'x@example.com', code: '123456' }) },
  { name: 'unknown registration grant', status: 401, error: 'invalid_grant', send: async () => post('/registration/complete', { interaction_id: (await open()).interactionId, registration_grant: 'nope', password: 'long enough' }) },
  {
    name: 'expired reset grant', status: 401, error: 'invalid_grant', send: async () => {
      const { it, grant } = await resetGrant();
      h.clock.advance(301);
      return post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: grant, new_password: 'another password' });
    },
  },
  // 403
  { name: 'Origin header', status: 403, error: 'browser_request_forbidden', send: () => post('/interactions', openFields(), { origin: 'https://app.example.com' }) },
  { name: 'Cookie header', status: 403, error: 'browser_request_forbidden', send: () => post('/interactions', openFields(), { cookie: 'a=b' }) },
  { name: 'Sec-Fetch-Site header', status: 403, error: 'browser_request_forbidden', send: () => post('/password', { interaction_id: 'x', email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'none' }) },
  { name: 'client without native authentication', status: 403, error: 'native_authentication_disabled', send: () => post('/interactions', openFields({ client_id: 'browser-only' })) },
  { name: 'social provider not configured', status: 403, error: 'provider_unavailable', send: () => social(h.request) },
  { name: 'registration on a CONTROLLED tenant', status: 403, error: 'registration_closed', send: async () => post('/registration/request', { interaction_id: (await open(closed)).interactionId, email: 'new@example.com' }, undefined, closed) },
  { name: 'social sign-up on a CONTROLLED tenant', status: 403, error: 'registration_closed', send: () => social(failingProvider('registration_closed')) },
  // 404
  { name: 'unknown issuer', status: 404, error: 'unknown_tenant', send: () => post('/interactions', openFields(), undefined, { ...f, base: '/t/nowhere/oauth2/native' }) },
  // 409
  {
    name: 'EXPLICIT-consent client without remembered consent', status: 409, error: 'browser_required', send: async () => {
      const it = await open(f, { client_id: 'asking', scope: 'openid email' });
      return post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
    },
  },
  { name: 'prompt=select_account', status: 409, error: 'browser_required', send: () => post('/interactions', openFields({ prompt: 'select_account' })) },
  { name: 'account linking needed', status: 409, error: 'account_link_required', send: () => social(failingProvider('account_link_required')) },
  { name: 'upstream email unverified', status: 409, error: 'email_verification_required', send: () => social(failingProvider('email_verification_required')) },
  {
    name: 'account created meanwhile', status: 409, error: 'registration_conflict', send: async () => {
      const { it, grant } = await registrationGrant('race@example.com');
      await h.services.users.create(f.tenant.tenant.id, { email: 'race@example.com' }, SYSTEM_ACTOR);
      return post('/registration/complete', { interaction_id: it.interactionId, registration_grant: grant, password: 'long enough' });
    },
  },
  // 429
  {
    name: 'too many wrong passwords', status: 429, error: 'too_many_attempts', headers: { 'retry-after': /^[1-9]\d*$/ }, send: async () => {
      const email = `locked-${Math.random()}@example.com`;
      for (let i = 0; i < 5; i++) await post('/password', { interaction_id: (await open()).interactionId, email, password: 'wrong password' });
      return post('/password', { interaction_id: (await open()).interactionId, email, password: 'wrong password' });
    },
  },
  {
    name: 'code asked for again within the resend wait', status: 429, error: 'too_many_attempts', headers: { 'retry-after': /^[1-9]\d*$/ }, send: async () => {
      const it = await open();
      await post('/password/recovery/request', { interaction_id: it.interactionId, email: 'wait@example.com' });
      return post('/password/recovery/request', { interaction_id: it.interactionId, email: 'wait@example.com' });
    },
  },
  // 503
  {
    name: 'no SMTP server configured', status: 503, error: 'temporarily_unavailable', send: async () => {
      const it = await openInteraction(noMail.request, noMailFixture);
      return nativePost(noMail.request, noMailFixture, '/email/request', { interaction_id: it.interactionId, email: EMAIL });
    },
  },
];

describe('native routes', () => {
  it('are the twelve of spec 02, each in the OpenAPI document', async () => {
    const doc = (await (await h.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const native = Object.keys(doc.paths).filter((p) => p.startsWith('/oauth2/native/')).sort();
    expect(native).toEqual([
      '/oauth2/native/email/request', '/oauth2/native/email/verify', '/oauth2/native/interactions', '/oauth2/native/mfa', '/oauth2/native/password',
      '/oauth2/native/password/recovery/complete', '/oauth2/native/password/recovery/request', '/oauth2/native/password/recovery/verify',
      '/oauth2/native/registration/complete', '/oauth2/native/registration/request', '/oauth2/native/registration/verify', '/oauth2/native/social',
    ]);
    for (const p of native) expect(Object.keys(doc.paths[p])).toContain('post');
  });
});

describe('native error table (spec 02)', () => {
  it('covers every code of the table', () => {
    const codes = new Set(cases.map((c) => c.error));
    for (const code of ['invalid_request', 'invalid_interaction', 'invalid_client', 'invalid_scope', 'invalid_target', 'invalid_password', 'invalid_new_password',
      'invalid_credentials', 'invalid_code', 'invalid_grant', 'browser_request_forbidden', 'native_authentication_disabled', 'provider_unavailable',
      'registration_closed', 'unknown_tenant', 'browser_required', 'account_link_required', 'email_verification_required', 'registration_conflict',
      'too_many_attempts', 'temporarily_unavailable']) expect(codes).toContain(code);
  });

  for (const c of cases) {
    it(`${c.status} ${c.error}: ${c.name}`, async () => {
      const res = await c.send();
      expect(res.status).toBe(c.status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // Issue 23: invalid_request says what is wrong (error_description); every other code is the bare {error}.
      const body = (await res.json()) as { error: string; error_description?: string };
      if (c.error !== 'invalid_request') expect(body).toEqual({ error: c.error });
      else expect(body).toEqual({ error: c.error, error_description: expect.stringMatching(/^[\x20-\x7e]+$/) });
      for (const m of c.describes ?? []) expect(body.error_description).toContain(m);
      for (const [k, v] of Object.entries(c.headers ?? {})) expect(res.headers.get(k)).toMatch(v);
    });
  }
});
