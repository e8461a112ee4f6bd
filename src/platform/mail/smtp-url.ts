/** SMTP URL rules, without loading the SMTP client (config.ts checks them at start). */

export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The SMTP URL with its password replaced (logs, errors, `--json` output). */
export function redactSmtpUrl(url: string): string {
  const u = URL.parse(url);
  if (!u) return '[invalid smtp url]';
  if (u.password) u.password = 'redacted';
  return u.toString();
}

/** Checks an SMTP URL: `smtp://` (STARTTLS) or `smtps://` (TLS from the start), a host, optional user:password. */
export function checkSmtpUrl(url: string): string | undefined {
  const u = URL.parse(url);
  if (!u) return 'is not a URL';
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') return 'must start with smtp:// (STARTTLS) or smtps:// (TLS)';
  if (!u.hostname) return 'must name a host';
  if ((u.pathname && u.pathname !== '/') || u.search || u.hash) return 'must be scheme, user:password, host and port only';
  return undefined;
}
