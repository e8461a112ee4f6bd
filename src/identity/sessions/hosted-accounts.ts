import { DomainError } from '../../platform/errors';
import type { HostedPageModel } from '../pages/hosted-templates';
import type { ResolvedTenant } from '../tenants/service';
import type { BrowserFlow, Form, Outcome } from './browser-flow';
import { HostedPageErrors, PageErrors, type PageError } from './errors';
import type { BrowserOAuthPort } from './ports';
import type { SessionService } from './service';
import { EMAIL_PATTERN } from '../users/schemas';

const EMAIL = new RegExp(EMAIL_PATTERN);

/**
 * What the hosted pages need from the native adapter's accounts (native/hosted.ts): its
 * challenges, mails, throttles and password policy. Failures are DomainErrors with the native
 * table's codes (too_many_attempts with Retry-After, invalid_code, invalid_password, …).
 */
export interface HostedAccountsPort {
  mailAvailable: boolean;
  hostedRecoveryRequest(tenant: ResolvedTenant, input: { email: string; ip: string }): Promise<unknown>;
  hostedRecoveryComplete(tenant: ResolvedTenant, input: { email: string; code: string; password: string }): Promise<void>;
  hostedRegistrationRequest(tenant: ResolvedTenant, input: { interactionId: string; email: string; ip: string }): Promise<unknown>;
  hostedRegistrationComplete(tenant: ResolvedTenant, input: { interactionId: string; email: string; code: string; password: string }): Promise<string>;
}

const RECOVERED_NOTICE = 'Your password was changed and you were signed out everywhere. Sign in with your new password.';

/** A page of these flows: only our own origin is a form target. */
function show(model: HostedPageModel, error?: PageError, cookie?: string): Outcome {
  return { kind: 'page', status: error?.status ?? 200, model, formTargets: [], cookie, retryAfter: error?.retryAfter };
}

function errorPage(e: PageError): Outcome {
  return { kind: 'page', status: e.status, model: { view: 'error', title: e.title, message: e.message }, formTargets: [] };
}

/** A native failure as these pages word it; anything else is unexpected and thrown on. */
function pageErrorOf(e: unknown, samePasswordHint = false): PageError {
  if (!(e instanceof DomainError)) throw e;
  switch (e.code) {
    case 'too_many_attempts':
      return HostedPageErrors.throttled(Number(e.headers['Retry-After'] ?? 60));
    case 'temporarily_unavailable':
      return HostedPageErrors.unavailable;
    case 'invalid_code':
      return HostedPageErrors.invalidCode;
    case 'invalid_password':
    case 'invalid_new_password':
      return samePasswordHint && e.message === 'the new password is the current one' ? HostedPageErrors.samePassword : HostedPageErrors.password(e.message);
    case 'registration_conflict':
      return HostedPageErrors.registrationConflict;
    case 'registration_closed':
      return HostedPageErrors.notOffered;
    default:
      throw e;
  }
}

/**
 * The hosted registration and password recovery pages (issue 23 point 6), as decisions the
 * routes only render. Registration always belongs to an authorization request and ends signed in
 * as after a sign-in; recovery may also start from a mail (no request), and ends on the sign-in
 * page of the request, or on a signed-out page.
 */
export function createHostedAccounts(deps: { sessions: SessionService; oauth: BrowserOAuthPort; accounts: HostedAccountsPort; flow: BrowserFlow }) {
  const { sessions, oauth, accounts, flow } = deps;

  const offers = (tenant: ResolvedTenant) => ({
    recovery: accounts.mailAvailable,
    registration: accounts.mailAvailable && tenant.tenant.registrationMode === 'SELF_SERVICE',
  });

  /** The session (started when absent) and its CSRF token, for a page opened by a link. */
  async function sessionFor(tenant: ResolvedTenant, cookie: string | undefined) {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    if (live && cookie) return { live, token: cookie, started: undefined };
    const started = await sessions.start(tenant.tenant.id);
    return { live: undefined, token: started.token, started: started.token };
  }

  /** The interaction id, kept only when it is this session's and its client still active. */
  async function ownInteraction(tenant: ResolvedTenant, id: string | undefined, sessionId: string | undefined): Promise<string | undefined> {
    if (!id || !sessionId) return undefined;
    const it = await sessions.loadInteraction(tenant.tenant.id, id, sessionId);
    const client = it && (await oauth.findClient(tenant.tenant.id, it.request.clientId));
    return client && (client.status ?? 'ACTIVE') === 'ACTIVE' ? id : undefined;
  }

  /** A recovery form post: the session and its CSRF token; the interaction is optional. */
  async function recoveryPost(tenant: ResolvedTenant, form: Form, cookie: string | undefined) {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    if (!live || !cookie) return { error: errorPage(PageErrors.sessionMissing) };
    if (!sessions.checkCsrf(cookie, form.csrf_token)) return { error: errorPage(PageErrors.csrf) };
    const interactionId = await ownInteraction(tenant, form.interaction_id, live.session.id);
    return { csrf: sessions.csrfToken(cookie), interactionId };
  }

  return {
    offers,

    /** GET …/recover: the address form, or (from a mail's link, `email` given) the code form. */
    async recoverForm(tenant: ResolvedTenant, query: URLSearchParams, cookie: string | undefined): Promise<Outcome> {
      if (!offers(tenant).recovery) return errorPage(HostedPageErrors.notOffered);
      const s = await sessionFor(tenant, cookie);
      const interactionId = await ownInteraction(tenant, query.get('interaction_id') ?? undefined, s.live?.session.id);
      const csrf = sessions.csrfToken(s.token);
      const email = query.get('email')?.trim();
      if (email) return show({ view: 'recover-code', csrf, interactionId, email, sent: false }, undefined, s.started);
      return show({ view: 'recover', csrf, interactionId }, undefined, s.started);
    },

    /** POST …/recover: the same page whether or not the address has an account. */
    async recoverRequest(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<Outcome> {
      if (!offers(tenant).recovery) return errorPage(HostedPageErrors.notOffered);
      const r = await recoveryPost(tenant, form, cookie);
      if (r.error) return r.error;
      const email = (form.email ?? '').trim();
      const again = (e: PageError) => show({ view: 'recover', csrf: r.csrf, interactionId: r.interactionId, email, error: e.message }, e);
      if (!email) return again(HostedPageErrors.missingEmail);
      if (!EMAIL.test(email)) return again(HostedPageErrors.badEmail);
      try {
        await accounts.hostedRecoveryRequest(tenant, { email, ip });
      } catch (e) {
        return again(pageErrorOf(e));
      }
      return show({ view: 'recover-code', csrf: r.csrf, interactionId: r.interactionId, email, sent: true });
    },

    /** POST …/recover/complete: the code and the new password; then sign-in again, or signed out. */
    async recoverComplete(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      if (!offers(tenant).recovery) return errorPage(HostedPageErrors.notOffered);
      const r = await recoveryPost(tenant, form, cookie);
      if (r.error) return r.error;
      const email = (form.email ?? '').trim();
      const code = (form.code ?? '').trim();
      const password = form.password ?? '';
      const again = (e: PageError) => show({ view: 'recover-code', csrf: r.csrf, interactionId: r.interactionId, email, sent: false, error: e.message }, e);
      if (!email) return errorPage(PageErrors.badForm);
      if (!code || !password) return again(HostedPageErrors.missingCode);
      try {
        await accounts.hostedRecoveryComplete(tenant, { email, code, password });
      } catch (e) {
        return again(pageErrorOf(e, true));
      }
      if (r.interactionId) {
        const resumed = await flow.resume(tenant, { interaction_id: r.interactionId, csrf_token: form.csrf_token }, cookie);
        if (!resumed.error) return flow.signInPage(tenant, resumed, email, RECOVERED_NOTICE);
      }
      return show({ view: 'recovered' });
    },

    /** GET …/register: only on a SELF_SERVICE tenant, within an authorization request of this session. */
    async registerForm(tenant: ResolvedTenant, query: URLSearchParams, cookie: string | undefined): Promise<Outcome> {
      if (!offers(tenant).registration) return errorPage(HostedPageErrors.notOffered);
      const live = await sessions.lookup(tenant.tenant.id, cookie);
      if (!live || !cookie) return errorPage(PageErrors.sessionMissing);
      const id = query.get('interaction_id') ?? undefined;
      const it = id ? await sessions.loadInteraction(tenant.tenant.id, id, live.session.id) : undefined;
      const client = it && (await oauth.findClient(tenant.tenant.id, it.request.clientId));
      if (!id || !client || (client.status ?? 'ACTIVE') !== 'ACTIVE') return errorPage(PageErrors.interactionGone);
      return show({ view: 'register', csrf: sessions.csrfToken(cookie), interactionId: id, clientName: client.displayName });
    },

    /** POST …/register: a code to a free address, a notice to a taken one; the same page either way. */
    async registerRequest(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<Outcome> {
      if (!offers(tenant).registration) return errorPage(HostedPageErrors.notOffered);
      const r = await flow.resume(tenant, form, cookie);
      if (r.error) return r.error;
      const base = { csrf: sessions.csrfToken(r.token), interactionId: r.id, clientName: r.client.displayName };
      const email = (form.email ?? '').trim();
      const again = (e: PageError) => show({ view: 'register', ...base, email, error: e.message }, e);
      if (!email) return again(HostedPageErrors.missingEmail);
      if (!EMAIL.test(email)) return again(HostedPageErrors.badEmail);
      try {
        await accounts.hostedRegistrationRequest(tenant, { interactionId: r.id, email, ip });
      } catch (e) {
        return again(pageErrorOf(e));
      }
      return show({ view: 'register-code', ...base, email });
    },

    /** POST …/register/complete: the code and a password make the account, signed in; then on to the client. */
    async registerComplete(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      if (!offers(tenant).registration) return errorPage(HostedPageErrors.notOffered);
      const r = await flow.resume(tenant, form, cookie);
      if (r.error) return r.error;
      const base = { csrf: sessions.csrfToken(r.token), interactionId: r.id, clientName: r.client.displayName };
      const email = (form.email ?? '').trim();
      const code = (form.code ?? '').trim();
      const password = form.password ?? '';
      if (!email) return errorPage(PageErrors.badForm);
      const again = (e: PageError) => show({ view: 'register-code', ...base, email, error: e.message }, e);
      if (!code || !password) return again(HostedPageErrors.missingCode);
      let userId: string;
      try {
        userId = await accounts.hostedRegistrationComplete(tenant, { interactionId: r.id, email, code, password });
      } catch (e) {
        const pe = pageErrorOf(e);
        return pe === HostedPageErrors.registrationConflict ? show({ view: 'register', ...base, email, error: pe.message }, pe) : again(pe);
      }
      return flow.signInNewUser(tenant, r, userId);
    },
  };
}

export type HostedAccounts = ReturnType<typeof createHostedAccounts>;
