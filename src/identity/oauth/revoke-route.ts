import type { Hono } from 'hono';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { authenticateClient } from './client-auth';
import { REVOKE_REALM } from './errors';
import { readForm } from './form';
import { headerOf } from '../../platform/http/request';

/** POST {issuer}/oauth2/revoke (RFC 7009): 200 with an empty body, also for unknown tokens. */
export function mountRevokeRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'clients' | 'oauth'>): void {
  app.post('/oauth2/revoke', async (c) => {
    const form = await readForm(c);
    const tenant = c.get('tenant');
    const client = authenticateClient(services.clients, tenant.tenant.id, form, headerOf(c, 'authorization'), REVOKE_REALM);
    await services.oauth.revoke(tenant, client, form.required('token'));
    return c.body(null, 200);
  });
}
