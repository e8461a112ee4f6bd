/**
 * Open-loop load at a fixed rate, requests spaced evenly in time.
 *
 * autocannon's `overallRate` resets a per-second budget: every connection sends its quota at
 * the top of each second and then waits, so half the peak rate is really full speed for half
 * a second, and its latency is mostly queueing. Here request i is due at start + i/rate, and
 * its latency is measured from when it was due (not when it was sent), so a stalled server
 * cannot hide its stalls (no coordinated omission).
 */
import http from 'node:http';

/**
 * @param {object} o
 * @param {string} o.origin            e.g. http://127.0.0.1:9731
 * @param {number} o.rate              requests per second
 * @param {number} o.duration          seconds
 * @param {() => ({method: string, path: string, headers?: object, body?: string, onResponse?: (status: number, body: string) => void} | undefined)} o.next
 *        the next request, or undefined when none can be made now (counted as skipped)
 */
export async function paced({ origin, rate, duration, next }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(origin);
  const total = Math.floor(rate * duration);
  const latencies = new Float64Array(total);
  let done = 0;
  let sent = 0;
  let non2xx = 0;
  let errors = 0;
  let skipped = 0;
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
  for (let i = 0; i < 1000 && done + skipped + errors < total; i++) await new Promise((r) => setTimeout(r, 10));
  agent.destroy();
  const got = Array.from(latencies.subarray(0, done)).sort((a, b) => a - b);
  const pct = (p) => (got.length ? Math.round(got[Math.min(got.length - 1, Math.floor((p / 100) * got.length))] * 10) / 10 : NaN);
  return { rate, total, answered: done, p50: pct(50), p99: pct(99), max: pct(100), non2xx, errors, skipped };
}
