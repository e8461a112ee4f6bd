import { useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { EnvironmentHeader, useEnvironment, when } from './environments';

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
          <p class="muted">
            Averages over the last hour and the last day (test sends not counted), as of {when(o.at)}. The server keeps no per-minute series.
          </p>
          <div class="charts">
            <Activity title="Last hour" w={o.lastHour} minutes={60} />
            <Activity title="Last day" w={o.lastDay} minutes={1440} />
          </div>
        </>
      )}
    </>
  );
}
