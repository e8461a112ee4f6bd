import { API_ROOT, API_SCOPES, config, type ApiName } from './config';

/**
 * Sign-in to the control issuer (OAuth 2.0 for Browser-Based Applications, "browser-based
 * OAuth client"): authorization code with PKCE, one grant per administration API (a grant has
 * one resource, RFC 8707). Tokens live in this module's memory only: never in a URL, in
 * localStorage or in sessionStorage (which holds only the PKCE verifier and state of an
 * authorization in flight). No refresh token is asked for (no offline_access): a token about
 * to expire, and every token after a reload, comes from a new authorization with prompt=none in
 * a hidden frame, which succeeds only while the operator's session at the issuer lives. So
 * signing out (the session ended, the access tokens revoked) leaves no token alive anywhere,
 * and nothing outlives the session (docs/decisions.md "The web console").
 */

interface Grant {
  accessToken: string;
  idToken?: string;
  /** ms since epoch, a little before the token's real expiry. */
  expiresAt: number;
}

interface Metadata {
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  end_session_endpoint?: string;
}

interface Pending {
  api: ApiName;
  verifier: string;
  returnTo: string;
  silent: boolean;
}

export interface Operator {
  subject: string;
  email?: string;
}

const grants: Partial<Record<ApiName, Grant>> = {};
let metadata: Metadata | undefined;
let operator: Operator | undefined;
const PENDING = 'engage-console.pending.';
const CALLBACK = `${config.base}/callback`;
const SIGNED_OUT = `${config.base}/signed-out`;

export class SignInError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const currentOperator = () => operator;

async function discover(): Promise<Metadata> {
  if (!metadata) {
    const res = await fetch(`${config.issuer}/.well-known/openid-configuration`, { cache: 'no-store' });
    if (!res.ok) throw new SignInError('discovery_failed', `The sign-in service did not answer (HTTP ${res.status}).`);
    metadata = (await res.json()) as Metadata;
  }
  return metadata;
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = (n = 32) => base64url(crypto.getRandomValues(new Uint8Array(n)));
const challengeOf = async (verifier: string) => base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
const redirectUri = () => new URL(CALLBACK, location.origin).href;

async function authorizationUrl(api: ApiName, returnTo: string, silent: boolean): Promise<string> {
  const { authorization_endpoint } = await discover();
  const state = random(16);
  const verifier = random(32);
  const pending: Pending = { api, verifier, returnTo, silent };
  sessionStorage.setItem(PENDING + state, JSON.stringify(pending));
  const url = new URL(authorization_endpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: redirectUri(),
    scope: ['openid', 'email', ...API_SCOPES[api]].join(' '),
    resource: API_ROOT[api],
    state,
    nonce: random(16),
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  };
  if (silent) params.prompt = 'none';
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

async function tokenRequest(body: Record<string, string>): Promise<Grant> {
  const { token_endpoint } = await discover();
  const res = await fetch(token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.clientId, ...body }),
    cache: 'no-store',
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof json.access_token !== 'string') {
    throw new SignInError(String(json.error ?? 'token_failed'), 'The sign-in could not be completed. Please sign in again.');
  }
  const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 300;
  return {
    accessToken: json.access_token,
    idToken: typeof json.id_token === 'string' ? json.id_token : undefined,
    expiresAt: Date.now() + Math.max(10, lifetime - 30) * 1000,
  };
}

/** The ID token's claims came straight from the token endpoint over the console's own origin (OIDC Core §3.1.3.7: TLS validation suffices). */
function remember(grant: Grant): void {
  if (!grant.idToken) return;
  try {
    const claims = JSON.parse(atob(grant.idToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string; email?: string };
    operator = { subject: claims.sub, email: claims.email };
  } catch {
    /* the operator is then shown without a name */
  }
}

async function redeem(params: URLSearchParams): Promise<Pending> {
  const state = params.get('state') ?? '';
  const raw = sessionStorage.getItem(PENDING + state);
  sessionStorage.removeItem(PENDING + state);
  if (!raw) throw new SignInError('unknown_state', 'This sign-in was already used or has expired. Please sign in again.');
  const pending = JSON.parse(raw) as Pending;
  const error = params.get('error');
  if (error) throw Object.assign(new SignInError(error, describeSignInError(error)), { pending });
  const grant = await tokenRequest({
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    redirect_uri: redirectUri(),
    code_verifier: pending.verifier,
    resource: API_ROOT[pending.api],
  });
  grants[pending.api] = grant;
  remember(grant);
  return pending;
}

function describeSignInError(error: string): string {
  if (error === 'access_denied') return 'The sign-in was refused. Your account may not be an operator of this server.';
  if (error === 'login_required' || error === 'interaction_required') return 'Please sign in.';
  return `The sign-in failed (${error}).`;
}

/** prompt=none in a hidden frame: the callback page (in the frame) posts its query string back. */
async function silently(api: ApiName, returnTo: string): Promise<boolean> {
  const url = await authorizationUrl(api, returnTo, true);
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.title = 'sign-in';
  const answer = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => done(undefined), 10_000);
    function done(query: string | undefined) {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      frame.remove();
      resolve(query);
    }
    function onMessage(e: MessageEvent) {
      if (e.origin === location.origin && e.source === frame.contentWindow && typeof e.data?.engageConsoleCallback === 'string') done(e.data.engageConsoleCallback);
    }
    window.addEventListener('message', onMessage);
  });
  frame.src = url;
  document.body.append(frame);
  const query = await answer;
  if (query === undefined) return false;
  try {
    await redeem(new URLSearchParams(query));
    return true;
  } catch (e) {
    if (e instanceof SignInError && ['login_required', 'interaction_required', 'consent_required', 'account_selection_required'].includes(e.code)) return false;
    throw e;
  }
}

export type Boot = { kind: 'ready' } | { kind: 'redirecting' } | { kind: 'signed-out' } | { kind: 'framed-callback' };

/**
 * Called once when the page loads. Makes sure both grants exist, redirecting to the sign-in
 * page if the operator must sign in; answers what the page should show.
 */
export async function boot(): Promise<Boot> {
  const path = location.pathname;
  if (path === CALLBACK && window.parent !== window) {
    // The hidden frame of silently(): hand the answer to the console that opened it.
    window.parent.postMessage({ engageConsoleCallback: location.search }, location.origin);
    return { kind: 'framed-callback' };
  }
  if (path === SIGNED_OUT) return { kind: 'signed-out' };
  let returnTo = `${path}${location.search}`;
  if (path === CALLBACK) {
    // The code and state leave the address bar (and the history) whatever happens: a stale or
    // replayed callback shows its failure at the console's root, where a reload signs in afresh.
    const query = location.search;
    history.replaceState(null, '', `${config.base}/`);
    const pending = await redeem(new URLSearchParams(query));
    returnTo = pending.returnTo;
    history.replaceState(null, '', returnTo);
  }
  for (const api of ['identity', 'engage'] as const) {
    if (grants[api]) continue;
    if (!(await silently(api, returnTo))) {
      location.assign(await authorizationUrl(api, returnTo, false));
      return { kind: 'redirecting' };
    }
  }
  return { kind: 'ready' };
}

/** A sign-in from the signed-out page. */
export async function signInAgain(): Promise<void> {
  location.assign(await authorizationUrl('identity', `${config.base}/`, false));
}

const renewing: Partial<Record<ApiName, Promise<Grant | undefined>>> = {};

/** A new token through the operator's session (hidden frame, prompt=none); undefined when the session has ended. */
async function renew(api: ApiName): Promise<Grant | undefined> {
  const old = grants[api];
  delete grants[api];
  if (await silently(api, `${location.pathname}${location.search}`)) return grants[api];
  if (old) void revoke(old.accessToken);
  return undefined;
}

/** A live access token for the API, renewed when close to expiry; undefined when the operator must sign in again. */
export async function accessToken(api: ApiName, force = false): Promise<string | undefined> {
  const grant = grants[api];
  if (grant && !force && grant.expiresAt > Date.now()) return grant.accessToken;
  renewing[api] ??= renew(api).finally(() => delete renewing[api]);
  return (await renewing[api])?.accessToken;
}

/** Sends the browser to the sign-in page, coming back here. */
export async function signInInteractively(api: ApiName): Promise<void> {
  location.assign(await authorizationUrl(api, `${location.pathname}${location.search}`, false));
}

async function revoke(token: string): Promise<void> {
  const { revocation_endpoint } = await discover();
  if (!revocation_endpoint) return;
  await fetch(revocation_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.clientId, token, token_type_hint: 'access_token' }),
  }).catch(() => undefined);
}

/**
 * Sign-out: the access tokens revoked (RFC 7009), then the issuer's browser session ended
 * (RP-Initiated Logout), coming back to the signed-out page.
 */
export async function signOut(): Promise<void> {
  const meta = await discover();
  const idToken = grants.identity?.idToken ?? grants.engage?.idToken;
  await Promise.all(Object.values(grants).map((g) => revoke(g.accessToken)));
  for (const api of Object.keys(grants) as ApiName[]) delete grants[api];
  operator = undefined;
  if (meta.end_session_endpoint) {
    // By POST (RP-Initiated Logout §2 allows both): the ID token as hint never goes in a URL,
    // where the browser's history (and any log of URLs) would keep it.
    const form = document.createElement('form');
    form.method = 'post';
    form.action = meta.end_session_endpoint;
    form.hidden = true;
    const fields: Record<string, string> = { client_id: config.clientId, post_logout_redirect_uri: new URL(SIGNED_OUT, location.origin).href };
    if (idToken) fields.id_token_hint = idToken;
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  } else {
    location.assign(SIGNED_OUT);
  }
}
