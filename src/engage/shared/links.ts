/**
 * Deep links operators write (a push template's `deepLink`, an in-app button's): the schemes
 * refused. An app may hand a link to a web view or the system browser, where `javascript:` and
 * `vbscript:` run script, `data:` makes a page of the link's own content and `file:` reads the
 * device's files: none is a link into an app (OWASP MASVS, Android's WebView guidance).
 */
export const REFUSED_LINK_SCHEMES = ['javascript', 'vbscript', 'data', 'file'] as const;

/**
 * The refused scheme `link` has, if any, read as a URL parser would: leading spaces and C0
 * controls dropped, tabs and line breaks removed anywhere (WHATWG URL), any case. A link that
 * starts with a `{{placeholder}}` has no scheme until it is sent, and is not refused here.
 */
export function refusedLinkScheme(link: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const normal = link.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(normal)?.[1]?.toLowerCase();
  return (REFUSED_LINK_SCHEMES as readonly string[]).includes(scheme ?? '') ? scheme : undefined;
}

/** The violation's reason for a refused scheme. */
export const refusedLinkReason = (scheme: string) => `the ${scheme}: scheme is refused (${REFUSED_LINK_SCHEMES.map((s) => `${s}:`).join(', ')}: docs/decisions.md)`;
