import type { Hono } from 'hono';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { authenticateResourceServer } from './client-auth';
import { INTROSPECT_REALM } from './errors';
import { readForm } from './form';
import { headerOf } from '../../platform/http/request';

/** POST {issuer}/oauth2/introspect (RFC 7662) for resource servers with their Basic credential. */
export function mountIntrospectRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'credentials' | 'oauth'>): void {
  app.post('/oauth2/introspect', async (c) => {
    const tenant = c.get('tenant');
    const rs = authenticateResourceServer(services.credentials, tenant.tenant.id, headerOf(c, 'authorization'), INTROSPECT_REALM);
    const form = await readForm(c);
    return c.json(services.oauth.introspect(tenant, rs, form.required('token')));
  });
}
