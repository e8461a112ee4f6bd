import type { Hono } from 'hono';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { authenticateClient } from './client-auth';
import { TOKEN_REALM, unsupportedGrantType } from './errors';
import { readForm } from './form';
import { headerOf } from '../../platform/http/request';

/** POST {issuer}/oauth2/token (RFC 6749 §3.2): form in, one grant handler, token response out. */
export function mountTokenRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'clients' | 'oauth'>): void {
  app.post('/oauth2/token', async (c) => {
    const form = await readForm(c);
    const grantType = form.required('grant_type');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw unsupportedGrantType(`grant_type ${grantType} is not supported`);
    const tenant = c.get('tenant');
    const client = authenticateClient(services.clients, tenant.tenant.id, form, headerOf(c, 'authorization'), TOKEN_REALM);
    const body =
      grantType === 'authorization_code'
        ? await services.oauth.exchangeAuthorizationCode(tenant, client, {
            code: form.required('code'),
            redirectUri: form.required('redirect_uri'),
            codeVerifier: form.required('code_verifier'),
            resource: form.get('resource'),
          })
        : await services.oauth.refresh(tenant, client, {
            refreshToken: form.required('refresh_token'),
            scope: form.get('scope'),
            resource: form.get('resource'),
          });
    return c.json(body);
  });
}
