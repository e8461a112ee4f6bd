import type { Hono } from 'hono';
import type { Services } from '../../services';
import type { IssuerEnv } from '../issuer';
import { authenticateResourceServer } from './client-auth';
import { REVOKE_GRANTS_REALM, invalidRequest } from './errors';
import { readForm } from './form';
import { headerOf } from '../../platform/http/request';

const FIELDS = ['subject', 'client_id'];

/** POST {issuer}/oauth2/revoke-application-grants: form fields exactly subject and client_id; 204. */
export function mountRevokeGrantsRoute(app: Hono<IssuerEnv>, services: Pick<Services, 'credentials' | 'oauth'>): void {
  app.post('/oauth2/revoke-application-grants', async (c) => {
    const tenant = c.get('tenant');
    const rs = authenticateResourceServer(services.credentials, tenant.tenant.id, headerOf(c, 'authorization'), REVOKE_GRANTS_REALM);
    const form = await readForm(c);
    const extra = form.names().filter((n) => !FIELDS.includes(n));
    if (extra.length) throw invalidRequest(`unexpected field ${extra[0]}`);
    await services.oauth.revokeApplicationGrants(tenant, rs, form.required('subject'), form.required('client_id'));
    return c.body(null, 204);
  });
}
