import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../../platform/config';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { clientAddress, headerOf } from '../../platform/http/request';
import type { TSchema } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { SESSION_COOKIE } from '../oauth/authorize-routes';
import { pageHeaders } from '../pages/csp';
import type { Form } from '../sessions/browser-flow';
import { PageErrors } from '../sessions/errors';
import { createAccountFlow, type AccountOutcome } from './flow';
import { AccountConfirmForm, AccountCsrfForm, AccountLoginForm, AccountMfaForm, AccountPasswordForm, AccountProofForm } from './schemas';
import { ACCOUNT_PATHS, renderAccountPage } from './templates';

const FIELDS = ['interaction_id', 'csrf_token', 'email', 'password', 'method', 'code', 'proof', 'current_password', 'new_password', 'sign_out_others'] as const;
const MAX_FORM_BYTES = 16 * 1024;

const issuerPath = (c: Context<IssuerEnv>) => new URL(c.get('tenant').issuer).pathname.replace(/\/+$/, '');

/** Known fields, each only when sent exactly once (as the sign-in pages read them). */
async function readForm(c: Context<IssuerEnv>): Promise<Form | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(headerOf(c, 'content-type') ?? '')) return undefined;
  const params = new URLSearchParams(await c.req.text());
  const form: Form = {};
  for (const name of FIELDS) {
    const values = params.getAll(name);
    if (values.length === 1) form[name] = values[0];
  }
  return form;
}

const failure = (e: { status: number; title: string; message: string }): AccountOutcome => ({ kind: 'page', status: e.status, model: { view: 'error', title: e.title, message: e.message } });

/** The same cookie, CSP and cache rules as the authorization pages (authorize-routes.ts). */
function render(c: Context<IssuerEnv>, outcome: AccountOutcome, ttl: number): Response {
  const tenant = c.get('tenant');
  if (outcome.cookie) {
    setCookie(c, SESSION_COOKIE, outcome.cookie, { path: issuerPath(c) || '/', httpOnly: true, sameSite: 'Lax', secure: tenant.issuer.startsWith('https:'), maxAge: ttl });
  }
  if (outcome.kind === 'redirect') {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(outcome.location, 303);
  }
  for (const [k, v] of Object.entries(pageHeaders())) c.header(k, v);
  if (outcome.retryAfter) c.header('Retry-After', String(outcome.retryAfter));
  return c.body(renderAccountPage({ issuerPath: issuerPath(c), tenantName: tenant.tenant.slug }, outcome.model), outcome.status as 200);
}

/** `{issuer}/account` and its forms (issue 10). */
export function mountAccountRoutes(app: Hono<IssuerEnv>, services: Services, config: Pick<Config, 'trustedProxies'>): void {
  const flow = createAccountFlow({ sessions: services.sessions, users: services.users, mfa: services.mfa });
  const ttl = services.sessions.ttl;
  const cookieOf = (c: Context<IssuerEnv>) => getCookie(c, SESSION_COOKIE);
  const ip = (c: Context<IssuerEnv>) => clientAddress(c, config.trustedProxies);
  const guarded = (fn: (c: Context<IssuerEnv>) => Promise<AccountOutcome>) => async (c: Context<IssuerEnv>) => {
    let outcome: AccountOutcome;
    try {
      outcome = await fn(c);
    } catch (err) {
      c.get('log')?.error('account page failed', { err: err as Error });
      outcome = failure(PageErrors.unexpected);
    }
    return render(c, outcome, ttl);
  };
  const withForm = (fn: (c: Context<IssuerEnv>, form: Form) => Promise<AccountOutcome>) =>
    guarded(async (c) => {
      const form = await readForm(c);
      return form ? fn(c, form) : failure(PageErrors.badForm);
    });
  const doc = (summary: string, schema: TSchema): RouteDoc => ({
    summary,
    tags: ['account'],
    body: { schema, type: 'form' },
    responses: { 200: { description: 'the account page, or the next step', type: 'html' }, 303: { description: 'to the account page after signing in' } },
    errors: { 400: 'malformed form or wrong code (a page)', 403: 'bad CSRF token (a page)', 413: 'form too large (a page)', 429: 'too many attempts (a page)' },
  });

  app.get(
    ACCOUNT_PATHS.home,
    described(
      {
        summary: 'Self-service account page: two-step verification and password (a sign-in form when not signed in)',
        tags: ['account'],
        responses: { 200: { description: 'the account page or its sign-in form', type: 'html' } },
        errors: { 404: 'unknown issuer (empty body)' },
      },
      guarded((c) => flow.home(c.get('tenant'), cookieOf(c))),
    ),
  );
  for (const p of Object.values(ACCOUNT_PATHS)) {
    if (p !== ACCOUNT_PATHS.home) app.post(p, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => render(c as Context<IssuerEnv>, failure(PageErrors.tooLarge), ttl) }));
  }
  const t = (c: Context<IssuerEnv>) => c.get('tenant');
  app.post(ACCOUNT_PATHS.login, described(doc('Account sign-in: email and password', AccountLoginForm), withForm((c, f) => flow.login(t(c), f, cookieOf(c), ip(c)))));
  app.post(ACCOUNT_PATHS.mfa, described(doc('Account sign-in: second step', AccountMfaForm), withForm((c, f) => flow.secondFactor(t(c), f, cookieOf(c), ip(c)))));
  app.post(ACCOUNT_PATHS.enrol, described(doc('Start enrolling an authenticator app (QR code)', AccountCsrfForm), withForm((c, f) => flow.enrol(t(c), f, cookieOf(c)))));
  app.post(ACCOUNT_PATHS.confirm, described(doc('Confirm the authenticator with a first code; shows the recovery codes once', AccountConfirmForm), withForm((c, f) => flow.confirm(t(c), f, cookieOf(c)))));
  app.post(ACCOUNT_PATHS.codes, described(doc('Replace the recovery codes (password or code required)', AccountProofForm), withForm((c, f) => flow.regenerate(t(c), f, cookieOf(c), ip(c)))));
  app.post(ACCOUNT_PATHS.remove, described(doc('Turn off two-step verification (password or code required)', AccountProofForm), withForm((c, f) => flow.remove(t(c), f, cookieOf(c), ip(c)))));
  app.post(ACCOUNT_PATHS.password, described(doc('Change the password (current password required; tenant policy)', AccountPasswordForm), withForm((c, f) => flow.changePassword(t(c), f, cookieOf(c), ip(c)))));
}
