import { safeErrorDescription } from '../../platform/http/error-description';
import { describeScopes } from '../pages/scopes';
import type { PageModel } from '../pages/templates';
import type { ResolvedTenant } from '../tenants/service';
import { AuthorizeErrors, PageErrors, type PageError } from './errors';
import type { BrowserClient, BrowserOAuthPort, UpstreamBroker, ValidRequest } from './ports';
import type { Interaction, LiveSession, PendingRequest, SessionService } from './service';
import type { SecondFactors } from '../mfa/port';
import { FederationPages } from '../federations/errors';

/**
 * The browser side of the authorization endpoint as plain decisions: every entry point
 * returns an Outcome (a redirect to the client, or a page), which the routes only render.
 */
export type Outcome =
  | { kind: 'redirect'; location: string; cookie?: string }
  | { kind: 'page'; status: number; model: PageModel; formTargets: string[]; cookie?: string; retryAfter?: number };

export type Form = Record<string, string | undefined>;

type AccountChoice = { kind: 'account'; userId: string; authTime: number } | { kind: 'login'; email?: string } | { kind: 'select' };

/**
 * Appends response parameters to a registered redirect URI, keeping its own query (RFC 6749 §3.1.2).
 * Every error redirect is built here, so error_description is held to RFC 6749 §4.1.2.1's characters here.
 */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries({ ...params, iss: issuer })) {
    if (v !== undefined) url.searchParams.append(k, k === 'error_description' ? safeErrorDescription(v) : v);
  }
  return url.toString();
}

function pending(r: ValidRequest): PendingRequest {
  const { client, ...rest } = r;
  return { ...rest, clientId: client.clientId };
}

export function createBrowserFlow(deps: {
  sessions: SessionService; oauth: BrowserOAuthPort; mfa: SecondFactors; brokers?: UpstreamBroker;
  /** Which hosted account pages the sign-in page links to (sessions/hosted-accounts.ts). */
  offers?: (tenant: ResolvedTenant) => { recovery: boolean; registration: boolean };
}) {
  const { sessions, oauth, mfa } = deps;
  const clock = { nowSeconds: sessions.now };

  const errorPage = (e: PageError, cookie?: string): Outcome => ({
    kind: 'page',
    status: e.status,
    model: { view: 'error', title: e.title, message: e.message },
    formTargets: [],
    cookie,
  });

  /** Error redirect to a trusted callback: error, error_description, state and iss (RFC 9207). */
  const errorRedirect = (tenant: ResolvedTenant, req: PendingRequest, error: string, description: string): Outcome => ({
    kind: 'redirect',
    location: clientRedirect(req.redirectUri, { error, error_description: description, state: req.state }, tenant.issuer),
  });

  /** Which signed-in account answers this request, or which page must come first. */
  async function chooseAccount(tenant: ResolvedTenant, req: PendingRequest, live: LiveSession | undefined): Promise<AccountChoice> {
    if (req.prompt.includes('login') || !live) return { kind: 'login' };
    const usable = [];
    for (const a of live.accounts) {
      const user = await oauth.findUser(tenant.tenant.id, a.userId);
      if (user && (user.status ?? 'ACTIVE') === 'ACTIVE') usable.push({ ...a, email: user.email });
    }
    if (usable.length === 0) return { kind: 'login' };
    if (req.prompt.includes('select_account')) return { kind: 'select' };
    const active = usable.find((a) => a.userId === live.session.activeUserId) ?? usable[0];
    // OIDC Core 3.1.2.1: max_age elapsed since the last authentication forces a new one.
    if (req.maxAge !== undefined && clock.nowSeconds() - active.authTime > req.maxAge) return { kind: 'login', email: active.email };
    return { kind: 'account', userId: active.userId, authTime: active.authTime };
  }

  async function needsConsent(tenantId: string, req: PendingRequest, client: BrowserClient, userId: string): Promise<boolean> {
    if (client.consentPolicy !== 'EXPLICIT') return false;
    if (req.prompt.includes('consent')) return true;
    return !(await oauth.hasConsent({ tenantId, userId, clientId: client.clientId, scope: req.scope, resource: req.resource }));
  }

  /** Issues the code and sends the browser back to the client with code, state and iss. */
  async function finish(tenant: ResolvedTenant, req: PendingRequest, userId: string, authTime: number, cookie?: string): Promise<Outcome> {
    const code = await oauth.issueCode({
      tenantId: tenant.tenant.id,
      clientId: req.clientId,
      userId,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scope: req.scope,
      resource: req.resource,
      nonce: req.nonce,
      authTime,
      bindingCodeDigest: req.bindingCodeDigest,
    });
    return { kind: 'redirect', location: clientRedirect(req.redirectUri, { code, state: req.state }, tenant.issuer), cookie };
  }

  async function page(
    tenant: ResolvedTenant,
    view: 'login' | 'consent' | 'select',
    ctx: { interactionId: string; token: string; req: PendingRequest; client: BrowserClient; live?: LiveSession; userId?: string; email?: string; error?: PageError; notice?: string },
    cookie?: string,
  ): Promise<Outcome> {
    const base = { interactionId: ctx.interactionId, csrf: sessions.csrfToken(ctx.token), clientName: ctx.client.displayName };
    const formTargets = [ctx.req.redirectUri];
    const status = ctx.error?.status ?? 200;
    const retryAfter = ctx.error?.retryAfter;
    if (view === 'login') {
      // "Sign in with <source>" for each tenant federated to this one (identity/federations).
      const upstream = deps.brokers ? await deps.brokers.options(tenant) : [];
      const federations = upstream.map((o) => ({ source: o.source, label: o.label }));
      return { kind: 'page', status, model: { view, ...base, email: ctx.email, error: ctx.error?.message, federations, offers: deps.offers?.(tenant), notice: ctx.notice }, formTargets: [...formTargets, ...upstream.map((o) => o.issuer)], cookie, retryAfter };
    }
    if (view === 'consent') {
      const user = await oauth.findUser(tenant.tenant.id, ctx.userId!);
      const resourceName = ctx.req.resource ? await oauth.resourceName(tenant.tenant.id, ctx.req.resource) : undefined;
      const scopes = describeScopes(ctx.req.scope, resourceName ?? ctx.req.resource);
      return { kind: 'page', status, model: { view, ...base, email: user?.email ?? '', scopes }, formTargets, cookie };
    }
    const accounts = [];
    for (const a of ctx.live?.accounts ?? []) {
      const user = await oauth.findUser(tenant.tenant.id, a.userId);
      if (user && (user.status ?? 'ACTIVE') === 'ACTIVE') accounts.push({ userId: a.userId, email: user.email });
    }
    return { kind: 'page', status, model: { view, ...base, accounts }, formTargets, cookie };
  }

  /** After the user is known: consent if needed, else the code. */
  async function proceed(tenant: ResolvedTenant, it: Interaction, id: string, client: BrowserClient, userId: string, authTime: number, token: string, cookie?: string): Promise<Outcome> {
    if (await needsConsent(tenant.tenant.id, it.request, client, userId)) {
      await sessions.authenticateInteraction(id, userId, authTime);
      return page(tenant, 'consent', { interactionId: id, token, req: it.request, client, userId }, cookie);
    }
    if (!(await sessions.finishInteraction(id))) return errorPage(PageErrors.interactionGone, cookie);
    return finish(tenant, it.request, userId, authTime, cookie);
  }

  /** Session, CSRF token and interaction of a form post, each checked before anything else. */
  async function resume(tenant: ResolvedTenant, form: Form, cookie: string | undefined) {
    const live = await sessions.lookup(tenant.tenant.id, cookie);
    if (!live || !cookie) return { error: errorPage(PageErrors.sessionMissing) };
    if (!sessions.checkCsrf(cookie, form.csrf_token)) return { error: errorPage(PageErrors.csrf) };
    const it = await sessions.loadInteraction(tenant.tenant.id, form.interaction_id, live.session.id);
    if (!it) return { error: errorPage(PageErrors.interactionGone) };
    const client = await oauth.findClient(tenant.tenant.id, it.request.clientId);
    if (!client || (client.status ?? 'ACTIVE') !== 'ACTIVE') return { error: errorPage(PageErrors.clientGone) };
    return { live, it, id: form.interaction_id!, client, token: cookie };
  }

  type Resumed = { id: string; token: string; client: BrowserClient; it: Interaction };
  function mfaPage(r: Resumed, method: 'totp' | 'recovery', error?: PageError): Outcome {
    return {
      kind: 'page',
      status: error?.status ?? 200,
      model: { view: 'mfa', interactionId: r.id, csrf: sessions.csrfToken(r.token), clientName: r.client.displayName, method, error: error?.message },
      formTargets: [r.it.request.redirectUri],
      retryAfter: error?.retryAfter,
    };
  }

  return {
    resume,

    /** The sign-in page of a resumed interaction again, with a notice (after a password recovery). */
    signInPage: (tenant: ResolvedTenant, r: Resumed, email: string, notice: string) =>
      page(tenant, 'login', { interactionId: r.id, token: r.token, req: r.it.request, client: r.client, email, notice }),

    /** A user just created on the registration page: signed in to this session, then on as after a sign-in. */
    async signInNewUser(tenant: ResolvedTenant, r: Resumed & { live: LiveSession }, userId: string): Promise<Outcome> {
      const authTime = clock.nowSeconds();
      const token = await sessions.signIn(r.live.session.id, userId, authTime, tenant.tenant.id);
      return proceed(tenant, r.it, r.id, r.client, userId, authTime, token, token);
    },

    /** GET {issuer}/oauth2/authorize. */
    async authorize(tenant: ResolvedTenant, params: URLSearchParams, cookie: string | undefined): Promise<Outcome> {
      const v = await oauth.validate(tenant, params);
      if (!v.ok && !v.redirect) return errorPage({ ...PageErrors.badRequest, status: v.status, message: v.description ?? PageErrors.badRequest.message });
      if (!v.ok) return { kind: 'redirect', location: clientRedirect(v.redirectUri, { error: v.error, error_description: v.description, state: v.state }, tenant.issuer) };
      const req = pending(v.request);
      const client = v.request.client;
      const live = await sessions.lookup(tenant.tenant.id, cookie);
      const choice = await chooseAccount(tenant, req, live);
      // OIDC Core 3.1.2.6: prompt=none never shows a page; it answers with the reason instead.
      const silent = req.prompt.includes('none');
      if (choice.kind !== 'account') {
        if (silent) return errorRedirect(tenant, req, AuthorizeErrors.loginRequired, 'the end-user is not signed in');
      } else if (await needsConsent(tenant.tenant.id, req, client, choice.userId)) {
        if (silent) return errorRedirect(tenant, req, AuthorizeErrors.consentRequired, 'the end-user has not authorized this client');
      } else {
        return finish(tenant, req, choice.userId, choice.authTime);
      }
      // A page is needed: bind a new interaction to this browser's session (started if absent).
      const started = live ? undefined : await sessions.start(tenant.tenant.id);
      const token = started?.token ?? cookie!;
      const sessionId = started?.session.id ?? live!.session.id;
      const account = choice.kind === 'account' ? { userId: choice.userId, authTime: choice.authTime } : undefined;
      const interactionId = await sessions.openInteraction(tenant.tenant.id, sessionId, req, account);
      const view = choice.kind === 'account' ? 'consent' : choice.kind;
      const email = choice.kind === 'login' ? choice.email : undefined;
      return page(tenant, view, { interactionId, token, req, client, live, userId: account?.userId, email }, started?.token);
    },

    /** POST {issuer}/oauth2/authorize/login: email and password. */
    async login(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const email = (form.email ?? '').trim();
      const password = form.password ?? '';
      const again = (error: PageError) => page(tenant, 'login', { interactionId: r.id, token: r.token, req: r.it.request, client: r.client, email, error });
      if (!email || !password) return again(PageErrors.missingCredentials);
      const tenantId = tenant.tenant.id;
      // Counted before the password is verified (see beginAttempt): parallel guesses can't race the lock.
      const attempt = await sessions.beginAttempt(tenantId, email, ip);
      if (!attempt.ticket) return again(PageErrors.throttled(attempt.wait));
      const user = await oauth.verifyPassword(tenantId, email, password);
      if (!user || (user.status ?? 'ACTIVE') !== 'ACTIVE') return again(PageErrors.invalidCredentials);
      await sessions.attemptSucceeded(attempt.ticket);
      if (await mfa.hasSecondFactor(tenantId, user.id)) {
        // Not signed in yet: the interaction remembers whose password was right (issue 10).
        await sessions.awaitSecondFactor(r.id, user.id);
        return mfaPage(r, 'totp');
      }
      const authTime = clock.nowSeconds();
      const token = await sessions.signIn(r.live.session.id, user.id, authTime, tenantId);
      return proceed(tenant, r.it, r.id, r.client, user.id, authTime, token, token);
    },

    /**
     * POST {issuer}/oauth2/authorize/mfa: the second step, an authenticator or a recovery code.
     * Throttled like the password (per user and per client address); without a code it only
     * switches between the two forms.
     */
    async secondFactor(tenant: ResolvedTenant, form: Form, cookie: string | undefined, ip: string): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const userId = r.it.row.mfaUserId;
      if (!userId) return errorPage(PageErrors.interactionGone);
      const method = form.method === 'recovery' ? 'recovery' : 'totp';
      const code = (form.code ?? '').trim();
      if (form.code === undefined) return mfaPage(r, method);
      if (!code) return mfaPage(r, method, PageErrors.missingCode);
      const tenantId = tenant.tenant.id;
      const attempt = await sessions.beginAttempt(tenantId, `mfa|${userId}`, ip);
      if (!attempt.ticket) return mfaPage(r, method, PageErrors.throttled(attempt.wait));
      const user = await oauth.findUser(tenantId, userId);
      const result = user && (user.status ?? 'ACTIVE') === 'ACTIVE' ? await mfa.verifySecondFactor(tenantId, userId, method, code) : { ok: false as const };
      if (!result.ok) return mfaPage(r, method, PageErrors.invalidSecondFactor);
      await sessions.attemptSucceeded(attempt.ticket);
      await sessions.awaitSecondFactor(r.id, null);
      const authTime = clock.nowSeconds();
      const token = await sessions.signIn(r.live.session.id, userId, authTime, tenantId);
      if (result.replacementRecoveryCode) {
        // The used code is gone; its replacement must be seen before the browser leaves.
        await sessions.authenticateInteraction(r.id, userId, authTime);
        return {
          kind: 'page',
          status: 200,
          model: { view: 'recovery-code', interactionId: r.id, csrf: sessions.csrfToken(token), clientName: r.client.displayName, code: result.replacementRecoveryCode },
          formTargets: [r.it.request.redirectUri],
          cookie: token,
        };
      }
      return proceed(tenant, r.it, r.id, r.client, userId, authTime, token, token);
    },

    /** POST {issuer}/oauth2/authorize/continue: on from the new recovery code's page. */
    async continueAfterRecovery(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const { userId, authTime } = r.it.row;
      if (!userId || authTime === null || !r.live.accounts.some((a) => a.userId === userId)) return errorPage(PageErrors.interactionGone);
      return proceed(tenant, r.it, r.id, r.client, userId, authTime, r.token);
    },

    /** POST {issuer}/oauth2/authorize/consent: allow or deny. */
    async consent(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const { userId, authTime } = r.it.row;
      if (!userId || authTime === null || !r.live.accounts.some((a) => a.userId === userId)) return errorPage(PageErrors.interactionGone);
      if (form.decision !== 'allow' && form.decision !== 'deny') return errorPage(PageErrors.badForm);
      if (!(await sessions.finishInteraction(r.id))) return errorPage(PageErrors.interactionGone);
      if (form.decision === 'deny') return errorRedirect(tenant, r.it.request, AuthorizeErrors.accessDenied, 'the end-user denied the request');
      const req = r.it.request;
      await oauth.rememberConsent({ tenantId: tenant.tenant.id, userId, clientId: req.clientId, scope: req.scope, resource: req.resource });
      return finish(tenant, req, userId, authTime);
    },

    /** POST {issuer}/oauth2/authorize/federation: sign in through a federated source tenant (a 302 to its issuer). */
    async federationStart(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const location = deps.brokers && form.source ? await deps.brokers.begin(tenant, { source: form.source, sessionId: r.live.session.id, interactionId: r.id }) : undefined;
      if (!location) return errorPage(FederationPages.unavailable);
      return { kind: 'redirect', location };
    },

    /**
     * GET {issuer}/oauth2/authorize/federation/callback: the source issuer's answer. The state
     * binds it to this browser session and its interaction (it stands in for the CSRF token of
     * the forms); then the user signs in here as after a password (second factor included).
     */
    async federationCallback(tenant: ResolvedTenant, params: URLSearchParams, cookie: string | undefined): Promise<Outcome> {
      const live = await sessions.lookup(tenant.tenant.id, cookie);
      if (!live || !cookie || !deps.brokers) return errorPage(PageErrors.sessionMissing);
      const result = await deps.brokers.complete(tenant, live.session.id, params);
      if (!result.ok) return errorPage(result.reason === 'expired' ? FederationPages.expired : result.reason === 'no_account' ? FederationPages.noAccount(result.source) : FederationPages.refused(result.source));
      const tenantId = tenant.tenant.id;
      const it = await sessions.loadInteraction(tenantId, result.interactionId, live.session.id);
      if (!it) return errorPage(PageErrors.interactionGone);
      const client = await oauth.findClient(tenantId, it.request.clientId);
      if (!client || (client.status ?? 'ACTIVE') !== 'ACTIVE') return errorPage(PageErrors.clientGone);
      if (await mfa.hasSecondFactor(tenantId, result.userId)) {
        await sessions.awaitSecondFactor(result.interactionId, result.userId);
        return mfaPage({ id: result.interactionId, token: cookie, client, it }, 'totp');
      }
      const token = await sessions.signIn(live.session.id, result.userId, result.authTime, tenantId);
      return proceed(tenant, it, result.interactionId, client, result.userId, result.authTime, token, token);
    },

    /** POST {issuer}/oauth2/authorize/select: one of the session's accounts, or another. */
    async select(tenant: ResolvedTenant, form: Form, cookie: string | undefined): Promise<Outcome> {
      const r = await resume(tenant, form, cookie);
      if (r.error) return r.error;
      const base = { interactionId: r.id, token: r.token, req: r.it.request, client: r.client };
      if (!form.account) return page(tenant, 'login', base);
      const account = r.live.accounts.find((a) => a.userId === form.account);
      if (!account) return errorPage(PageErrors.badForm);
      const user = await oauth.findUser(tenant.tenant.id, account.userId);
      if (!user || (user.status ?? 'ACTIVE') !== 'ACTIVE') return page(tenant, 'login', base);
      const maxAge = r.it.request.maxAge;
      if (maxAge !== undefined && clock.nowSeconds() - account.authTime > maxAge) return page(tenant, 'login', { ...base, email: user.email });
      await sessions.selectAccount(r.live.session.id, account.userId);
      return proceed(tenant, r.it, r.id, r.client, account.userId, account.authTime, r.token);
    },
  };
}

export type BrowserFlow = ReturnType<typeof createBrowserFlow>;
