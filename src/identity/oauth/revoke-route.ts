import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { clientGuard } from './client-auth';
import { REVOKE_REALM } from './errors';
import { checkForm } from './form';
import { RevokeForm } from './schemas';

const revokeForm = checker(RevokeForm);

/** POST {issuer}/oauth2/revoke (RFC 7009): 200 with an empty body, also for unknown tokens. */
export function mountRevokeRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'clients' | 'oauth'>): void {
  app.post(
    '/oauth2/revoke',
    clientGuard(services.clients, REVOKE_REALM),
    described(
      {
        summary: 'Token revocation (RFC 7009)',
        tags: ['oauth'],
        security: ['clientBasic'],
        body: { schema: RevokeForm, type: 'form' },
        responses: { 200: { description: 'revoked, or already inactive (empty body)' } },
        errors: { 400: 'invalid_request', 401: 'invalid_client', 404: 'unknown issuer (empty body)' },
      },
      async (c) => {
        const form = c.get('form');
        checkForm(form, revokeForm);
        await services.oauth.revoke(c.get('tenant'), c.get('client'), form.required('token'), { unbindInstallation: form.get('unbind_installation') === 'true' });
        return c.body(null, 200);
      },
    ),
  );
}
