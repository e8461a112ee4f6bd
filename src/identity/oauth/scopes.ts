/** Scope helpers shared by authorization, token and consent checks (RFC 6749 §3.3). */

/**
 * OpenID Connect scopes: not resource scopes, never checked against a resource. `profile`
 * (OIDC Core §5.4) releases the profile claims a user has: only updated_at (issue 23).
 */
export const OIDC_SCOPES = new Set(['openid', 'email', 'profile', 'offline_access']);

/** OIDC Core §5.1 updated_at: seconds since the epoch, from the stored ISO 8601 time. */
export function epochSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/** scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Splits a space-delimited scope string; duplicates are dropped, order kept. */
export function parseScope(s: string | null | undefined): string[] {
  if (!s) return [];
  return [...new Set(s.split(' ').filter((x) => x !== ''))];
}

/** Whether a space-delimited scope string holds `token`, without splitting it. */
export function hasScope(s: string, token: string): boolean {
  return (' ' + s + ' ').includes(' ' + token + ' ');
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export function isSubset(a: readonly string[], of: readonly string[]): boolean {
  const set = new Set(of);
  return a.every((x) => set.has(x));
}

export function parseJsonList(json: string): string[] {
  return JSON.parse(json) as string[];
}
