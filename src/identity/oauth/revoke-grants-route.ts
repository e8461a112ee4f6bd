import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { noContent } from '../../platform/http/request';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { behind } from '../../platform/http/guards';
import { resourceServerCheck } from './client-auth';
import { REVOKE_GRANTS_REALM } from './errors';
import { readForm } from './form';
import { RevokeGrantsForm } from './schemas';

const form = checker(RevokeGrantsForm);

/** POST {issuer}/oauth2/revoke-application-grants: form fields exactly subject and client_id; 204. */
export function mountRevokeGrantsRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'credentials' | 'oauth'>): void {
  const resourceServer = resourceServerCheck(services.credentials, REVOKE_GRANTS_REALM);
  app.post(
    '/oauth2/revoke-application-grants',
    described(
      {
        summary: 'Revoke every grant of a subject to a client',
        tags: ['oauth'],
        security: ['resourceServerBasic'],
        body: { schema: RevokeGrantsForm, type: 'form' },
        responses: { 204: { description: 'revoked' } },
        errors: { 400: 'invalid_request', 401: 'invalid_client', 404: 'unknown issuer (empty body)' },
      },
      behind(resourceServer, async (c) => {
        const body = await readForm(c, form);
        await services.oauth.revokeApplicationGrants(c.get('tenant'), c.get('resourceServer'), body.required('subject'), body.required('client_id'));
        return noContent(c);
      }),
    ),
  );
}
