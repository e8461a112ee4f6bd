import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { clientGuard } from './client-auth';
import { TOKEN_REALM, unsupportedGrantType } from './errors';
import { checkForm } from './form';
import { DEVICE_CODE } from '../clients/schemas';
import { AuthorizationCodeForm, ClientCredentialsForm, DeviceCodeForm, RefreshTokenForm, TokenForm, TokenResponse } from './schemas';

const codeForm = checker(AuthorizationCodeForm);
const refreshForm = checker(RefreshTokenForm);
const clientCredentialsForm = checker(ClientCredentialsForm);
const deviceCodeForm = checker(DeviceCodeForm);

/** POST {issuer}/oauth2/token (RFC 6749 §3.2): form in, one grant handler, token response out. */
export function mountTokenRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'clients' | 'oauth'>): void {
  app.post(
    '/oauth2/token',
    clientGuard(services.clients, TOKEN_REALM),
    described(
      {
        summary: 'Token endpoint: authorization code exchange, refresh, and the opt-in client credentials and device code grants',
        tags: ['oauth'],
        security: ['clientBasic'],
        body: { schema: TokenForm, type: 'form' },
        responses: { 200: { description: 'token response', schema: TokenResponse } },
        errors: { 400: 'invalid_request, unsupported_grant_type, invalid_grant, invalid_scope, invalid_target, unauthorized_client; device code: authorization_pending, slow_down, access_denied, expired_token', 401: 'invalid_client', 404: 'unknown issuer (empty body)' },
      },
      async (c) => {
        const [form, client, tenant] = [c.get('form'), c.get('client'), c.get('tenant')];
        const grantType = form.required('grant_type');
        if (grantType === 'client_credentials') {
          checkForm(form, clientCredentialsForm);
          return c.json(await services.oauth.clientCredentials(tenant, client, { scope: form.get('scope'), resource: form.get('resource') }));
        }
        if (grantType === DEVICE_CODE) {
          checkForm(form, deviceCodeForm);
          return c.json(await services.oauth.deviceCodeToken(tenant, client, form.required('device_code')));
        }
        if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw unsupportedGrantType(`grant_type ${grantType} is not supported`);
        checkForm(form, grantType === 'authorization_code' ? codeForm : refreshForm);
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
      },
    ),
  );
}
