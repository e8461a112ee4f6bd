import { STYLES_HASH } from './styles';

/**
 * The security headers of every sign-in page. No script at all; the one inline stylesheet
 * is allowed by hash. Forms may post only to ourselves, plus the client's redirect target:
 * browsers apply form-action to the redirect that answers a form post (CSP 3 §6.3.2.2), and
 * our sign-in and consent posts end with a 302 to the client.
 */
export function pageHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...new Set(formTargets.map(sourceOf).filter((s): s is string => !!s))].join(' ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src ${STYLES_HASH}`,
      "img-src 'self' data:",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

/** A CSP source expression for a redirect URI: its origin, or its scheme for a private-use scheme. */
export function sourceOf(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  // Characters outside a scheme token would break the header: drop such targets.
  return /^[a-z][a-z0-9+.-]*:$/i.test(u.protocol) ? u.protocol : undefined;
}
