import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { pageHeaders } from '../pages/csp';
import { authorizeByPost } from './authorize-post';
import { FORM_PATHS, renderPage, type PageFrame } from '../pages/templates';
import { HOSTED_PATHS } from '../pages/hosted-templates';
import { createBrowserFlow, type Form, type Outcome } from '../sessions/browser-flow';
import { PageErrors, type PageError } from '../sessions/errors';
import { browserOAuthAdapter } from '../sessions/oauth-adapter';
import { createHostedAccounts } from '../sessions/hosted-accounts';
import { mountHostedAccountRoutes } from './authorize-accounts';
import type { ResolvedTenant } from '../tenants/service';
import type { Config } from '../../platform/config';
import { clientAddress, headerOf } from '../../platform/http/request';
import { hasNul } from '../../platform/http/json-bounds';
import { described, type RouteDoc } from '../../platform/http/openapi';
import type { TSchema } from '../../platform/http/schema';
import { AuthorizeForm, AuthorizeQuery, ConsentForm, ContinueForm, LoginForm, MfaForm, SelectForm } from './schemas';
import { FederationCallbackQuery, FederationStartForm } from '../federations/schemas';
import { CALLBACK_PATH } from '../federations/service';

/** One cookie name per issuer; its Path (and for custom issuers its host) keeps tenants apart. */
export const SESSION_COOKIE = 'engage_session';

const FORM_FIELDS = ['interaction_id', 'csrf_token', 'email', 'password', 'decision', 'account', 'method', 'code', 'source'] as const;
/** Our forms are a few hundred bytes; anything near this is not a person signing in. */
const MAX_FORM_BYTES = 16 * 1024;

function issuerPath(tenant: ResolvedTenant): string {
  return new URL(tenant.issuer).pathname.replace(/\/+$/, '');
}

function frameOf(tenant: ResolvedTenant): PageFrame {
  return { issuerPath: issuerPath(tenant), tenantName: tenant.tenant.slug };
}

/**
 * Form fields we know, each only when sent exactly once (a repeated field counts as absent).
 * A field holding NUL (`%00`) makes the whole form bad (400 page): no store can keep it.
 */
async function readForm(c: Context<IssuerEnv>): Promise<Form | undefined> {
  const type = headerOf(c, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return undefined;
  const params = new URLSearchParams(await c.req.text());
  const form: Form = {};
  for (const name of FORM_FIELDS) {
    const values = params.getAll(name);
    if (values.length !== 1) continue;
    if (hasNul(values[0])) return undefined;
    form[name] = values[0];
  }
  return form;
}

function errorOutcome(e: PageError): Outcome {
  return { kind: 'page', status: e.status, model: { view: 'error', title: e.title, message: e.message }, formTargets: [] };
}

function render(c: Context<IssuerEnv>, outcome: Outcome, ttl: number): Response {
  const tenant = c.get('tenant');
  if (outcome.cookie) {
    setCookie(c, SESSION_COOKIE, outcome.cookie, {
      path: issuerPath(tenant) || '/',
      httpOnly: true,
      sameSite: 'Lax',
      secure: tenant.issuer.startsWith('https:'),
      maxAge: ttl,
    });
  }
  if (outcome.kind === 'redirect') {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    // Spec 02: 302 to the callback, after a form post too (browsers follow it with a GET).
    return c.redirect(outcome.location, 302);
  }
  for (const [k, v] of Object.entries(pageHeaders(outcome.formTargets))) c.header(k, v);
  if (outcome.retryAfter) c.header('Retry-After', String(outcome.retryAfter));
  return c.body(renderPage(frameOf(tenant), outcome.model), outcome.status as 200);
}

/**
 * The authorization endpoint and its browser pages (spec 02), all under `{issuer}/oauth2/authorize`
 * so the issuer's tenant resolution (and its empty 404) applies to every one of them.
 */
export function mountBrowserRoutes(app: Hono<IssuerEnv>, services: Services, config: Pick<Config, 'trustedProxies'>): void {
  const oauthPort = browserOAuthAdapter(services);
  // The sign-in page links to the hosted registration and recovery pages they offer (issue 23 point 6).
  const flow = createBrowserFlow({ sessions: services.sessions, oauth: oauthPort, mfa: services.mfa, brokers: services.federations, offers: (t) => hosted.offers(t) });
  const hosted = createHostedAccounts({ sessions: services.sessions, oauth: oauthPort, accounts: services.native, flow });
  const ttl = services.sessions.ttl;
  const cookieOf = (c: Context<IssuerEnv>) => getCookie(c, SESSION_COOKIE);

  // Unexpected failures still answer with a page, never a JSON body in the browser.
  const guarded = (fn: (c: Context<IssuerEnv>) => Promise<Outcome>) => async (c: Context<IssuerEnv>) => {
    let outcome: Outcome;
    try {
      outcome = await fn(c);
    } catch (err) {
      c.get('log')?.error('authorization page failed', { err: err as Error });
      outcome = errorOutcome(PageErrors.unexpected);
    }
    return render(c, outcome, ttl);
  };
  const withForm = (fn: (c: Context<IssuerEnv>, form: Form) => Promise<Outcome>) =>
    guarded(async (c) => {
      const form = await readForm(c);
      if (!form) return errorOutcome(PageErrors.badForm);
      return fn(c, form);
    });

  app.get(
    '/oauth2/authorize',
    described(
      {
        summary: 'Authorization endpoint (RFC 6749 §4.1.1): sign-in pages, then 302 to the callback',
        tags: ['oauth'],
        query: AuthorizeQuery,
        responses: { 200: { description: 'a sign-in, consent or account page', type: 'html' }, 302: { description: 'to the callback with code or error, state and iss' } },
        errors: { 400: 'unknown client or unregistered redirect_uri (a page)', 404: 'unknown issuer (empty body)' },
      },
      guarded((c) => flow.authorize(c.get('tenant'), new URL(c.req.url).searchParams, cookieOf(c))),
    ),
  );
  app.post(
    '/oauth2/authorize',
    described(
      {
        summary: 'Authorization endpoint by POST (OIDC Core 3.1.2.1): 303 to the same parameters as a GET',
        tags: ['oauth'],
        body: { schema: AuthorizeForm, type: 'form' },
        responses: {
          303: { description: 'to GET /oauth2/authorize with the same parameters' },
          400: { description: 'malformed form (a page)', type: 'html' },
          413: { description: 'form too large (a page)', type: 'html' },
        },
        errors: { 404: 'unknown issuer (empty body)' },
      },
      authorizeByPost((c, e) => render(c, errorOutcome(e), ttl)),
    ),
  );
  for (const p of [...Object.values(FORM_PATHS), ...Object.values(HOSTED_PATHS)]) app.post(p, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => render(c as Context<IssuerEnv>, errorOutcome(PageErrors.tooLarge), ttl) }));
  const pageDoc = (summary: string, schema: TSchema): RouteDoc => ({
    summary,
    tags: ['oauth'],
    body: { schema, type: 'form' },
    responses: { 200: { description: 'the next page', type: 'html' }, 302: { description: 'to the callback' } },
    errors: { 400: 'malformed form (a page)', 403: 'expired interaction or bad CSRF token (a page)', 413: 'form too large (a page)', 429: 'too many attempts (a page)' },
  });
  app.post(
    FORM_PATHS.login,
    described(pageDoc('Sign-in form of the authorization pages', LoginForm), withForm(async (c, form) => {
      const outcome = await flow.login(c.get('tenant'), form, cookieOf(c), clientAddress(c, config.trustedProxies));
      // Operators see failures and locks per tenant; never the email or the password.
      if (outcome.kind === 'page' && outcome.model.view === 'login' && outcome.status >= 400)
        c.get('log')?.[outcome.status === 429 ? 'warn' : 'info']('browser sign-in refused', { tenantId: c.get('tenant').tenant.id, status: outcome.status });
      return outcome;
    })),
  );
  app.post(FORM_PATHS.consent, described(pageDoc('Consent form', ConsentForm), withForm((c, form) => flow.consent(c.get('tenant'), form, cookieOf(c)))));
  app.post(FORM_PATHS.select, described(pageDoc('Account selection form', SelectForm), withForm((c, form) => flow.select(c.get('tenant'), form, cookieOf(c)))));
  app.post(
    FORM_PATHS.mfa,
    described(pageDoc('Second sign-in step: authenticator (TOTP) or recovery code', MfaForm), withForm(async (c, form) => {
      const outcome = await flow.secondFactor(c.get('tenant'), form, cookieOf(c), clientAddress(c, config.trustedProxies));
      if (outcome.kind === 'page' && outcome.model.view === 'mfa' && outcome.status >= 400)
        c.get('log')?.[outcome.status === 429 ? 'warn' : 'info']('browser second factor refused', { tenantId: c.get('tenant').tenant.id, status: outcome.status });
      return outcome;
    })),
  );
  app.post(FORM_PATHS.continue, described(pageDoc('Continue after a new recovery code was shown', ContinueForm), withForm((c, form) => flow.continueAfterRecovery(c.get('tenant'), form, cookieOf(c)))));
  mountHostedAccountRoutes(app, hosted, { guarded, withForm, cookieOf, ipOf: (c) => clientAddress(c, config.trustedProxies) });
  // Federations (identity/federations): "Sign in with <source>", then the source issuer's answer.
  app.post(FORM_PATHS.federation, described(
    { ...pageDoc('Sign in through a federated source tenant', FederationStartForm), responses: { 302: { description: "to the source issuer's authorization endpoint" }, 400: { description: 'not available (a page)', type: 'html' } } },
    withForm((c, form) => flow.federationStart(c.get('tenant'), form, cookieOf(c))),
  ));
  app.get(
    CALLBACK_PATH,
    described(
      {
        summary: "Callback of a brokered sign-in: the source issuer's authorization response (RFC 6749 §4.1.2, RFC 9207)",
        tags: ['oauth'],
        query: FederationCallbackQuery,
        responses: { 200: { description: 'the next page (consent or second factor)', type: 'html' }, 302: { description: 'to the callback of the client' } },
        errors: { 400: 'expired, replayed or refused (a page)', 403: 'no account can be given (a page)', 404: 'unknown issuer (empty body)' },
      },
      guarded((c) => flow.federationCallback(c.get('tenant'), new URL(c.req.url).searchParams, cookieOf(c))),
    ),
  );
}
