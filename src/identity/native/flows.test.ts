import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { decodeJwt } from '../../../test/fixtures/oauth';
import { EMAIL, PASSWORD, appWith, createNativeFixture, nativePost, openInteraction, redeem, type NativeFixture } from '../../../test/fixtures/native';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let f: NativeFixture;
let smtp: TestSmtp;
beforeEach(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url, mailFrom: 'auth@engage.test', trustedProxies: 1 });
  f = await createNativeFixture(h);
});
afterEach(async () => {
  await h.close();
  await smtp.close();
});

const post = (route: string, fields: Record<string, string>) => nativePost(h.request, f, route, fields);

/** Sends what the outbox holds, then reads the newest code mailed to `email`. */
async function mailedCode(email: string): Promise<string> {
  await h.services.mail.sendDue();
  return smtp.codeFor(email);
}

async function passwordSignIn(email = EMAIL, password = PASSWORD) {
  const it = await openInteraction(h.request, f);
  const res = await post('/password', { interaction_id: it.interactionId, email, password });
  return { ...it, res };
}

describe('native password sign-in', () => {
  it('answers a code bound to the interaction, exchanged at the token endpoint with the original verifier', async () => {
    const { res, verifier } = await passwordSignIn('  ADA@example.com ');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['code', 'issuer', 'redirectUri', 'replacementRecoveryCode', 'state']);
    expect(body).toMatchObject({ state: 'st-123', issuer: `http://engage.test/t/${f.slug}`, redirectUri: 'https://app.example.com/cb', replacementRecoveryCode: null });
    // The wrong verifier fails, and does not spend the code.
    expect((await redeem(h.request, f, body.code as string, 'x'.repeat(43))).status).toBe(400);
    const token = await redeem(h.request, f, body.code as string, verifier);
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { id_token: string; refresh_token?: string; scope: string };
    const claims = decodeJwt(tokens.id_token).payload;
    expect(claims).toMatchObject({ iss: `http://engage.test/t/${f.slug}`, aud: 'app', nonce: 'n-456' });
    expect(tokens.refresh_token).toBeTruthy();
    // One code, one exchange.
    expect((await redeem(h.request, f, body.code as string, verifier)).status).toBe(400);
  });

  it('ends the interaction with the code: it cannot be used again', async () => {
    const { res, interactionId } = await passwordSignIn();
    expect(res.status).toBe(200);
    const again = await post('/password', { interaction_id: interactionId, email: EMAIL, password: PASSWORD });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: 'invalid_interaction' });
  });

  it('keeps the interaction to one proof flow', async () => {
    const it = await openInteraction(h.request, f);
    expect((await post('/password', { interaction_id: it.interactionId, email: EMAIL, password: 'wrong password' })).status).toBe(401);
    const other = await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({ error: 'invalid_interaction' });
    // The same flow may try again.
    expect((await post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD })).status).toBe(200);
  });

  it('a correct password clears the account\u2019s failures; a password sent to another flow\u2019s interaction counts none', async () => {
    for (let i = 0; i < 4; i++) expect((await passwordSignIn(EMAIL, 'wrong password')).res.status).toBe(401);
    expect((await passwordSignIn()).res.status).toBe(200);
    // Five free failures again (sessions/throttle.ts): the success was settled, not counted.
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(EMAIL, 'wrong password')).res.status).toBe(401);
    expect((await passwordSignIn(EMAIL, 'wrong password')).res.status).toBe(429);
    // Another tenant, whose counters are its own: six passwords at an email-flow interaction.
    const g = await createNativeFixture(h, { slug: 'other' });
    const it = await openInteraction(h.request, g);
    expect((await nativePost(h.request, g, '/email/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    for (let i = 0; i < 6; i++) {
      const res = await nativePost(h.request, g, '/password', { interaction_id: it.interactionId, email: EMAIL, password: 'wrong password' });
      expect(await res.json()).toEqual({ error: 'invalid_interaction' });
    }
    const fresh = await openInteraction(h.request, g);
    expect((await nativePost(h.request, g, '/password', { interaction_id: fresh.interactionId, email: EMAIL, password: PASSWORD })).status).toBe(200);
  });

  it('answers an unknown account exactly as a wrong password', async () => {
    const wrong = await passwordSignIn(EMAIL, 'wrong password');
    const unknown = await passwordSignIn('nobody@example.com', 'wrong password');
    expect([wrong.res.status, unknown.res.status]).toEqual([401, 401]);
    expect(await unknown.res.text()).toBe(await wrong.res.text());
  });

  it('isolates tenants: an interaction of one tenant is unknown at another', async () => {
    const other = await createNativeFixture(h, { slug: 'other' });
    const it = await openInteraction(h.request, f);
    const res = await nativePost(h.request, other, '/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_interaction' });
  });
});

describe('native email code sign-in', () => {
  it('mails a six-digit code and signs in with it; the code works once', async () => {
    const it = await openInteraction(h.request, f);
    const req = await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
    expect(req.status).toBe(202);
    expect(await req.json()).toEqual({ retryAfterSeconds: 60, expiresInSeconds: 600 });
    const code = await mailedCode(EMAIL);
    expect(smtp.to(EMAIL)[0].from).toBe('auth@engage.test');
    const res = await post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code });
    expect(res.status).toBe(200);
    const { code: authCode } = (await res.json()) as { code: string };
    expect((await redeem(h.request, f, authCode, it.verifier)).status).toBe(200);
  });

  it('marks the address verified once a code mailed to it came back', async () => {
    const u = await h.services.users.create(f.tenant.tenant.id, { email: 'new@example.com', password: PASSWORD }, SYSTEM_ACTOR);
    expect(u.emailVerified).toBe(false);
    const it = await openInteraction(h.request, f);
    await post('/email/request', { interaction_id: it.interactionId, email: 'new@example.com' });
    const res = await post('/email/verify', { interaction_id: it.interactionId, email: 'new@example.com', code: await mailedCode('new@example.com') });
    expect(res.status).toBe(200);
    expect((await h.services.users.findById(f.tenant.tenant.id, u.id))!.emailVerified).toBe(true);
  });

  it('answers the same 202 for an unknown address and sends nothing', async () => {
    const it = await openInteraction(h.request, f);
    const res = await post('/email/request', { interaction_id: it.interactionId, email: 'nobody@example.com' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ retryAfterSeconds: 60, expiresInSeconds: 600 });
    await h.services.mail.sendDue();
    expect(smtp.messages).toHaveLength(0);
  });

  it('enforces the resend wait, then replaces the code', async () => {
    const it = await openInteraction(h.request, f);
    expect((await post('/email/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    const first = await mailedCode(EMAIL);
    const early = await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
    expect(early.status).toBe(429);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(61);
    expect((await post('/email/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    const second = await mailedCode(EMAIL);
    if (first !== second) expect((await post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code: first })).status).toBe(401);
    expect((await post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code: second })).status).toBe(200);
  });

  it('expires a code after ten minutes and after five wrong attempts', async () => {
    const it = await openInteraction(h.request, f);
    await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
    const code = await mailedCode(EMAIL);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect((await post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code: wrong })).status).toBe(401);
    expect((await post('/email/verify', { interaction_id: it.interactionId, email: EMAIL, code })).status).toBe(401);

    const it2 = await openInteraction(h.request, f);
    h.clock.advance(61);
    await post('/email/request', { interaction_id: it2.interactionId, email: EMAIL });
    const code2 = await mailedCode(EMAIL);
    h.clock.advance(601);
    const late = await post('/email/verify', { interaction_id: it2.interactionId, email: EMAIL, code: code2 });
    expect(late.status).toBe(401);
    expect(await late.json()).toEqual({ error: 'invalid_code' });
  });
});

describe('emailed codes per email address', () => {
  it('an address gets ten checks across its challenges; then even a right code waits (429 with Retry-After); a right code before that starts the budget again', async () => {
    const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');
    const fresh = async () => {
      const it = await openInteraction(h.request, f);
      h.clock.advance(61);
      await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
      return { it, code: await mailedCode(EMAIL) };
    };
    // A right code clears what wrong ones counted.
    const first = await fresh();
    for (let i = 0; i < 4; i++) expect((await post('/email/verify', { interaction_id: first.it.interactionId, email: EMAIL, code: wrongFor(first.code) })).status).toBe(401);
    expect((await post('/email/verify', { interaction_id: first.it.interactionId, email: EMAIL, code: first.code })).status).toBe(200);
    // Ten wrong checks over three challenges (each allows five), then the lock.
    let left = 10;
    let last = first;
    while (left > 0) {
      last = await fresh();
      for (let i = 0; i < 4 && left > 0; i++, left--) expect((await post('/email/verify', { interaction_id: last.it.interactionId, email: EMAIL, code: wrongFor(last.code) })).status).toBe(401);
    }
    // The last challenge still has tries of its own: its right code waits for the address's lock.
    const locked = await post('/email/verify', { interaction_id: last.it.interactionId, email: EMAIL, code: last.code });
    expect(locked.status).toBe(429);
    expect(await locked.json()).toEqual({ error: 'too_many_attempts' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('emailed codes per client address', () => {
  it('lets one client address ask for 20 codes, then locks it with Retry-After; other addresses and mail already sent are unaffected', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const it = await openInteraction(h.request, f);
    for (let i = 0; i < 20; i++) {
      const res = await nativePost(h.request, f, '/email/request', { interaction_id: it.interactionId, email: `person${i}@example.com` }, from('203.0.113.7'));
      expect(res.status).toBe(202);
    }
    // Registration and recovery requests count against the same address.
    const reg = await openInteraction(h.request, f);
    const locked = await nativePost(h.request, f, '/password/recovery/request', { interaction_id: reg.interactionId, email: EMAIL }, from('203.0.113.7'));
    expect(locked.status).toBe(429);
    expect(await locked.json()).toEqual({ error: 'too_many_attempts' });
    expect(Number(locked.headers.get('retry-after'))).toBe(30);
    // No challenge was written for the refused request: nothing is mailed to that address.
    await h.services.mail.sendDue();
    expect(smtp.to(EMAIL)).toHaveLength(0);
    const other = await nativePost(h.request, f, '/password/recovery/request', { interaction_id: reg.interactionId, email: EMAIL }, from('203.0.113.8'));
    expect(other.status).toBe(202);
    expect(await mailedCode(EMAIL)).toMatch(/^\d{6}$/);
  });
});

describe('native registration', () => {
  it('registers an active, verified account that then signs in with a fresh interaction', async () => {
    const it = await openInteraction(h.request, f);
    const email = 'grace@example.com';
    const req = await post('/registration/request', { interaction_id: it.interactionId, email });
    expect(req.status).toBe(202);
    expect(await req.json()).toEqual({ retryAfterSeconds: 60, expiresInSeconds: 600 });
    const code = await mailedCode(email);
    const verify = await post('/registration/verify', { interaction_id: it.interactionId, email, code });
    expect(verify.status).toBe(200);
    const { registrationGrant, expiresInSeconds } = (await verify.json()) as { registrationGrant: string; expiresInSeconds: number };
    expect(expiresInSeconds).toBe(300);
    expect(await h.services.users.findByEmail(f.tenant.tenant.id, email)).toBeUndefined();
    const done = await post('/registration/complete', { interaction_id: it.interactionId, registration_grant: registrationGrant, password: 'a new password' });
    expect(done.status).toBe(201);
    expect(await done.text()).toBe('');
    const user = await h.services.users.findByEmail(f.tenant.tenant.id, email);
    expect(user).toMatchObject({ status: 'ACTIVE', emailVerified: true });
    // Not signed in: the interaction is over, the grant spent.
    expect((await post('/password', { interaction_id: it.interactionId, email, password: 'a new password' })).status).toBe(400);
    expect((await post('/registration/complete', { interaction_id: it.interactionId, registration_grant: registrationGrant, password: 'a new password' })).status).toBe(400);
    const signIn = await passwordSignIn(email, 'a new password');
    expect(signIn.res.status).toBe(200);
  });

  it('answers the same for a taken address and tells its owner by mail instead', async () => {
    const it = await openInteraction(h.request, f);
    const res = await post('/registration/request', { interaction_id: it.interactionId, email: EMAIL });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ retryAfterSeconds: 60, expiresInSeconds: 600 });
    await h.services.mail.sendDue();
    const mail = smtp.to(EMAIL);
    expect(mail).toHaveLength(1);
    expect(mail[0].raw).toMatch(/already have one/);
    expect(mail[0].raw).not.toMatch(/^\d{6}\r?$/m);
  });

  it('never lets a registration grant act as a code or a token', async () => {
    const it = await openInteraction(h.request, f);
    await post('/registration/request', { interaction_id: it.interactionId, email: 'eve@example.com' });
    const code = await mailedCode('eve@example.com');
    const { registrationGrant } = (await (await post('/registration/verify', { interaction_id: it.interactionId, email: 'eve@example.com', code })).json()) as { registrationGrant: string };
    const asCode = await redeem(h.request, f, registrationGrant, it.verifier);
    expect(asCode.status).toBe(400);
    expect(((await asCode.json()) as { error: string }).error).toBe('invalid_grant');
    const asRefresh = await h.request(`${f.issuerPath}/oauth2/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: registrationGrant }).toString(),
    });
    expect(asRefresh.status).toBe(400);
    expect((await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${registrationGrant}` } })).status).toBe(401);
    // Still good for what it is for.
    expect((await post('/registration/complete', { interaction_id: it.interactionId, registration_grant: registrationGrant, password: 'a long password' })).status).toBe(201);
  });

  it('keeps the grant to the interaction that earned it', async () => {
    const it = await openInteraction(h.request, f);
    await post('/registration/request', { interaction_id: it.interactionId, email: 'grace@example.com' });
    const code = await mailedCode('grace@example.com');
    const other = await openInteraction(h.request, f);
    expect((await post('/registration/verify', { interaction_id: other.interactionId, email: 'grace@example.com', code })).status).toBe(401);
    const verify = await post('/registration/verify', { interaction_id: it.interactionId, email: 'grace@example.com', code });
    const { registrationGrant } = (await verify.json()) as { registrationGrant: string };
    const res = await post('/registration/complete', { interaction_id: other.interactionId, registration_grant: registrationGrant, password: 'a new password' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_grant' });
  });
});

describe('native password recovery', () => {
  it('replaces the password and ends every refresh token and browser sign-in of the user', async () => {
    const before = await passwordSignIn();
    const { code } = (await before.res.json()) as { code: string };
    const tokens = (await (await redeem(h.request, f, code, before.verifier)).json()) as { refresh_token: string; access_token: string };

    const it = await openInteraction(h.request, f);
    expect((await post('/password/recovery/request', { interaction_id: it.interactionId, email: EMAIL })).status).toBe(202);
    const mailed = await mailedCode(EMAIL);
    const verify = await post('/password/recovery/verify', { interaction_id: it.interactionId, email: EMAIL, code: mailed });
    expect(verify.status).toBe(200);
    const { resetGrant, expiresInSeconds } = (await verify.json()) as { resetGrant: string; expiresInSeconds: number };
    expect(expiresInSeconds).toBe(300);
    const same = await post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: resetGrant, new_password: PASSWORD });
    expect(same.status).toBe(400);
    expect(await same.json()).toEqual({ error: 'invalid_new_password' });
    const done = await post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: resetGrant, new_password: 'brand new secret' });
    expect(done.status).toBe(204);
    expect((await post('/password/recovery/complete', { interaction_id: it.interactionId, reset_grant: resetGrant, new_password: 'another secret' })).status).toBe(401);

    const refresh = await h.request(`${f.issuerPath}/oauth2/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: tokens.refresh_token }).toString(),
    });
    expect(refresh.status).toBe(400);
    const info = await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    // The interaction stays open for the sign-in that follows; the old password is gone.
    expect((await post('/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD })).status).toBe(401);
    expect((await post('/password', { interaction_id: it.interactionId, email: EMAIL, password: 'brand new secret' })).status).toBe(200);
  });

  it('keeps tenants apart: a code and a grant of one tenant mean nothing at another with the same address', async () => {
    const other = await createNativeFixture(h, { slug: 'other' });
    const it = await openInteraction(h.request, f);
    await post('/password/recovery/request', { interaction_id: it.interactionId, email: EMAIL });
    const code = await mailedCode(EMAIL);
    const itOther = await openInteraction(h.request, other);
    await nativePost(h.request, other, '/password/recovery/request', { interaction_id: itOther.interactionId, email: EMAIL });
    const verifyElsewhere = await nativePost(h.request, other, '/password/recovery/verify', { interaction_id: itOther.interactionId, email: EMAIL, code });
    // The other tenant mailed its own code; this one's fails there (unless both drew the same six digits).
    if (code !== (await mailedCode(EMAIL))) expect(verifyElsewhere.status).toBe(401);
    const { resetGrant } = (await (await post('/password/recovery/verify', { interaction_id: it.interactionId, email: EMAIL, code })).json()) as { resetGrant: string };
    const res = await nativePost(h.request, other, '/password/recovery/complete', { interaction_id: itOther.interactionId, reset_grant: resetGrant, new_password: 'brand new secret' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_grant' });
  });

  it('discloses nothing for an unknown address', async () => {
    const it = await openInteraction(h.request, f);
    const res = await post('/password/recovery/request', { interaction_id: it.interactionId, email: 'nobody@example.com' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ retryAfterSeconds: 60, expiresInSeconds: 600 });
    await h.services.mail.sendDue();
    expect(smtp.messages).toHaveLength(0);
  });
});

describe('second factor hook-up', () => {
  const mfa = {
    hasSecondFactor: async () => true,
    verifySecondFactor: async (_t: string, _u: string, method: 'totp' | 'recovery', code: string) =>
      code === '123456' ? { ok: true as const, replacementRecoveryCode: method === 'recovery' ? 'NEW-RECOVERY' : null } : { ok: false as const },
  };

  it('answers mfa_required after the password, then the code after the second factor', async () => {
    const request = appWith(h, { mfa });
    const it = await openInteraction(request, f);
    const first = await nativePost(request, f, '/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
    expect(first.status).toBe(200);
    const challenge = (await first.json()) as { status: string; challengeToken: string };
    expect(challenge.status).toBe('mfa_required');
    const wrongToken = await nativePost(request, f, '/mfa', { interaction_id: it.interactionId, challenge_token: 'nope', method: 'totp', code: '123456' });
    expect(await wrongToken.json()).toEqual({ error: 'invalid_interaction' });
    const wrong = await nativePost(request, f, '/mfa', { interaction_id: it.interactionId, challenge_token: challenge.challengeToken, method: 'totp', code: '000000' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid_code' });
    const ok = await nativePost(request, f, '/mfa', { interaction_id: it.interactionId, challenge_token: challenge.challengeToken, method: 'recovery', code: '123456' });
    expect(ok.status).toBe(200);
    const result = (await ok.json()) as { code: string; replacementRecoveryCode: string };
    expect(result.replacementRecoveryCode).toBe('NEW-RECOVERY');
    expect((await redeem(request, f, result.code, it.verifier)).status).toBe(200);
    // Done: the challenge cannot be answered again.
    expect((await nativePost(request, f, '/mfa', { interaction_id: it.interactionId, challenge_token: challenge.challengeToken, method: 'totp', code: '123456' })).status).toBe(400);
  });

  it('throttles second-factor guesses', async () => {
    const request = appWith(h, { mfa });
    const it = await openInteraction(request, f);
    const { challengeToken } = (await (await nativePost(request, f, '/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD })).json()) as { challengeToken: string };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await nativePost(request, f, '/mfa', { interaction_id: it.interactionId, challenge_token: challengeToken, method: 'totp', code: '000000' })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
  });
});
