/**
 * APNs provider API over HTTP/2 (node:http2) with token-based authentication: an ES256 JWT
 * (header kid = key id; claims iss = team id, iat) reused for 40 minutes and renewed on
 * 403 ExpiredProviderToken; APNs refuses a token older than an hour and renewing more often
 * than every 20 minutes (../shared/notes/push-providers.md, Apple "Establishing a token-based
 * connection to APNs"). A refusal renews only the token that was refused: of thirty pushes
 * refused at once, the first renews and the others retry with its token (issue 22 point 3).
 * One HTTP/2 session per host, opened again after GOAWAY or an error; every request has a
 * deadline (headers then silence is a timeout, a transient failure).
 */
import type * as Http2 from 'node:http2';
import { createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { createDeadlines } from './deadlines';
import { retryAfterMs, type AttemptOutcome } from './outcome';
import type { DeliveryMessage } from './message';

export interface ApnsCredentials {
  keyPem: string;
  keyId: string;
  teamId: string;
  topic: string;
  sandbox: boolean;
}

export interface ApnsDelivery {
  id: string;
  token: string;
  message: DeliveryMessage;
  /** Epoch ms after which APNs should not try any more; equal to creation for a TTL of 0. */
  expiresMs: number;
  createdMs: number;
}

/** The payload: the alert, and the delivery id the SDK echoes in PUSH_RECEIPT_RECORDED. */
export function apnsPayload(m: DeliveryMessage, deliveryId: string): Record<string, unknown> {
  return {
    aps: { alert: { title: m.title, body: m.body }, sound: 'default', 'mutable-content': 1 },
    deliveryId,
    ...(m.inboxEntryId ? { inboxEntryId: m.inboxEntryId } : {}),
    ...(m.deepLink ? { deepLink: m.deepLink } : {}),
    ...(Object.keys(m.data).length > 0 ? { data: m.data } : {}),
  };
}

const TOKEN_REUSE_MS = 40 * 60_000;

/** What a credential check learnt from the provider (issue 24): no push is ever sent. */
export interface ProviderCheck {
  /** The provider accepted the credentials. */
  ok: boolean;
  /** The provider's HTTP status, absent when it could not be reached. */
  status?: number;
  /** The provider's reason (`BadDeviceToken`, `InvalidProviderToken`, `invalid_grant`) or the transport error. */
  reason?: string;
}

/**
 * The device token of a credential check: not hex, so it can be no device's, and APNs answers
 * 400 BadDeviceToken once it has accepted the provider token (it checks the token first: 403
 * InvalidProviderToken, ExpiredProviderToken otherwise). Nothing can be delivered to it.
 */
export const CHECK_DEVICE_TOKEN = 'engage-credential-check';
/** The whole request, from opening the stream to the end of the answer. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** node:http2 loads at the first push, not at every start of the executable (a CLI command never needs it). */
const loadHttp2 = (): typeof Http2 => process.getBuiltinModule('node:http2');
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function createApnsClient(opts: { productionUrl: string; sandboxUrl: string; ca?: string | Buffer; clock: Clock; requestTimeoutMs?: number }) {
  const timeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const sessions = new Map<string, Http2.ClientHttp2Session>();
  const tokens = new Map<string, { jwt: string; iatMs: number }>();
  const keys = new Map<string, KeyObject>();
  const deadlines = createDeadlines(timeoutMs);

  function session(url: string): Http2.ClientHttp2Session {
    const open = sessions.get(url);
    if (open && !open.closed && !open.destroyed) return open;
    const s = loadHttp2().connect(url, opts.ca ? { ca: opts.ca } : {});
    const drop = () => {
      if (sessions.get(url) === s) sessions.delete(url);
    };
    // After GOAWAY, new streams go to a new session; the old one finishes its streams.
    s.on('goaway', drop);
    s.on('close', drop);
    s.on('error', drop);
    s.unref();
    sessions.set(url, s);
    return s;
  }

  /**
   * The provider token for these credentials. `refused`: APNs answered ExpiredProviderToken to
   * that token; it is renewed only if it is still the one held, so a burst of refusals renews
   * once and the rest reuse the renewal (signing is synchronous: no renewal is ever in flight
   * twice). Without a refusal a token is kept for TOKEN_REUSE_MS, past Apple's 20 minutes.
   */
  function providerToken(c: ApnsCredentials, refused?: string): string {
    // Per key: credentials replaced under the same key id (a new .p8) get a token of their own at once.
    const id = `${c.teamId}:${c.keyId}:${c.keyPem}`;
    const now = opts.clock.now().getTime();
    const held = tokens.get(id);
    if (held && (refused === undefined ? now - held.iatMs < TOKEN_REUSE_MS : held.jwt !== refused)) return held.jwt;
    let key = keys.get(c.keyPem);
    if (!key) keys.set(c.keyPem, (key = createPrivateKey(c.keyPem)));
    const iat = Math.floor(now / 1000);
    const input = `${b64({ alg: 'ES256', kid: c.keyId })}.${b64({ iss: c.teamId, iat })}`;
    // JWS ES256 (RFC 7518 §3.4): the raw r||s signature, not DER.
    const sig = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    const jwt = `${input}.${sig}`;
    tokens.set(id, { jwt, iatMs: now });
    return jwt;
  }

  function request(c: ApnsCredentials, d: ApnsDelivery, jwt: string): Promise<{ status: number; body: string; headers: Http2.IncomingHttpHeaders } | { error: string }> {
    const url = c.sandbox ? opts.sandboxUrl : opts.productionUrl;
    const payload = JSON.stringify(apnsPayload(d.message, d.id));
    const headers: Http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/3/device/${encodeURIComponent(d.token)}`,
      authorization: `bearer ${jwt}`,
      'apns-topic': c.topic,
      'apns-push-type': 'alert',
      'apns-priority': d.message.priority === 'high' ? '10' : '5',
      // A TTL of 0: "deliver once, do not store" (apns-expiration 0).
      'apns-expiration': d.expiresMs <= d.createdMs ? '0' : String(Math.floor(d.expiresMs / 1000)),
      'apns-id': d.id,
      'content-type': 'application/json',
    };
    // The template's collapse id, else the delivery's own: a copy sent again after a crash replaces the first on the device.
    headers['apns-collapse-id'] = d.message.collapseId ?? d.id;
    return new Promise((resolve) => {
      let s: Http2.ClientHttp2Session;
      try {
        s = session(url);
      } catch (e) {
        resolve({ error: `connection: ${(e as Error).message}` });
        return;
      }
      const req = s.request(headers);
      let status = 0;
      let resHeaders: Http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let settled = false;
      const settle = (r: Awaited<ReturnType<typeof request>>) => {
        if (settled) return;
        settled = true;
        deadlines.cancel(deadline);
        resolve(r);
      };
      // A deadline for the whole exchange: a stream that answered headers and then nothing (half-open) ends here too.
      const deadline = deadlines.add(() => {
        settle({ error: `timed out after ${timeoutMs} ms` });
        req.close(loadHttp2().constants.NGHTTP2_CANCEL);
      });
      req.on('response', (h) => {
        status = Number(h[':status']);
        resHeaders = h;
      });
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => settle(status ? { status, body: Buffer.concat(chunks).toString('utf8'), headers: resHeaders } : { error: 'stream closed without a response' }));
      req.on('error', (e) => settle({ error: `connection: ${e.message}` }));
      req.on('close', () => settle({ error: status ? 'stream closed before the end of the answer' : `stream closed (${req.rstCode})` }));
      req.end(payload);
    });
  }

  async function send(c: ApnsCredentials, d: ApnsDelivery): Promise<AttemptOutcome> {
    const jwt = providerToken(c);
    let res = await request(c, d, jwt);
    let reason = 'error' in res ? undefined : reasonOf(res.body);
    if (!('error' in res) && res.status === 403 && reason === 'ExpiredProviderToken') {
      // Renewed once for the burst, then the same request again (notes/push-providers.md, as Parse Server does).
      res = await request(c, d, providerToken(c, jwt));
      reason = 'error' in res ? undefined : reasonOf(res.body);
    }
    if ('error' in res) return { kind: 'retry', error: res.error };
    const now = opts.clock.now().getTime();
    const error = `apns ${res.status}${reason ? ` ${reason}` : ''}`;
    if (res.status === 200) return { kind: 'sent' };
    if (res.status === 410) {
      const ts = timestampOf(res.body);
      return { kind: 'unregistered', error, sinceMs: ts ?? now };
    }
    if (res.status === 400 && reason === 'BadDeviceToken') return { kind: 'unregistered', error, sinceMs: now };
    if (res.status === 429 || res.status >= 500 || (res.status === 403 && reason === 'ExpiredProviderToken'))
      return { kind: 'retry', error, retryAfterMs: retryAfterMs(res.headers['retry-after'], now) };
    return { kind: 'failed', error };
  }

  /**
   * The credential check (issue 24 point 2): APNs has no token endpoint, so one request with the
   * provider token to a device token that cannot exist. 400 BadDeviceToken means APNs accepted
   * the provider token and the topic; 403 (InvalidProviderToken, ExpiredProviderToken,
   * TopicDisallowed...) means it did not. The silent payload could show nothing anyway.
   */
  async function check(c: ApnsCredentials): Promise<ProviderCheck> {
    const now = opts.clock.now().getTime();
    const probe: ApnsDelivery = { id: randomUUID(), token: CHECK_DEVICE_TOKEN, message: { title: '', body: '', deepLink: '', data: {}, priority: 'normal' }, expiresMs: now, createdMs: now };
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(c, probe, providerToken(c));
    } catch (e) {
      return { ok: false, reason: `signing: ${(e as Error).message}` };
    }
    if ('error' in res) return { ok: false, reason: res.error };
    const reason = reasonOf(res.body);
    return { ok: res.status === 200 || (res.status === 400 && reason === 'BadDeviceToken'), status: res.status, ...(reason ? { reason } : {}) };
  }

  return {
    send,
    check,
    close(): void {
      for (const s of sessions.values()) s.close();
      sessions.clear();
    },
  };
}

function reasonOf(body: string): string | undefined {
  // APNs accepts with an empty body: no parse, whose failure (an exception and its stack) cost more than the rest of the answer's handling.
  if (body.length === 0) return undefined;
  try {
    const r = (JSON.parse(body) as { reason?: unknown }).reason;
    return typeof r === 'string' ? r.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

function timestampOf(body: string): number | undefined {
  try {
    const t = (JSON.parse(body) as { timestamp?: unknown }).timestamp;
    return typeof t === 'number' && Number.isFinite(t) ? t : undefined;
  } catch {
    return undefined;
  }
}

export type ApnsClient = ReturnType<typeof createApnsClient>;
