import { useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { when } from '../../ui/format';
import { EnvironmentHeader, useEnvironment } from './environments';

type DeliveryState = 'PENDING' | 'SENT' | 'DELIVERED' | 'OPENED' | 'FAILED' | 'EXPIRED';
interface ActivityWindow {
  operations: { accepted: number; rejected: number };
  sends: number;
  deliveries: Record<DeliveryState, number>;
}
interface Overview {
  environmentId: string;
  at: string;
  installations: {
    total: number;
    bound: number;
    apps: { appId: string; name: string; platform: 'IOS' | 'ANDROID'; status: 'ACTIVE' | 'DISABLED'; installations: number; pushReady: number }[];
  };
  lastHour: ActivityWindow;
  lastDay: ActivityWindow;
  /** The last 60 minutes, oldest first, the current minute last (zeros where nothing happened). */
  perMinute: {
    operations: { minute: string; accepted: number; rejected: number }[];
    deliveries: ({ minute: string } & Record<DeliveryState, number>)[];
  };
}

const PLATFORM = { IOS: 'iOS', ANDROID: 'Android' } as const;
const STATES: DeliveryState[] = ['PENDING', 'SENT', 'DELIVERED', 'OPENED', 'FAILED', 'EXPIRED'];
const percent = (part: number, whole: number) => (whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`);
/** An average per minute, with one decimal below 10. */
const perMinute = (n: number, minutes: number) => {
  const v = n / minutes;
  if (v > 0 && v < 0.05) return 'under 0.1';
  return v >= 10 ? String(Math.round(v)) : v.toFixed(1).replace(/\.0$/, '');
};

export interface Bar {
  label: string;
  value: number;
  /** A part of the value drawn darker inside the bar (push-ready of the installations). */
  part?: number;
  /** The value in words, beside the bar. */
  text: string;
}

/**
 * A horizontal bar chart: one row per bar, its label and value as text (what a screen reader
 * and a narrow screen read) and the bar itself drawn as an inline SVG scaled to the largest value.
 */
export function BarChart(props: { title: string; bars: Bar[]; summary: string }) {
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  const id = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class="chart" aria-labelledby={id}>
      <figcaption id={id}>{props.title}</figcaption>
      <ul class="bar-list">
        {props.bars.map((b) => (
          <li key={b.label}>
            <span class="bar-label">{b.label}</span>
            <svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
              <rect class="bar-track" x="0" y="0" width="100" height="10" />
              <rect class="bar-fill" x="0" y="0" width={(b.value / max) * 100} height="10" />
              {b.part !== undefined && <rect class="bar-part" x="0" y="0" width={(b.part / max) * 100} height="10" />}
            </svg>
            <span class="bar-value">{b.text}</span>
          </li>
        ))}
      </ul>
      <p class="chart-summary">{props.summary}</p>
    </figure>
  );
}

const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export interface MinuteSeries {
  /** The series' name in words (legend, table header, tooltips). */
  label: string;
  /** Its class in console.css (the fill of its bars and its legend swatch). */
  cls: string;
  /** One value per minute, as many as the minutes. */
  values: number[];
}

/**
 * A column chart of the last 60 minutes: one column per minute, its series stacked, drawn as
 * inline SVG scaled to the busiest minute (each column titled with its minute and counts). A
 * reader that does not see it reads the summary and the table of the minutes with activity.
 */
export function MinuteChart(props: { title: string; minutes: string[]; series: MinuteSeries[]; summary: string }) {
  const totals = props.minutes.map((_, i) => props.series.reduce((n, s) => n + s.values[i], 0));
  const max = Math.max(1, ...totals);
  const id = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  const busy = props.minutes.map((minute, i) => ({ minute, i })).filter(({ i }) => totals[i] > 0);
  const step = 10;
  const height = 100;
  return (
    <figure class="chart minute-chart" aria-labelledby={id}>
      <figcaption id={id}>{props.title}</figcaption>
      <ul class="legend" aria-hidden="true">
        {props.series.map((s) => (
          <li key={s.cls}>
            <svg class="swatch" viewBox="0 0 10 10" focusable="false">
              <rect class={s.cls} x="0" y="0" width="10" height="10" />
            </svg>
            {s.label}
          </li>
        ))}
      </ul>
      <svg class="minutes" viewBox={`0 0 ${props.minutes.length * step} ${height}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <line class="minutes-base" x1="0" y1={height - 0.5} x2={props.minutes.length * step} y2={height - 0.5} />
        {props.minutes.map((minute, i) => {
          if (totals[i] === 0) return null;
          let y = height;
          return (
            <g key={minute} class="minute" data-minute={minute}>
              <title>{`${clock(minute)}: ${props.series.map((s) => `${s.values[i]} ${s.label.toLowerCase()}`).join(', ')}`}</title>
              {props.series.map((s) => {
                const h = (s.values[i] / max) * (height - 2);
                if (h === 0) return null;
                y -= h;
                return <rect key={s.cls} class={s.cls} x={i * step + 1} y={y} width={step - 2} height={h} />;
              })}
            </g>
          );
        })}
      </svg>
      <div class="minute-axis" aria-hidden="true">
        <span>{clock(props.minutes[0])}</span>
        <span>{clock(props.minutes[Math.floor(props.minutes.length / 2)])}</span>
        <span>{clock(props.minutes[props.minutes.length - 1])}</span>
      </div>
      <p class="chart-summary">{props.summary}</p>
      {busy.length > 0 && (
        <details class="minute-table">
          <summary>{`The ${plural(busy.length, 'minute')} with activity`}</summary>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">{props.title}</caption>
              <thead>
                <tr>
                  <th scope="col">Minute</th>
                  {props.series.map((s) => (
                    <th key={s.cls} scope="col">
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {busy.map(({ minute, i }) => (
                  <tr key={minute}>
                    <th scope="row">
                      <time dateTime={minute}>{clock(minute)}</time>
                    </th>
                    {props.series.map((s) => (
                      <td key={s.cls}>{s.values[i]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}

/** The two per-minute charts: operations by outcome, deliveries by state. */
function PerMinute({ o }: { o: Overview }) {
  const minutes = o.perMinute.operations.map((m) => m.minute);
  const busiest = (totals: number[]) => {
    const top = Math.max(...totals);
    return top === 0 ? 'nothing in any minute' : `the busiest minute ${clock(minutes[totals.indexOf(top)])} with ${top}; ${plural(totals.filter((n) => n > 0).length, 'minute')} with activity`;
  };
  const ops = o.perMinute.operations.map((m) => m.accepted + m.rejected);
  const accepted = o.perMinute.operations.reduce((n, m) => n + m.accepted, 0);
  const rejected = o.perMinute.operations.reduce((n, m) => n + m.rejected, 0);
  const deliveries = o.perMinute.deliveries.map((m) => STATES.reduce((n, s) => n + m[s], 0));
  const byState = STATES.map((s) => ({ s, n: o.perMinute.deliveries.reduce((n, m) => n + m[s], 0) })).filter((x) => x.n > 0);
  return (
    <div class="charts">
      <MinuteChart
        title="Operations per minute, last 60 minutes"
        minutes={minutes}
        series={[
          { label: 'Accepted', cls: 'series-accepted', values: o.perMinute.operations.map((m) => m.accepted) },
          { label: 'Rejected', cls: 'series-rejected', values: o.perMinute.operations.map((m) => m.rejected) },
        ]}
        summary={`${plural(accepted + rejected, 'operation')} from installations in the last 60 minutes (${rejected} rejected): ${busiest(ops)}.`}
      />
      <MinuteChart
        title="Deliveries per minute, last 60 minutes"
        minutes={minutes}
        series={STATES.map((s) => ({ label: s.charAt(0) + s.slice(1).toLowerCase(), cls: `series-${s.toLowerCase()}`, values: o.perMinute.deliveries.map((m) => m[s]) }))}
        summary={`${plural(deliveries.reduce((n, d) => n + d, 0), 'delivery', 'deliveries')} created in the last 60 minutes${byState.length ? ` (${byState.map((x) => `${x.n} ${x.s.toLowerCase()}`).join(', ')} now)` : ''}: ${busiest(deliveries)}.`}
      />
    </div>
  );
}

function Activity({ title, w, minutes }: { title: string; w: ActivityWindow; minutes: number }) {
  const deliveries = STATES.reduce((n, s) => n + w.deliveries[s], 0);
  const ops = w.operations.accepted + w.operations.rejected;
  return (
    <section class="overview-window" aria-labelledby={`window-${minutes}`}>
      <h3 id={`window-${minutes}`}>{title}</h3>
      <dl class="stats">
        <div>
          <dt>Operations per minute</dt>
          <dd>{perMinute(ops, minutes)}</dd>
        </div>
        <div>
          <dt>Deliveries per minute</dt>
          <dd>{perMinute(deliveries, minutes)}</dd>
        </div>
        <div>
          <dt>Sends</dt>
          <dd>{w.sends}</dd>
        </div>
      </dl>
      <BarChart
        title={`Operations received, ${title.toLowerCase()}`}
        bars={[
          { label: 'Accepted', value: w.operations.accepted, text: String(w.operations.accepted) },
          { label: 'Rejected', value: w.operations.rejected, text: String(w.operations.rejected) },
        ]}
        summary={`${ops} operations from installations (${w.operations.rejected} rejected), ${perMinute(ops, minutes)} a minute on average.`}
      />
      <BarChart
        title={`Deliveries by state, ${title.toLowerCase()}`}
        bars={STATES.map((s) => ({ label: s.charAt(0) + s.slice(1).toLowerCase(), value: w.deliveries[s], text: String(w.deliveries[s]) }))}
        summary={`${deliveries} deliveries of ${w.sends} sends, ${perMinute(deliveries, minutes)} a minute on average; ${w.deliveries.DELIVERED + w.deliveries.OPENED} delivered or opened, ${w.deliveries.FAILED + w.deliveries.EXPIRED} failed or expired.`}
      />
    </section>
  );
}

/** An environment at a glance (GET …/overview): installations by app and platform, push readiness, activity of the last hour and day. */
export function EnvironmentOverview({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const { data: o, error } = useCall<Overview, 'GET /engage/admin/environments/{environmentId}/overview'>('GET /engage/admin/environments/{environmentId}/overview', { params: { environmentId } });
  const e = env.data;
  const ready = o ? o.installations.apps.reduce((n, a) => n + a.pushReady, 0) : 0;
  const byPlatform = o
    ? (['IOS', 'ANDROID'] as const).map((p) => {
        const apps = o.installations.apps.filter((a) => a.platform === p);
        return { platform: p, installations: apps.reduce((n, a) => n + a.installations, 0), pushReady: apps.reduce((n, a) => n + a.pushReady, 0) };
      })
    : [];
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={e} title={e ? e.displayName : environmentId} />
      {env.error && <ErrorBox error={env.error} />}
      {e && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{e.name}</dd>
          <dt>Status</dt>
          <dd>{e.status}</dd>
          <dt>Id</dt>
          <dd>
            <code>{e.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{when(e.createdAt)}</dd>
        </dl>
      )}
      {error && <ErrorBox error={error} />}
      {o && (
        <>
          <h2>Installations</h2>
          <dl class="stats">
            <div>
              <dt>Installations</dt>
              <dd>{o.installations.total}</dd>
            </div>
            <div>
              <dt>Bound to an external id</dt>
              <dd>{o.installations.bound}</dd>
            </div>
            <div>
              <dt>Push-ready</dt>
              <dd>{percent(ready, o.installations.total)}</dd>
            </div>
          </dl>
          {o.installations.apps.length === 0 ? (
            <p class="empty">No app yet: create one on the Apps page, then its installations show here.</p>
          ) : (
            <div class="charts">
              <BarChart
                title="Installations by app"
                bars={o.installations.apps.map((a) => ({
                  label: `${a.name} (${PLATFORM[a.platform]}${a.status === 'DISABLED' ? ', disabled' : ''})`,
                  value: a.installations,
                  part: a.pushReady,
                  text: `${a.installations}, ${a.pushReady} push-ready (${percent(a.pushReady, a.installations)})`,
                }))}
                summary={`${o.installations.total} installations in ${o.installations.apps.length} ${o.installations.apps.length === 1 ? 'app' : 'apps'}; ${ready} (${percent(ready, o.installations.total)}) may receive a push now. The darker part of each bar is the push-ready share.`}
              />
              <BarChart
                title="Installations by platform"
                bars={byPlatform.map((p) => ({ label: PLATFORM[p.platform], value: p.installations, part: p.pushReady, text: `${p.installations}, ${p.pushReady} push-ready (${percent(p.pushReady, p.installations)})` }))}
                summary={byPlatform.map((p) => `${PLATFORM[p.platform]}: ${p.installations} installations, ${percent(p.pushReady, p.installations)} push-ready.`).join(' ')}
              />
            </div>
          )}
          <h2>Activity</h2>
          <p class="muted">Minute by minute over the last hour, then averages over the last hour and the last day (test sends not counted), as of {when(o.at)}.</p>
          <PerMinute o={o} />
          <div class="charts">
            <Activity title="Last hour" w={o.lastHour} minutes={60} />
            <Activity title="Last day" w={o.lastDay} minutes={1440} />
          </div>
        </>
      )}
    </>
  );
}
