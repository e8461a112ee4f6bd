/**
 * Prometheus metrics (text exposition format 0.0.4), kept in process memory: each `engage serve`
 * process exposes its own at GET /metrics and Prometheus adds them up (per-process series, as
 * Keycloak and Hydra do). Counters and histograms only grow; a restart starts them again at zero,
 * which Prometheus' rate() handles.
 *
 * Cheap on the hot path: recording is a Map lookup and a few additions; rendering is done on
 * scrape. Label values come from the code (route patterns, job names, outcomes), never from
 * request input, so series stay bounded and carry no secret.
 */

type Labels = Readonly<Record<string, string>>;

/** Seconds; from 0.5 ms (a cached introspection) to 10 s (a slow transaction under contention). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (names: readonly string[], values: readonly string[]) =>
  names.length === 0 ? '' : `{${names.map((n, i) => `${n}="${escape(values[i])}"`).join(',')}}`;

interface Metric {
  render(out: string[]): void | Promise<void>;
}

export class Counter implements Metric {
  private readonly series = new Map<string, { values: string[]; n: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = values.join('\u0000');
    const s = this.series.get(key);
    if (s) s.n += by;
    else this.series.set(key, { values, n: by });
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const s of this.series.values()) out.push(`${this.name}${labelText(this.labelNames, s.values)} ${s.n}`);
  }
}

export class Gauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    /** Read on scrape: one value per label set (a database count may take a promise). */
    private readonly collect: () => Iterable<[Labels, number]> | Promise<Iterable<[Labels, number]>>,
  ) {}

  async render(out: string[]): Promise<void> {
    const values = await this.collect();
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`);
    for (const [labels, v] of values) out.push(`${this.name}${labelText(this.labelNames, this.labelNames.map((n) => labels[n] ?? ''))} ${v}`);
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { values: string[]; counts: number[]; sum: number; n: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
    private readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      s = { values, counts: new Array<number>(this.buckets.length).fill(0), sum: 0, n: 0 };
      this.series.set(key, s);
    }
    // Non-cumulative here; cumulated when rendered.
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]) i++;
    if (i < this.buckets.length) s.counts[i]++;
    s.sum += value;
    s.n++;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    const names = [...this.labelNames, 'le'];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i];
        out.push(`${this.name}_bucket${labelText(names, [...s.values, String(b)])} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${labelText(names, [...s.values, '+Inf'])} ${s.n}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, s.values)} ${s.sum}`);
      out.push(`${this.name}_count${labelText(this.labelNames, s.values)} ${s.n}`);
    }
  }
}

/** Every metric of a process, rendered together at /metrics. */
export class Registry {
  private readonly metrics: Metric[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }

  gauge(name: string, help: string, labelNames: readonly string[], collect: () => Iterable<[Labels, number]> | Promise<Iterable<[Labels, number]>>): Gauge {
    return this.add(new Gauge(name, help, labelNames, collect));
  }

  async render(): Promise<string> {
    const out: string[] = [];
    for (const m of this.metrics) await m.render(out);
    return out.join('\n') + '\n';
  }

  private add<M extends Metric>(m: M): M {
    this.metrics.push(m);
    return m;
  }
}

/** The metrics engage records (one set per process; `metrics` below). */
export function createMetrics() {
  const registry = new Registry();
  const started = Date.now() / 1000;
  return {
    registry,
    httpRequests: registry.counter('engage_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', ['route', 'method', 'status']),
    httpDuration: registry.histogram('engage_http_request_duration_seconds', 'Time from a request reaching the app to its answer, by route pattern and method.', ['route', 'method']),
    txDuration: registry.histogram('engage_db_transaction_duration_seconds', 'Database transactions, from BEGIN to COMMIT or ROLLBACK.', ['engine', 'outcome']),
    txWait: registry.histogram('engage_db_transaction_wait_seconds', 'Time a transaction waited for the write lock (SQLite) or a pooled connection (PostgreSQL).', ['engine']),
    txRetries: registry.counter('engage_db_transaction_retries_total', 'Transactions run again after a serialization failure or deadlock (PostgreSQL).', ['engine']),
    workItems: registry.counter('engage_work_items_total', 'Work item attempts by this process, by kind (or outbox) and outcome (done, retry, failed, lost: its lease was taken over).', ['kind', 'outcome']),
    jobRuns: registry.counter('engage_job_runs_total', 'Background job runs by this process, by job and outcome (done, retry, failed).', ['job', 'outcome']),
    ingestOperations: registry.counter('engage_ingest_operations_total', 'Operations received by the mobile edge, by result status.', ['status']),
    ingestBatches: registry.counter('engage_ingest_batches_total', 'Operation batches received by the mobile edge, by outcome (stored, replayed, conflict).', ['outcome']),
    syncResponses: registry.counter('engage_sync_responses_total', 'Sync answers (POST /v1/sdk/sync), by kind: full snapshot, delta, or unchanged (an empty delta from the head alone).', ['kind']),
    pushSends: registry.counter('engage_push_sends_total', 'Transactional sends, by outcome (admitted, replayed, nothing_to_deliver, or the error code).', ['outcome']),
    pushDeliveries: registry.counter('engage_push_delivery_attempts_total', 'Delivery attempts by this process, by provider (APNS, FCM) and outcome (sent, retry, failed, unregistered, expired).', ['provider', 'outcome']),
    process: registry.gauge('engage_process_info', 'Process facts: resident memory (bytes), heap used (bytes), start time (seconds since the epoch).', ['fact'], () => {
      const m = process.memoryUsage();
      return [
        [{ fact: 'resident_memory_bytes' }, m.rss],
        [{ fact: 'heap_used_bytes' }, m.heapUsed],
        [{ fact: 'start_time_seconds' }, started],
      ];
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
