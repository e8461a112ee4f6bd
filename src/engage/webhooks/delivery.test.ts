import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inCidr, parseCidr, parseCidrList, parseIp } from '../../platform/cidr';
import { ConfigError, loadConfig } from '../../platform/config';
import { SVIX_SCHEDULE_MS, createWebhookSender, deliverWebhook, retryDelayMs, type WebhookOutcome, type WebhookRequest } from './delivery';
import { destinationPolicy, type Resolver } from './destinations';
import { newSigningSecret } from './signing';

/**
 * One webhook attempt against a loopback receiver (allow-listed for loopback), and the SSRF
 * refusals with no allow-list. The receiver checks every signature with the reference
 * implementation (the `standardwebhooks` package).
 */
type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let reply: Reply;
const seen: { path: string; headers: http.IncomingHttpHeaders; body: string; verified: boolean }[] = [];
const SECRET = newSigningSecret();
const OLD_SECRET = newSigningSecret();
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(SECRET).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      seen.push({ path: req.url ?? '', headers: req.headers, body, verified });
      reply(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
  reply = (_req, res) => res.writeHead(204).end();
});

const LOOPBACK = '127.0.0.0/8,::1/128';
const body = JSON.stringify({ type: 'automation.webhook', data: { runId: 'run-1', name: 'Zoë' } });
const request = (over: Partial<WebhookRequest> = {}): WebhookRequest => ({ method: 'POST', url: `${base}/hook`, body, webhookId: 'run-1.step-3', secrets: [SECRET, OLD_SECRET], ...over });
/** `allowPrivate` null: no allow-list (the default of a deployment). */
const send = (over: Partial<WebhookRequest> = {}, allowPrivate: string | null = LOOPBACK, resolver?: Resolver) => deliverWebhook(request(over), { allowPrivate: allowPrivate ?? undefined, resolver });
/** Nothing an outcome says holds a secret. */
const noSecret = (o: WebhookOutcome) => {
  for (const s of [SECRET, OLD_SECRET]) expect(JSON.stringify(o)).not.toContain(s.slice(6));
  return o;
};

describe('deliverWebhook against a loopback receiver', () => {
  it('2xx: delivered, signed (verified by the reference verifier), the step’s headers sent but never in place of webhook-* or content-type, the JSON answer handed back', async () => {
    reply = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ orderId: 42, ok: true }));
    const nowMs = Date.now();
    const o = noSecret(
      await send({ nowMs, headers: { 'X-Shop': 'north', 'webhook-id': 'forged', 'Content-Type': 'text/plain', 'webhook-signature': 'v1,forged', Host: 'elsewhere' } }),
    );
    expect(o).toEqual({ kind: 'delivered', status: 200, response: { orderId: 42, ok: true } });
    expect(seen).toHaveLength(1);
    const [got] = seen;
    expect(got.verified).toBe(true);
    expect(got.body).toBe(body);
    expect(got.headers['x-shop']).toBe('north');
    expect(got.headers['webhook-id']).toBe('run-1.step-3');
    expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(nowMs / 1000)));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.host).toBe(new URL(base).host);
    // Both secrets sign: a receiver holding only the older one verifies too.
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(OLD_SECRET).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
  });

  it('the same webhook-id on every attempt; 2xx without a JSON object, or over 64 KB, gives no response', async () => {
    reply = (_req, res) => res.writeHead(201).end('[1,2]');
    expect(await send()).toEqual({ kind: 'delivered', status: 201 });
    reply = (_req, res) => res.writeHead(200).end(JSON.stringify({ big: 'x'.repeat(70_000) }));
    expect(await send()).toEqual({ kind: 'delivered', status: 200 });
    reply = (_req, res) => res.writeHead(200).end('not json');
    expect(await send()).toEqual({ kind: 'delivered', status: 200 });
    expect(new Set(seen.map((s) => s.headers['webhook-id']))).toEqual(new Set(['run-1.step-3']));
  });

  const table: [string, Reply, Partial<WebhookOutcome>][] = [
    ['410 Gone: abort', (_q, s) => s.writeHead(410).end(), { kind: 'abort', status: 410 }],
    ['webhook-delivery: abort-message: abort', (_q, s) => s.writeHead(500, { 'webhook-delivery': 'abort-message' }).end(), { kind: 'abort', status: 500 }],
    ['500: retry', (_q, s) => s.writeHead(500).end(), { kind: 'retry', status: 500, error: 'HTTP 500' }],
    ['404: retry', (_q, s) => s.writeHead(404).end(), { kind: 'retry', status: 404 }],
    ['429 with Retry-After: retry then', (_q, s) => s.writeHead(429, { 'retry-after': '120' }).end(), { kind: 'retry', status: 429, retryAfterMs: 120_000 }],
    ['502 with Retry-After: retry then', (_q, s) => s.writeHead(502, { 'retry-after': '7' }).end(), { kind: 'retry', status: 502, retryAfterMs: 7_000 }],
    ['503 with Retry-After: retry, its Retry-After not one of the throttling answers', (_q, s) => s.writeHead(503, { 'retry-after': '7' }).end(), { kind: 'retry', status: 503 }],
  ];
  for (const [name, r, expected] of table) {
    it(name, async () => {
      reply = r;
      const o = noSecret(await send());
      expect(o).toMatchObject(expected);
      if (!('retryAfterMs' in expected)) expect(o).not.toHaveProperty('retryAfterMs');
    });
  }

  it('a 302 is a failure and is not followed', async () => {
    reply = (req, res) => (req.url === '/hook' ? res.writeHead(302, { location: `${base}/target` }).end() : res.writeHead(200).end('{}'));
    expect(noSecret(await send())).toMatchObject({ kind: 'retry', status: 302 });
    expect(seen.map((s) => s.path)).toEqual(['/hook']);
  });

  it('a receiver slower than the timeout: retry; a closed port: retry', async () => {
    reply = (_req, res) => setTimeout(() => res.writeHead(200).end(), 2_000);
    const started = Date.now();
    expect(noSecret(await send({ timeoutMs: 200 }))).toEqual({ kind: 'retry', error: 'timed out after 200 ms' });
    expect(Date.now() - started).toBeLessThan(1_500);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(noSecret(await send({ url: `http://127.0.0.1:${port}/` }))).toMatchObject({ kind: 'retry', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('refuses what cannot be sent: another scheme, credentials in the URL, an unknown method, a bad header', async () => {
    for (const [over, error] of [
      [{ url: 'ftp://example.com/x' }, 'only http and https'],
      [{ url: 'file:///etc/passwd' }, 'only http and https'],
      [{ url: 'not a url' }, 'not a valid absolute URL'],
      [{ url: `http://user:pw@127.0.0.1:1/` }, 'credentials'],
      [{ method: 'CONNECT' }, 'method CONNECT'],
      [{ headers: { 'bad header': 'x' } }, 'header name'],
      [{ headers: { 'x-evil': 'a\r\nwebhook-id: forged' } }, 'character'],
    ] as [Partial<WebhookRequest>, string][]) {
      expect(noSecret(await send(over)), JSON.stringify(over)).toMatchObject({ kind: 'abort', error: expect.stringContaining(error) });
    }
    expect(seen).toHaveLength(0);
  });

  it('one sender keeps its connections; close() ends them', async () => {
    const sender = createWebhookSender({ allowPrivate: LOOPBACK });
    for (let i = 0; i < 3; i++) expect((await sender.deliver(request())).kind).toBe('delivered');
    expect(new Set(seen.map((s) => s.headers.connection))).toEqual(new Set(['keep-alive']));
    sender.close();
  });
});

describe('SSRF: destinations refused unless allow-listed', () => {
  const stub = (addresses: string[]): Resolver & { calls: string[] } => {
    const calls: string[] = [];
    return Object.assign(async (host: string) => {
      calls.push(host);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    }, { calls });
  };

  it('with no allow-list: 127.0.0.1, ::1, localhost, 169.254.169.254, IPv4-mapped IPv6 and a name resolving to 10.x are refused (abort), and nothing reaches the receiver', async () => {
    const port = new URL(base).port;
    for (const url of [`http://127.0.0.1:${port}/hook`, `http://[::1]:${port}/`, `http://localhost:${port}/hook`, 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, 'http://0.0.0.0:1/', `http://2130706433:${port}/`]) {
      const o = noSecret(await send({ url }, null));
      expect(o, url).toMatchObject({ kind: 'abort', error: expect.stringContaining('destination refused') });
    }
    const resolver = stub(['10.1.2.3']);
    expect(await send({ url: 'http://internal.example/hook' }, null, resolver)).toMatchObject({ kind: 'abort', error: expect.stringContaining('internal.example resolves to 10.1.2.3') });
    expect(resolver.calls).toEqual(['internal.example']);
    // The https agent's sockets go through the same check.
    expect(await send({ url: 'https://internal.example/hook' }, null, stub(['fd00:ec2::254']))).toMatchObject({ kind: 'abort', error: expect.stringContaining('resolves to fd00:ec2::254') });
    expect(seen).toHaveLength(0);
  });

  it('the check is on the address the socket connects to: a name resolving to the receiver is delivered only when loopback is allow-listed; an allow-list of other ranges does not open loopback', async () => {
    const resolver = stub(['127.0.0.1']);
    const url = `http://receiver.example:${new URL(base).port}/hook`;
    expect(await send({ url }, null, resolver)).toMatchObject({ kind: 'abort' });
    expect(await send({ url }, '10.0.0.0/8,fd00::/8', resolver)).toMatchObject({ kind: 'abort' });
    expect(seen).toHaveLength(0);
    expect(await send({ url }, '127.0.0.1', resolver)).toMatchObject({ kind: 'delivered', status: 204 });
    expect(await send({ url }, '*', resolver)).toMatchObject({ kind: 'delivered', status: 204 });
    // A name with a public and a private address: only the allowed one is handed to the socket.
    const mixed = stub(['10.9.9.9', '127.0.0.1']);
    expect(await send({ url }, '127.0.0.0/8', mixed)).toMatchObject({ kind: 'delivered' });
    expect(seen).toHaveLength(3);
  });

  it('the policy: refused and allowed addresses, IPv4 and IPv6 (mapped, NAT64, 6to4 judged by the IPv4 address they carry)', () => {
    const p = destinationPolicy();
    const refused = ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200', '0.0.0.0', '255.255.255.255', '224.0.0.1',
      '::', '::1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', 'fd00:ec2::254', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '64:ff9b::a00:1', '2002:a00:1::', '2001:db8::1', 'not-an-address'];
    const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450::1', '64:ff9b::808:808', '::ffff:8.8.8.8'];
    for (const a of refused) expect(p.allows(a), a).toBe(false);
    for (const a of allowed) expect(p.allows(a), a).toBe(true);
    expect(destinationPolicy('*').allows('169.254.169.254')).toBe(true);
    expect(destinationPolicy('10.0.0.0/8').allows('10.200.0.1')).toBe(true);
    expect(destinationPolicy('10.0.0.0/8').allows('::ffff:10.200.0.1')).toBe(true);
    expect(destinationPolicy('10.0.0.0/8').allows('192.168.0.1')).toBe(false);
    expect(destinationPolicy('fd00::/8').allows('fd12::1')).toBe(true);
  });
});

describe('retries and the allow-list setting', () => {
  it('retryDelayMs follows the Svix schedule, honours Retry-After (up to 10 h), and ends after eight attempts', () => {
    expect(SVIX_SCHEDULE_MS).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n))).toEqual([...SVIX_SCHEDULE_MS, undefined]);
    expect(retryDelayMs(1, 60_000)).toBe(60_000);
    expect(retryDelayMs(3, 1_000)).toBe(1_800_000);
    expect(retryDelayMs(1, 7 * 86_400_000)).toBe(36_000_000);
    expect(retryDelayMs(8, 1_000)).toBeUndefined();
  });

  it('ENGAGE_WEBHOOK_ALLOW_PRIVATE: CIDR ranges or *; anything else stops the start naming the setting', () => {
    expect(loadConfig({ env: { ENGAGE_WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/8, fd00::/8,127.0.0.1' } }).webhookAllowPrivate).toBe('10.0.0.0/8, fd00::/8,127.0.0.1');
    expect(loadConfig({ env: { ENGAGE_WEBHOOK_ALLOW_PRIVATE: '*' } }).webhookAllowPrivate).toBe('*');
    expect(loadConfig({ env: {} }).webhookAllowPrivate).toBeUndefined();
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0/8', ',', '::1/129', '1.2.3.4/8/1']) {
      expect(() => loadConfig({ env: { ENGAGE_WEBHOOK_ALLOW_PRIVATE: bad } }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ env: { ENGAGE_WEBHOOK_ALLOW_PRIVATE: bad } }), bad).toThrow(/webhookAllowPrivate \(ENGAGE_WEBHOOK_ALLOW_PRIVATE\)/);
    }
    expect(parseCidrList('*')).toBe('*');
    expect(inCidr(parseIp('10.1.2.3')!, parseCidr('10.0.0.0/8')!)).toBe(true);
    expect(inCidr(parseIp('11.1.2.3')!, parseCidr('10.0.0.0/8')!)).toBe(false);
  });
});
