import { Fragment } from 'preact';
import { Link } from '../../router';
import { DataTable } from '../../ui/data';
import { BOX, arrowPath, branchesOf, layoutGraph, stepCounts, stepSummary, type AutomationDetail, type GraphEdge, type GraphLayout, type GraphNode } from './automation-model';
import { envPath } from './sends';

const W = BOX.width;
const H = BOX.height;
/** Characters of a box's line before it is cut (the table has the whole text). */
const cut = (s: string, n = 30) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function Arrow({ e, g, i, of }: { e: GraphEdge; g: GraphLayout; i: number; of: number }) {
  const { d, x, y } = arrowPath(g, e, i, of);
  const label = e.missing ? `${e.label ? `${e.label}: ` : ''}${e.to}?` : e.label;
  return (
    <g class={`graph-edge${e.back || e.missing ? ' graph-edge-odd' : ''}`}>
      <path d={d} marker-end="url(#graph-arrow)" />
      {label && (
        <text x={x + 4} y={y + 14} class="graph-label">
          {label}
        </text>
      )}
    </g>
  );
}

function Box({ n, counts, first }: { n: GraphNode; counts: ReturnType<typeof stepCounts>; first: boolean }) {
  const x = n.x + 10;
  return (
    <g class={`graph-step graph-${n.step.type}${n.reachable ? '' : ' graph-loose'}`}>
      <rect x={n.x} y={n.y} width={W} height={H} rx={8} />
      <text x={x} y={n.y + 20} class="graph-id">
        {cut(n.id, 24)}
        {first ? ' (start)' : ''}
      </text>
      <text x={x} y={n.y + 38} class="graph-kind">
        {n.step.type}
        {n.reachable ? '' : ', not reachable'}
      </text>
      <text x={x} y={n.y + 56}>
        {cut(stepSummary(n.step))}
      </text>
      <text x={x} y={n.y + 80} class="graph-counts">
        entered {counts.entered} · succeeded {counts.succeeded}
      </text>
      <text x={x} y={n.y + 98} class="graph-counts">
        failed {counts.failed} · waiting {counts.waiting}
      </text>
    </g>
  );
}

/** The steps drawn as boxes in layers by depth, the arrows between them labelled with their branch. The SVG is a picture; the table after it says the same in words. */
function Drawing({ layout, a }: { layout: GraphLayout; a: AutomationDetail }) {
  const edgesOf = (id: string) => layout.edges.filter((e) => e.from === id);
  return (
    <div class="graph-scroll" tabIndex={0} role="region" aria-label="Graph of the steps (scrolls sideways when wide)">
      <svg class="graph" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} role="img" aria-label={`Graph of ${layout.nodes.length} steps in ${layout.layers.length} layers; the table “Steps” below has the same, in words.`}>
        <defs>
          <marker id="graph-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="graph-arrowhead" />
          </marker>
        </defs>
        {layout.nodes.map((n) => {
          const out = edgesOf(n.id);
          return out.map((e, i) => <Arrow key={`${e.from}>${e.to}>${e.label ?? ''}`} e={e} g={layout} i={i} of={out.length} />);
        })}
        {layout.nodes.map((n) => (
          <Box key={n.id} n={n} counts={stepCounts(a.steps?.[n.id])} first={n.id === a.definition.start} />
        ))}
      </svg>
    </div>
  );
}

const leadsTo = (n: GraphNode) => {
  const out = branchesOf(n.step);
  if (n.step.type === 'exit') return 'the end (EXITED)';
  if (out.length === 0) return 'the end (COMPLETED)';
  return out.map((b) => `${b.label ? `${b.label}: ` : ''}${b.to}`).join(', ');
};

/**
 * An automation's graph (issue 28 "Inspection"), with each step's executions counted across all
 * versions: entered (every execution of the step), succeeded, failed, and waiting (PENDING or
 * RUNNING: a wait under way, a step being retried). docs/automations.md "In the console".
 */
export function AutomationGraph({ a }: { a: AutomationDetail }) {
  const layout = layoutGraph(a.definition);
  return (
    <section aria-labelledby="graph-title" class="graph-block">
      <h2 id="graph-title">Steps</h2>
      <p class="muted">
        Each step with its executions: <strong>entered</strong> counts every time a run reached it, <strong>waiting</strong> those still pending or running (a wait under way, a step being retried), <strong>interrupted</strong> (in the table) those whose run ended meanwhile (cancelled, exited, archived).
      </p>
      <Drawing layout={layout} a={a} />
      <DataTable
        caption="Steps"
        rows={layout.nodes}
        rowKey={(n) => n.id}
        columns={[
          { header: 'Step', cell: (n) => <>{n.id}{n.id === a.definition.start ? ' (start)' : ''}</> },
          { header: 'Depth', cell: (n) => (n.reachable ? n.layer : 'not reachable') },
          { header: 'Kind', cell: (n) => n.step.type },
          { header: 'What it does', cell: (n) => stepSummary(n.step) },
          { header: 'Leads to', cell: leadsTo },
          { header: 'Entered', cell: (n) => stepCounts(a.steps?.[n.id]).entered },
          { header: 'Succeeded', cell: (n) => stepCounts(a.steps?.[n.id]).succeeded },
          { header: 'Failed', cell: (n) => stepCounts(a.steps?.[n.id]).failed },
          { header: 'Waiting', cell: (n) => stepCounts(a.steps?.[n.id]).waiting },
          { header: 'Interrupted', cell: (n) => stepCounts(a.steps?.[n.id]).interrupted },
        ]}
      />
    </section>
  );
}

/** The automation's runs counted by status, each a link to the runs of that status. */
export function RunCounts({ environmentId, a }: { environmentId: string; a: AutomationDetail }) {
  const runs = a.runs ?? {};
  const total = Object.values(runs).reduce((x, y) => x + y, 0);
  const list = envPath(environmentId, 'automations', a.key, 'runs');
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      <dl class="facts run-counts">
        {(['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const).map((s) => (
          <Fragment key={s}>
            <dt>{s.charAt(0) + s.slice(1).toLowerCase()}</dt>
            <dd>{runs[s] ? <Link href={`${list}?status=${s}`}>{runs[s]}</Link> : 0}</dd>
          </Fragment>
        ))}
      </dl>
      <p>
        <Link href={list}>All {total} runs</Link>
      </p>
    </section>
  );
}
