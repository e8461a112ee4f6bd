import { isDomainError } from '../../platform/errors';
import type { MfaService } from '../mfa/service';
import { normalizeRecoveryCode } from '../mfa/recovery-codes';
import type { Form } from '../sessions/browser-flow';
import { PageErrors, type PageError } from '../sessions/errors';
import type { PendingRequest, SessionService } from '../sessions/service';
import type { ResolvedTenant } from '../tenants/service';
import type { UserService } from '../users/service';
import { ACCOUNT_PATHS, type AccountModel } from './templates';

/** What a route renders: a page, or a redirect (after a sign-in: post, redirect, get). */
export type AccountOutcome =
  | { kind: 'redirect'; location: string; cookie?: string }
  | { kind: 'page'; status: number; model: AccountModel; cookie?: string; retryAfter?: number };

const CLIENT_NAME = 'your account';
type UserRow = NonNullable<Awaited<ReturnType<UserService['findById']>>>;

export const AccountErrors = {
  wrongProof: { status: 400, title: 'Your account', message: 'The password or code is incorrect.' },
  wrongPassword: { status: 400, title: 'Your account', message: 'The current password is incorrect.' },
  wrongCode: { status: 400, title: 'Your account', message: 'The code is incorrect. Check the time on your device and try again.' },
} satisfies Record<string, PageError>;

/**
 * The self-service account page `{issuer}/account` (issue 10): the browser session of the
 * sign-in pages, with their CSRF token, throttle and second step. A visitor who is not signed in
 * signs in here first: an interaction of its own (no client; its redirect URI is the account
 * page, so the authorization pages refuse it) carries the pending second factor.
 */
export function createAccountFlow(deps: { sessions: SessionService; users: UserService; mfa: MfaService }) {
  const { sessions, users, mfa } = deps;
  const accountUrl = (tenant: ResolvedTenant) => tenant.issuer.replace(/\/+$/, '') + ACCOUNT_PATHS.home;
  const marker = (tenant: ResolvedTenant): PendingRequest => ({ clientId: '', redirectUri: accountUrl(tenant), scope: [], codeChallenge: '', prompt: [] });
  const page = (model: AccountModel, extra: { status?: number; cookie?: string; retryAfter?: number } = {}): AccountOutcome => ({ kind: 'page', status: extra.status ?? 200, model, ...extra });
  const errorPage = (e: PageError): AccountOutcome => page({ view: 'error', title: e.title, message: e.message }, { status: e.status });
  const toHome = (tenant: ResolvedTenant, cookie?: string): AccountOutcome => ({ kind: 'redirect', location: accountUrl(tenant), cookie });

  /** The signed-in, active user of this browser's session at this tenant. */
  async function signedIn(tenant: ResolvedTenant, cookie: string | undefined): Promise<{ user: UserRow; token: string; sessionId: string } | undefined> {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    const userId = live?.session.activeUserId;
    if (!live || !cookie || !userId || !live.accounts.some((a) => a.userId === userId)) return undefined;
    const user = await users.findById(tenant.tenant.id, userId);
    return user && user.status === 'ACTIVE' ? { user, token: cookie, sessionId: live.session.id } : undefined;
  }

  async function homePage(tenant: ResolvedTenant, s: { user: UserRow; token: string }, extra: { notice?: string; error?: PageError; errorAt?: 'mfa' | 'password' } = {}): Promise<AccountOutcome> {
    const st = await mfa.status(tenant.tenant.id, s.user.id);
    return page(
      { view: 'account', csrf: sessions.csrfToken(s.token), email: s.user.email, enrolled: st.enrolled, enrolledAt: st.enrolledAt, recoveryCodesLeft: st.recoveryCodesLeft, notice: extra.notice, error: extra.error?.message, errorAt: extra.errorAt },
      { status: extra.error?.status ?? 200, retryAfter: extra.error?.retryAfter },
    );
  }

  /** The sign-in form, in a new interaction bound to this browser's session (started if absent). */
  async function signInPage(tenant: ResolvedTenant, cookie: string | undefined): Promise<AccountOutcome> {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    const started = live ? undefined : await sessions.start(tenant.tenant.id);
    const token = started?.token ?? cookie!;
    const interactionId = await sessions.openInteraction(tenant.tenant.id, started?.session.id ?? live!.session.id, marker(tenant));
    return page({ view: 'login', interactionId, csrf: sessions.csrfToken(token), clientName: CLIENT_NAME, action: ACCOUNT_PATHS.login }, { cookie: started?.token });
  }

  /** Session, CSRF token and account interaction of a sign-in post. */
  async function resumeSignIn(tenant: ResolvedTenant, form: Form, cookie: string | undefined) {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    if (!live || !cookie) return { error: errorPage(PageErrors.sessionMissing) };
    if (!sessions.checkCsrf(cookie, form.csrf_token)) return { error: errorPage(PageErrors.csrf) };
    const it = await sessions.loadInteraction(tenant.tenant.id, form.interaction_id, live.session.id);
    if (!it || it.request.clientId !== '' || it.request.redirectUri !== accountUrl(tenant)) return { error: errorPage(PageErrors.interactionGone) };
    return { live, it, id: form.interaction_id!, token: cookie };
  }

  /** A signed-in user's form post: the session's CSRF token first. */
  async function authorized(tenant: ResolvedTenant, form: Form, cookie: string | undefined) {
    const s = await signedIn(tenant, cookie);
    if (!s) return { error: await signInPage(tenant, cookie) };
    if (!sessions.checkCsrf(s.token, form.csrf_token)) return { error: errorPage(PageErrors.csrf) };
    return { s };
  }

  /**
   * Re-authentication for removing the factor or replacing the recovery codes: the password, or a
   * current authenticator (or recovery) code; throttled like the sign-in, per user and address.
   */
  async function checkProof(tenantId: string, user: UserRow, proof: string | undefined, ip: string): Promise<PageError | undefined> {
    if (!proof) return AccountErrors.wrongProof;
    const attempt = await sessions.beginAttempt(tenantId, `account|${user.id}`, ip);
    if (!attempt.ticket) return PageErrors.throttled(attempt.wait);
    const p = proof.trim();
    let ok: boolean;
    if (/^\d{6}$/.test(p)) ok = (await mfa.verifySecondFactor(tenantId, user.id, 'totp', p)).ok;
    else if (normalizeRecoveryCode(p) && (await mfa.verifySecondFactor(tenantId, user.id, 'recovery', p)).ok) ok = true;
    else ok = !!(await users.verifyPassword(tenantId, user.email, proof));
    if (!ok) return AccountErrors.wrongProof;
    await sessions.attemptSucceeded(attempt.ticket);
    return undefined;
  }

  async function finishSignIn(tenant: ResolvedTenant, r: { live: { session: { id: string } }; id: string }, userId: string): Promise<string> {
    const token = await sessions.signIn(r.live.session.id, userId, sessions.now(), tenant.tenant.id);
    await sessions.finishInteraction(r.id);
    return token;
  }

  return {
    /** GET {issuer}/account. */
    async home(tenant: ResolvedTenant, cookie: string | undefined): Promise<AccountOutcome> {
      const s = await signedIn(tenant, cookie);
      return s ? homePage(tenant, s) : signInPage(tenant, cookie);
    },

    /** POST {issuer}/account/login: the password, then the second step when the user has one. */
    async login(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<AccountOutcome> {
      const r = await resumeSignIn(tenant, form, cookie);
      if (r.error) return r.error;
      const email = (form.email ?? '').trim();
      const again = (e: PageError) => page({ view: 'login', interactionId: r.id, csrf: sessions.csrfToken(r.token), clientName: CLIENT_NAME, action: ACCOUNT_PATHS.login, email, error: e.message }, { status: e.status, retryAfter: e.retryAfter });
      if (!email || !form.password) return again(PageErrors.missingCredentials);
      const tenantId = tenant.tenant.id;
      const attempt = await sessions.beginAttempt(tenantId, email, ip);
      if (!attempt.ticket) return again(PageErrors.throttled(attempt.wait));
      const user = await users.verifyPassword(tenantId, email, form.password);
      if (!user) return again(PageErrors.invalidCredentials);
      await sessions.attemptSucceeded(attempt.ticket);
      if (await mfa.hasSecondFactor(tenantId, user.id)) {
        await sessions.awaitSecondFactor(r.id, user.id);
        return page({ view: 'mfa', interactionId: r.id, csrf: sessions.csrfToken(r.token), clientName: CLIENT_NAME, method: 'totp', action: ACCOUNT_PATHS.mfa });
      }
      return toHome(tenant, await finishSignIn(tenant, r, user.id));
    },

    /** POST {issuer}/account/mfa: the second step of the account sign-in. */
    async secondFactor(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<AccountOutcome> {
      const r = await resumeSignIn(tenant, form, cookie);
      if (r.error) return r.error;
      const userId = r.it.row.mfaUserId;
      if (!userId) return errorPage(PageErrors.interactionGone);
      const method = form.method === 'recovery' ? 'recovery' : 'totp';
      const again = (e?: PageError) => page({ view: 'mfa', interactionId: r.id, csrf: sessions.csrfToken(r.token), clientName: CLIENT_NAME, method, action: ACCOUNT_PATHS.mfa, error: e?.message }, { status: e?.status, retryAfter: e?.retryAfter });
      if (form.code === undefined) return again();
      if (!form.code.trim()) return again(PageErrors.missingCode);
      const tenantId = tenant.tenant.id;
      const attempt = await sessions.beginAttempt(tenantId, `mfa|${userId}`, ip);
      if (!attempt.ticket) return again(PageErrors.throttled(attempt.wait));
      const user = await users.findById(tenantId, userId);
      const result = user?.status === 'ACTIVE' ? await mfa.verifySecondFactor(tenantId, userId, method, form.code.trim()) : { ok: false as const };
      if (!result.ok) return again(PageErrors.invalidSecondFactor);
      await sessions.attemptSucceeded(attempt.ticket);
      const token = await finishSignIn(tenant, r, userId);
      if (!result.replacementRecoveryCode) return toHome(tenant, token);
      return page(
        { view: 'account-codes', title: 'Save your new recovery code', lead: 'The recovery code you used no longer works. This one replaces it; it is shown only now.', codes: [result.replacementRecoveryCode] },
        { cookie: token },
      );
    },

    /** POST {issuer}/account/totp/enrol: a new secret, shown as a QR code; not active until confirmed. */
    async enrol(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<AccountOutcome> {
      const a = await authorized(tenant, form, cookie);
      if (a.error) return a.error;
      const { user, token } = a.s;
      try {
        const e = await mfa.beginEnrolment(tenant.tenant.id, user.id, tenant.tenant.slug, user.email);
        return page({ view: 'account-enrol', csrf: sessions.csrfToken(token), qrSvg: e.qrSvg, secret: e.secret, uri: e.uri });
      } catch (err) {
        if (isDomainError(err) && err.code === 'mfa_already_enrolled') return homePage(tenant, a.s, { notice: 'Two-step verification is already on.' });
        throw err;
      }
    },

    /** POST {issuer}/account/totp/confirm: the first code turns the factor on; the recovery codes are shown once. */
    async confirm(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<AccountOutcome> {
      const a = await authorized(tenant, form, cookie);
      if (a.error) return a.error;
      const { user, token } = a.s;
      const tenantId = tenant.tenant.id;
      try {
        const codes = await mfa.confirmEnrolment(tenantId, user.id, form.code ?? '');
        return page({ view: 'account-codes', title: 'Save your recovery codes', lead: 'Two-step verification is on. Each of these codes signs you in once if you lose your phone. They are shown only now.', codes });
      } catch (err) {
        if (!isDomainError(err)) throw err;
        const pending = err.code === 'invalid_code' ? await mfa.pendingEnrolment(tenantId, user.id, tenant.tenant.slug, user.email) : undefined;
        if (!pending) return homePage(tenant, a.s);
        return page({ view: 'account-enrol', csrf: sessions.csrfToken(token), qrSvg: pending.qrSvg, secret: pending.secret, uri: pending.uri, error: AccountErrors.wrongCode.message }, { status: 400 });
      }
    },

    /** POST {issuer}/account/recovery-codes: new codes replace the old ones (password or code required). */
    async regenerate(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<AccountOutcome> {
      const a = await authorized(tenant, form, cookie);
      if (a.error) return a.error;
      const problem = await checkProof(tenant.tenant.id, a.s.user, form.proof, ip);
      if (problem) return homePage(tenant, a.s, { error: problem, errorAt: 'mfa' });
      if (!(await mfa.hasSecondFactor(tenant.tenant.id, a.s.user.id))) return homePage(tenant, a.s);
      const codes = await mfa.regenerateRecoveryCodes(tenant.tenant.id, a.s.user.id);
      return page({ view: 'account-codes', title: 'Your new recovery codes', lead: 'Your earlier recovery codes no longer work. These are shown only now.', codes });
    },

    /** POST {issuer}/account/totp/remove: password or a current code required. */
    async remove(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<AccountOutcome> {
      const a = await authorized(tenant, form, cookie);
      if (a.error) return a.error;
      const problem = await checkProof(tenant.tenant.id, a.s.user, form.proof, ip);
      if (problem) return homePage(tenant, a.s, { error: problem, errorAt: 'mfa' });
      await mfa.remove(tenant.tenant.id, a.s.user.id);
      return homePage(tenant, a.s, { notice: 'Two-step verification is off.' });
    },

    /**
     * POST {issuer}/account/password: the current password, and a new one that meets the tenant's
     * policy. With `sign_out_others` (a checkbox, checked by default) the user's grants and refresh
     * tokens at every client and their other browser sessions end with the change, as after a
     * recovery; this browser stays signed in (issue 21). Unchecked, a checkbox sends nothing.
     */
    async changePassword(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<AccountOutcome> {
      const a = await authorized(tenant, form, cookie);
      if (a.error) return a.error;
      const { user } = a.s;
      const tenantId = tenant.tenant.id;
      const signOutOthers = form.sign_out_others === 'yes';
      const attempt = await sessions.beginAttempt(tenantId, user.email, ip);
      if (!attempt.ticket) return homePage(tenant, a.s, { error: PageErrors.throttled(attempt.wait), errorAt: 'password' });
      if (!form.current_password || !(await users.verifyPassword(tenantId, user.email, form.current_password))) {
        return homePage(tenant, a.s, { error: AccountErrors.wrongPassword, errorAt: 'password' });
      }
      await sessions.attemptSucceeded(attempt.ticket);
      try {
        await users.changePassword(tenantId, user.id, form.new_password ?? '', signOutOthers ? { keepSessionId: a.s.sessionId } : undefined);
      } catch (err) {
        if (isDomainError(err) && err.code === 'invalid_password') return homePage(tenant, a.s, { error: { status: 400, title: 'Your account', message: `The new password is not accepted: ${err.message}.` }, errorAt: 'password' });
        throw err;
      }
      return homePage(tenant, a.s, { notice: signOutOthers ? 'Your password was changed. Your other sessions were signed out.' : 'Your password was changed.' });
    },
  };
}

export type AccountFlow = ReturnType<typeof createAccountFlow>;
