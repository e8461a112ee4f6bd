import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { headerOf } from '../../platform/http/request';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { authenticateResourceServer } from './client-auth';
import { INTROSPECT_REALM } from './errors';
import { readForm } from './form';
import { IntrospectForm, IntrospectionResponse } from './schemas';

const form = checker(IntrospectForm);

/** POST {issuer}/oauth2/introspect (RFC 7662) for resource servers with their Basic credential. */
export function mountIntrospectRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'credentials' | 'oauth'>): void {
  app.post(
    '/oauth2/introspect',
    described(
      {
        summary: 'Token introspection (RFC 7662)',
        tags: ['oauth'],
        security: ['resourceServerBasic'],
        body: { schema: IntrospectForm, type: 'form' },
        responses: { 200: { description: '{active: false} for an inactive or unknown token', schema: IntrospectionResponse } },
        errors: { 400: 'invalid_request', 401: 'invalid_client', 404: 'unknown issuer (empty body)' },
      },
      async (c) => {
        const tenant = c.get('tenant');
        const rs = authenticateResourceServer(services.credentials, tenant.tenant.id, headerOf(c, 'authorization'), INTROSPECT_REALM);
        const body = await readForm(c, form);
        return c.json(services.oauth.introspect(tenant, rs, body.required('token')));
      },
    ),
  );
}
