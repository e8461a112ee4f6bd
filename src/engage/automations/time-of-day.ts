/**
 * A wait "until a time of day in the profile's time zone" (issue 28; Novu's open request): the
 * first instant after `nowMs` at which the zone's wall clock reads HH:MM. On a day whose clocks
 * skip that time (spring forward), the wait ends as much later as the clocks jumped (02:30 → 03:30);
 * on a day that shows it twice (fall back), at its first occurrence. An unknown zone counts as UTC.
 */
function offsetMs(zone: string, atMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(atMs));
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(atMs / 1000) * 1000;
}

export function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function nextTimeOfDay(nowMs: number, hhmm: string, zone: string): number {
  const tz = validZone(zone) ? zone : 'UTC';
  const [h, m] = hhmm.split(':').map(Number);
  const today = new Date(nowMs + offsetMs(tz, nowMs));
  for (let d = 0; d < 3; d++) {
    const wall = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + d, h, m);
    const at = instantOf(tz, wall);
    if (at > nowMs) return at;
  }
  return nowMs + 86_400_000;
}

/**
 * The instant whose wall clock in `zone` reads `wall` (a UTC-based ms count of the local time).
 * Around a change the offsets before and after differ: when both readings exist (clocks set back),
 * the earlier instant; when neither does (clocks set forward), the wall time read with the offset
 * before the change, which lands as much later as the clocks jumped (Temporal's "compatible").
 */
function instantOf(zone: string, wall: number): number {
  const before = offsetMs(zone, wall - 43_200_000);
  const after = offsetMs(zone, wall + 43_200_000);
  if (before === after) return wall - before;
  const valid = [wall - before, wall - after].filter((t) => t + offsetMs(zone, t) === wall);
  return valid.length > 0 ? Math.min(...valid) : wall - Math.min(before, after);
}
