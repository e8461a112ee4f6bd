/**
 * Database URLs (`--database-url`, ENGAGE_DATABASE_URL) without the driver: configuration checks
 * and redacts them before any connection is made. The password never leaves through here.
 */

/** The URL with its password replaced, for logs and error messages. Never throws. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    // Not parseable: cut whatever sits between "://user:" and "@".
    return url.replace(/(:\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}

/** A database URL that is not usable; its message never carries the password. */
export class DatabaseUrlError extends Error {}

/** Checks a database URL (postgres:// or postgresql://); the error names the redacted URL. */
export function parseDatabaseUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Node's TypeError carries the whole input (`input`), and an unparseable text may hold the
    // password anywhere: name neither.
    throw new DatabaseUrlError('invalid database URL: not a URL (postgres://user:password@host:port/database)');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw new DatabaseUrlError(`invalid database URL ${redactUrl(url)}: expected postgres:// or postgresql://`);
  if (!u.hostname && !u.searchParams.get('host')) throw new DatabaseUrlError(`invalid database URL ${redactUrl(url)}: no host`);
  return u;
}
