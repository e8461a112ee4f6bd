import { digest } from '../../platform/crypto';
import type { Services } from '../../services';
import type { BrowserOAuthPort } from './ports';

/** Maps the OAuth-core services (clients, users, resources, oauth) onto the browser flow's port. */
export function browserOAuthAdapter(services: Services): BrowserOAuthPort {
  const { oauth, clients, users, resources } = services;
  const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
  return {
    async validate(tenant, params) {
      const v = await oauth.validateAuthorizationRequest(tenant, params);
      if (v.ok) {
        const r = v.request;
        return {
          ok: true,
          request: {
            client: r.client,
            redirectUri: r.redirectUri,
            scope: r.scope,
            state: orUndefined(r.state),
            nonce: orUndefined(r.nonce),
            codeChallenge: r.codeChallenge,
            resource: orUndefined(r.resource),
            prompt: r.prompt,
            maxAge: orUndefined(r.maxAge),
            // Kept with the pending request as a digest only (issue 24).
            bindingCodeDigest: r.bindingCode === null ? undefined : digest(r.bindingCode),
          },
        };
      }
      if (v.redirect) return { ...v, state: orUndefined(v.state) };
      return v;
    },
    async findClient(tenantId, clientId) {
      return clients.find(tenantId, clientId);
    },
    async verifyPassword(tenantId, email, password) {
      return users.verifyPassword(tenantId, email, password);
    },
    async findUser(tenantId, userId) {
      return users.findById(tenantId, userId);
    },
    async resourceName(tenantId, uri) {
      return (await resources.findByUri(tenantId, uri))?.audience;
    },
    async hasConsent(k) {
      return oauth.hasConsent(k.tenantId, k.userId, k.clientId, k.scope, k.resource ?? null);
    },
    async rememberConsent(k) {
      await oauth.rememberConsent(k.tenantId, k.userId, k.clientId, k.scope, k.resource ?? null);
    },
    async issueCode(input) {
      return oauth.issueAuthorizationCode({ ...input, resource: input.resource ?? null, nonce: input.nonce ?? null });
    },
  };
}
