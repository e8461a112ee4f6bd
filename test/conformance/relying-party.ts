import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';

/**
 * A real relying party (openid-client) for the browser tests: /login starts an authorization
 * code flow with PKCE, state and nonce (with `prompt`, by default `opts.prompt`, none if empty);
 * /callback finishes it, validates the ID token, asks userinfo for the same subject and shows
 * who signed in (#who from userinfo, #iss and #sub from the ID token).
 */
export async function startRelyingParty(issuer: () => string, secret: () => string, opts: { prompt?: string } = { prompt: 'login' }) {
  const pending = new Map<string, { verifier: string; nonce: string }>();
  let config: client.Configuration | undefined;
  let redirectUri = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      config ??= await client.discovery(new URL(issuer()), 'web', secret(), client.ClientSecretBasic(secret()), { execute: [client.allowInsecureRequests] });
      const url = new URL(req.url!, redirectUri);
      if (url.pathname === '/login') {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        const params: Record<string, string> = { redirect_uri: redirectUri, scope: 'openid email', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce };
        const prompt = url.searchParams.get('prompt') ?? opts.prompt;
        if (prompt) params.prompt = prompt;
        res.writeHead(302, { location: client.buildAuthorizationUrl(config, params).href }).end();
        return;
      }
      if (url.pathname === '/callback') {
        const state = url.searchParams.get('state') ?? '';
        const p = pending.get(state);
        pending.delete(state);
        if (!p) throw new Error('unknown state');
        const tokens = await client.authorizationCodeGrant(config, url, { pkceCodeVerifier: p.verifier, expectedState: state, expectedNonce: p.nonce, idTokenExpected: true });
        const claims = tokens.claims()!;
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>RP</title><p id="who">Signed in as ${String(info.email)}</p><p id="iss">${claims.iss}</p><p id="sub">${claims.sub}</p>`);
        return;
      }
      res.writeHead(404).end();
    })().catch((err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`RP error: ${err.message}`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirectUri = `${base}/callback`;
  return { base, redirectUri, close: () => new Promise<void>((r) => server.close(() => r())) };
}
