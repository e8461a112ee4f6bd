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
 * latency.
 *
 * plan: {kind: 'static', method, path, headers, body}
 *     | {kind: 'list', method, path, headers, bodies}        each body used once, in order
 *     | {kind: 'refresh', path, headers, clientId, pool}    refresh tokens rotated through the pool
 */
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export function paced({ origin, rate, duration, plan }) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: { origin, rate, duration, plan } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

function nextFor(plan) {
  if (plan.kind === 'static') return () => plan;
  if (plan.kind === 'list') {
    let i = 0;
    return () => (i < plan.bodies.length ? { ...plan, body: plan.bodies[i++] } : undefined);
  }
  const pool = [...plan.pool];
  return () => {
    const token = pool.shift();
    if (!token) return undefined;
    return {
      method: 'POST', path: plan.path, headers: plan.headers,
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: plan.clientId, refresh_token: token }).toString(),
      onResponse: (status, body) => status === 200 && pool.push(JSON.parse(body).refresh_token),
    };
  };
}

async function run({ origin, rate, duration, plan }) {
  const next = nextFor(plan);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(origin);
  const total = Math.floor(rate * duration);
  const latencies = new Float64Array(total);
  let done = 0;
  let sent = 0;
  let non2xx = 0;
  let errors = 0;
  let skipped = 0;
  // Open the connections first (any path will do): a real client population is already
  // connected, and a burst of TCP handshakes at the start would be counted as latency.
  await Promise.all(
    Array.from({ length: 32 }, () => new Promise((resolve) => {
      const req = http.request({ agent, host: url.hostname, port: url.port, method: 'GET', path: '/' }, (res) => res.resume().on('end', resolve));
      req.on('error', resolve);
      req.end();
    })),
  );
  const start = performance.now();

  const fire = (due) => {
    const r = next();
    if (!r) {
      skipped++;
      return;
    }
    const req = http.request({ agent, host: url.hostname, port: url.port, method: r.method, path: r.path, headers: r.headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        latencies[done++] = performance.now() - due;
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        r.onResponse?.(res.statusCode, Buffer.concat(chunks).toString('utf8'));
      });
    });
    req.on('error', () => {
      errors++;
      latencies[done++] = performance.now() - due;
    });
    req.end(r.body);
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
  for (let i = 0; i < 1000 && done + skipped < total; i++) await new Promise((r) => setTimeout(r, 10));
  agent.destroy();
  const got = Array.from(latencies.subarray(0, done)).sort((a, b) => a - b);
  const pct = (p) => (got.length ? Math.round(got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))] * 10) / 10 : NaN);
  return { rate, total, answered: done, p50: pct(50), p99: pct(99), max: pct(100), non2xx, errors, skipped };
}

if (!isMainThread && workerData?.plan) parentPort.postMessage(await run(workerData));
