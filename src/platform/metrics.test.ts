import { describe, expect, it } from 'vitest';
import { Registry } from './metrics';

describe('metrics registry (Prometheus text format)', () => {
  it('renders counters by label set, escaping label values', async () => {
    const r = new Registry();
    const c = r.counter('t_requests_total', 'Requests.', ['route', 'status']);
    c.inc({ route: '/a', status: '200' });
    c.inc({ route: '/a', status: '200' }, 2);
    c.inc({ route: '/b "q"\\', status: '404' });
    expect(await r.render()).toBe(
      [
        '# HELP t_requests_total Requests.',
        '# TYPE t_requests_total counter',
        't_requests_total{route="/a",status="200"} 3',
        't_requests_total{route="/b \\"q\\"\\\\",status="404"} 1',
        '',
      ].join('\n'),
    );
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', async () => {
    const r = new Registry();
    const h = r.histogram('t_seconds', 'Latency.', ['route'], [0.1, 1]);
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe(v, { route: '/x' });
    expect((await r.render()).split('\n')).toEqual([
      '# HELP t_seconds Latency.',
      '# TYPE t_seconds histogram',
      't_seconds_bucket{route="/x",le="0.1"} 2',
      't_seconds_bucket{route="/x",le="1"} 3',
      't_seconds_bucket{route="/x",le="+Inf"} 4',
      't_seconds_sum{route="/x"} 3.65',
      't_seconds_count{route="/x"} 4',
      '',
    ]);
  });

  it('reads gauges when rendered, waiting for one that counts in the database', async () => {
    const r = new Registry();
    let depth = 1;
    r.gauge('t_depth', 'Depth.', ['queue'], () => [[{ queue: 'q' }, depth]]);
    r.gauge('t_due', 'Due.', ['job'], async () => [[{ job: 'purge' }, await Promise.resolve(1)]]);
    depth = 7;
    const text = await r.render();
    expect(text).toContain('t_depth{queue="q"} 7');
    expect(text).toContain('t_due{job="purge"} 1');
  });
});
