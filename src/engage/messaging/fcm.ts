/**
 * FCM HTTP v1: an OAuth 2.0 access token from the service account (a JWT signed RS256 with
 * iss = client_email, scope firebase.messaging, aud = token_uri, exchanged with the JWT-bearer
 * grant, RFC 7523 §2.1), kept until shortly before it expires and renewed on a 401 (one token request at a time per service account, shared by every send waiting for it); then
 * POST /v1/projects/{project}/messages:send. Errors are google.rpc.Status with
 * details[].errorCode (../shared/notes/push-providers.md).
 */
import type http from 'node:http';
import type https from 'node:https';
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { createDeadlines } from './deadlines';
import { retryAfterMs, type AttemptOutcome } from './outcome';
import type { DeliveryMessage } from './message';
import type { ProviderCheck } from './apns';

export interface FcmCredentials {
  projectId: string;
  clientEmail: string;
  privateKeyId?: string;
  privateKey: string;
  tokenUri: string;
}

export interface FcmDelivery {
  id: string;
  token: string;
  message: DeliveryMessage;
  expiresMs: number;
}

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** The whole request, from asking for a socket to the end of the answer. */
export const REQUEST_TIMEOUT_MS = 10_000;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The FCM message (v1 `Message`): data values must be strings. */
export function fcmMessage(d: FcmDelivery, nowMs: number): Record<string, unknown> {
  const data: Record<string, string> = { deliveryId: d.id };
  if (d.message.inboxEntryId) data.inboxEntryId = d.message.inboxEntryId;
  if (d.message.deepLink) data.deepLink = d.message.deepLink;
  if (Object.keys(d.message.data).length > 0) data.data = JSON.stringify(d.message.data);
  return {
    message: {
      token: d.token,
      notification: { title: d.message.title, body: d.message.body },
      data,
      android: {
        priority: d.message.priority === 'high' ? 'HIGH' : 'NORMAL',
        ttl: `${Math.max(0, Math.floor((d.expiresMs - nowMs) / 1000))}s`,
        ...(d.message.collapseId ? { collapse_key: d.message.collapseId } : {}),
        // AndroidNotification.tag: a notification with the same tag replaces the one shown. The
        // template's collapse id, else the delivery's own, so a copy sent again after a crash
        // replaces the first (FCM apps are Android apps here: no apns override is sent).
        notification: { tag: d.message.collapseId ?? d.id },
      },
    },
  };
}

export function createFcmClient(opts: { baseUrl: string; ca?: string | Buffer; clock: Clock; requestTimeoutMs?: number }) {
  const timeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // As many sockets as the delivery worker lets attempts of one app be in flight (delivery.ts PER_APP).
  // node:http and node:https load at the first request, not at every start of the executable (a CLI command never needs them).
  let transports: { http: typeof http; https: typeof https; agents: { http: http.Agent; https: https.Agent } } | undefined;
  const transport = () => {
    if (transports) return transports;
    const [h, s] = [process.getBuiltinModule('node:http') as typeof http, process.getBuiltinModule('node:https') as typeof https];
    return (transports = { http: h, https: s, agents: { http: new h.Agent({ keepAlive: true, maxSockets: 128 }), https: new s.Agent({ keepAlive: true, maxSockets: 128, ca: opts.ca }) } });
  };
  const tokens = new Map<string, { token: string; expiresMs: number }>();
  /** The token endpoint request in flight, per service account. */
  const renewals = new Map<string, Promise<string | AttemptOutcome>>();
  const keys = new Map<string, KeyObject>();
  /** The digest of each private key seen, for the token cache's key. */
  const tokenIds = new Map<string, string>();
  const deadlines = createDeadlines(timeoutMs);

  function post(url: string, headers: Record<string, string>, body: string): Promise<Answer | { error: string }> {
    return new Promise((resolve) => {
      const u = new URL(url);
      const secure = u.protocol === 'https:';
      let settled = false;
      const settle = (r: Answer | { error: string }) => {
        if (settled) return;
        settled = true;
        deadlines.cancel(deadline);
        resolve(r);
      };
      const t = transport();
      const req = (secure ? t.https : t.http).request(
        u,
        { method: 'POST', agent: secure ? t.agents.https : t.agents.http, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => settle({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => settle({ error: `connection: ${e.message}` }));
          res.on('close', () => settle({ error: 'connection closed before the end of the answer' }));
        },
      );
      // A deadline for the whole exchange, waiting for a socket included (not an idle timeout a trickle would reset).
      const deadline = deadlines.add(() => {
        settle({ error: `timed out after ${timeoutMs} ms` });
        req.destroy();
      });
      req.on('error', (e) => settle({ error: `connection: ${e.message}` }));
      req.end(body);
    });
  }

  /**
   * The access token for these credentials. `refused`: FCM answered 401 to that token; it is
   * renewed only if it is still the one held. One request to the token endpoint at a time per
   * service account: every caller that needs a token meanwhile (thirty sends refused at once, or
   * the first burst after a start) waits for that same request (issue 22 point 3).
   */
  function accessToken(c: FcmCredentials, refused?: string): Promise<string | AttemptOutcome> | string {
    const id = tokenId(c);
    const held = tokens.get(id);
    if (held && held.token !== refused && held.expiresMs - 5 * 60_000 > opts.clock.now().getTime()) return held.token;
    let asked = renewals.get(id);
    if (!asked) {
      asked = askForToken(c, id).finally(() => renewals.delete(id));
      renewals.set(id, asked);
    }
    return asked;
  }

  /**
   * Whose token it is: the service account AND its private key. Keyed by the email and token
   * endpoint alone, an app whose uploaded file named another project's account with a key of
   * its own would be handed that project's cached token (an outside review, issue 24).
   */
  function tokenId(c: FcmCredentials): string {
    let id = tokenIds.get(c.privateKey);
    if (!id) tokenIds.set(c.privateKey, (id = createHash('sha256').update(c.privateKey).digest('hex')));
    return `${c.clientEmail} ${c.tokenUri} ${id}`;
  }

  async function askForToken(c: FcmCredentials, id: string): Promise<string | AttemptOutcome> {
    const now = opts.clock.now().getTime();
    let key = keys.get(c.privateKey);
    if (!key) keys.set(c.privateKey, (key = createPrivateKey(c.privateKey)));
    const iat = Math.floor(now / 1000);
    const input = `${b64({ alg: 'RS256', typ: 'JWT', ...(c.privateKeyId ? { kid: c.privateKeyId } : {}) })}.${b64({ iss: c.clientEmail, scope: FCM_SCOPE, aud: c.tokenUri, iat, exp: iat + 3600 })}`;
    const assertion = `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
    const res = await post(c.tokenUri, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString());
    if ('error' in res) return { kind: 'retry', error: `fcm token endpoint ${res.error}` };
    if (res.status === 429 || res.status >= 500) return { kind: 'retry', error: `fcm token endpoint ${res.status}`, retryAfterMs: retryAfterMs(res.headers['retry-after'], now) };
    let parsed: { access_token?: unknown; expires_in?: unknown; error?: unknown };
    try {
      parsed = JSON.parse(res.body) as typeof parsed;
    } catch {
      parsed = {};
    }
    if (res.status !== 200 || typeof parsed.access_token !== 'string')
      return { kind: 'failed', error: `fcm token endpoint ${res.status}${typeof parsed.error === 'string' ? ` ${parsed.error.slice(0, 100)}` : ''}` };
    const ttl = typeof parsed.expires_in === 'number' ? parsed.expires_in : 3600;
    tokens.set(id, { token: parsed.access_token, expiresMs: now + ttl * 1000 });
    return parsed.access_token;
  }

  async function attempt(c: FcmCredentials, d: FcmDelivery, refused?: string): Promise<AttemptOutcome | (Answer & { token: string })> {
    const token = await accessToken(c, refused);
    if (typeof token !== 'string') return token;
    const url = `${opts.baseUrl}/v1/projects/${encodeURIComponent(c.projectId)}/messages:send`;
    const res = await post(url, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify(fcmMessage(d, opts.clock.now().getTime())));
    if ('error' in res) return { kind: 'retry', error: res.error };
    return { ...res, token };
  }

  async function send(c: FcmCredentials, d: FcmDelivery): Promise<AttemptOutcome> {
    let res = await attempt(c, d);
    // Our access token was refused: renewed once (notes/push-providers.md); a second 401 is a configuration error.
    if ('status' in res && res.status === 401) res = await attempt(c, d, res.token);
    if (!('status' in res)) return res;
    const now = opts.clock.now().getTime();
    const { status, code, message } = errorOf(res.body);
    const error = `fcm ${res.status}${code ? ` ${code}` : ''}`;
    if (res.status === 200) return { kind: 'sent' };
    if (code === 'UNREGISTERED' || (res.status === 404 && status === 'NOT_FOUND')) return { kind: 'unregistered', error, sinceMs: now };
    // The token belongs to another project: invalid for this app.
    if (code === 'SENDER_ID_MISMATCH') return { kind: 'unregistered', error, sinceMs: now };
    // INVALID_ARGUMENT means a bad token only when the message says so; otherwise a payload bug (no retry).
    if (code === 'INVALID_ARGUMENT' && /registration token/i.test(message)) return { kind: 'unregistered', error, sinceMs: now };
    if (res.status === 429 || res.status >= 500) return { kind: 'retry', error, retryAfterMs: retryAfterMs(res.headers['retry-after'], now) };
    return { kind: 'failed', error };
  }

  /**
   * The credential check (issue 24 point 2): the service account's JWT exchanged at its token
   * endpoint now (never the cached token), no message sent. The token it gets is kept for sends.
   */
  async function check(c: FcmCredentials): Promise<ProviderCheck> {
    let got: string | AttemptOutcome;
    try {
      got = await askForToken(c, tokenId(c));
    } catch (e) {
      return { ok: false, reason: `signing: ${(e as Error).message}` };
    }
    if (typeof got === 'string' || got.kind === 'sent') return { ok: true, status: 200 };
    const m = /^fcm token endpoint (\d{3})(?: (.+))?$/.exec(got.error);
    return m ? { ok: false, status: Number(m[1]), ...(m[2] ? { reason: m[2] } : {}) } : { ok: false, reason: got.error.replace(/^fcm token endpoint /, '') };
  }

  return {
    send,
    check,
    close(): void {
      transports?.agents.http.destroy();
      transports?.agents.https.destroy();
    },
  };
}

/** google.rpc.Status: `error.status`, the FcmError `details[].errorCode` (preferred), `error.message`. */
function errorOf(body: string): { status?: string; code?: string; message: string } {
  try {
    const e = (JSON.parse(body) as { error?: { status?: unknown; message?: unknown; details?: { errorCode?: unknown }[] } }).error;
    if (!e) return { message: '' };
    const detail = e.details?.find((x) => typeof x?.errorCode === 'string')?.errorCode as string | undefined;
    const status = typeof e.status === 'string' ? e.status : undefined;
    return { status, code: detail ?? status, message: typeof e.message === 'string' ? e.message : '' };
  } catch {
    return { message: '' };
  }
}

export type FcmClient = ReturnType<typeof createFcmClient>;
