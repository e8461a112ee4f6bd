/**
 * Operating `engage serve` in a fleet, on the built executable: /metrics, graceful shutdown with
 * requests in flight, and `--workers N` sharing one port.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadPoolSize } from '../../src/platform/thread-pool';
import { createSandbox, type Sandbox } from '../helpers/binary';

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-fleet-' });
  await sb.cli(['tenants', 'create', '--slug', 'acme']);
});
afterAll(async () => sb?.cleanup());

/** Sends raw bytes on a new connection; resolves with everything the server wrote until it closed. */
function rawExchange(port: number, first: string, rest: { after: Promise<unknown>; bytes: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => {
      socket.write(first);
      void rest.after.then(() => socket.write(rest.bytes));
    });
  });
}

describe('metrics', () => {
  it('GET /metrics counts requests by route pattern and status, in Prometheus text format', async () => {
    const server = await sb.serve();
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/t/acme/.well-known/openid-configuration`)).status).toBe(200);
      expect((await fetch(`${server.url}/t/nobody/.well-known/openid-configuration`)).status).toBe(404);
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toContain('engage_http_requests_total{route="/t/:tenantSegment/.well-known/openid-configuration",method="GET",status="200"} 3');
      // An unknown issuer is answered by the issuer guard, under its own pattern.
      expect(text).toContain('engage_http_requests_total{route="/t/:tenantSegment/.well-known/*",method="GET",status="404"} 1');
      expect(text).toMatch(/engage_http_request_duration_seconds_bucket\{route="\/t\/:tenantSegment\/\.well-known\/openid-configuration",method="GET",le="\+Inf"\} 3/);
      // The background jobs take their leases in transactions within a second or so of start.
      const engine = process.env.ENGAGE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
      const committed = new RegExp(`engage_db_transaction_duration_seconds_count\\{engine="${engine}",outcome="commit"\\} [1-9]`);
      const jobDue = /engage_job_due\{job="keys\.retire-expired"\} [01]/;
      let later = text;
      for (let i = 0; i < 100 && !(committed.test(later) && jobDue.test(later)); i++) {
        await new Promise((r) => setTimeout(r, 100));
        later = await (await fetch(`${server.url}/metrics`)).text();
      }
      expect(later).toMatch(committed);
      // The leased jobs' queue, registered once a job has taken its lease (up to 10 s on a loaded machine).
      expect(later).toMatch(jobDue);
      expect(later).toMatch(new RegExp(`engage_db_transaction_wait_seconds_count\\{engine="${engine}"\\} [1-9]`));
      // Paths (which carry ids) never become label values.
      expect(text).not.toContain('/t/acme/');
    } finally {
      await server.stop();
    }
  });
});

describe('metrics on a listener of their own (issue 21)', () => {
  /** The address `--metrics-listen 127.0.0.1:0` bound, from its log line. */
  const metricsAddress = async (output: () => string) => {
    const deadline = Date.now() + 15_000;
    let m: RegExpExecArray | null = null;
    while (!(m = /"metricsAddress":"([^"]+)"/.exec(output())) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(m).not.toBeNull();
    return `http://${m![1]}`;
  };

  it('--metrics-listen serves /metrics there and not on the main port', async () => {
    const server = await sb.serve({ args: ['--metrics-listen', '127.0.0.1:0'] });
    try {
      const metrics = await metricsAddress(server.output);
      expect((await fetch(`${server.url}/t/acme/.well-known/openid-configuration`)).status).toBe(200);
      const main = await fetch(`${server.url}/metrics`);
      expect([main.status, await main.json()]).toEqual([404, { error: 'not_found' }]);
      const res = await fetch(`${metrics}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('engage_http_requests_total{route="/t/:tenantSegment/.well-known/openid-configuration",method="GET",status="200"} 1');
      expect((await fetch(`${metrics}/healthz`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('with --workers, the primary serves every worker\'s metrics at once, by worker; ENGAGE_METRICS_TOKEN is required there', async () => {
    const token = 'metrics-token-for-the-fleet-test';
    const server = await sb.serve({ args: ['--workers', '2', '--metrics-listen', '127.0.0.1:0'], env: { ENGAGE_METRICS_TOKEN: token } });
    try {
      const metrics = await metricsAddress(server.output);
      expect((await fetch(`${metrics}/metrics`)).status).toBe(401);
      const scrape = async () => (await fetch(`${metrics}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      let text = '';
      for (let i = 0; i < 150 && !(text.includes('worker="1"') && text.includes('worker="2"')); i++) {
        await new Promise((r) => setTimeout(r, 100));
        text = await scrape();
      }
      expect(text).toMatch(/^engage_process_info\{worker="1",fact="resident_memory_bytes"\} \d+$/m);
      expect(text).toMatch(/^engage_process_info\{worker="2",fact="resident_memory_bytes"\} \d+$/m);
      expect(text.match(/^# TYPE engage_process_info gauge$/gm)).toHaveLength(1);
      // The main port serves none of it, whichever worker answers.
      for (let i = 0; i < 4; i++) expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    } finally {
      const result = await server.stop(20_000);
      expect(result).toMatchObject({ code: 0, forced: false });
    }
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM, answers the request in flight, refuses new connections, and exits 0', async () => {
    const server = await sb.serve();
    const port = Number(new URL(server.url).port);
    const body = 'grant_type=refresh_token&refresh_token=nope&client_id=nobody';
    let sendRest!: () => void;
    const later = new Promise<void>((r) => (sendRest = r));
    // Headers and half the body now; the rest after SIGTERM.
    const exchange = rawExchange(
      port,
      `POST /t/acme/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      { after: later, bytes: body.slice(10) },
    );
    await new Promise((r) => setTimeout(r, 200));
    const stopped = server.stop(15_000);
    await new Promise((r) => setTimeout(r, 300));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    sendRest();
    const answer = await exchange;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /); // unknown client: a complete answer, not a reset
    expect(answer).toContain('"error":"invalid_client"');
    const result = await stopped;
    expect(result).toMatchObject({ code: 0, forced: false });
    expect(server.output()).toContain('"msg":"stopped"');
  });

  it('closes connections still busy after --shutdown-timeout and exits 0', async () => {
    const server = await sb.serve({ args: ['--shutdown-timeout', '1'] });
    const port = Number(new URL(server.url).port);
    const never = new Promise<void>(() => {});
    const exchange = rawExchange(port, `POST /t/acme/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nabc`, { after: never, bytes: '' });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const result = await server.stop(10_000);
    expect(result).toMatchObject({ code: 0, forced: false });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await exchange).toBe(''); // closed without an answer: the client may retry elsewhere
  });
});

describe('serve --workers', () => {
  it('forks N processes on one port; all answer; a killed worker is replaced; SIGTERM stops them all', async () => {
    const server = await sb.serve({ args: ['--workers', '2'] });
    try {
      const pids = () => [...server.output().matchAll(/"msg":"engage listening[^\n]*"pid":(\d+)/g)].map((m) => Number(m[1]));
      const waitFor = async (n: number) => {
        const deadline = Date.now() + 15_000;
        while (pids().length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(pids()).toHaveLength(n);
      };
      const allAnswer = async () => {
        const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/t/acme/.well-known/openid-configuration`).then((r) => r.status)));
        expect(answers.every((s) => s === 200)).toBe(true);
      };
      await waitFor(2);
      expect(new Set(pids()).size).toBe(2);
      // The workers share the cores: each sizes its libuv pool to its part (src/platform/thread-pool.ts).
      const pools = [...server.output().matchAll(/"msg":"engage listening[^\n]*"threadPool":(\d+)/g)].map((m) => Number(m[1]));
      expect(pools).toEqual(Array(2).fill(sb.env.UV_THREADPOOL_SIZE ? Number(sb.env.UV_THREADPOOL_SIZE) : threadPoolSize(availableParallelism(), 2)));
      await allAnswer();
      process.kill(pids()[0], 'SIGKILL');
      await waitFor(3);
      expect(server.output()).toContain('worker died; starting another');
      await allAnswer();
    } finally {
      const result = await server.stop(20_000);
      expect(result).toMatchObject({ code: 0, forced: false });
    }
    expect(server.output()).toContain('"msg":"all workers stopped"');
  });

  it('works when the executable is started by a relative path', async () => {
    const child = spawn('./engage', ['serve', '--port', '0', '--workers', '2', '--data-dir', sb.dataDir], { cwd: sb.dir, env: { ...sb.env, ENGAGE_PUBLIC_URL: '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const deadline = Date.now() + 15_000;
      while ((out.match(/engage listening/g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out.match(/engage listening/g)).toHaveLength(2);
      expect(out).not.toContain('worker died');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
