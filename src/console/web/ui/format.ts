/** An instant from the APIs (RFC 3339) in the reader's locale and time zone, or a dash when there is none. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
