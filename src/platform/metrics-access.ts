import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Config } from './config';
import { digest, safeEqual } from './crypto';

/**
 * Who may read GET /metrics (issue 21, point 8; docs/decisions.md). Route patterns, statuses,
 * timings and job names are not secrets, but they map the deployment and its traffic for
 * anyone who reaches the port, so:
 * - `metricsListen` set: /metrics is served on that listener only (Keycloak's management
 *   port); the main port answers 404 as for any unknown route;
 * - `metricsToken` set: the token is required wherever /metrics is served
 *   (`Authorization: Bearer <token>`, as Prometheus' `authorization` setting sends it);
 * - neither: the main port serves it to a loopback peer only, and not to one that forwards a
 *   request (a reverse proxy on the same machine connects from loopback too). The default
 *   `--host 127.0.0.1` is reachable from loopback alone, so such a deployment is unchanged.
 */
export type MetricsVerdict = 'serve' | 'not_found' | 'unauthorized';

export interface MetricsRequest {
  /** The TCP peer's address; undefined when not known (no socket). */
  peer: string | undefined;
  header(name: string): string | undefined;
}

/** Headers a forwarding proxy adds (RFC 7239 and the de facto ones). */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses (a dual-stack socket's). */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

export function metricsPolicy(config: Pick<Config, 'metricsListen' | 'metricsToken'>) {
  // Compared as digests: equal lengths, so the comparison is constant-time whatever is sent.
  const expected = config.metricsToken ? digest(config.metricsToken) : undefined;
  const bearerOk = (req: MetricsRequest) => {
    const m = /^Bearer +(\S+) *$/i.exec(req.header('authorization') ?? '');
    return !!m && !!expected && safeEqual(digest(m[1]), expected);
  };
  const local = (req: MetricsRequest) => req.peer !== undefined && isLoopback(req.peer) && FORWARDING_HEADERS.every((h) => req.header(h) === undefined);
  return {
    /** On the main port. */
    main(req: MetricsRequest): MetricsVerdict {
      if (config.metricsListen) return 'not_found';
      if (expected) return bearerOk(req) ? 'serve' : 'unauthorized';
      return local(req) ? 'serve' : 'not_found';
    },
    /** On the metrics listener (`metricsListen`), which the operator bound where Prometheus reaches it. */
    listener(req: MetricsRequest): MetricsVerdict {
      return !expected || bearerOk(req) ? 'serve' : 'unauthorized';
    },
  };
}

export type MetricsPolicy = ReturnType<typeof metricsPolicy>;

/** The answer headers of a refused scrape for want of the token (RFC 6750 §3). */
export const METRICS_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="metrics"' } as const;
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The request listener of `--metrics-listen`: GET (or HEAD) /metrics and nothing else. `render`
 * gives this process's metrics, or a `--workers` primary's merge of its workers'.
 */
export function metricsListener(render: () => Promise<string>, policy: MetricsPolicy, onError: (err: unknown) => void): RequestListener {
  const answer = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': status === 200 ? METRICS_CONTENT_TYPE : 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return answer(res, 404, 'not found\n');
    const verdict = policy.listener({ peer: req.socket.remoteAddress, header: (n) => headerValue(req, n) });
    if (verdict === 'unauthorized') return answer(res, 401, 'unauthorized\n', METRICS_CHALLENGE);
    render().then(
      (text) => answer(res, 200, text),
      (err: unknown) => {
        onError(err);
        answer(res, 500, 'metrics unavailable\n');
      },
    );
  };
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
