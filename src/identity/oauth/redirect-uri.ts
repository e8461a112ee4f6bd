import type { Client } from '../clients/service';

/**
 * Is `requested` a redirect URI registered for the client? Exact string comparison (spec 02),
 * with one exception, RFC 8252 §7.3: for a NATIVE client, a registered loopback IP redirect URI
 * (`http://127.0.0.1/...`, `http://[::1]/...`) matches the same URI with any port, since the
 * app only learns its port when it opens its listener. WEB clients get no such latitude, nor
 * does `localhost` (RFC 8252 §8.3: the name may resolve elsewhere; apps use the IP literal).
 * At the token endpoint the code's redirect URI, as it was requested (port included), is
 * compared exactly (RFC 6749 §4.1.3).
 */
export function redirectUriRegistered(client: Pick<Client, 'redirectUris' | 'applicationType'>, requested: string): boolean {
  if (client.redirectUris.includes(requested)) return true;
  if (client.applicationType !== 'NATIVE') return false;
  const portless = loopbackWithoutPort(requested);
  return portless !== undefined && client.redirectUris.some((r) => loopbackWithoutPort(r) === portless);
}

/** Host, then an optional port 1-65535 (no leading zero), then path and query as they are. */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9][0-9]{0,4}))?([/?][^#]*)?$/;

/** The loopback URI without its port, or undefined when it is not a loopback IP http URI. */
function loopbackWithoutPort(uri: string): string | undefined {
  const m = LOOPBACK.exec(uri);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return undefined;
  return `http://${m[1]}${m[3] ?? ''}`;
}
