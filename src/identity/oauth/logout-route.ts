import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie } from 'hono/cookie';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { headerOf } from '../../platform/http/request';
import { T } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { pageHeaders } from '../pages/csp';
import { html } from '../pages/html';
import { layout } from '../pages/templates';
import { SESSION_COOKIE } from './authorize-routes';
import { createEndSession, LOGOUT_FIELDS, type LogoutOutcome, type LogoutParams } from './end-session';
import { LogoutErrors, type LogoutError } from './errors';

export const LOGOUT_PATH = '/oauth2/logout';
const MAX_FORM_BYTES = 16 * 1024;

const issuerPath = (c: Context<IssuerEnv>) => new URL(c.get('tenant').issuer).pathname.replace(/\/+$/, '');

/** Each known parameter at most once (OIDC Core 3.1.2.1 treats a repeated parameter as an error). */
function paramsOf(all: URLSearchParams): LogoutParams | undefined {
  const p: LogoutParams = {};
  for (const name of LOGOUT_FIELDS) {
    const values = all.getAll(name);
    if (values.length > 1) return undefined;
    if (values.length === 1) p[name] = values[0];
  }
  return p;
}

function page(c: Context<IssuerEnv>, status: number, title: string, body: ReturnType<typeof html>): Response {
  for (const [k, v] of Object.entries(pageHeaders())) c.header(k, v);
  return c.body(layout({ issuerPath: issuerPath(c), tenantName: c.get('tenant').tenant.slug }, title, body), status as 200);
}

function render(c: Context<IssuerEnv>, o: LogoutOutcome | { kind: 'error'; error: LogoutError }): Response {
  if ((o.kind === 'redirect' || o.kind === 'done') && o.clearCookie) deleteCookie(c, SESSION_COOKIE, { path: issuerPath(c) || '/' });
  if (o.kind === 'redirect') {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(o.location, 303);
  }
  if (o.kind === 'done') return page(c, 200, 'Signed out', html`<h1>You are signed out</h1><p>You can close this window.</p>`);
  if (o.kind === 'error') return page(c, o.error.status, o.error.title, html`<h1>${o.error.title}</h1><p class="error" role="alert">${o.error.message}</p>`);
  const field = (name: string, value: string | undefined) => (value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`);
  const who = o.clientName ? html`<p>${o.clientName} asks to sign you out.</p>` : '';
  return page(
    c,
    200,
    'Sign out',
    html`<h1>Sign out?</h1>${who}<form method="post" action="${issuerPath(c)}${LOGOUT_PATH}">
<input type="hidden" name="csrf_token" value="${o.csrf}">${field('client_id', o.params.client_id)}${field('post_logout_redirect_uri', o.params.post_logout_redirect_uri)}${field('state', o.params.state)}
<button type="submit" name="confirm" value="yes">Sign out</button>
</form>`,
  );
}

const PARAMS = {
  id_token_hint: 'an ID token this issuer gave the client (may have expired)',
  client_id: 'the client; the hint’s audience when both are given',
  post_logout_redirect_uri: 'exactly one of the client’s registered postLogoutRedirectUris',
  state: 'returned unchanged on the redirect',
} as const;
const LogoutQuery = Object.fromEntries(Object.entries(PARAMS).map(([k, d]) => [k, { schema: T.String(), description: d }]));
const LogoutForm = T.Object({
  ...Object.fromEntries(Object.entries(PARAMS).map(([k, d]) => [k, T.Optional(T.String({ description: d }))])),
  confirm: T.Optional(T.Literal('yes', { description: 'sent by the confirmation page’s button' })),
  csrf_token: T.Optional(T.String({ description: 'the confirmation page’s CSRF token' })),
});

const doc = (summary: string): RouteDoc => ({
  summary,
  tags: ['oauth'],
  responses: {
    200: { description: 'a confirmation page (no hint for a user of this session), or "signed out" when no return URI was given', type: 'html' },
    303: { description: 'signed out: to the registered post_logout_redirect_uri, with state' },
  },
  errors: { 400: 'bad hint, client or return URI (a page)', 403: 'bad CSRF token on the confirmation (a page)', 404: 'unknown issuer (empty body)', 413: 'form too large (a page)' },
});

/** OpenID Connect RP-Initiated Logout 1.0 (issue 23); discovery advertises it once a client registered a return URI. */
export function mountLogoutRoute(app: Hono<IssuerEnv>, services: Services): void {
  const endSession = createEndSession({ clients: services.clients, keys: services.keys, sessions: services.sessions, users: services.users });
  const handle = async (c: Context<IssuerEnv>, all: URLSearchParams | undefined, method: 'GET' | 'POST') => {
    const p = all && paramsOf(all);
    if (!p) return render(c, { kind: 'error', error: LogoutErrors.badForm });
    return render(c, await endSession.handle(c.get('tenant'), p, getCookie(c, SESSION_COOKIE), method));
  };
  app.get(LOGOUT_PATH, described({ ...doc('RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)'), query: LogoutQuery }, (c) => handle(c, new URL(c.req.url).searchParams, 'GET')));
  app.post(LOGOUT_PATH, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => render(c as Context<IssuerEnv>, { kind: 'error', error: LogoutErrors.badForm }) }));
  app.post(
    LOGOUT_PATH,
    described({ ...doc('RP-initiated logout, form post (also the confirmation page’s)'), body: { schema: LogoutForm, type: 'form' } }, async (c) => {
      const form = /^application\/x-www-form-urlencoded\b/i.test(headerOf(c, 'content-type') ?? '') ? new URLSearchParams(await c.req.text()) : undefined;
      return handle(c, form, 'POST');
    }),
  );
}
