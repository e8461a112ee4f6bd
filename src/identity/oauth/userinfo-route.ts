import type { Context, Hono } from 'hono';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { headerOf } from '../../platform/http/request';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { invalidRequest } from './errors';
import { readForm } from './form';
import { authorizationOf, bearerOf } from '../../platform/http/guards';
import { UserinfoForm, UserinfoResponse } from './schemas';

const form = checker(UserinfoForm);

/** The bearer token: Authorization header (RFC 6750 §2.1) or, on POST, the form body (§2.2), never both. */
async function bearerToken(c: Context<IssuerEnv>): Promise<string | undefined> {
  const header = authorizationOf(c);
  const fromHeader = bearerOf(c);
  if (c.req.method === 'POST' && /^application\/x-www-form-urlencoded/i.test(headerOf(c, 'content-type') ?? '')) {
    const fromBody = (await readForm(c, form)).get('access_token');
    if (fromBody !== null) {
      if (header !== undefined) throw invalidRequest('more than one method of sending the access token');
      return fromBody;
    }
  }
  return fromHeader;
}

const doc = (method: string): RouteDoc => ({
  summary: `Userinfo (OIDC Core §5.3), ${method}`,
  tags: ['oauth'],
  security: ['bearerToken'],
  ...(method === 'POST' ? { body: { schema: UserinfoForm, type: 'form' as const, required: false } } : {}),
  responses: { 200: { description: 'claims of the token’s subject', schema: UserinfoResponse } },
  errors: { 400: 'invalid_request', 401: 'invalid_token', 403: 'insufficient_scope', 404: 'unknown issuer (empty body)' },
});

/** GET and POST {issuer}/oauth2/userinfo (OIDC Core §5.3). */
export function mountUserinfoRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'oauth'>): void {
  const handler = async (c: Context<IssuerEnv>) => c.json(await services.oauth.userinfo(c.get('tenant'), await bearerToken(c)));
  app.get('/oauth2/userinfo', described(doc('GET'), handler));
  app.post('/oauth2/userinfo', described(doc('POST'), async (c: Context<IssuerEnv>) => handler(c)));
}
