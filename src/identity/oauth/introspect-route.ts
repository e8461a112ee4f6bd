import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { resourceServerCheck } from './client-auth';
import { behind } from '../../platform/http/guards';
import { INTROSPECT_REALM } from './errors';
import { readForm } from './form';
import { IntrospectForm, IntrospectionResponse } from './schemas';

const form = checker(IntrospectForm);

/** POST {issuer}/oauth2/introspect (RFC 7662) for resource servers with their Basic credential. */
export function mountIntrospectRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'credentials' | 'oauth'>): void {
  // The guard runs inside the handler (`behind`): no middleware layer of its own on the hottest route.
  const resourceServer = resourceServerCheck(services.credentials, INTROSPECT_REALM);
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
      behind(resourceServer, async (c) => {
        const body = await readForm(c, form);
        return c.json(await services.oauth.introspect(c.get('tenant'), c.get('resourceServer'), body.required('token')));
      }),
    ),
  );
}
