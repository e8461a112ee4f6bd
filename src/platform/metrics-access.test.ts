import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig } from './config';
import { isLoopback, metricsListener, metricsPolicy } from './metrics-access';
import { answerMetricsRequests, collectWorkerMetrics, mergeWorkerMetrics, type MetricsWorker } from './metrics-cluster';

/** `--metrics-listen`, ENGAGE_METRICS_TOKEN and the `--workers` merge (issue 21, point 8); the main port: http/metrics-route.test.ts. */
const TOKEN = 'a-metrics-token-of-some-length';
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listener(config: { metricsListen?: string; metricsToken?: string }, render = async () => '# HELP x X.\n# TYPE x counter\nx 1\n') {
  server = createServer(metricsListener(render, metricsPolicy(config), () => {}));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('--metrics-listen: the listener', () => {
  it('serves GET and HEAD /metrics to whoever reaches it, and nothing else', async () => {
    const base = await listener({ metricsListen: '127.0.0.1:0' });
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('# HELP x X.\n# TYPE x counter\nx 1\n');
    expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
    for (const p of ['/', '/healthz', '/t/acme/.well-known/openid-configuration', '/metrics/']) expect((await fetch(base + p)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('with a token, requires it there too', async () => {
    const base = await listener({ metricsListen: '127.0.0.1:0', metricsToken: TOKEN });
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('a failure to render is a 500 with no detail', async () => {
    const base = await listener({ metricsListen: '127.0.0.1:0' }, async () => {
      throw new Error('database gone: postgres://user:secret@db');
    });
    const res = await fetch(`${base}/metrics`);
    expect([res.status, await res.text()]).toEqual([500, 'metrics unavailable\n']);
  });
});

describe('loopback peers', () => {
  it.each([
    ['127.0.0.1', true], ['127.8.9.10', true], ['::1', true], ['::ffff:127.0.0.1', true], ['::FFFF:127.0.0.1', true],
    ['10.0.0.1', false], ['::ffff:10.0.0.1', false], ['fe80::1', false], ['0.0.0.0', false], ['128.0.0.1', false], ['unknown', false],
  ])('%s: %s', (address, loopback) => expect(isLoopback(address)).toBe(loopback));
});

describe('configuration', () => {
  it('takes --metrics-listen host:port or [v6]:port and a token of 16+ characters, never shown', () => {
    const cfg = loadConfig({ env: { ENGAGE_METRICS_LISTEN: '[::1]:9464', ENGAGE_METRICS_TOKEN: TOKEN } });
    expect(cfg).toMatchObject({ metricsListen: '[::1]:9464', metricsToken: TOKEN });
    expect(loadConfig({ flags: { metricsListen: '127.0.0.1:9464' } }).metricsListen).toBe('127.0.0.1:9464');
    expect(redactedConfig(cfg).metricsToken).toBe('[redacted]');
    expect(JSON.stringify(redactedConfig(cfg))).not.toContain(TOKEN);
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:70000', 'http://127.0.0.1:9464', '::1:9464', ' 127.0.0.1:9464']) {
      expect(() => loadConfig({ env: { ENGAGE_METRICS_LISTEN: bad } })).toThrow(/metricsListen \(ENGAGE_METRICS_LISTEN\)/);
    }
    for (const bad of ['short', 'sixteen chars ok?', 'x'.repeat(513)]) {
      let err: unknown;
      try {
        loadConfig({ env: { ENGAGE_METRICS_TOKEN: bad } });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/metricsToken \(ENGAGE_METRICS_TOKEN\)/);
      expect((err as Error).message).not.toContain(bad);
    }
  });
});

/** A cluster worker and its process, joined by an in-memory IPC channel. */
function fakeWorker(id: number, render: () => Promise<string>, answers = true): MetricsWorker {
  const toWorker = new EventEmitter();
  const toPrimary = new EventEmitter();
  if (answers) answerMetricsRequests(render, { on: (e, l) => toWorker.on(e, l), send: (m) => setImmediate(() => toPrimary.emit('message', m)) });
  return {
    id,
    send: (m) => setImmediate(() => toWorker.emit('message', m)),
    on: (e, l) => toPrimary.on(e, l),
    off: (e, l) => toPrimary.off(e, l),
  };
}

describe('--workers: the primary serves every worker at once', () => {
  const text = (n: number) =>
    [
      '# HELP engage_http_requests_total Requests.',
      '# TYPE engage_http_requests_total counter',
      `engage_http_requests_total{route="/a b",status="200"} ${n}`,
      '# HELP engage_uptime Up.',
      '# TYPE engage_uptime gauge',
      `engage_uptime ${n * 10}`,
      '',
    ].join('\n');

  it('asks each worker over IPC and labels each series with its worker; a silent worker is left out', async () => {
    const workers = [fakeWorker(1, async () => text(3)), fakeWorker(4, async () => text(5)), fakeWorker(7, async () => text(9), false)];
    const parts = await collectWorkerMetrics(workers, 200);
    expect(parts.map((p) => p.worker)).toEqual(['1', '4']);
    expect(mergeWorkerMetrics(parts)).toBe(
      [
        '# HELP engage_http_requests_total Requests.',
        '# TYPE engage_http_requests_total counter',
        'engage_http_requests_total{worker="1",route="/a b",status="200"} 3',
        'engage_http_requests_total{worker="4",route="/a b",status="200"} 5',
        '# HELP engage_uptime Up.',
        '# TYPE engage_uptime gauge',
        'engage_uptime{worker="1"} 30',
        'engage_uptime{worker="4"} 50',
        '',
      ].join('\n'),
    );
  });

  it('a worker whose rendering fails is left out', async () => {
    const parts = await collectWorkerMetrics([fakeWorker(2, () => Promise.reject(new Error('x'))), fakeWorker(3, async () => text(1))], 1_000);
    expect(parts.map((p) => p.worker)).toEqual(['3']);
  });
});
