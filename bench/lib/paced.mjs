/**
 * Open-loop load at a fixed rate, requests spaced evenly in time.
 *
 * autocannon's `overallRate` resets a per-second budget: every connection sends its quota at
 * the top of each second and then waits, so half the peak rate is really full speed for half
 * a second, and its latency is mostly queueing. Here request i is due at start + i/rate, and
 * its latency is measured from when it was due (not when it was sent), so a stalled server
 * cannot hide its stalls (no coordinated omission).
 *
 * The generator runs in its own worker thread (own heap): a garbage-collection pause of the
 * benchmark's main thread, which holds all the seeded data, would otherwise count as server
 * latency. It speaks HTTP/1.1 on raw keep-alive sockets with requests serialized up front, as
 * autocannon does: measured against a bare Node server at 8,000 requests/s, Node's http client
 * cost ~45 µs of CPU a request and this ~18 µs, and on a two-core machine a generator short of
 * CPU shows up as server tail latency (p99 2.9–47 ms with the http client, 1.9 ms with this).
 *
 * plan: {kind: 'static', method, path, headers, body}
 *     | {kind: 'list', method, path, headers, bodies}        each body used once, in order
 *     | {kind: 'refresh', path, headers, clientId, pool}    refresh tokens rotated through the pool
 *     | {kind: 'cycle', method, path, requests}             requests [{headers, body}] in turn, round and round
 *                                                           (one credential per request: bench/sync.mjs)
 */
import net from 'node:net';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const CONNECTIONS = 32;

export function paced({ origin, rate, duration, plan }) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: { origin, rate, duration, plan } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

function serialize(host, method, path, headers, body) {
  const payload = Buffer.from(body ?? '', 'utf8');
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(headers ?? {})) head += `${k}: ${v}\r\n`;
  if (payload.length > 0 || method !== 'GET') head += `Content-Length: ${payload.length}\r\n`;
  return Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), payload]);
}

/** Request i of the plan: its bytes, and what to do with the answer (refresh chains tokens). */
function nextFor(plan, host) {
  if (plan.kind === 'static') {
    const bytes = serialize(host, plan.method, plan.path, plan.headers, plan.body);
    return () => ({ bytes });
  }
  if (plan.kind === 'cycle') {
    const all = plan.requests.map((r) => serialize(host, plan.method, plan.path, r.headers, r.body));
    let i = 0;
    return () => ({ bytes: all[i++ % all.length] });
  }
  if (plan.kind === 'list') {
    let i = 0;
    return () => (i < plan.bodies.length ? { bytes: serialize(host, plan.method, plan.path, plan.headers, plan.bodies[i++]) } : undefined);
  }
  const pool = [...plan.pool];
  return () => {
    const token = pool.shift();
    if (!token) return undefined;
    const body = new URLSearchParams({ grant_type: 'refresh_token', client_id: plan.clientId, refresh_token: token }).toString();
    return {
      bytes: serialize(host, 'POST', plan.path, plan.headers, body),
      wantBody: true,
      onResponse: (status, text) => status === 200 && pool.push(JSON.parse(text).refresh_token),
    };
  };
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One HTTP/1.1 response at the front of `buf`: {status, body, length} once complete, else
 * undefined. Content-Length and chunked bodies; anything else is an error.
 */
function parseResponse(buf, wantBody) {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const head = buf.toString('latin1', 0, end);
  const status = Number(head.slice(9, 12));
  const bodyStart = end + 4;
  const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (cl) {
    const total = bodyStart + Number(cl[1]);
    if (buf.length < total) return undefined;
    return { status, body: wantBody ? buf.toString('utf8', bodyStart, total) : '', length: total };
  }
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    let at = bodyStart;
    const parts = [];
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
      const dataEnd = lineEnd + 2 + size;
      if (buf.length < dataEnd + 2) return undefined;
      if (size === 0) return { status, body: parts.join(''), length: dataEnd + 2 };
      if (wantBody) parts.push(buf.toString('utf8', lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }
  if (status === 204 || status === 304) return { status, body: '', length: bodyStart };
  throw new Error(`paced: a response without Content-Length or chunked encoding (${head.split('\r\n')[0]})`);
}

async function run({ origin, rate, duration, plan }) {
  const url = new URL(origin);
  const port = Number(url.port || 80);
  const next = nextFor(plan, url.host);
  const total = Math.floor(rate * duration);
  const latencies = new Float64Array(total);
  const stats = { done: 0, non2xx: 0, errors: 0, skipped: 0 };
  const waiting = []; // due requests with no free connection yet: their wait counts as latency
  const idle = [];
  const all = new Set();
  let finished = false;

  const record = (due, status) => {
    latencies[stats.done++] = performance.now() - due;
    if (status === undefined) stats.errors++;
    else if (status < 200 || status > 299) stats.non2xx++;
  };

  function open() {
    return new Promise((resolve) => {
      const conn = { socket: net.connect({ host: url.hostname, port, noDelay: true }), buf: Buffer.alloc(0), inFlight: undefined };
      all.add(conn);
      conn.socket.on('connect', () => resolve(conn));
      conn.socket.on('data', (chunk) => {
        conn.buf = conn.buf.length ? Buffer.concat([conn.buf, chunk]) : chunk;
        const f = conn.inFlight;
        if (!f) return;
        const res = parseResponse(conn.buf, !!f.r.wantBody);
        if (!res) return;
        conn.buf = conn.buf.subarray(res.length);
        conn.inFlight = undefined;
        record(f.due, res.status);
        f.r.onResponse?.(res.status, res.body);
        release(conn);
      });
      const fail = () => {
        if (conn.dead) return;
        conn.dead = true;
        if (conn.inFlight) record(conn.inFlight.due, undefined);
        conn.inFlight = undefined;
        all.delete(conn);
        const i = idle.indexOf(conn);
        if (i >= 0) idle.splice(i, 1);
        // The server closed it (or it failed): replace it while the run lasts.
        if (!finished) open().then(release);
        resolve(conn);
      };
      conn.socket.on('error', fail);
      conn.socket.on('close', fail);
    });
  }

  function send(conn, item) {
    conn.inFlight = item;
    conn.socket.write(item.r.bytes);
  }

  function release(conn) {
    if (conn.dead) return;
    const item = waiting.shift();
    if (item) send(conn, item);
    else idle.push(conn);
  }

  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, open));
  for (const c of conns) release(c);
  const start = performance.now();
  let sent = 0;

  const fire = (due) => {
    const r = next();
    if (!r) {
      stats.skipped++;
      return;
    }
    const item = { due, r };
    // Oldest idle first: every connection stays in use, so none reaches a keep-alive timeout.
    const conn = idle.shift();
    if (conn) send(conn, item);
    else waiting.push(item);
  };

  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) fire(start + (sent++ * 1000) / rate);
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  // Let the last answers arrive (at most 10 s).
  for (let i = 0; i < 1000 && stats.done + stats.skipped < total; i++) await new Promise((r) => setTimeout(r, 10));
  finished = true;
  for (const c of all) {
    c.dead = true;
    c.socket.destroy();
  }
  const got = Array.from(latencies.subarray(0, stats.done)).sort((a, b) => a - b);
  const pct = (p) => (got.length ? Math.round(got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))] * 10) / 10 : NaN);
  return { rate, total, answered: stats.done, p50: pct(50), p99: pct(99), max: pct(100), non2xx: stats.non2xx, errors: stats.errors, skipped: stats.skipped };
}

if (!isMainThread && workerData?.plan) parentPort.postMessage(await run(workerData));
