/**
 * A wait "until a time of day in the profile's time zone" (issue 28; Novu's open request): the
 * first instant after `nowMs` at which the zone's wall clock reads HH:MM. On a day whose clocks
 * skip that time (spring forward), the wait ends at the first instant after the gap; on a day
 * that shows it twice (fall back), at its first occurrence. An unknown zone counts as UTC.
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
    // The instant whose wall clock reads `wall`: the offset at the guess, corrected once for a change in between.
    let at = wall - offsetMs(tz, wall);
    at = wall - offsetMs(tz, at);
    const off = offsetMs(tz, at);
    // In a gap (the wall time does not exist), the first instant after it.
    if (at + off !== wall) at = wall - offsetMs(tz, wall + 3_600_000);
    if (at > nowMs) return at;
  }
  return nowMs + 86_400_000;
}
