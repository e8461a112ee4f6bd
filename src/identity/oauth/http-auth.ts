/** Parsing of the Authorization header schemes used here. Nothing is decided in this file. */

export type BasicCredentials = { id: string; secret: string };

/**
 * HTTP Basic (RFC 7617). For OAuth clients both parts are form-urlencoded before encoding
 * (RFC 6749 §2.3.1), so they are decoded here. Returns null when no Authorization header
 * was sent, 'malformed' when one was sent but is not usable Basic credentials.
 */
export function parseBasic(header: string | undefined): BasicCredentials | null | 'malformed' {
  if (header === undefined) return null;
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!m) return 'malformed';
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0) return 'malformed';
  try {
    const unform = (s: string) => (/[%+]/.test(s) ? decodeURIComponent(s.replace(/\+/g, ' ')) : s);
    const id = unform(decoded.slice(0, i));
    const secret = unform(decoded.slice(i + 1));
    return id && secret ? { id, secret } : 'malformed';
  } catch {
    return 'malformed';
  }
}
