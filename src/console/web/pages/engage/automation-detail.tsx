import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link } from '../../router';
import { useCall } from '../../ui/data';
import { ErrorBox, Notice, SecretOnce } from '../../ui/feedback';
import { ConfirmByName, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { AutomationGraph, RunCounts } from './automation-graph';
import type { AutomationDetail, AutomationStatus, Definition } from './automation-model';
import { AutomationStatusBadge, ONE, takeHandOff } from './automations';
import { EnvPageHeader, envPath } from './sends';

const STATUS_WORDS: Record<AutomationStatus, string> = {
  DRAFT: 'Draft: never published, it takes no run',
  ACTIVE: 'Active: it takes runs, on its published version',
  PAUSED: 'Paused: no new run; runs under way are held at their next step until it is resumed',
  ARCHIVED: 'Archived: for good; its runs were cancelled and stay readable',
};

/** A confirmation without typing (an action that can be undone, or a key made anew): a modal dialog with the consequence. */
export function Confirm(props: { id: string; open: boolean; title: string; consequence: ComponentChildren; action: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { busy, error, run, setError } = useSubmit(props.onConfirm);
  useEffect(() => {
    const d = ref.current;
    if (props.open && d && !d.open) {
      setError(undefined);
      d.showModal();
    }
    if (!props.open && d?.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={props.id} onClose={props.onClose} class="confirm">
      <h2 id={props.id}>{props.title}</h2>
      <p>{props.consequence}</p>
      {error && <ErrorBox error={error} />}
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void run()}>
          {busy ? 'Working…' : props.action}
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

const entryWords = (d: Definition) => {
  const out: string[] = [];
  if (d.entries.api) out.push('API: the trigger endpoint, with the automationApiKey');
  if (d.entries.event) out.push(`event ${d.entries.event.eventName}${d.entries.event.conditions?.length ? ` (with ${d.entries.event.conditions.length} property conditions)` : ''}`);
  return out.join('; ');
};

type Verb = 'publish' | 'pause' | 'resume' | 'archive';
const DONE: Record<Verb, (a: AutomationDetail) => string> = {
  publish: (a) => `Published version ${a.publishedVersion}: it takes runs.`,
  pause: () => 'Paused: no new run; runs under way are held at their next step.',
  resume: () => 'Resumed: it takes runs again, and held runs continue.',
  archive: () => 'Archived: its runs under way were cancelled.',
};

/**
 * One automation (issue 28 "Inspection"): its status, version and entries; publish, pause,
 * resume, archive (confirmed by typing its key) and a new trigger key (shown once); its graph
 * with each step's counts, and its runs counted by status.
 */
export function AutomationPage({ environmentId, automationKey }: { environmentId: string; automationKey: string }) {
  const params = { environmentId, automationKey };
  const detail = useCall<AutomationDetail, `GET ${typeof ONE}`>(`GET ${ONE}`, { params });
  const [arrived] = useState(() => takeHandOff(environmentId, automationKey));
  const [apiKey, setApiKey] = useState(arrived?.apiKey);
  const [notice, setNotice] = useState(arrived?.notice ?? '');
  const [confirm, setConfirm] = useState<Verb | 'rotate' | undefined>();
  const a = detail.data;
  const act = async (verb: Verb) => {
    const r = await call<AutomationDetail, `POST ${typeof ONE}/${Verb}`>(`POST ${ONE}/${verb}`, { params, headers: { 'If-Match': `"${a!.version}"` } });
    setNotice(r.changed === false ? 'Nothing changed.' : DONE[verb](r));
    setConfirm(undefined);
    detail.reload();
  };
  const rotate = async () => {
    const r = await call<{ automationApiKey: string }, `POST ${typeof ONE}/rotate-key`>(`POST ${ONE}/rotate-key`, { params });
    setApiKey(r.automationApiKey);
    setNotice('A new trigger key was made: the previous one no longer works.');
    setConfirm(undefined);
  };
  const changeable = a && !a.configurationManaged && a.status !== 'ARCHIVED';
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Automation ${automationKey}`} crumbs={[{ label: 'Automations', path: '/automations' }]}>
        {changeable && (
          <Link class="button" href={envPath(environmentId, 'automations', automationKey, 'edit')}>
            Edit
          </Link>
        )}
        {changeable && a.status === 'DRAFT' && (
          <button type="button" class="primary" onClick={() => setConfirm('publish')}>
            Publish
          </button>
        )}
        {changeable && a.status === 'ACTIVE' && (
          <button type="button" onClick={() => setConfirm('pause')}>
            Pause
          </button>
        )}
        {changeable && a.status === 'PAUSED' && (
          <button type="button" class="primary" onClick={() => setConfirm('resume')}>
            Resume
          </button>
        )}
        {a && a.apiEntry && a.status !== 'ARCHIVED' && (
          <button type="button" onClick={() => setConfirm('rotate')}>
            New trigger key
          </button>
        )}
        {changeable && (
          <button type="button" class="danger" onClick={() => setConfirm('archive')}>
            Archive
          </button>
        )}
      </EnvPageHeader>
      {detail.error && <ErrorBox error={detail.error} />}
      {notice && <Notice>{notice}</Notice>}
      {apiKey && (
        <>
          <SecretOnce label="Trigger key (automationApiKey)" value={apiKey} />
          <p class="hint">
            Start a run with <code>POST /api/v1/environments/{a?.environmentId ?? environmentId}/automations/&lt;this key&gt;/trigger</code> and an access key of the environment (docs/automations.md).
          </p>
        </>
      )}
      {a && (
        <>
          <dl class="facts">
            <dt>Name</dt>
            <dd>{a.name}</dd>
            <dt>Status</dt>
            <dd>
              <AutomationStatusBadge status={a.status} /> {STATUS_WORDS[a.status]}
            </dd>
            <dt>Version</dt>
            <dd>
              {a.version} (latest){a.publishedVersion !== null ? `; runs enter version ${a.publishedVersion}` : '; never published'}
            </dd>
            <dt>Entries</dt>
            <dd>{entryWords(a.definition)}</dd>
            {a.definition.exit && (
              <>
                <dt>Exit</dt>
                <dd>event {a.definition.exit.eventName} ends a run under way</dd>
              </>
            )}
            <dt>Updated</dt>
            <dd>{when(a.updatedAt)}</dd>
            {a.configurationManaged && (
              <>
                <dt>Managed</dt>
                <dd>By engage apply: change it in the configuration file.</dd>
              </>
            )}
          </dl>
          <p>
            <button type="button" onClick={() => detail.reload()}>
              Refresh counts
            </button>
          </p>
          <RunCounts environmentId={environmentId} a={a} />
          <AutomationGraph a={a} />
          <Confirm
            id="confirm-transition"
            open={confirm === 'publish' || confirm === 'pause' || confirm === 'resume'}
            {...(confirm === 'pause'
              ? { title: 'Pause the automation?', consequence: 'No new run enters it; runs under way are held at their next step until it is resumed.', action: 'Pause automation' }
              : confirm === 'resume'
                ? { title: 'Resume the automation?', consequence: 'It takes runs again, and held runs continue where they were.', action: 'Resume automation' }
                : { title: `Publish version ${a.version}?`, consequence: 'Its graph, templates and messages are checked; then runs enter this version.', action: `Publish version ${a.version}` })}
            onConfirm={() => act(confirm === 'pause' ? 'pause' : confirm === 'resume' ? 'resume' : 'publish')}
            onClose={() => setConfirm(undefined)}
          />
          <Confirm
            id="confirm-rotate"
            open={confirm === 'rotate'}
            title="Make a new trigger key?"
            consequence="The current key stops working at once: callers of the trigger endpoint need the new one, shown once."
            action="Make a new key"
            onConfirm={rotate}
            onClose={() => setConfirm(undefined)}
          />
          <ConfirmByName
            open={confirm === 'archive'}
            title="Archive the automation?"
            name={automationKey}
            consequence="Its runs under way are cancelled, and it can never take runs or change again. Its runs stay readable."
            action="Archive automation"
            onConfirm={() => act('archive')}
            onClose={() => setConfirm(undefined)}
          />
        </>
      )}
    </>
  );
}
