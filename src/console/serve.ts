import { Hono } from 'hono';
import type { AppEnv } from '../platform/http/request';
import { notFoundError } from '../platform/http/errors';
import { described } from '../platform/http/openapi';
import { T } from '../platform/http/schema';
import { consoleAssets, type ConsoleAsset } from './assets';

/** What the page needs to sign in and find the two administration APIs; nothing secret. */
export interface ConsoleSettings {
  /** Where the console is served, e.g. `/console` (config consolePath). */
  base: string;
  /** The control issuer (its discovery document names every endpoint). */
  controlIssuer: () => Promise<string | undefined>;
  clientId: string;
}

/**
 * The web console (issue 25): one HTML shell for every path under `base` (the page routes in
 * the browser), and its hashed script and stylesheet. No other route: the page is a client of
 * the control issuer and the two administration APIs only, like curl with a token.
 */
export function createConsoleApp(settings: ConsoleSettings): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { base } = settings;

  app.get(`${base}/assets/:name`, described(ASSET_DOC, async (c) => {
    const asset = (await consoleAssets()).find((a) => a.name === c.req.param('name'));
    if (!asset) throw notFoundError('api');
    const gzip = acceptsGzip(c.req.header('accept-encoding'));
    const headers: Record<string, string> = {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    };
    if (gzip) headers['Content-Encoding'] = 'gzip';
    return c.body(new Uint8Array(gzip ? asset.gzip : asset.body), 200, headers);
  }));

  const page = async (c: { req: { path: string }; body: (b: string, s: 200, h: Record<string, string>) => Response }) => {
    const issuer = await settings.controlIssuer();
    if (!issuer) throw notFoundError('api');
    const assets = await consoleAssets();
    // The callback alone may be framed, by the console itself: the hidden frame of a silent sign-in (prompt=none).
    return c.body(shell(settings, issuer, assets), 200, consoleHeaders(issuer, c.req.path === `${base}/callback`));
  };
  // Two handlers: a route's documentation is attached to its handler.
  app.get(base, described(PAGE_DOC, (c) => page(c)));
  app.get(`${base}/:page{.*}`, described({ ...PAGE_DOC, summary: 'The web console at one of its pages (the same HTML page: the page routes in the browser)', params: { page: T.String({ description: 'the console page, e.g. identity/tenants' }) } }, (c) => page(c)));
  return app;
}

const PAGE_DOC = {
  summary: 'The web console (docs/console.md): an HTML page that signs the operator in at the control issuer and calls the two administration APIs',
  tags: ['console'],
  responses: { 200: { description: 'the page, with its Content-Security-Policy', type: 'html' as const } },
  errors: { 404: 'the control tenant does not exist yet' },
};
const ASSET_DOC = {
  summary: "One of the web console's files (its script or stylesheet), named by its content hash: cached for a year",
  tags: ['console'],
  params: { name: T.String({ description: 'e.g. app-3F2K9QZ1.js' }) },
  responses: { 200: { description: 'the file (text/javascript or text/css; gzip when accepted)' } },
  errors: { 404: 'no such file' },
};

/** Strict: only our own hashed files run; no inline script or style, no eval, never framed. */
export function consoleHeaders(issuer: string, framedBySelf = false): Record<string, string> {
  const issuerOrigin = new URL(issuer).origin;
  const connect = [...new Set(["'self'", issuerOrigin])].join(' ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "font-src 'self'",
      `connect-src ${connect}`,
      // The hidden frame of a silent sign-in (prompt=none) opens the issuer's authorization endpoint.
      `frame-src ${connect}`,
      `form-action ${connect}`,
      framedBySelf ? "frame-ancestors 'self'" : "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'X-Frame-Options': framedBySelf ? 'SAMEORIGIN' : 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** Whether Accept-Encoding admits gzip (RFC 9110 §12.5.3): named or `*`, and not with q=0. */
export function acceptsGzip(header: string | undefined): boolean {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    weights.set(coding.trim(), q ? Number(q[1]) : 1);
  }
  const w = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*');
  return w !== undefined && w > 0;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function shell(settings: ConsoleSettings, issuer: string, assets: ConsoleAsset[]): string {
  const script = assets.find((a) => a.name.endsWith('.js'))!;
  const style = assets.find((a) => a.name.endsWith('.css'));
  const config = JSON.stringify({ base: settings.base, issuer, clientId: settings.clientId });
  const href = (a: ConsoleAsset) => escapeAttr(`${settings.base}/assets/${a.name}`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<meta name="engage-console" content="${escapeAttr(config)}">`,
    '<title>engage console</title>',
    '<link rel="icon" href="data:,">',
    style ? `<link rel="stylesheet" href="${href(style)}" integrity="sha256-${style.sha256}">` : '',
    `<script type="module" src="${href(script)}" integrity="sha256-${script.sha256}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><p class="boot">Loading the console…</p></div>',
    '<noscript><p>The engage console needs JavaScript. Everything it does can also be done with the engage CLI or the administration APIs.</p></noscript>',
    '</body>',
    '</html>',
  ].join('\n');
}
