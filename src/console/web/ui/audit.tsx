import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { DataTable, paged, type Column, type PagedList } from './data';
import { Field, bind } from './forms';

/** An audit event as both administration APIs return it (the wire form of src/platform/audit's row). */
export interface AuditEvent {
  id: string;
  tenantId: string | null;
  environmentId: string | null;
  actorSubject: string;
  actorClientId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
  createdAt: string;
}

/** The filters every audit trail's API takes; a page adds its own (the identity trail's tenant). */
export type AuditFilters = { action?: string; actor?: string; from?: string; to?: string };

/** A datetime-local value (the reader's time) as RFC 3339, or undefined. */
const instant = (local: string) => {
  if (!local) return undefined;
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

/**
 * The filter form of an audit trail: action, actor and time, applied on submit, cleared by a button.
 * `children` come first (a page's own filters); the page keeps their state and reads it in `onApply`.
 */
export function AuditFilterForm(props: {
  actionHint: string;
  initialAction?: string;
  onApply: (filters: AuditFilters) => void;
  onClear: () => void;
  children?: ComponentChildren;
}) {
  const [action, setAction] = useState(props.initialAction ?? '');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  return (
    <form
      class="filters"
      aria-label="Filter the audit events"
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply({ action: action.trim() || undefined, actor: actor.trim() || undefined, from: instant(from), to: instant(to) });
      }}
    >
      {props.children}
      <Field label="Action" hint={props.actionHint}>
        {(a) => <input {...a} {...bind(action, setAction)} autoComplete="off" spellcheck={false} />}
      </Field>
      <Field label="Actor" hint="A token’s subject, or os:<user> for the CLI.">
        {(a) => <input {...a} {...bind(actor, setActor)} autoComplete="off" spellcheck={false} />}
      </Field>
      <Field label="From" hint="At or after, your local time.">
        {(a) => <input {...a} type="datetime-local" {...bind(from, setFrom)} />}
      </Field>
      <Field label="To" hint="Before, your local time.">
        {(a) => <input {...a} type="datetime-local" {...bind(to, setTo)} />}
      </Field>
      <div class="actions">
        <button type="submit" class="primary">
          Filter
        </button>
        <button
          type="button"
          onClick={() => {
            setAction('');
            setActor('');
            setFrom('');
            setTo('');
            props.onClear();
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}

/**
 * A page of audit events: when, action, the page's own columns (`more`), actor, target and details.
 * `viaClient` adds the OAuth client the actor acted through; `details` renders what changed.
 */
export function AuditEventsTable(props: {
  list: PagedList<AuditEvent>;
  more?: Column<AuditEvent>[];
  viaClient?: boolean;
  details: (e: AuditEvent) => ComponentChildren;
}) {
  return (
    <DataTable
      caption="Audit events"
      {...paged(props.list)}
      rowKey={(e) => e.id}
      empty="No audit event matches."
      columns={[
        { header: 'When', cell: (e) => new Date(e.createdAt).toLocaleString() },
        { header: 'Action', cell: (e) => <code>{e.action}</code> },
        ...(props.more ?? []),
        {
          header: 'Actor',
          cell: (e) => (
            <>
              <code>{e.actorSubject}</code>
              {props.viaClient && e.actorClientId && (
                <>
                  {' '}
                  via <code>{e.actorClientId}</code>
                </>
              )}
            </>
          ),
        },
        {
          header: 'Target',
          cell: (e) => (
            <>
              {e.targetType} <code>{e.targetId}</code>
            </>
          ),
        },
        { header: 'Details', cell: props.details },
      ]}
    />
  );
}
