import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../../platform/config';
import { newSecret, safeEqual } from '../../platform/crypto';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { clientAddress, headerOf, withHeaders } from '../../platform/http/request';
import { T } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { pageHeaders } from '../pages/csp';
import { html, type Raw } from '../pages/html';
import { layout } from '../pages/templates';
import { clientGuard } from './client-auth';
import { E, TOKEN_REALM } from './errors';
import { OAuthError } from '../../platform/http/errors';
import { checkForm } from './form';
import { checker } from '../../platform/http/schema';
import { DeviceAuthorizationForm, DeviceAuthorizationResponse } from './schemas';
import { USER_CODE_ALPHABET } from './grants/device-code';

/**
 * RFC 8628 (issue 23): the device authorization endpoint, and the verification pages where the
 * user enters the user code, approves or denies, and signs in through the ordinary sign-in pages.
 * Pages: no script, the strict CSP of every sign-in page; forms carry a CSRF token that must
 * equal a cookie of this issuer (double submit, SameSite=Strict).
 */

export const DEVICE_PATHS = { authorization: '/oauth2/device_authorization', verify: '/oauth2/device', callback: '/oauth2/device/callback' } as const;
const CSRF_COOKIE = 'engage_device_csrf';
const STATE_COOKIE = 'engage_device_state';
const MAX_FORM_BYTES = 4 * 1024;
const NO_STORE = withHeaders({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
const deviceForm = checker(DeviceAuthorizationForm);

const issuerPath = (c: Context<IssuerEnv>) => new URL(c.get('tenant').issuer).pathname.replace(/\/+$/, '');
const cookieOptions = (c: Context<IssuerEnv>, sameSite: 'Strict' | 'Lax') => ({
  path: issuerPath(c) || '/', httpOnly: true, sameSite, secure: c.get('tenant').issuer.startsWith('https:'), maxAge: 900,
});

function page(c: Context<IssuerEnv>, status: number, title: string, body: Raw, retryAfter?: number): Response {
  for (const [k, v] of Object.entries(pageHeaders())) c.header(k, v);
  if (retryAfter) c.header('Retry-After', String(retryAfter));
  return c.body(layout({ issuerPath: issuerPath(c), tenantName: c.get('tenant').tenant.slug }, title, body), status as 200);
}

/** The CSRF token of this browser (a cookie set on the entry page; the forms echo it). */
function csrfOf(c: Context<IssuerEnv>): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = newSecret();
  setCookie(c, CSRF_COOKIE, token, cookieOptions(c, 'Strict'));
  return token;
}

function entryPage(c: Context<IssuerEnv>, status: number, typed: string, error?: string, retryAfter?: number): Response {
  const csrf = csrfOf(c);
  return page(
    c,
    status,
    'Connect a device',
    html`<h1>Connect a device</h1>
<p class="lead">Enter the code shown on your device.</p>
${error ? html`<p class="error" id="form-error" role="alert">${error}</p>` : ''}
<form method="post" action="${issuerPath(c)}${DEVICE_PATHS.verify}" novalidate>
<input type="hidden" name="csrf_token" value="${csrf}">
<div class="field">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" spellcheck="false" autocapitalize="characters" required maxlength="16" value="${typed}"${error ? html` aria-invalid="true" aria-describedby="form-error"` : ''} autofocus>
</div>
<button class="primary" type="submit">Continue</button>
</form>`,
    retryAfter,
  );
}

function confirmPage(c: Context<IssuerEnv>, clientName: string, userCode: string, scope: string): Response {
  return page(
    c,
    200,
    `Connect ${clientName}?`,
    html`<h1>Connect ${clientName}?</h1>
<p class="lead">A device asks to sign in to <strong>${clientName}</strong> with your account.</p>
<p>Continue only if your device shows the code <strong>${userCode}</strong> and you started this yourself.</p>
<p>It asks for: ${scope}</p>
<form method="post" action="${issuerPath(c)}${DEVICE_PATHS.verify}">
<input type="hidden" name="csrf_token" value="${csrfOf(c)}">
<input type="hidden" name="user_code" value="${userCode}">
<button class="primary" type="submit" name="decision" value="approve">Approve and sign in</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

const message = (c: Context<IssuerEnv>, status: number, title: string, text: string) =>
  page(c, status, title, html`<h1>${title}</h1><p${status >= 400 ? html` class="error" role="alert"` : ''}>${text}</p>`);

const formDoc = T.Object({
  user_code: T.Optional(T.String({ description: 'the code the device shows (XXXX-XXXX; case, dash and spaces ignored)' })),
  csrf_token: T.Optional(T.String({ description: 'the page’s CSRF token' })),
  decision: T.Optional(T.Union([T.Literal('approve'), T.Literal('deny')])),
});
const pageDoc = (summary: string, extra: Partial<RouteDoc> = {}): RouteDoc => ({
  summary,
  tags: ['oauth'],
  responses: { 200: { description: 'a verification page', type: 'html' } },
  errors: { 400: 'unknown or expired code (a page)', 403: 'bad CSRF token (a page)', 404: 'unknown issuer (empty body)', 429: 'too many wrong codes (a page)' },
  ...extra,
});

export function mountDeviceRoutes(app: Hono<IssuerEnv>, services: Services, config: Pick<Config, 'trustedProxies'>): void {
  const { oauth, sessions } = services;

  app.use(DEVICE_PATHS.authorization, NO_STORE);
  app.post(
    DEVICE_PATHS.authorization,
    clientGuard(services.clients, TOKEN_REALM),
    described(
      {
        summary: 'Device authorization endpoint (RFC 8628 §3.1), for clients registered for the device grant',
        tags: ['oauth'],
        security: ['clientBasic'],
        body: { schema: DeviceAuthorizationForm, type: 'form' },
        responses: { 200: { description: 'device and user codes', schema: DeviceAuthorizationResponse } },
        errors: {
          400: 'invalid_request, unauthorized_client, invalid_scope, invalid_target',
          401: 'invalid_client',
          404: 'unknown issuer (empty body)',
          429: 'slow_down: too many device authorizations from this client address (Retry-After)',
        },
      },
      async (c) => {
        const form = c.get('form');
        checkForm(form, deviceForm);
        // Per client address (an IPv6 client by its /64): each start is a row and a user code to guess against.
        const wait = await sessions.countDeviceStart(c.get('tenant').tenant.id, clientAddress(c, config.trustedProxies));
        if (wait > 0) throw new OAuthError(429, E.slowDown, `too many device authorizations from this address: retry in ${wait} s`, { 'Retry-After': String(wait) });
        return c.json(await oauth.deviceAuthorization(c.get('tenant'), c.get('client'), { scope: form.get('scope'), resource: form.get('resource') }));
      },
    ),
  );

  app.get(
    DEVICE_PATHS.verify,
    described(pageDoc('Device verification page (RFC 8628 §3.3): enter the user code', { query: { user_code: { schema: T.String(), description: 'prefills the code (verification_uri_complete)' } } }), (c) =>
      entryPage(c, 200, (c.req.query('user_code') ?? '').slice(0, 16)),
    ),
  );

  app.post(DEVICE_PATHS.verify, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => message(c as Context<IssuerEnv>, 413, 'Not accepted', 'The form was too large.') }));
  app.post(
    DEVICE_PATHS.verify,
    described(
      pageDoc('Device verification form: the code, then approve (to the sign-in pages) or deny', {
        body: { schema: formDoc, type: 'form' },
        responses: { 200: { description: 'the confirmation page, or "denied"', type: 'html' }, 303: { description: 'approved: to the authorization endpoint (sign-in)' } },
      }),
      async (c) => {
        const tenant = c.get('tenant');
        const form = /^application\/x-www-form-urlencoded\b/i.test(headerOf(c, 'content-type') ?? '') ? new URLSearchParams(await c.req.text()) : new URLSearchParams();
        const cookie = getCookie(c, CSRF_COOKIE);
        const sent = form.get('csrf_token');
        if (!cookie || !sent || !safeEqual(cookie, sent)) return message(c, 403, 'This form could not be verified', 'Open the address shown on your device again and re-enter the code.');
        const typed = (form.get('user_code') ?? '').slice(0, 16);
        const ip = clientAddress(c, config.trustedProxies);
        const found = await oauth.findPendingDevice(tenant, typed);
        const wait = await sessions.gateDeviceCode(tenant.tenant.id, ip, found !== undefined);
        if (wait > 0) return entryPage(c, 429, typed, `Too many wrong codes. Try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
        if (!found) {
          return entryPage(c, 400, typed, `That code is not valid or has expired. Codes use the letters ${USER_CODE_ALPHABET}.`);
        }
        const decision = form.get('decision');
        const shown = typed.toUpperCase().replace(/[\s-]/g, '');
        const userCode = `${shown.slice(0, 4)}-${shown.slice(4)}`;
        if (decision === 'deny') {
          await oauth.denyDevice(tenant, found.row);
          return message(c, 200, 'Request denied', 'The device was not connected. You can close this window.');
        }
        if (decision !== 'approve') return confirmPage(c, found.client.displayName, userCode, found.row.scope);
        const start = await oauth.startDeviceSignIn(tenant, found.row);
        if (!start) return entryPage(c, 400, typed, 'That code is not valid or has expired.');
        setCookie(c, STATE_COOKIE, start.state, cookieOptions(c, 'Lax'));
        c.header('Cache-Control', 'no-store');
        c.header('Referrer-Policy', 'no-referrer');
        return c.redirect(start.location, 303);
      },
    ),
  );

  app.get(
    DEVICE_PATHS.callback,
    described(
      pageDoc('Device verification: where the sign-in returns (code or error, state, iss)', {
        query: { code: { schema: T.String() }, state: { schema: T.String() }, error: { schema: T.String() }, iss: { schema: T.String() } },
        errors: { 400: 'not a sign-in this browser started (a page)', 404: 'unknown issuer (empty body)' },
      }),
      async (c) => {
        const cookieState = getCookie(c, STATE_COOKIE);
        deleteCookie(c, STATE_COOKIE, { path: issuerPath(c) || '/' });
        const q = (n: string) => c.req.query(n) ?? null;
        const outcome = await oauth.completeDeviceSignIn(c.get('tenant'), cookieState, { state: q('state'), code: q('code'), error: q('error') });
        if (outcome === 'approved') return message(c, 200, 'Device connected', 'You are signed in on your device. You can close this window.');
        if (outcome === 'denied') return message(c, 200, 'Request denied', 'The device was not connected. You can close this window.');
        return message(c, 400, 'Device not connected', 'This sign-in could not be matched to a device request, or it expired. Start again on your device.');
      },
    ),
  );
}
