import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The OAuth client side of `engage login|token|logout` (RFC 8252, native apps): discovery,
 * PKCE S256 (RFC 7636), a loopback redirect on an ephemeral port (RFC 8252 §7.3), the code and
 * refresh grants and RFC 7009 revocation. Only `fetch` and `node:http`: the executable stays
 * free of a client library.
 */

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
  userinfo_endpoint?: string;
  /** RFC 8628 §4: only when a client of the issuer registered the device grant. */
  device_authorization_endpoint?: string;
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

export interface ClientAuth {
  clientId: string;
  /** A confidential client authenticates with HTTP Basic (RFC 6749 §2.3.1); a public one sends client_id. */
  clientSecret?: string;
}

const TIMEOUT = 30_000;

/** The control issuer of a server: its managed path is fixed (`/t/control`, issuerLocked). */
export const controlIssuerOf = (url: string) => `${url}/t/control`;

async function getJson<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT), redirect: 'error' });
  } catch (e) {
    throw new Error(`cannot reach ${new URL(url).origin}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported by the caller through the status
  }
  return { status: res.status, body: body as T };
}

/** OpenID Connect Discovery 1.0 §4; the document must name the issuer asked for (§4.3). */
export async function discover(issuer: string): Promise<ProviderMetadata> {
  const { status, body } = await getJson<Partial<ProviderMetadata>>(`${issuer}/.well-known/openid-configuration`);
  if (status !== 200 || !body) throw new Error(`no OpenID Connect discovery document at ${issuer} (HTTP ${status}): is the URL an engage server?`);
  if (body.issuer !== issuer) throw new Error(`the discovery document names issuer ${String(body.issuer)}, not ${issuer}`);
  for (const k of ['authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const) {
    if (typeof body[k] !== 'string') throw new Error(`the discovery document has no ${k}`);
  }
  return body as ProviderMetadata;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const randomState = () => randomBytes(16).toString('base64url');

function authHeaders(auth: ClientAuth): { headers: Record<string, string>; params: Record<string, string> } {
  if (auth.clientSecret === undefined) return { headers: {}, params: { client_id: auth.clientId } };
  // RFC 6749 §2.3.1: form-encode id and secret before Basic.
  const basic = Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64');
  return { headers: { authorization: `Basic ${basic}` }, params: {} };
}

/** An OAuth error from the server, with its code (invalid_grant means: sign in again). */
export class OAuthClientError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

async function postForm<T>(endpoint: string, auth: ClientAuth, params: Record<string, string>): Promise<{ status: number; body: T }> {
  const a = authHeaders(auth);
  return getJson<T>(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...a.headers },
    body: new URLSearchParams({ ...params, ...a.params }).toString(),
  });
}

export async function requestTokens(endpoint: string, auth: ClientAuth, params: Record<string, string>): Promise<TokenSet> {
  const { status, body } = await postForm<TokenSet & { error?: string; error_description?: string }>(endpoint, auth, params);
  if (status !== 200 || !body || typeof body.access_token !== 'string') {
    const error = body?.error ?? `http_${status}`;
    throw new OAuthClientError(error, `the token endpoint answered ${error}${body?.error_description ? `: ${body.error_description}` : ''}`);
  }
  return body;
}

/** RFC 8628 §3.2. */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

/** RFC 8628 §3.1: the device authorization request; `resource` (RFC 8707) binds the grant to one API. */
export async function startDeviceAuthorization(endpoint: string, auth: ClientAuth, scope: string, resource?: string): Promise<DeviceAuthorization> {
  const { status, body } = await postForm<DeviceAuthorization & { error?: string; error_description?: string }>(endpoint, auth, { scope, ...withResource(resource) });
  if (status !== 200 || !body || typeof body.device_code !== 'string' || typeof body.user_code !== 'string') {
    const error = body?.error ?? `http_${status}`;
    throw new OAuthClientError(error, `the device authorization endpoint answered ${error}${body?.error_description ? `: ${body.error_description}` : ''}`);
  }
  return body;
}

/**
 * RFC 8707: a grant is bound to the resource of its authorization request; the token requests
 * of that grant may name it again (a different one is invalid_grant). Absent: the client's
 * default resource, the identity management API for engage-cli.
 */
const withResource = (resource: string | undefined): Record<string, string> => (resource === undefined ? {} : { resource });

export function exchangeCode(md: ProviderMetadata, auth: ClientAuth, code: string, redirectUri: string, verifier: string, resource?: string): Promise<TokenSet> {
  return requestTokens(md.token_endpoint, auth, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, ...withResource(resource) });
}

export function refresh(tokenEndpoint: string, auth: ClientAuth, refreshToken: string, resource?: string): Promise<TokenSet> {
  return requestTokens(tokenEndpoint, auth, { grant_type: 'refresh_token', refresh_token: refreshToken, ...withResource(resource) });
}

/** RFC 7009 §2.1; 200 for any token, known or not (§2.2). */
export async function revoke(revocationEndpoint: string, auth: ClientAuth, token: string, hint: 'refresh_token' | 'access_token'): Promise<void> {
  const { status, body } = await postForm<{ error?: string }>(revocationEndpoint, auth, { token, token_type_hint: hint });
  if (status !== 200) throw new OAuthClientError(body?.error ?? `http_${status}`, `the revocation endpoint answered ${body?.error ?? `HTTP ${status}`}`);
}

/** The `sub` of an ID token received straight from the token endpoint (OIDC Core §3.1.3.7: shown, not trusted for anything). */
export function subjectOf(idToken: string | undefined): string | null {
  return identityOf(idToken).subject;
}

/**
 * The operator an ID token names: `sub`, and `email` when the `email` scope was granted (engage
 * login prints it). Received straight from the token endpoint (OIDC Core §3.1.3.7): shown, not
 * trusted for anything; a claim of the wrong type reads as absent.
 */
export function identityOf(idToken: string | undefined): { subject: string | null; email: string | null } {
  const none = { subject: null, email: null };
  if (!idToken) return none;
  try {
    const payload = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString('utf8')) as { sub?: unknown; email?: unknown };
    return { subject: typeof payload.sub === 'string' ? payload.sub : null, email: typeof payload.email === 'string' ? payload.email : null };
  } catch {
    return none;
  }
}

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/callback` (RFC 8252 §7.3: the IP literal, not localhost, §8.3). */
  redirectUri: string;
  /** Resolves with the code once a callback with the expected state arrives; rejects on an error answer or the timeout. */
  code: Promise<string>;
  close(): void;
}

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui,sans-serif;margin:3rem"><h1>${title}</h1><p>${text}</p></body></html>`;

/**
 * Listens on 127.0.0.1 (port 0: the OS picks one) for the authorization response. A request
 * without the expected state is answered 400 and otherwise ignored (RFC 6749 §10.12: it may be
 * forged); `iss`, when sent, must be the issuer (RFC 9207 §2.4).
 */
export async function startLoopbackReceiver(opts: { state: string; issuer: string; port?: number; timeoutMs: number }): Promise<LoopbackReceiver> {
  let settle: { resolve: (c: string) => void; reject: (e: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // node:http loads for `engage login` only, not at every start of the executable.
  const server: http.Server = (process.getBuiltinModule('node:http') as typeof http).createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, title: string, text: string) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" }).end(page(title, text));
    if (req.method !== 'GET' || url.pathname !== '/callback') return send(404, 'Not found', 'This is engage login’s callback listener.');
    const q = url.searchParams;
    if (q.get('state') !== opts.state) return send(400, 'Sign-in not recognised', 'This answer does not belong to the sign-in engage login started.');
    if (q.has('iss') && q.get('iss') !== opts.issuer) {
      send(400, 'Sign-in failed', 'The answer came from another issuer.');
      return settle!.reject(new Error(`the authorization response came from issuer ${q.get('iss')}, not ${opts.issuer} (RFC 9207)`));
    }
    const error = q.get('error');
    if (error) {
      send(400, 'Sign-in failed', 'You can close this window; the terminal says why.');
      return settle!.reject(new OAuthClientError(error, `the sign-in ended with ${error}${q.get('error_description') ? `: ${q.get('error_description')}` : ''}`));
    }
    const c = q.get('code');
    if (!c) return send(400, 'Sign-in failed', 'The answer carries no code.');
    send(200, 'Signed in', 'You are signed in to engage. You can close this window and return to the terminal.');
    settle!.resolve(c);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const timer = setTimeout(() => settle!.reject(new Error(`no sign-in within ${Math.round(opts.timeoutMs / 1000)} s (use --timeout to wait longer)`)), opts.timeoutMs);
  const close = () => {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  };
  return { redirectUri: `http://127.0.0.1:${port}/callback`, code, close };
}

/**
 * Opens the URL in the user's browser when there is one to open (a desktop session): never
 * fails, never waits. Over SSH or in a container without a display nothing is started and the
 * printed URL is the way (issue 11: "opens nothing it cannot").
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  let command: string | undefined;
  let args: string[] = [url];
  if (process.platform === 'darwin') command = 'open';
  else if (process.platform === 'win32') [command, args] = ['rundll32', ['url.dll,FileProtocolHandler', url]];
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) command = 'xdg-open';
  if (!command) return false;
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
