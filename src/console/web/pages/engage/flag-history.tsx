import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field, Form, bind, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import type { Definition, Flag, FlagDetailBody } from './flag-model';
import { RolloutPlanForm } from './flag-rollout-plan';
import { BarChart } from './overview';

const FLAG = '/engage/admin/environments/{environmentId}/flags/{flagKey}';
interface VersionLine {
  version: number;
  origin: 'API' | 'CLI' | 'APPLY' | 'SCHEDULE' | 'ROLLBACK';
  actor: string;
  createdAt: string;
}
interface Schedule {
  id: string;
  at: string;
  status: 'PENDING' | 'APPLIED' | 'CANCELLED' | 'FAILED';
  actor: string;
  createdAt: string;
  appliedVersion: number | null;
  definition: Definition;
}
interface Exposures {
  items: { experimentId: string; revision: number; variantKey: string; exposures: number }[];
}

/** Re-reads a list when the flag changed on this page (tick moves), not on the first render. */
function useReloadOn(tick: number, reload: () => void) {
  useEffect(() => {
    if (tick > 0) reload();
  }, [tick]);
}

const ORIGIN_WORDS: Record<VersionLine['origin'], string> = { API: 'API or console', CLI: 'CLI', APPLY: 'engage apply', SCHEDULE: 'scheduled change', ROLLBACK: 'rollback' };

/** The flag's versions, newest first, each earlier one with a rollback (a new version of its definition). */
export function FlagVersions(props: { environmentId: string; flag: Flag; tick: number; onChanged: (message: string, now?: FlagDetailBody) => void }) {
  const { environmentId, flag } = props;
  const params = { environmentId, flagKey: flag.key };
  const list = usePaged<VersionLine, `GET ${typeof FLAG}/versions`>(`GET ${FLAG}/versions`, { params });
  useReloadOn(props.tick, list.reload);
  const rollback = useSubmit(async (version: number) => {
    const r = await call<FlagDetailBody, `POST ${typeof FLAG}/rollback`>(`POST ${FLAG}/rollback`, { params, headers: { 'If-Match': `"${flag.version}"` }, body: { version } });
    props.onChanged(`Rolled back: version ${r.version} has version ${version}’s definition.`, r);
  });
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      {rollback.error && <ErrorBox error={rollback.error} />}
      <DataTable
        caption="Versions"
        {...paged(list)}
        rowKey={(v) => String(v.version)}
        columns={[
          { header: 'Version', cell: (v) => (v.version === flag.version ? `${v.version} (current)` : v.version) },
          { header: 'Origin', cell: (v) => ORIGIN_WORDS[v.origin] },
          { header: 'By', cell: (v) => v.actor },
          { header: 'Created', cell: (v) => when(v.createdAt) },
          {
            header: 'Rollback',
            cell: (v) =>
              v.version === flag.version || flag.configurationManaged ? (
                '—'
              ) : (
                <button type="button" disabled={rollback.busy} onClick={() => void rollback.run(v.version)}>
                  Roll back to version {v.version}
                </button>
              ),
          },
        ]}
      />
    </section>
  );
}

/** The datetime-local input's value (local time, minutes) of an instant. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Scheduled changes: the list (by due time) with cancel, the form's definition scheduled at a time, and a rollout plan. */
export function FlagSchedules(props: { environmentId: string; flag: FlagDetailBody; tick: number; definition: () => unknown; onChanged: (message: string) => void }) {
  const { environmentId, flag } = props;
  const params = { environmentId, flagKey: flag.key };
  const list = usePaged<Schedule, `GET ${typeof FLAG}/schedules`>(`GET ${FLAG}/schedules`, { params });
  useReloadOn(props.tick, list.reload);
  const [at, setAt] = useState(() => localInput(new Date(Date.now() + 3_600_000)));
  const cancel = useSubmit(async (id: string) => {
    await call(`POST ${FLAG}/schedules/{scheduleId}/cancel`, { params: { ...params, scheduleId: id } });
    props.onChanged('The scheduled change is cancelled.');
  });
  return (
    <section aria-labelledby="schedules-h">
      <h2 id="schedules-h">Scheduled changes</h2>
      {cancel.error && <ErrorBox error={cancel.error} />}
      <DataTable
        caption="Scheduled changes"
        {...paged(list)}
        rowKey={(s) => s.id}
        empty="No scheduled change."
        columns={[
          { header: 'Due', cell: (s) => when(s.at) },
          { header: 'Status', cell: (s) => (s.status === 'APPLIED' && s.appliedVersion ? `Applied as version ${s.appliedVersion}` : s.status.toLowerCase()) },
          { header: 'Makes the flag', cell: (s) => `${s.definition.status === 'ACTIVE' ? 'Active' : 'Archived'}, ${s.definition.rules.length} rule${s.definition.rules.length === 1 ? '' : 's'}` },
          { header: 'By', cell: (s) => s.actor },
          {
            header: 'Cancel',
            cell: (s) =>
              s.status === 'PENDING' ? (
                <button type="button" disabled={cancel.busy} onClick={() => void cancel.run(s.id)} aria-label={`Cancel the change due ${when(s.at)}`}>
                  Cancel
                </button>
              ) : (
                '—'
              ),
          },
        ]}
      />
      {!flag.configurationManaged && (
        <Form
          label="Schedule the edited definition"
          submit="Schedule the edited definition"
          onSubmit={async () => {
            const instant = new Date(at);
            if (!at || Number.isNaN(instant.getTime())) throw new Error('Choose the date and time the change applies at.');
            await call(`POST ${FLAG}/schedules`, { params, body: { at: instant.toISOString(), definition: props.definition() } });
            props.onChanged(`The definition in the form above is scheduled for ${instant.toLocaleString()}.`);
          }}
        >
          <p class="muted">Schedules what the form above holds (saved or not) to become a new version at a time in your time zone.</p>
          <Field label="Apply at">{(a) => <input {...a} type="datetime-local" {...bind(at, setAt)} required />}</Field>
        </Form>
      )}
      {!flag.configurationManaged && <RolloutPlanForm environmentId={environmentId} flag={flag} onChanged={props.onChanged} />}
    </section>
  );
}

/**
 * Exposures of the flag's experiments (FLAG_EXPOSED, once per installation per experiment
 * version): a bar chart per experiment, each bar a variant of a version with its count as text.
 */
export function FlagExposures(props: { environmentId: string; flagKey: string; tick: number }) {
  const loaded = useCall<Exposures, `GET ${typeof FLAG}/exposures`>(`GET ${FLAG}/exposures`, { params: { environmentId: props.environmentId, flagKey: props.flagKey } });
  useReloadOn(props.tick, loaded.reload);
  const byExperiment = new Map<string, Exposures['items']>();
  for (const i of loaded.data?.items ?? []) byExperiment.set(i.experimentId, [...(byExperiment.get(i.experimentId) ?? []), i]);
  return (
    <section aria-labelledby="exposures-h">
      <h2 id="exposures-h">Exposures</h2>
      {loaded.error && <ErrorBox error={loaded.error} />}
      <div class="actions">
        <button type="button" onClick={loaded.reload}>
          Refresh exposures
        </button>
      </div>
      {loaded.data && byExperiment.size === 0 && <p class="empty">No exposure counted yet: devices report FLAG_EXPOSED when they are served an experiment's variant.</p>}
      <div class="charts">
        {[...byExperiment].map(([experimentId, items]) => {
          const total = items.reduce((n, i) => n + i.exposures, 0);
          return (
            <BarChart
              key={experimentId}
              title={`Experiment ${experimentId}`}
              bars={items.map((i) => ({ label: `${i.variantKey} (version ${i.revision})`, value: i.exposures, text: `${i.exposures} exposed` }))}
              summary={`${total} installation${total === 1 ? '' : 's'} exposed in all.`}
            />
          );
        })}
      </div>
    </section>
  );
}
