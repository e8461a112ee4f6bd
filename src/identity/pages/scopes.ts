import type { ScopeLine } from './templates';

/** What the consent page says for each scope: plain words for what the client may do. */
const OIDC_SCOPE_TEXT: Record<string, ScopeLine | null> = {
  // openid itself grants nothing a user needs to weigh; its meaning is carried by the others.
  openid: { what: 'Confirm your identity', detail: 'Know who you are when you sign in' },
  email: { what: 'See your email address', detail: 'Including whether it is verified' },
  profile: { what: 'See your basic profile', detail: 'When your account was last updated' },
  offline_access: { what: 'Stay connected', detail: 'Keep access while you are not using the application' },
};

export function describeScopes(scope: readonly string[], resourceName?: string): ScopeLine[] {
  return scope.map((s) => {
    const known = OIDC_SCOPE_TEXT[s];
    if (known) return known;
    return resourceName ? { what: `Use ${resourceName} on your behalf`, detail: `Permission: ${s}` } : { what: `Permission: ${s}` };
  });
}
