import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, call, type CallOptions } from '../api';
import type { Endpoint } from '../endpoints';
import { ErrorBox } from './feedback';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
  reload: () => void;
}

/** One GET, re-run when its key changes or on reload(). */
export function useCall<T, E extends Endpoint>(endpoint: E | undefined, opts: CallOptions<E> = {}): Loaded<T> {
  const key = JSON.stringify([endpoint, opts.params, opts.query]);
  const [state, setState] = useState<{ data?: T; error?: ApiFailure; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const optsRef = useRef(opts);
  optsRef.current = opts;
  useEffect(() => {
    if (!endpoint) return;
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    call<T, E>(endpoint, { ...optsRef.current, signal: abort.signal }).then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => {
        if (!abort.signal.aborted) setState({ error: error instanceof ApiFailure ? error : new ApiFailure(0, 'network', undefined), loading: false });
      },
    );
    return () => abort.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The two page shapes of the APIs: numbered pages (`page`, `size`) and keyset pages (`after`, `next`). */
export interface PageBody<T> {
  items: T[];
  hasMore: boolean;
  page?: number;
  next?: string | null;
}

/**
 * A paginated list: numbered pages move with `page`, keyset pages keep the cursors already seen
 * so Previous works too.
 */
export function usePaged<T, E extends Endpoint>(endpoint: E, opts: CallOptions<E> & { keyset?: boolean; size?: number } = {}) {
  const [index, setIndex] = useState(0);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const baseKey = JSON.stringify([endpoint, opts.params, opts.query]);
  useEffect(() => {
    setIndex(0);
    setCursors([undefined]);
  }, [baseKey]);
  const size = opts.size ?? 25;
  const query = opts.keyset ? { ...opts.query, size, after: cursors[index] } : { ...opts.query, size, page: index };
  const loaded = useCall<PageBody<T>, E>(endpoint, { ...opts, query });
  const next = () => {
    if (!loaded.data?.hasMore) return;
    if (opts.keyset) setCursors((c) => [...c.slice(0, index + 1), loaded.data?.next ?? undefined]);
    setIndex((i) => i + 1);
  };
  const previous = () => setIndex((i) => Math.max(0, i - 1));
  return { ...loaded, index, next, previous };
}

/** What usePaged returns that a table needs. */
export type PagedList<T> = { data: PageBody<T> | undefined; loading: boolean; error: ApiFailure | undefined; index: number; next: () => void; previous: () => void };

/** A usePaged list as DataTable's rows, loading, error and pager: `<DataTable {...paged(list)} … />`. */
export function paged<T>(list: PagedList<T>) {
  return {
    rows: list.data?.items,
    loading: list.loading,
    error: list.error,
    pager: { index: list.index, hasMore: !!list.data?.hasMore, next: list.next, previous: list.previous },
  };
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
}

/** A table with a caption (its accessible name), loading, empty and error states and pagination. */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  loading?: boolean;
  error?: ApiFailure;
  empty?: ComponentChildren;
  pager?: { index: number; hasMore: boolean; next: () => void; previous: () => void };
}) {
  const { rows, pager } = props;
  return (
    <div class="table-block">
      {props.error && <ErrorBox error={props.error} />}
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" key={c.header}>
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody aria-busy={props.loading ? 'true' : 'false'}>
            {rows?.map((r) => (
              <tr key={props.rowKey(r)}>
                {props.columns.map((c) => (
                  <td key={c.header} data-label={c.header}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows && rows.length === 0 && !props.loading && <p class="empty">{props.empty ?? 'Nothing here yet.'}</p>}
      {!rows && props.loading && <p class="muted" role="status">Loading…</p>}
      {pager && (pager.index > 0 || pager.hasMore) && (
        <nav class="pager" aria-label={`${props.caption}: pages`}>
          <button type="button" onClick={pager.previous} disabled={pager.index === 0}>
            Previous page
          </button>
          <span>Page {pager.index + 1}</span>
          <button type="button" onClick={pager.next} disabled={!pager.hasMore}>
            Next page
          </button>
        </nav>
      )}
    </div>
  );
}
