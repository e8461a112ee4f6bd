import { useState } from 'preact/hooks';
import { AuditEventsTable, AuditFilterForm, type AuditEvent, type AuditFilters } from '../../ui/audit';
import { usePaged } from '../../ui/data';
import { EnvironmentHeader, useEnvironment } from './environments';

/** What changed, one `key: value` a line (the environment, which every event here has, left out). */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details).filter(([k]) => k !== 'environmentId');
  if (entries.length === 0) return <>—</>;
  return (
    <ul class="audit-details">
      {entries.map(([k, v]) => (
        <li key={k}>
          {k}: <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
        </li>
      ))}
    </ul>
  );
}

/** The environment's audit trail, newest first, filtered by action, actor and time (the API's filters). */
export function EnvironmentAudit({ environmentId }: { environmentId: string }) {
  const env = useEnvironment(environmentId);
  const [applied, setApplied] = useState<AuditFilters>({});
  const list = usePaged<AuditEvent, 'GET /engage/admin/environments/{environmentId}/audit-events'>('GET /engage/admin/environments/{environmentId}/audit-events', {
    params: { environmentId },
    query: applied,
  });
  return (
    <>
      <EnvironmentHeader environmentId={environmentId} environment={env.data} title="Audit events" />
      <AuditFilterForm actionHint="Exactly, e.g. app.created, access_key.rotated, profile.erased." onApply={setApplied} onClear={() => setApplied({})} />
      <div class="wide-table">
        <AuditEventsTable list={list} details={(e) => <Details details={e.details} />} />
      </div>
    </>
  );
}
