import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';

/**
 * GET /metrics on the main port (issue 21, point 8): no longer open to anyone who reaches it.
 * The peer is the TCP socket's address, as @hono/node-server hands it to the app.
 */
let h: Harness;
afterEach(() => h?.close());

const TOKEN = 'a-metrics-token-of-some-length';
const scrape = (peer: string, headers: Record<string, string> = {}) =>
  h.app.request(`${PUBLIC_URL}/metrics`, { headers }, { incoming: { socket: { remoteAddress: peer } } });

describe('GET /metrics on the main port', () => {
  it('by default only a loopback peer, not proxied, is answered; anyone else gets 404', async () => {
    h = await createHarness();
    const outside = await scrape('203.0.113.7');
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({ error: 'not_found' });
    expect((await scrape('::ffff:198.51.100.2')).status).toBe(404);
    for (const local of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const res = await scrape(local);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE engage_http_requests_total counter');
    }
    // A reverse proxy on the same machine connects from loopback: its requests are not local.
    expect((await scrape('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(404);
    expect((await scrape('127.0.0.1', { forwarded: 'for=203.0.113.7' })).status).toBe(404);
    // Without a socket (no peer known) nothing is served.
    expect((await h.app.request(`${PUBLIC_URL}/metrics`)).status).toBe(404);
  });

  it('with ENGAGE_METRICS_TOKEN, the bearer token is required from every peer, loopback too', async () => {
    h = await createHarness({ metricsToken: TOKEN });
    for (const peer of ['203.0.113.7', '127.0.0.1']) {
      const none = await scrape(peer);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await none.json()).toEqual({ error: 'invalid_token' });
      expect((await scrape(peer, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
      expect((await scrape(peer, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` })).status).toBe(401);
      const ok = await scrape(peer, { authorization: `Bearer ${TOKEN}` });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    }
  });

  it('with --metrics-listen, the main port does not serve /metrics at all', async () => {
    h = await createHarness({ metricsListen: '127.0.0.1:9464' });
    expect((await scrape('127.0.0.1')).status).toBe(404);
    await h.close();
    h = await createHarness({ metricsListen: '127.0.0.1:9464', metricsToken: TOKEN });
    expect((await scrape('127.0.0.1', { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });
});
