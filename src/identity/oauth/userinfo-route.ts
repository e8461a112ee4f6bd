import type { Context, Hono } from 'hono';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { invalidRequest } from './errors';
import { readForm } from './form';
import { parseBearer } from './http-auth';
import { headerOf } from '../../platform/http/request';

/** The bearer token: Authorization header (RFC 6750 §2.1) or, on POST, the form body (§2.2), never both. */
async function bearerToken(c: Context<IssuerEnv>): Promise<string | undefined> {
  const header = headerOf(c, 'authorization');
  const fromHeader = parseBearer(header);
  if (c.req.method === 'POST' && /^application\/x-www-form-urlencoded/i.test(headerOf(c, 'content-type') ?? '')) {
    const fromBody = (await readForm(c)).get('access_token');
    if (fromBody !== null) {
      if (header !== undefined) throw invalidRequest('more than one method of sending the access token');
      return fromBody;
    }
  }
  return fromHeader;
}

/** GET and POST {issuer}/oauth2/userinfo (OIDC Core §5.3). */
export function mountUserinfoRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'oauth'>): void {
  const handler = async (c: Context<IssuerEnv>) => c.json(services.oauth.userinfo(c.get('tenant'), await bearerToken(c)));
  app.get('/oauth2/userinfo', handler);
  app.post('/oauth2/userinfo', handler);
}
