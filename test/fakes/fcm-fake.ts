/**
 * A loopback FCM HTTP v1 (HTTPS from a test CA): the OAuth 2.0 token endpoint checks the
 * service-account assertion (RS256 signature with the account's key, iss = client_email,
 * scope firebase.messaging, aud = token_uri, exp - iat at most an hour, the JWT-bearer grant
 * of RFC 7523) and `messages:send` checks the access token, the project and the message shape.
 * Errors come as google.rpc.Status with an FcmError errorCode, on demand per device token.
 */
import https from 'node:https';
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestCa } from './test-ca';

export interface FcmScripted {
  status: number;
  /** google.rpc status (UNREGISTERED answers NOT_FOUND with errorCode UNREGISTERED). */
  rpcStatus: string;
  errorCode?: string;
  message?: string;
  retryAfter?: string;
}

export interface FcmSend {
  token: string;
  message: Record<string, unknown>;
  status: number;
  /** Wall-clock time the request arrived. */
  receivedMs: number;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export async function startFcmFake(opts: { ca: TestCa; now?: () => number; projectId: string }) {
  const now = opts.now ?? (() => Date.now());
  const accounts = new Map<string, KeyObject>();
  const accessTokens = new Set<string>();
  const sends: FcmSend[] = [];
  const delivered = new Map<string, number>();
  const scripts = new Map<string, FcmScripted[]>();
  let tokenRequests = 0;

  const read = (req: IncomingMessage) =>
    new Promise<string>((r) => {
      const c: Buffer[] = [];
      req.on('data', (x: Buffer) => c.push(x));
      req.on('end', () => r(Buffer.concat(c).toString('utf8')));
    });
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const rpcError = (res: ServerResponse, s: FcmScripted) =>
    json(
      res,
      s.status,
      {
        error: {
          code: s.status,
          message: s.message ?? s.rpcStatus,
          status: s.rpcStatus,
          details: s.errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: s.errorCode }] : [],
        },
      },
      s.retryAfter ? { 'retry-after': s.retryAfter } : {},
    );

  let url = '';
  const server = https.createServer({ key: opts.ca.key, cert: opts.ca.cert }, (req, res) => {
    const receivedMs = Date.now();
    void (async () => {
      const body = await read(req);
      if (req.method === 'POST' && req.url === '/token') {
        tokenRequests++;
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return json(res, 400, { error: 'unsupported_grant_type' });
        const parts = (form.get('assertion') ?? '').split('.');
        if (parts.length !== 3) return json(res, 400, { error: 'invalid_grant', error_description: 'malformed assertion' });
        let header: { alg?: string };
        let claims: { iss?: string; scope?: string; aud?: string; iat?: number; exp?: number };
        try {
          header = JSON.parse(Buffer.from(parts[0], 'base64url').toString()) as typeof header;
          claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString()) as typeof claims;
        } catch {
          return json(res, 400, { error: 'invalid_grant' });
        }
        const key = claims.iss ? accounts.get(claims.iss) : undefined;
        if (header.alg !== 'RS256' || !key) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown account' });
        if (!verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2], 'base64url')))
          return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
        if (!(claims.scope ?? '').split(' ').includes(SCOPE)) return json(res, 400, { error: 'invalid_scope' });
        if (claims.aud !== `${url}/token`) return json(res, 400, { error: 'invalid_grant', error_description: 'bad audience' });
        const t = now() / 1000;
        if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.exp - claims.iat > 3600 || claims.exp < t || claims.iat > t + 60)
          return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT: Token must be a short-lived token' });
        const token = `ya29.${randomBytes(24).toString('base64url')}`;
        accessTokens.add(token);
        return json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
      }
      const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) return json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such method' } });
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !accessTokens.has(bearer)) return rpcError(res, { status: 401, rpcStatus: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' });
      if (decodeURIComponent(m[1]) !== opts.projectId) return rpcError(res, { status: 403, rpcStatus: 'PERMISSION_DENIED', errorCode: 'SENDER_ID_MISMATCH' });
      let msg: Record<string, unknown>;
      try {
        msg = (JSON.parse(body) as { message: Record<string, unknown> }).message;
      } catch {
        return rpcError(res, { status: 400, rpcStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', message: 'Invalid JSON payload' });
      }
      const token = msg?.token;
      const data = (msg?.data ?? {}) as Record<string, unknown>;
      const android = (msg?.android ?? {}) as Record<string, unknown>;
      const bad =
        typeof token !== 'string' || token === ''
          ? 'message.token is required'
          : Object.values(data).some((v) => typeof v !== 'string')
            ? 'data values must be strings'
            : android.ttl !== undefined && !/^\d+(\.\d{1,9})?s$/.test(String(android.ttl))
              ? 'android.ttl: Invalid duration'
              : android.priority !== undefined && !['HIGH', 'NORMAL'].includes(String(android.priority))
                ? 'android.priority: invalid value'
                : Buffer.byteLength(JSON.stringify(data)) > 4096
                  ? 'message is too big'
                  : undefined;
      if (bad) {
        sends.push({ token: String(token), message: msg, status: 400, receivedMs });
        return rpcError(res, { status: 400, rpcStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', message: bad });
      }
      const next = scripts.get(token as string)?.shift();
      if (next) {
        sends.push({ token: token as string, message: msg, status: next.status, receivedMs });
        return rpcError(res, next);
      }
      sends.push({ token: token as string, message: msg, status: 200, receivedMs });
      const id = String(data.deliveryId);
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      json(res, 200, { name: `projects/${opts.projectId}/messages/${randomBytes(8).toString('hex')}` });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;

  return {
    url,
    sends,
    delivered,
    tokenRequests: () => tokenRequests,
    /** A service-account JSON key file for this fake (its token_uri points here). */
    serviceAccount(clientEmail = 'engage@test-project.iam.gserviceaccount.com') {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      accounts.set(clientEmail, publicKey);
      return {
        type: 'service_account',
        project_id: opts.projectId,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: clientEmail,
        token_uri: `${url}/token`,
      };
    },
    script(token: string, ...answers: FcmScripted[]) {
      scripts.set(token, [...(scripts.get(token) ?? []), ...answers]);
    },
    /** Every access token issued so far stops working (401 on the next send). */
    revokeAccessTokens() {
      accessTokens.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type FcmFake = Awaited<ReturnType<typeof startFcmFake>>;
