/**
 * An access token of the engagement administration API on a running `engage serve`, got the
 * way `engage login --api engage` gets it (the engage-cli client, PKCE, a loopback redirect, the
 * API's resource and its four scopes), but with the sign-in pages driven by form posts instead of
 * a browser: nothing listens on the loopback redirect, the code is read from the Location.
 */
import { randomBytes } from 'node:crypto';
import { FormDriver, redirectParams } from '../conformance/form-driver';
import { s256 } from '../../src/platform/crypto';

export const ENGAGE_ADMIN_SCOPES = ['engage.admin.read', 'engage.admin.manage', 'engage.admin.send', 'engage.admin.privacy'];

export async function engageAdminToken(serverUrl: string, email: string, password: string): Promise<string> {
  const issuer = `${serverUrl}/t/control`;
  const redirectUri = 'http://127.0.0.1:9/callback'; // a loopback URI matches engage-cli's with any port (RFC 8252 §7.3)
  const resource = `${issuer}/engage/admin`;
  const verifier = randomBytes(32).toString('base64url');
  const q = new URLSearchParams({
    client_id: 'engage-cli', redirect_uri: redirectUri, response_type: 'code', scope: ['openid', 'email', ...ENGAGE_ADMIN_SCOPES].join(' '),
    state: 'parity', resource, code_challenge: s256(verifier), code_challenge_method: 'S256',
  });
  const d = new FormDriver(fetch, serverUrl);
  const signedIn = await d.signIn(`/t/control/oauth2/authorize?${q}`, email, password);
  const { code, error } = redirectParams(signedIn);
  if (!code) throw new Error(`no code from the sign-in: ${error ?? signedIn.status}`);
  const res = await fetch(`${issuer}/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: 'engage-cli', resource }).toString(),
  });
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
