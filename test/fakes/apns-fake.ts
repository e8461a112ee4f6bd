/**
 * A loopback APNs provider API (HTTP/2 over TLS from a test CA) that checks what APNs checks:
 * the ES256 provider token (signature with the registered key, kid, iss = team id, iat not older
 * than an hour), apns-topic, apns-push-type, apns-priority, apns-expiration, apns-id,
 * apns-collapse-id, the device token and the payload (JSON, at most 4096 bytes). It answers
 * every error Apple documents on demand, and counts accepted notifications by apns-id.
 */
import http2 from 'node:http2';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { TestCa } from './test-ca';

export interface ApnsRequest {
  apnsId: string;
  token: string;
  headers: http2.IncomingHttpHeaders;
  payload: Record<string, unknown>;
  status: number;
  reason?: string;
  /** When the answer was written (wall clock, ms). */
  answeredMs: number;
}

export interface Scripted {
  status: number;
  reason?: string;
  /** 410: when the token became invalid (ms). */
  timestamp?: number;
  retryAfter?: string;
  /** Answers this long after the request arrived (a slow device or provider). */
  delayMs?: number;
  /** Sends the response headers, then nothing more: a half-open stream. */
  halfOpen?: boolean;
}

/** A request as it arrived (before any answer), with the wall-clock time it arrived. */
export interface ApnsArrival {
  apnsId: string;
  token: string;
  receivedMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startApnsFake(opts: { ca: TestCa; now?: () => number; topic: string }) {
  const now = opts.now ?? (() => Date.now());
  const keys = new Map<string, { teamId: string; key: KeyObject }>();
  const requests: ApnsRequest[] = [];
  const arrivals: ApnsArrival[] = [];
  /** Accepted notifications (200 answered) by apns-id. */
  const delivered = new Map<string, number>();
  /** Answers queued per device token, used first-in first-out; then 200. */
  const scripts = new Map<string, Scripted[]>();
  let tokensBefore = 0;
  let holding = false;
  const held: (() => void)[] = [];
  /** Every answer not scripted otherwise is given this long after its request arrived. */
  let answerAfterMs = 0;

  const server = http2.createSecureServer({ key: opts.ca.key, cert: opts.ca.cert, allowHTTP1: false });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });

  function authProblem(auth: string | undefined): string | undefined {
    const m = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(auth ?? '');
    if (!m) return 'MissingProviderToken';
    let header: { alg?: string; kid?: string };
    let claims: { iss?: string; iat?: number };
    try {
      header = JSON.parse(Buffer.from(m[1], 'base64url').toString()) as typeof header;
      claims = JSON.parse(Buffer.from(m[2], 'base64url').toString()) as typeof claims;
    } catch {
      return 'InvalidProviderToken';
    }
    const k = header.kid ? keys.get(header.kid) : undefined;
    if (header.alg !== 'ES256' || !k || claims.iss !== k.teamId || typeof claims.iat !== 'number') return 'InvalidProviderToken';
    if (!verify('sha256', Buffer.from(`${m[1]}.${m[2]}`), { key: k.key, dsaEncoding: 'ieee-p1363' }, Buffer.from(m[3], 'base64url'))) return 'InvalidProviderToken';
    const iatMs = claims.iat * 1000;
    if (iatMs > now() + 60_000) return 'InvalidProviderToken';
    if (now() - iatMs > 3600_000 || iatMs < tokensBefore) return 'ExpiredProviderToken';
    return undefined;
  }

  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const path = String(headers[':path'] ?? '');
      arrivals.push({ apnsId: String(headers['apns-id'] ?? ''), token: decodeURIComponent(path.slice('/3/device/'.length)), receivedMs: Date.now() });
      const answer = () => handle(stream, headers, Buffer.concat(chunks));
      if (holding) held.push(answer);
      else answer();
    });
    stream.on('error', () => undefined);
  });

  function handle(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: Buffer) {
    if (stream.destroyed || stream.closed) return;
    const path = String(headers[':path'] ?? '');
    const token = path.startsWith('/3/device/') ? decodeURIComponent(path.slice('/3/device/'.length)) : '';
    const apnsId = String(headers['apns-id'] ?? '');
    let payload: Record<string, unknown> = {};
    const reply = (status: number, reason?: string, extra: { timestamp?: number; retryAfter?: string } = {}) => {
      const h: http2.OutgoingHttpHeaders = { ':status': status, 'apns-id': apnsId };
      if (extra.retryAfter) h['retry-after'] = extra.retryAfter;
      requests.push({ apnsId, token, headers, payload, status, reason, answeredMs: Date.now() });
      if (stream.destroyed || stream.closed) return;
      stream.respond(h);
      stream.end(reason ? JSON.stringify({ reason, ...(extra.timestamp !== undefined ? { timestamp: extra.timestamp } : {}) }) : undefined);
      if (status === 200) delivered.set(apnsId, (delivered.get(apnsId) ?? 0) + 1);
    };
    if (headers[':method'] !== 'POST') return reply(405, 'MethodNotAllowed');
    if (!token) return reply(404, 'BadPath');
    const auth = authProblem(headers.authorization as string | undefined);
    if (auth) return reply(403, auth);
    if (!/^[0-9a-f]{64}$/.test(token)) return reply(400, 'BadDeviceToken');
    if (!headers['apns-topic']) return reply(400, 'MissingTopic');
    if (headers['apns-topic'] !== opts.topic) return reply(400, 'DeviceTokenNotForTopic');
    if (!['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity'].includes(String(headers['apns-push-type']))) return reply(400, 'InvalidPushType');
    if (!['5', '10', '1'].includes(String(headers['apns-priority'] ?? '10'))) return reply(400, 'BadPriority');
    if (headers['apns-expiration'] !== undefined && !/^\d+$/.test(String(headers['apns-expiration']))) return reply(400, 'BadExpirationDate');
    if (!UUID.test(apnsId)) return reply(400, 'BadMessageId');
    if (headers['apns-collapse-id'] !== undefined && Buffer.byteLength(String(headers['apns-collapse-id'])) > 64) return reply(400, 'BadCollapseId');
    if (body.length > 4096) return reply(413, 'PayloadTooLarge');
    try {
      payload = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return reply(400, 'PayloadEmpty');
    }
    if (typeof payload.aps !== 'object' || payload.aps === null) return reply(400, 'PayloadEmpty');
    const queued = scripts.get(token);
    const next = queued?.shift();
    if (next?.halfOpen) {
      if (!stream.destroyed && !stream.closed) stream.respond({ ':status': next.status, 'apns-id': apnsId });
      return;
    }
    if (next?.delayMs) {
      setTimeout(() => (next.status === 200 ? reply(200) : reply(next.status, next.reason, next)), next.delayMs);
      return;
    }
    if (next) return reply(next.status, next.reason, next);
    if (answerAfterMs > 0) setTimeout(() => reply(200), answerAfterMs);
    else reply(200);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://localhost:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    arrivals,
    delivered,
    /** Registers a provider key (the public half of the .p8) for its key id and team. */
    addKey(keyId: string, teamId: string, privatePem: string) {
      keys.set(keyId, { teamId, key: createPublicKey(privatePem) });
    },
    /** The next answers for a device token (then 200 again). */
    script(token: string, ...answers: Scripted[]) {
      scripts.set(token, [...(scripts.get(token) ?? []), ...answers]);
    },
    /** Refuses every provider token issued before now with 403 ExpiredProviderToken (APNs' hour, without waiting an hour). */
    expireTokens() {
      tokensBefore = now() + 1;
    },
    /** Answers every request (200 unless scripted) `ms` after it arrived; 0: at once. */
    answerAfter(ms: number) {
      answerAfterMs = ms;
    },
    /** Holds answers (requests pile up unanswered) until `release`. */
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const a of held.splice(0)) a();
    },
    pending: () => held.length,
    /** Connections open now (a killed client's are gone once the fake has seen them close). */
    openConnections: () => sessions.size,
    /** Drops every open connection at once (streams in flight are lost). */
    dropConnections() {
      for (const s of sessions) s.destroy();
    },
    /** Sends GOAWAY on every open connection. */
    goaway() {
      for (const s of sessions) s.goaway();
    },
    async close() {
      for (const s of sessions) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type ApnsFake = Awaited<ReturnType<typeof startApnsFake>>;
