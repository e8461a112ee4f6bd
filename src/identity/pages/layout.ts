import { html, Raw } from './html';
import { STYLES } from './styles';

/** What every page needs to know about where it is served. */
export interface PageFrame {
  /** Path of the issuer (`/t/acme`, or empty for a host-only issuer): forms post under it. */
  issuerPath: string;
  /** Shown in the header: the tenant's slug. */
  tenantName: string;
}

export function layout(frame: PageFrame, title: string, body: Raw): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${STYLES_RAW}</style>
</head>
<body>
<main>
<p class="brand"><span class="mark" aria-hidden="true">${frame.tenantName.slice(0, 1).toUpperCase()}</span><span>${frame.tenantName}</span></p>
${body}
</main>
<footer>Protected sign-in. Never enter your password on a page you did not expect.</footer>
</body>
</html>
`.value;
}

// The stylesheet is ours and constant; it is inserted verbatim so its CSP hash matches.
const STYLES_RAW = new Raw(STYLES);

export function hidden(interactionId: string, csrf: string): Raw {
  return html`<input type="hidden" name="interaction_id" value="${interactionId}">
<input type="hidden" name="csrf_token" value="${csrf}">`;
}

export function attr(name: string, value: string | undefined): Raw | string {
  return value === undefined ? '' : html` ${name}="${value}"`;
}

