/**
 * Quiet hours (issue 26 PREFERENCES): a profile preference `quietHours {start, end}` ("HH:MM", 24-hour)
 * read on the wall clock of the profile's IANA time zone. Transactional sends of normal priority that
 * would reach the profile inside them are deferred to the instant they end; this file answers when
 * that is. Pure: the zone rules come from Intl.DateTimeFormat (the ICU time zone data of the
 * runtime), no dependency, no clock of its own.
 *
 * The rules (docs/decisions.md "Sync cursor and quiet hours"):
 * - The window is [start, end) on the local clock; `end < start` crosses midnight (22:00–07:00 is
 *   from 22:00 until 07:00 the next morning).
 * - `start == end` is no quiet hours at all: an all-day window would have no end to defer to.
 * - Each night's window is one interval of instants, from the first instant the clock reads `start`
 *   to the last instant it reads before `end`: the smallest interval holding every instant whose
 *   clock reading lies in the window. So a time the clock skips (a DST gap) starts or ends the
 *   window at the jump; a time it shows twice (an overlap) starts the window at its first showing
 *   and ends it at its second, and the repeated hour inside a window stays quiet.
 */

export interface QuietHours {
  start: string;
  end: string;
}

export interface QuietHoursProblem {
  /** The offending field: the whole value, `start`, `end`, or the time zone. */
  field: 'quietHours' | 'quietHours.start' | 'quietHours.end' | 'timeZone';
  message: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** IANA names are ASCII letters, digits, `/`, `_`, `-` and `+` (Etc/GMT+5), well under 64 characters. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
const MINUTE = 60_000;
const DAY = 86_400_000;

/** Whether a time zone name is one the runtime knows (case-insensitively, as Intl does). Offsets like `+05:30` are not names. */
export function isTimeZone(name: unknown): name is string {
  return formatterFor(name) !== undefined;
}

/** Why a quiet-hours value or its time zone cannot be used, or undefined when both can. */
export function checkQuietHours(quiet: unknown, timeZone: unknown): QuietHoursProblem | undefined {
  if (typeof quiet !== 'object' || quiet === null || Array.isArray(quiet)) {
    return { field: 'quietHours', message: 'quietHours must be an object {start, end}' };
  }
  const extra = Object.keys(quiet).find((k) => k !== 'start' && k !== 'end');
  if (extra !== undefined) return { field: 'quietHours', message: `quietHours has an unknown property ${JSON.stringify(extra.slice(0, 64))}` };
  for (const field of ['start', 'end'] as const) {
    const value = (quiet as Record<string, unknown>)[field];
    if (typeof value !== 'string' || !HHMM.test(value)) {
      return { field: `quietHours.${field}`, message: `quietHours.${field} must be a time "HH:MM" from 00:00 to 23:59` };
    }
  }
  if (!isTimeZone(timeZone)) return { field: 'timeZone', message: 'timeZone must be an IANA time zone name, such as Europe/Berlin' };
  return undefined;
}

/**
 * The instant the quiet hours around `at` end, or undefined when `at` is outside them. Undefined too
 * for a value `checkQuietHours` refuses (a send is never held back by a preference it cannot read;
 * the caller reports the problem) and for `start == end`.
 */
export function quietUntil(quiet: QuietHours, timeZone: string, at: Date): Date | undefined {
  const clock = formatterFor(timeZone);
  const start = minutesOf(quiet?.start);
  const end = minutesOf(quiet?.end);
  const u = at instanceof Date ? at.getTime() : NaN;
  if (!clock || start === undefined || end === undefined || start === end || !Number.isFinite(u)) return undefined;
  // The instants needed lie within two days of `at`. When the offset is the same two days before,
  // at and two days after (nearly always: zones change offset twice a year), readings map to instants
  // by that one offset; otherwise each is searched for.
  const now = offsetAt(clock, u);
  const before = offsetAt(clock, u - 2 * DAY);
  const after = offsetAt(clock, u + 2 * DAY);
  if (now === undefined || before === undefined || after === undefined) return undefined;
  const fixed = before === now && after === now;
  const instant = (local: number, which: 'first' | 'last') => (fixed ? local - now : instantOf(clock, local, which));
  const wall = Math.floor(u / 1000) * 1000 + now;
  const today = Math.floor(wall / DAY) * DAY;
  // The window that began yesterday (it may run past midnight into today), then today's.
  for (const day of [today - DAY, today]) {
    const from = instant(day + start * MINUTE, 'first');
    const to = instant(day + (end < start ? DAY : 0) + end * MINUTE, 'last');
    if (from === undefined || to === undefined) return undefined;
    if (from <= u && u < to) return new Date(to);
  }
  return undefined;
}

function minutesOf(hhmm: unknown): number | undefined {
  const m = typeof hhmm === 'string' ? HHMM.exec(hhmm) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

// One formatter per zone name: constructing one costs far more than formatting. Bounded, since the
// names come from profiles; only names the runtime accepts are kept.
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1_000;

function formatterFor(name: unknown): Intl.DateTimeFormat | undefined {
  if (typeof name !== 'string' || !ZONE_NAME.test(name)) return undefined;
  let f = formatters.get(name);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return undefined; // RangeError: not a time zone this runtime knows
    }
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(name, f);
  }
  return f;
}

/** The local clock reading at instant `u` (to the second), written as if it were a UTC instant. */
function wallAt(clock: Intl.DateTimeFormat, u: number): number | undefined {
  const second = Math.floor(u / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of clock.formatToParts(second)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  // Offsets are within a day of UTC; anything else (years before the era, say) is not a reading.
  return Number.isFinite(wall) && Math.abs(wall - second) < DAY ? wall : undefined;
}

/** UTC offset at instant `u`, in ms. */
function offsetAt(clock: Intl.DateTimeFormat, u: number): number | undefined {
  const wall = wallAt(clock, u);
  return wall === undefined ? undefined : wall - Math.floor(u / 1000) * 1000;
}

/**
 * The instant the local clock reads `local` (a reading written as a UTC instant): its first showing
 * or its last. A reading the clock skips has neither: both are the instant of the jump, the first
 * instant reading later than it.
 */
function instantOf(clock: Intl.DateTimeFormat, local: number, which: 'first' | 'last'): number | undefined {
  // Every offset in force within a day of the reading: zone transitions are hours apart at least.
  const offsets = new Set<number>();
  for (const k of [-2, -1, 0, 1, 2]) {
    const o = offsetAt(clock, local + (k * DAY) / 2);
    if (o === undefined) return undefined;
    offsets.add(o);
  }
  const showings = [...offsets].map((o) => local - o).filter((u) => wallAt(clock, u) === local);
  if (showings.length > 0) return which === 'first' ? Math.min(...showings) : Math.max(...showings);
  // A gap: before the jump the clock reads less than `local`, after it more. Find the jump to the second.
  let lo = local - Math.max(...offsets);
  let hi = local - Math.min(...offsets);
  const before = wallAt(clock, lo);
  const after = wallAt(clock, hi);
  if (before === undefined || after === undefined || before >= local || after < local) return undefined;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    const wall = wallAt(clock, mid);
    if (wall === undefined) return undefined;
    if (wall >= local) hi = mid;
    else lo = mid;
  }
  return hi;
}
