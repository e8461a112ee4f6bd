import type { Context, Hono } from 'hono';
import type { IssuerEnv } from '../issuer';
import { HOSTED_PATHS } from '../pages/hosted-templates';
import type { Form, Outcome } from '../sessions/browser-flow';
import type { HostedAccounts } from '../sessions/hosted-accounts';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { HostedCodeForm, HostedEmailForm, HostedPageQuery } from './hosted-schemas';

type Handler = (c: Context<IssuerEnv>) => Promise<Response>;

/**
 * The hosted registration and password recovery pages (issue 23 point 6), under
 * `{issuer}/oauth2/authorize` like the other sign-in pages: same tenant resolution, body limit,
 * CSRF check, strict CSP and rendering (authorize-routes.ts hands in its wrappers).
 */
export function mountHostedAccountRoutes(
  app: Hono<IssuerEnv>,
  hosted: HostedAccounts,
  wrap: {
    guarded: (fn: (c: Context<IssuerEnv>) => Promise<Outcome>) => Handler;
    withForm: (fn: (c: Context<IssuerEnv>, form: Form) => Promise<Outcome>) => Handler;
    cookieOf: (c: Context<IssuerEnv>) => string | undefined;
    ipOf: (c: Context<IssuerEnv>) => string;
  },
): void {
  const { guarded, withForm, cookieOf, ipOf } = wrap;
  const query = (c: Context<IssuerEnv>) => new URL(c.req.url).searchParams;
  const getDoc = (summary: string): RouteDoc => ({
    summary,
    tags: ['oauth'],
    query: HostedPageQuery,
    responses: {
      200: { description: 'the page', type: 'html' },
      400: { description: 'no sign-in session or request (a page)', type: 'html' },
      404: { description: 'not offered on this tenant (a page; an unknown issuer: empty body)', type: 'html' },
    },
  });
  const postDoc = (summary: string, schema: typeof HostedEmailForm | typeof HostedCodeForm): RouteDoc => ({
    summary,
    tags: ['oauth'],
    body: { schema, type: 'form' },
    // Every answer is a page (the sign-in pages' family), never a JSON body.
    responses: {
      200: { description: 'the next page', type: 'html' },
      302: { description: 'to the callback (registration done)' },
      400: { description: 'malformed form, wrong code or password outside the policy (a page)', type: 'html' },
      403: { description: 'bad CSRF token (a page)', type: 'html' },
      404: { description: 'not offered on this tenant (a page)', type: 'html' },
      409: { description: 'registration: the address was taken meanwhile (a page)', type: 'html' },
      413: { description: 'form too large (a page)', type: 'html' },
      429: { description: 'too many codes asked for (a page)', type: 'html', headers: { 'Retry-After': 'seconds to wait' } },
      503: { description: 'no SMTP server (a page)', type: 'html' },
    },
  });

  app.get(HOSTED_PATHS.recover, described(getDoc('Password recovery page: the address, or (from a recovery mail) the code and a new password'),
    guarded((c) => hosted.recoverForm(c.get('tenant'), query(c), cookieOf(c)))));
  app.post(HOSTED_PATHS.recover, described(postDoc('Password recovery: mail a code (the same page whether or not the account exists)', HostedEmailForm),
    withForm((c, form) => hosted.recoverRequest(c.get('tenant'), form, cookieOf(c), ipOf(c)))));
  app.post(HOSTED_PATHS.recoverComplete, described(postDoc('Password recovery: the code and a new password; every session and grant of the user ends', HostedCodeForm),
    withForm((c, form) => hosted.recoverComplete(c.get('tenant'), form, cookieOf(c)))));
  app.get(HOSTED_PATHS.register, described(getDoc('Registration page of a SELF_SERVICE tenant, within an authorization request'),
    guarded((c) => hosted.registerForm(c.get('tenant'), query(c), cookieOf(c)))));
  app.post(HOSTED_PATHS.register, described(postDoc('Registration: mail a code to confirm the address', HostedEmailForm),
    withForm((c, form) => hosted.registerRequest(c.get('tenant'), form, cookieOf(c), ipOf(c)))));
  app.post(HOSTED_PATHS.registerComplete, described(postDoc('Registration: the code and a password create the account, signed in; then on to the client', HostedCodeForm),
    withForm((c, form) => hosted.registerComplete(c.get('tenant'), form, cookieOf(c)))));
}
