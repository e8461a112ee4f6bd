/**
 * One attempt at delivering a webhook (issue 28's webhook step), as Standard Webhooks 1.0 and Svix
 * do it (the notes' section 6): signed (signing.ts), with the step's headers but never in place of
 * `webhook-*` or `content-type`; 2xx is delivered (the response's JSON object, up to 64 KB, handed
 * back for the step's output mapping); 410 or a `webhook-delivery: abort-message` header stops the
 * retries; 429, 502 and 504 are throttling and their Retry-After is honoured; a 3xx is a failure
 * and is not followed (the redirect's target was never checked); any other status, a timeout or a
 * network error is retried on the Svix schedule. The destination is checked on the address the
 * socket connects to (destinations.ts). The caller (the automations' step) records the outcome and
 * schedules the next attempt with `retryDelayMs`; `webhook-id` stays the same across attempts.
 */
import type http from 'node:http';
import type https from 'node:https';
import { isIP } from 'node:net';
import { retryAfterMs as readRetryAfter } from '../../platform/work/retry';
import { DestinationRefused, destinationPolicy, guardedLookup, systemResolver, type DestinationPolicy, type Resolver } from './destinations';
import { webhookHeaders } from './signing';

/** Svix's retry schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts over about 27 h 35 min). */
export const SVIX_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const DEFAULT_TIMEOUT_MS = 15_000;
/** A response body larger than this is not read (the step's output mapping then has nothing). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** A Retry-After is honoured up to the schedule's longest wait. */
const MAX_RETRY_AFTER_MS = 36_000_000;

/**
 * The wait before the next attempt once `attemptsMade` attempts were made (0: the first attempt,
 * at once), never sooner than the receiver's Retry-After (capped at 10 h); undefined once the
 * schedule is exhausted (the step then fails).
 */
export function retryDelayMs(attemptsMade: number, retryAfterMs?: number): number | undefined {
  const scheduled = SVIX_SCHEDULE_MS[Math.max(0, Math.floor(attemptsMade))];
  if (scheduled === undefined) return undefined;
  return retryAfterMs === undefined ? scheduled : Math.max(scheduled, Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS));
}

export interface WebhookRequest {
  method: string;
  url: string;
  /** The step's own headers: sent, except webhook-*, content-type and the framing ones, which are ours. */
  headers?: Readonly<Record<string, string>>;
  /** The JSON body, as the exact text that is signed and sent. */
  body: string;
  /** Stable across the attempts of one message (run id + step id): receivers deduplicate on it. */
  webhookId: string;
  /** The live signing secrets, newest first (secrets.ts `signingSecrets`). */
  secrets: readonly string[];
  timeoutMs?: number;
  /** This attempt's time (webhook-timestamp); default the system clock. */
  nowMs?: number;
}

export type WebhookOutcome =
  | { kind: 'delivered'; status: number; response?: Record<string, unknown> }
  | { kind: 'retry'; status?: number; retryAfterMs?: number; error: string }
  | { kind: 'abort'; status?: number; error: string };

/** Headers the step may not set: ours (signature, content type) and the ones that frame the request. */
const RESERVED = /^(webhook-.*|content-type|content-length|transfer-encoding|connection|host|keep-alive|upgrade|te|trailer|expect)$/i;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export const USER_AGENT = 'engage-webhooks/1';

export interface WebhookSenderOptions {
  /** CIDR ranges (or `*`) of private destinations allowed (config `webhookAllowPrivate`). */
  allowPrivate?: string;
  /** Name resolution (tests stub it); default dns.lookup. */
  resolver?: Resolver;
}

/** Sends webhooks through keep-alive agents whose sockets connect only to allowed addresses. */
export function createWebhookSender(opts: WebhookSenderOptions = {}) {
  const policy = destinationPolicy(opts.allowPrivate);
  const lookup = guardedLookup(policy, opts.resolver ?? systemResolver);
  // node:http and node:https load at the first webhook, not at every start of the executable (a CLI command never needs them).
  let transports: Transports | undefined;
  const transport = (): Transports => {
    if (transports) return transports;
    const [h, s] = [process.getBuiltinModule('node:http') as typeof http, process.getBuiltinModule('node:https') as typeof https];
    return (transports = {
      'http:': { module: h, agent: new h.Agent({ keepAlive: true, maxSockets: 256, lookup }) },
      'https:': { module: s, agent: new s.Agent({ keepAlive: true, maxSockets: 256, lookup }) },
    });
  };
  return {
    deliver: (request: WebhookRequest) => deliverWith(request, policy, transport()),
    close(): void {
      transports?.['http:'].agent.destroy();
      transports?.['https:'].agent.destroy();
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;

/** One attempt with a sender made for it (its agents closed after): tests and one-off calls. */
export async function deliverWebhook(request: WebhookRequest, opts: WebhookSenderOptions = {}): Promise<WebhookOutcome> {
  const sender = createWebhookSender(opts);
  try {
    return await sender.deliver(request);
  } finally {
    sender.close();
  }
}

/** The request's headers, or the reason it cannot be sent (an abort: retrying changes nothing). */
function headersOf(r: WebhookRequest, nowMs: number): Record<string, string> | string {
  const out: Record<string, string> = { 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    if (!TOKEN.test(name)) return `header name ${JSON.stringify(name)} is not a valid HTTP token`;
    if (typeof value !== 'string' || /[\r\n\0]/.test(value) || /[^\t\x20-\x7e\x80-\xff]/.test(value)) return `header ${name}: the value holds a character HTTP does not allow`;
    if (RESERVED.test(name)) continue;
    out[name.toLowerCase()] = value;
  }
  return { ...out, 'content-type': 'application/json', ...webhookHeaders(r.secrets, r.webhookId, Math.floor(nowMs / 1000), r.body) };
}

/** Each scheme's module and keep-alive agent. */
type Transports = Record<'http:' | 'https:', { module: typeof http | typeof https; agent: http.Agent }>;

async function deliverWith(r: WebhookRequest, policy: DestinationPolicy, transports: Transports): Promise<WebhookOutcome> {
  let url: URL;
  try {
    url = new URL(r.url);
  } catch {
    return { kind: 'abort', error: 'the URL is not a valid absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'abort', error: `only http and https URLs are delivered, not ${url.protocol.slice(0, -1)}` };
  if (url.username || url.password) return { kind: 'abort', error: 'the URL may not hold credentials (send them as a header)' };
  const method = r.method.toUpperCase();
  if (!METHODS.has(method)) return { kind: 'abort', error: `method ${r.method} is not one of ${[...METHODS].join(', ')}` };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // A literal address is connected to without a lookup: checked here.
  if (isIP(host) && !policy.allows(host)) return { kind: 'abort', error: new DestinationRefused(host, []).message };
  const nowMs = r.nowMs ?? Date.now();
  let headers: Record<string, string> | string;
  try {
    headers = headersOf(r, nowMs);
  } catch (e) {
    return { kind: 'abort', error: (e as Error).message };
  }
  if (typeof headers === 'string') return { kind: 'abort', error: headers };
  const timeoutMs = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body = Buffer.from(r.body, 'utf8');
  const transport = transports[url.protocol as 'http:' | 'https:'];

  return new Promise<WebhookOutcome>((resolve) => {
    let settled = false;
    const done = (o: WebhookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = transport.module.request(
      url,
      { method, headers: { ...headers, 'content-length': String(body.length) }, agent: transport.agent },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          readJson(res).then((response) => done({ kind: 'delivered', status, ...(response ? { response } : {}) }));
          return;
        }
        res.destroy();
        const abortHeader = String(res.headers['webhook-delivery'] ?? '').toLowerCase() === 'abort-message';
        if (status === 410 || abortHeader) return done({ kind: 'abort', status, error: abortHeader ? `HTTP ${status}: the receiver asked to stop (webhook-delivery: abort-message)` : 'HTTP 410 Gone: the receiver asked to stop' });
        if (status === 429 || status === 502 || status === 504) {
          const after = readRetryAfter(res.headers['retry-after'], Date.now());
          return done({ kind: 'retry', status, ...(after === undefined ? {} : { retryAfterMs: after }), error: `HTTP ${status}` });
        }
        if (status >= 300 && status < 400) return done({ kind: 'retry', status, error: `HTTP ${status}: a redirect, not followed` });
        done({ kind: 'retry', status, error: `HTTP ${status}` });
      },
    );
    const timer = setTimeout(() => {
      done({ kind: 'retry', error: `timed out after ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e instanceof DestinationRefused) return done({ kind: 'abort', error: e.message });
      done({ kind: 'retry', error: `${e.code ? `${e.code}: ` : ''}${e.message}` });
    });
    req.end(body);
  });
}

/** The 2xx body as a JSON object when it is one of at most 64 KB; anything else: undefined. */
function readJson(res: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_RESPONSE_BYTES) {
        res.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    res.on('error', () => resolve(undefined));
    res.on('close', () => resolve(undefined));
    res.on('end', () => {
      try {
        const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve(v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}
