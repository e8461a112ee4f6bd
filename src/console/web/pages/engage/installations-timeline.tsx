import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { Link } from '../../router';
import { ErrorBox } from '../../ui/feedback';
import { when } from '../../ui/format';
import { envPath } from './sends';

/** What the timeline reads of an installation (GET …/installations/{id}). */
export interface TimelineInstallation {
  id: string;
  platform: 'IOS' | 'ANDROID';
  createdAt: string;
  generations: { generation: number; profileId: string; bindingState: 'ANONYMOUS' | 'BOUND'; committedAt: string }[];
  operations: { operationId: string; generation: number; type: string; status: 'ACCEPTED' | 'REJECTED'; occurredAt: string | null; receivedAt: string }[];
}

/** A delivery to an installation (GET …/installations/{id}/deliveries). */
export interface Delivery {
  id: string;
  sendId: string;
  installationId: string;
  provider: 'APNS' | 'FCM';
  state: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  openedAt: string | null;
}

/** How many deliveries the timeline reads (the first page, newest first). */
export const TIMELINE_DELIVERIES = 50;

/** One moment of a timeline: when, what happened in words, and where to look further. */
export interface TimelineEntry {
  at: string;
  what: ComponentChildren;
  /** Order among entries of the same instant: the later in the story, the higher. */
  seq: number;
}

const ms = (iso: string) => Date.parse(iso);

/** An operation's type in words: PUSH_TOKEN_SET → “Push token set”. */
const opWords = (type: string) => {
  const w = type.toLowerCase().replace(/_/g, ' ');
  return w.charAt(0).toUpperCase() + w.slice(1);
};

/**
 * The entries of one installation: its registration, its binding transitions, the operations
 * received, the pushes to it (admitted, sent, delivered, opened, failed). `only` keeps the
 * generations bound to one profile (a profile's timeline) and what happened while they lasted.
 */
export function installationEntries(environmentId: string, i: TimelineInstallation, deliveries: Delivery[], only?: string): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  let seq = 0;
  const add = (time: string | null, what: ComponentChildren) => {
    if (time) out.push({ at: time, what, seq: seq++ });
  };
  const inst = (
    <Link href={envPath(environmentId, 'installations', i.id)}>
      <code>{i.id}</code>
    </Link>
  );
  const gens = [...i.generations].sort((a, b) => a.generation - b.generation);
  const mine = new Set(gens.filter((g) => !only || g.profileId === only).map((g) => g.generation));
  // The windows of time while the installation's generations were the profile's (deliveries carry no generation).
  const windows = gens.filter((g) => mine.has(g.generation)).map((g) => [g.committedAt, gens.find((n) => n.generation > g.generation)?.committedAt ?? '9999-12-31T00:00:00Z'] as const);
  const within = (t: string) => windows.some(([from, to]) => ms(t) >= ms(from) && ms(t) < ms(to));
  const platform = i.platform === 'IOS' ? 'iOS' : 'Android';
  if (!only || mine.has(0)) add(i.createdAt, only ? <>Installation {inst} registered ({platform})</> : `Installation registered (${platform})`);
  for (const g of gens) {
    if (!mine.has(g.generation)) continue;
    const profile = (
      <Link href={envPath(environmentId, 'profiles', g.profileId)}>
        <code>{g.profileId}</code>
      </Link>
    );
    const who = only ? <>Installation {inst}</> : 'The installation';
    if (g.generation === 0) add(g.committedAt, <>{who} started anonymous with profile {profile} (generation 0)</>);
    else if (g.bindingState === 'BOUND') add(g.committedAt, <>{who} was bound to profile {profile}: a user signed in (generation {g.generation})</>);
    else add(g.committedAt, <>{who} was unbound, a new anonymous profile {profile}: the user signed out (generation {g.generation})</>);
  }
  for (const o of [...i.operations].reverse()) {
    if (!mine.has(o.generation)) continue;
    add(
      o.receivedAt,
      <>
        {opWords(o.type)}: operation {o.status === 'ACCEPTED' ? 'accepted' : 'rejected'} (generation {o.generation}
        {o.occurredAt ? <>, occurred {when(o.occurredAt)}</> : null}){only ? <> from {inst}</> : null}
      </>,
    );
  }
  for (const d of [...deliveries].reverse()) {
    if (only && !within(d.createdAt)) continue;
    const send = (
      <Link href={envPath(environmentId, 'sends', d.sendId)}>
        send <code>{d.sendId}</code>
      </Link>
    );
    const to = only ? <> to {inst}</> : null;
    const failed = d.state === 'FAILED' || d.state === 'EXPIRED';
    add(
      d.createdAt,
      <>
        Push admitted for {send}
        {to} through {d.provider}
        {failed ? `: ${d.state === 'FAILED' ? 'failed' : 'expired'} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}${d.lastError ? ` (${d.lastError})` : ''}` : d.state === 'PENDING' ? ': waiting for an attempt' : ''}
      </>,
    );
    add(
      d.sentAt,
      <>
        Push sent to {d.provider} for {send}
        {to}
      </>,
    );
    add(
      d.deliveredAt,
      <>
        Push delivered: the app reported it received ({send}){to}
      </>,
    );
    add(
      d.openedAt,
      <>
        Push opened by the user ({send}){to}
      </>,
    );
  }
  return out;
}

/** One chronological list, newest first: an ordered list of time elements and words, readable at a phone's width. */
export function Timeline({ entries, label, note }: { entries: TimelineEntry[]; label: string; note?: ComponentChildren }) {
  const sorted = entries.map((e, k) => ({ ...e, k, t: ms(e.at) })).sort((a, b) => b.t - a.t || b.seq - a.seq || b.k - a.k);
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      {note && <p class="hint">{note}</p>}
      {sorted.length === 0 ? (
        <p>Nothing happened yet.</p>
      ) : (
        <ol class="timeline" aria-label={label}>
          {sorted.map((e) => (
            <li key={e.k}>
              <time dateTime={e.at}>{when(e.at)}</time>
              <span class="timeline-what">{e.what}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Reads the first page of the deliveries to each installation (newest first), and the installations themselves when asked. */
export function useInstallationsHistory(environmentId: string, ids: string[], withInstallations: boolean) {
  const [state, setState] = useState<{ installations: TimelineInstallation[]; deliveries: Record<string, Delivery[]>; error?: ApiFailure; loading: boolean }>({ installations: [], deliveries: {}, loading: true });
  const key = JSON.stringify([environmentId, ids, withInstallations]);
  useEffect(() => {
    const abort = new AbortController();
    const signal = abort.signal;
    setState((s) => ({ ...s, loading: true }));
    Promise.all(
      ids.map(async (installationId) => {
        const params = { environmentId, installationId };
        const [installation, page] = await Promise.all([
          withInstallations ? call<TimelineInstallation, 'GET /engage/admin/environments/{environmentId}/installations/{installationId}'>('GET /engage/admin/environments/{environmentId}/installations/{installationId}', { params, signal }) : undefined,
          call<{ items: Delivery[] }, 'GET /engage/admin/environments/{environmentId}/installations/{installationId}/deliveries'>(
            'GET /engage/admin/environments/{environmentId}/installations/{installationId}/deliveries', { params, query: { size: TIMELINE_DELIVERIES }, signal }),
        ]);
        return { installationId, installation, deliveries: page.items };
      }),
    ).then(
      (all) =>
        setState({
          installations: all.flatMap((a) => (a.installation ? [a.installation] : [])),
          deliveries: Object.fromEntries(all.map((a) => [a.installationId, a.deliveries])),
          loading: false,
        }),
      (error: unknown) => {
        if (!signal.aborted) setState({ installations: [], deliveries: {}, error: error instanceof ApiFailure ? error : new ApiFailure(0, 'network', undefined), loading: false });
      },
    );
    return () => abort.abort();
  }, [key]);
  return state;
}

/** The error of a timeline's sources, in words. */
export const TimelineError = ({ error }: { error?: ApiFailure }) => (error ? <ErrorBox error={error} /> : null);
