import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../platform/clock';
import { ProviderErrors } from './errors';

export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * Keys of upstream OpenID Connect issuers (docs/decisions.md "Second factors and social providers").
 * Per issuer: the discovery document's `jwks_uri` (OIDC Discovery §4) and its JWK set, kept for
 * MAX_AGE. A token whose `kid` is not in the set triggers one refetch (the issuer rotated its
 * keys, OIDC Core 10.1.1), but at most once per REFRESH_COOLDOWN per issuer: tokens with made-up
 * kids cannot make us fetch on every request. Parallel misses share one fetch.
 */
export const UPSTREAM_KEYS = { maxAgeSeconds: 60 * 60, refreshCooldownSeconds: 60, failureBackoffSeconds: 5, timeoutMs: 5_000, maxBytes: 512 * 1024 } as const;

interface Entry {
  keys: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
}

async function getJson(fetchFn: Fetch, url: string): Promise<Record<string, unknown>> {
  const res = await fetchFn(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(UPSTREAM_KEYS.timeoutMs) });
  if (res.status !== 200) throw new Error(`${url}: status ${res.status}`);
  const text = await res.text();
  if (text.length > UPSTREAM_KEYS.maxBytes) throw new Error(`${url}: too large`);
  const body = JSON.parse(text) as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error(`${url}: not a JSON object`);
  return body as Record<string, unknown>;
}

export function createUpstreamKeys(deps: { clock: Clock; fetch: Fetch; allowHttp: boolean }) {
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Entry>>();
  const lastAttempt = new Map<string, number>();
  const lastFailure = new Map<string, number>();
  const now = () => deps.clock.nowSeconds();

  function allowedUrl(u: string): boolean {
    try {
      const url = new URL(u);
      return url.protocol === 'https:' || (deps.allowHttp && url.protocol === 'http:');
    } catch {
      return false;
    }
  }

  async function load(issuer: string): Promise<Entry> {
    lastAttempt.set(issuer, now());
    try {
      const discovery = await getJson(deps.fetch, `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
      // OIDC Discovery §4.3: the document's issuer must be exactly the issuer it was fetched for.
      if (discovery.issuer !== issuer) throw new Error('discovery issuer mismatch');
      const jwksUri = discovery.jwks_uri;
      if (typeof jwksUri !== 'string' || !allowedUrl(jwksUri)) throw new Error('bad jwks_uri');
      const jwks = await getJson(deps.fetch, jwksUri);
      if (!Array.isArray(jwks.keys)) throw new Error('bad JWK set');
      const entry = { keys: createLocalJWKSet(jwks as unknown as JSONWebKeySet), fetchedAt: now() };
      entries.set(issuer, entry);
      return entry;
    } catch {
      lastFailure.set(issuer, now());
      throw ProviderErrors.upstreamDown();
    }
  }

  function refresh(issuer: string): Promise<Entry> {
    // Right after a failed fetch, answer at once: a down issuer is not fetched on every request.
    const failed = lastFailure.get(issuer);
    if (failed !== undefined && now() - failed < UPSTREAM_KEYS.failureBackoffSeconds) return Promise.reject(ProviderErrors.upstreamDown());
    let p = inflight.get(issuer);
    if (!p) {
      p = load(issuer).finally(() => inflight.delete(issuer));
      inflight.set(issuer, p);
    }
    return p;
  }

  return {
    allowedUrl,
    /** A jose key resolver for tokens of `issuer`. */
    resolver(issuer: string): JWTVerifyGetKey {
      return async (header, token) => {
        let entry = entries.get(issuer);
        if (!entry) entry = await refresh(issuer);
        else if (now() - entry.fetchedAt >= UPSTREAM_KEYS.maxAgeSeconds) {
          // Past its age the set is refreshed; while the issuer cannot be reached the old keys still serve.
          const stale = entry;
          entry = await refresh(issuer).catch(() => stale);
        }
        try {
          return await entry.keys(header, token);
        } catch (e) {
          const unknownKid = e instanceof joseErrors.JWKSNoMatchingKey;
          const mayRefetch = now() - (lastAttempt.get(issuer) ?? 0) >= UPSTREAM_KEYS.refreshCooldownSeconds;
          if (!unknownKid || !mayRefetch) throw e;
          return (await refresh(issuer)).keys(header, token);
        }
      };
    },
    /** Forgets an issuer's keys (its provider was removed or changed). */
    forget(issuer: string): void {
      entries.delete(issuer);
    },
  };
}
