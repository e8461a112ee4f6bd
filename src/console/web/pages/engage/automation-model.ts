/**
 * What the automation pages know without a browser (issue 28 "Inspection"): the graph laid out by
 * depth from the start, each step in a few words, a step's executions counted as entered /
 * succeeded / failed / waiting, and a refusal's violations; the wire shapes are automation-types.ts
 * (re-exported). src/console/automation-model.test.ts checks them against the server.
 */

import type { Definition, Step } from './automation-types';

export * from './automation-types';

/** A step's way out, with the words of its branch (condition yes/no, an event wait's event/timeout, a push, in-app or webhook step's on failure). */
export interface Branch {
  to: string;
  label?: string;
}

export function branchesOf(s: Step): Branch[] {
  const out: Branch[] = [];
  const add = (to: string | undefined, label?: string) => {
    if (to !== undefined) out.push(label ? { to, label } : { to });
  };
  if (s.type === 'condition') {
    add(s.then, 'yes');
    add(s.else, 'no');
  } else if (s.type === 'wait' && s.event) {
    add(s.next, 'event');
    add(s.timeoutNext, 'timeout');
  } else if (s.type !== 'exit') {
    add(s.next);
    add(s.onFailure, 'on failure');
  }
  return out;
}

export interface GraphNode {
  id: string;
  step: Step;
  /** Its depth: the longest way from the start (0) to it, so every arrow points down. */
  layer: number;
  /** Its place in its layer, from the left. */
  index: number;
  /** Not reachable from the start (a draft's loose step): drawn in a last layer of its own. */
  reachable: boolean;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  label?: string;
  /** Goes back up (a draft's cycle) or to a step that does not exist. */
  back?: boolean;
  missing?: boolean;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  layers: string[][];
  width: number;
  height: number;
}

/** Box sizes and gaps (SVG user units); the side margin leaves room for arrows routed around a layer. */
export const BOX = { width: 208, height: 112, gapX: 32, gapY: 56, margin: 12, side: 32 };

/**
 * The steps in layers by depth from the start: a step's layer is the longest way to it, so a step
 * after a branch that joins again sits below both branches. A draft may hold a cycle (its arrow is
 * drawn back up, not followed) or loose steps (a last layer). In a layer, steps keep the order of
 * their parents' places (a condition's yes to the left of its no).
 */
export function layerSteps(d: Pick<Definition, 'start' | 'steps'>): { layers: string[][]; unreachable: Set<string> } {
  const ids = Object.keys(d.steps);
  const exists = (id: string) => Object.hasOwn(d.steps, id);
  // Depth-first from the start: the order in which each step is finished, reversed, is a topological order; edges into a step on the path are a cycle's.
  const state = new Map<string, 1 | 2>();
  const finished: string[] = [];
  const visit = (id: string) => {
    state.set(id, 1);
    for (const b of branchesOf(d.steps[id])) if (exists(b.to) && !state.has(b.to)) visit(b.to);
    state.set(id, 2);
    finished.push(id);
  };
  if (exists(d.start)) visit(d.start);
  const order = finished.reverse();
  const place = new Map(order.map((id, i) => [id, i]));
  const depth = new Map<string, number>(order.length ? [[order[0], 0]] : []);
  for (const id of order) {
    const here = depth.get(id) ?? 0;
    for (const b of branchesOf(d.steps[id])) {
      // Only forward edges of the topological order count (a cycle's edge goes back).
      if (place.has(b.to) && place.get(b.to)! > place.get(id)!) depth.set(b.to, Math.max(depth.get(b.to) ?? 0, here + 1));
    }
  }
  const layers: string[][] = [];
  for (const id of order) (layers[depth.get(id)!] ??= []).push(id);
  // Within a layer: by the mean place of the parents in the layers above (ties: the order found).
  const index = new Map<string, number>();
  layers.forEach((layer, li) => {
    if (li > 0) {
      // A parent's place, nudged by the branch's place among its branches (yes before no).
      const mean = (id: string) => {
        const ps: number[] = [];
        for (const p of order) {
          if ((depth.get(p) ?? 0) >= li) continue;
          const bs = branchesOf(d.steps[p]);
          const at = bs.findIndex((b) => b.to === id);
          if (at >= 0) ps.push((index.get(p) ?? 0) + (at + 1) / (bs.length + 1));
        }
        return ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : 0;
      };
      const found = new Map(layer.map((id, i) => [id, i]));
      layer.sort((a, b) => mean(a) - mean(b) || found.get(a)! - found.get(b)!);
    }
    layer.forEach((id, i) => index.set(id, i));
  });
  const unreachable = new Set(ids.filter((id) => !place.has(id)));
  if (unreachable.size > 0) layers.push([...unreachable]);
  return { layers, unreachable };
}

/** Boxes and arrows with coordinates (SVG user units): each layer a row, centred. */
export function layoutGraph(d: Pick<Definition, 'start' | 'steps'>): GraphLayout {
  const { layers, unreachable } = layerSteps(d);
  const widest = Math.max(1, ...layers.map((l) => l.length));
  const width = BOX.side * 2 + widest * BOX.width + (widest - 1) * BOX.gapX;
  const height = BOX.margin * 2 + layers.length * BOX.height + Math.max(0, layers.length - 1) * BOX.gapY;
  const nodes: GraphNode[] = [];
  layers.forEach((layer, li) => {
    const row = layer.length * BOX.width + (layer.length - 1) * BOX.gapX;
    const left = (width - row) / 2;
    layer.forEach((id, i) =>
      nodes.push({ id, step: d.steps[id], layer: li, index: i, reachable: !unreachable.has(id), x: left + i * (BOX.width + BOX.gapX), y: BOX.margin + li * (BOX.height + BOX.gapY) }),
    );
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edges: GraphEdge[] = [];
  for (const n of nodes) {
    for (const b of branchesOf(n.step)) {
      const to = at.get(b.to);
      const e: GraphEdge = { from: n.id, to: b.to, ...(b.label ? { label: b.label } : {}) };
      if (!to) e.missing = true;
      else if (to.layer <= n.layer) e.back = true;
      edges.push(e);
    }
  }
  return { nodes, edges, layers, width, height };
}

/**
 * The SVG path of an arrow, leaving its box's bottom edge at `i` of `of` places: down into the
 * next layer; around the layers in between (on the nearer side) when it skips some, so it never
 * crosses a box; back up along the right-hand side for a draft's cycle; a stub when its step is missing.
 */
export function arrowPath(g: Pick<GraphLayout, 'nodes'>, e: GraphEdge, i: number, of: number): { d: string; x: number; y: number } {
  const from = g.nodes.find((n) => n.id === e.from)!;
  const to = g.nodes.find((n) => n.id === e.to);
  const x = from.x + (BOX.width * (i + 1)) / (of + 1);
  const y = from.y + BOX.height;
  const bend = BOX.gapY / 2;
  if (!to) return { d: `M ${x} ${y} L ${x} ${y + bend}`, x, y };
  if (e.back) {
    const fx = from.x + BOX.width;
    const tx = to.x + BOX.width;
    const out = BOX.side * 0.75;
    return { d: `M ${fx} ${from.y + BOX.height / 2} C ${fx + out} ${from.y + BOX.height / 2}, ${tx + out} ${to.y + BOX.height / 2}, ${tx} ${to.y + BOX.height / 2}`, x, y };
  }
  const tx = to.x + BOX.width / 2;
  const ty = to.y;
  const between = g.nodes.filter((n) => n.layer > from.layer && n.layer < to.layer);
  if (between.length === 0) return { d: `M ${x} ${y} C ${x} ${y + bend}, ${tx} ${ty - bend}, ${tx} ${ty}`, x, y };
  const left = Math.min(...between.map((n) => n.x)) - BOX.gapX / 2;
  const right = Math.max(...between.map((n) => n.x + BOX.width)) + BOX.gapX / 2;
  const mid = (x + tx) / 2;
  const sideX = Math.max(BOX.side / 2, mid - left <= right - mid ? left : right);
  const top = y + BOX.gapY;
  const bottom = ty - BOX.gapY;
  return { d: `M ${x} ${y} C ${x} ${y + bend}, ${sideX} ${y + bend}, ${sideX} ${top} L ${sideX} ${bottom} C ${sideX} ${ty - bend}, ${tx} ${ty - bend}, ${tx} ${ty}`, x, y };
}

/** A duration in words: "1 d", "2 h 30 min", "45 s". */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) parts.push(`${n} ${name}`);
    rest -= n * size;
  }
  return parts.join(' ') || '0 s';
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};
const valueText = (v: unknown[] | undefined) => (v ?? []).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ');
const some = (label: string, list: string[] | undefined) => (list && list.length ? [`${label} ${list.join(', ')}`] : []);

/** What a step does, in a few words (a box of the graph, a cell of its table). */
export function stepSummary(s: Step): string {
  switch (s.type) {
    case 'push':
      return `template ${s.template ?? '?'}`;
    case 'in-app':
      return `message ${s.message ?? '?'} for ${duration(s.periodSeconds ?? 0)}${s.saveToInbox ? ', and the inbox' : ''}`;
    case 'webhook':
      return `${s.method ?? 'POST'} ${hostOf(s.url ?? '')}`;
    case 'profile-update': {
      const parts = [...some('set', Object.keys(s.set ?? {})), ...some('remove', s.remove), ...some('tag', s.addTags), ...some('untag', s.removeTags)];
      return parts.join('; ') || 'no change';
    }
    case 'condition': {
      const [c, ...more] = s.conditions ?? [];
      if (!c) return 'no condition';
      const first = `${c.negate ? 'not ' : ''}${c.attribute} ${c.operator}${c.values?.length ? ` ${valueText(c.values)}` : ''}`;
      return more.length ? `${first} (and ${more.length} more)` : first;
    }
    case 'wait':
      if (s.seconds !== undefined) return `wait ${duration(s.seconds)}`;
      if (s.timeOfDay !== undefined) return `until ${s.timeOfDay}, the profile’s time`;
      if (s.event) return `for ${s.event.eventName}, at most ${duration(s.event.timeoutSeconds)}`;
      return 'wait';
    case 'exit':
      return 'the run ends EXITED';
    default:
      return '';
  }
}

export interface StepCounts {
  /** Every execution of the step (a run that reached it, once per time it did). */
  entered: number;
  succeeded: number;
  failed: number;
  /** Executions PENDING or RUNNING: a wait under way, a step being retried. */
  waiting: number;
  skipped: number;
  /** Executions left pending or running by a run that ended meanwhile (cancelled, exited, archived): the server's INTERRUPTED. */
  interrupted: number;
}

/** A step's executions by status (the read's `steps[stepId]`) as the graph's four numbers (and the skipped ones). */
export function stepCounts(byStatus: Record<string, number> | undefined): StepCounts {
  const n = (s: string) => byStatus?.[s] ?? 0;
  const entered = Object.values(byStatus ?? {}).reduce((a, b) => a + b, 0);
  return { entered, succeeded: n('SUCCEEDED'), failed: n('FAILED'), waiting: n('PENDING') + n('RUNNING'), skipped: n('SKIPPED'), interrupted: n('INTERRUPTED') };
}

/** A refusal's description (`a; b; c`) as its violations, one per item. */
export const violationList = (detail: string | undefined): string[] =>
  (detail ?? '')
    .split('; ')
    .map((s) => s.trim())
    .filter(Boolean);

/** The file a new automation starts from: an API entry, a condition, a push, an event wait with a timeout, an exit. */
export const NEW_AUTOMATION: Definition = {
  key: 'order-shipped',
  name: 'Order shipped',
  description: 'Tell the customer, then wait for a review or a week',
  entries: { api: true },
  reentry: { mode: 'ALWAYS', minIntervalSeconds: 3600 },
  exit: { eventName: 'order_cancelled' },
  start: 'is-member',
  steps: {
    'is-member': { type: 'condition', conditions: [{ attribute: 'context.plan', operator: 'in', values: ['gold'] }], then: 'notify', else: 'done' },
    notify: { type: 'push', template: 'order-shipped', variables: { orderId: '{{context.orderId}}' }, next: 'review' } as Step,
    review: { type: 'wait', event: { eventName: 'review_written', timeoutSeconds: 604_800 }, next: 'done', timeoutNext: 'done' },
    done: { type: 'exit' },
  },
};

/** The definition as the editor shows it (two-space JSON). */
export const fileText = (d: unknown) => JSON.stringify(d, null, 2);

/** The editor's text as a file, or why it is not JSON of an object. */
export function parseFile(text: string): { file: Record<string, unknown> } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `The file is not valid JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { error: 'The file must be a JSON object (docs/automations.md).' };
  return { file: v as Record<string, unknown> };
}
