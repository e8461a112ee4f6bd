import { randomUUID } from 'node:crypto';

/**
 * `serve --workers N` with `--metrics-listen` (issue 21): the primary holds the metrics listener
 * and, on each scrape, asks every worker for its metrics over the cluster's IPC channel, then
 * answers them together, each series labelled with its worker (`worker="<cluster worker id>"`).
 * One target for Prometheus, every process in it; a replaced worker is a new series (its
 * counters start again at zero, which rate() handles), as prom-client's cluster registry does
 * without the label. Process-wide gauges read from the database (`engage_job_due`) come once
 * per worker, equal: aggregate them with max, not sum.
 */
const REQUEST = 'engage:metrics';
const REPLY = 'engage:metrics-reply';

interface Channel {
  on(event: 'message', listener: (m: unknown) => void): unknown;
  send?(message: unknown): unknown;
}

/** A worker's side: answers each request of its primary with this process's metrics. */
export function answerMetricsRequests(render: () => Promise<string>, channel: Channel = process): void {
  channel.on('message', (m) => {
    if (!m || typeof m !== 'object' || (m as { type?: unknown }).type !== REQUEST) return;
    const id = (m as { id?: unknown }).id;
    const reply = (text: string | null) => channel.send?.({ type: REPLY, id, text });
    render().then(reply, () => reply(null));
  });
}

/** What the primary needs of a cluster worker. */
export interface MetricsWorker {
  id: number;
  send(message: unknown): unknown;
  on(event: 'message', listener: (m: unknown) => void): unknown;
  off(event: 'message', listener: (m: unknown) => void): unknown;
}

/** The primary's side: every worker's metrics; one that does not answer within `timeoutMs` is left out. */
export async function collectWorkerMetrics(workers: MetricsWorker[], timeoutMs = 5_000): Promise<{ worker: string; text: string }[]> {
  const parts = await Promise.all(workers.map((w) => ask(w, timeoutMs)));
  return parts.filter((p): p is { worker: string; text: string } => p !== undefined);
}

function ask(w: MetricsWorker, timeoutMs: number): Promise<{ worker: string; text: string } | undefined> {
  return new Promise((resolve) => {
    const id = randomUUID();
    const done = (text: string | null | undefined) => {
      clearTimeout(timer);
      w.off('message', onMessage);
      resolve(typeof text === 'string' ? { worker: String(w.id), text } : undefined);
    };
    const onMessage = (m: unknown) => {
      const r = m as { type?: unknown; id?: unknown; text?: unknown } | null;
      if (r && r.type === REPLY && r.id === id) done(typeof r.text === 'string' ? r.text : null);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    w.on('message', onMessage);
    try {
      w.send({ type: REQUEST, id });
    } catch {
      done(undefined); // the worker is exiting
    }
  });
}

/**
 * Several processes' Prometheus texts as one: each family once (its first HELP and TYPE), with
 * the samples of every process after it, labelled `worker`.
 */
export function mergeWorkerMetrics(parts: { worker: string; text: string }[]): string {
  const families = new Map<string, { head: string[]; samples: string[] }>();
  for (const part of parts) {
    let current: { head: string[]; samples: string[] } | undefined;
    for (const line of part.text.split('\n')) {
      if (line === '') continue;
      const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (comment) {
        let f = families.get(comment[2]);
        if (!f) families.set(comment[2], (f = { head: [], samples: [] }));
        if (!f.head.some((h) => h.startsWith(`# ${comment[1]} `))) f.head.push(line);
        current = f;
      } else if (current && !line.startsWith('#')) {
        current.samples.push(withLabel(line, 'worker', part.worker));
      }
    }
  }
  const out: string[] = [];
  for (const f of families.values()) out.push(...f.head, ...f.samples);
  return out.join('\n') + '\n';
}

/** `name{a="1"} 2` → `name{worker="3",a="1"} 2`; `name 2` → `name{worker="3"} 2`. */
function withLabel(sample: string, name: string, value: string): string {
  const label = `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const end = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(sample)?.[0].length ?? 0;
  if (sample[end] === '{') return `${sample.slice(0, end + 1)}${label}${sample[end + 1] === '}' ? '' : ','}${sample.slice(end + 1)}`;
  return `${sample.slice(0, end)}{${label}}${sample.slice(end)}`;
}
