import { describe, expect, it } from 'vitest';
import { checkQuietHours, isTimeZone, quietUntil, type QuietHours } from './quiet-hours';

const q = (start: string, end: string): QuietHours => ({ start, end });
const NIGHT = q('22:00', '07:00');

/**
 * [case, zone, window, at (UTC), quiet until (UTC) or null]. 2026 transitions (checked against the
 * runtime's zone data): Berlin +1→+2 on 03-29 01:00Z (02:00→03:00 skipped), +2→+1 on 10-25 01:00Z
 * (02:00–03:00 shown twice); New York −5→−4 on 03-08 07:00Z, −4→−5 on 11-01 06:00Z (01:00–02:00 twice);
 * Chatham +13:45→+12:45 on 04-04 14:00Z (local 02:45–03:45 twice), +12:45→+13:45 on 09-26 14:00Z
 * (02:45–03:45 skipped); Lord Howe +11→+10:30 on 04-04 15:00Z (01:30–02:00 twice); Kolkata +5:30 and
 * Kathmandu +5:45 without DST.
 */
const table: Array<[string, string, QuietHours, string, string | null]> = [
  // Europe/Berlin, an ordinary night: bounds are [start, end).
  ['Berlin: inside, before midnight', 'Europe/Berlin', NIGHT, '2026-01-15T22:00:00Z', '2026-01-16T06:00:00Z'],
  ['Berlin: inside, after midnight', 'Europe/Berlin', NIGHT, '2026-01-16T05:59:59.999Z', '2026-01-16T06:00:00Z'],
  ['Berlin: start is inside', 'Europe/Berlin', NIGHT, '2026-01-15T21:00:00Z', '2026-01-16T06:00:00Z'],
  ['Berlin: a second before start', 'Europe/Berlin', NIGHT, '2026-01-15T20:59:59Z', null],
  ['Berlin: end is outside', 'Europe/Berlin', NIGHT, '2026-01-16T06:00:00Z', null],
  ['Berlin: midday', 'Europe/Berlin', NIGHT, '2026-01-16T11:00:00Z', null],
  ['Berlin: a window within a day', 'Europe/Berlin', q('13:00', '14:30'), '2026-07-01T11:15:00Z', '2026-07-01T12:30:00Z'],
  ['Berlin: after a window within a day', 'Europe/Berlin', q('13:00', '14:30'), '2026-07-01T12:30:00Z', null],
  // Europe/Berlin, spring forward (02:00–03:00 never shown).
  ['Berlin spring: the short night ends at 07:00 summer time', 'Europe/Berlin', NIGHT, '2026-03-28T22:00:00Z', '2026-03-29T05:00:00Z'],
  ['Berlin spring: an end the clock skips ends at the jump', 'Europe/Berlin', q('01:00', '02:30'), '2026-03-29T00:30:00Z', '2026-03-29T01:00:00Z'],
  ['Berlin spring: a start the clock skips starts at the jump', 'Europe/Berlin', q('02:30', '05:00'), '2026-03-29T01:00:00Z', '2026-03-29T03:00:00Z'],
  ['Berlin spring: just before that jump', 'Europe/Berlin', q('02:30', '05:00'), '2026-03-29T00:59:59Z', null],
  ['Berlin spring: a window wholly skipped is empty', 'Europe/Berlin', q('02:10', '02:40'), '2026-03-29T01:00:00Z', null],
  ['Berlin spring: the same window the next day', 'Europe/Berlin', q('02:10', '02:40'), '2026-03-30T00:20:00Z', '2026-03-30T00:40:00Z'],
  // Europe/Berlin, fall back (02:00–03:00 shown twice).
  ['Berlin fall: the long night ends at 07:00 winter time', 'Europe/Berlin', NIGHT, '2026-10-24T20:00:00Z', '2026-10-25T06:00:00Z'],
  ['Berlin fall: an end shown twice ends at its second showing (first pass, after the end)', 'Europe/Berlin', q('22:00', '02:30'), '2026-10-25T00:45:00Z', '2026-10-25T01:30:00Z'],
  ['Berlin fall: an end shown twice (second pass)', 'Europe/Berlin', q('22:00', '02:30'), '2026-10-25T01:10:00Z', '2026-10-25T01:30:00Z'],
  ['Berlin fall: after the second showing of the end', 'Europe/Berlin', q('22:00', '02:30'), '2026-10-25T01:30:00Z', null],
  ['Berlin fall: a start shown twice starts at its first showing', 'Europe/Berlin', q('02:15', '04:00'), '2026-10-25T00:15:00Z', '2026-10-25T03:00:00Z'],
  ['Berlin fall: before the first showing of the start', 'Europe/Berlin', q('02:15', '04:00'), '2026-10-25T00:14:59Z', null],
  ['Berlin fall: the repeated hour inside the window stays quiet', 'Europe/Berlin', q('02:15', '04:00'), '2026-10-25T01:05:00Z', '2026-10-25T03:00:00Z'],
  // America/New_York.
  ['New York: crossing midnight, summer', 'America/New_York', NIGHT, '2026-07-01T03:00:00Z', '2026-07-01T11:00:00Z'],
  ['New York: at the end', 'America/New_York', NIGHT, '2026-07-01T11:00:00Z', null],
  ['New York: morning', 'America/New_York', NIGHT, '2026-07-01T12:00:00Z', null],
  ['New York spring: the short night', 'America/New_York', NIGHT, '2026-03-08T03:30:00Z', '2026-03-08T11:00:00Z'],
  ['New York spring: an end the clock skips', 'America/New_York', q('23:00', '02:30'), '2026-03-08T06:30:00Z', '2026-03-08T07:00:00Z'],
  ['New York spring: after the jump', 'America/New_York', q('23:00', '02:30'), '2026-03-08T07:00:00Z', null],
  ['New York fall: the long night', 'America/New_York', NIGHT, '2026-11-01T02:00:00Z', '2026-11-01T12:00:00Z'],
  ['New York fall: an end shown twice, first pass past it', 'America/New_York', q('22:00', '01:30'), '2026-11-01T05:45:00Z', '2026-11-01T06:30:00Z'],
  ['New York fall: an end shown twice, second pass', 'America/New_York', q('22:00', '01:30'), '2026-11-01T06:15:00Z', '2026-11-01T06:30:00Z'],
  ['New York fall: after its second showing', 'America/New_York', q('22:00', '01:30'), '2026-11-01T06:30:00Z', null],
  // Asia/Kolkata (+05:30).
  ['Kolkata: start', 'Asia/Kolkata', NIGHT, '2026-06-01T16:30:00Z', '2026-06-02T01:30:00Z'],
  ['Kolkata: inside', 'Asia/Kolkata', NIGHT, '2026-06-01T17:00:00Z', '2026-06-02T01:30:00Z'],
  ['Kolkata: a minute before start', 'Asia/Kolkata', NIGHT, '2026-06-01T16:29:00Z', null],
  ['Kolkata: a window within a day', 'Asia/Kolkata', q('13:00', '14:00'), '2026-06-01T07:45:00Z', '2026-06-01T08:30:00Z'],
  // Asia/Kathmandu (+05:45) and Pacific/Chatham (+12:45 / +13:45, DST by an hour).
  ['Kathmandu: start', 'Asia/Kathmandu', NIGHT, '2026-01-10T16:15:00Z', '2026-01-11T01:15:00Z'],
  ['Kathmandu: at the end', 'Asia/Kathmandu', NIGHT, '2026-01-11T01:15:00Z', null],
  ['Chatham fall: the long night, from its start', 'Pacific/Chatham', NIGHT, '2026-04-04T08:15:00Z', '2026-04-04T18:15:00Z'],
  ['Chatham fall: an end shown twice, first pass past it', 'Pacific/Chatham', q('01:00', '03:00'), '2026-04-04T13:50:00Z', '2026-04-04T14:15:00Z'],
  ['Chatham fall: after its second showing', 'Pacific/Chatham', q('01:00', '03:00'), '2026-04-04T14:15:00Z', null],
  ['Chatham spring: an end the clock skips', 'Pacific/Chatham', q('23:00', '03:00'), '2026-09-26T13:59:00Z', '2026-09-26T14:00:00Z'],
  ['Chatham spring: after the jump', 'Pacific/Chatham', q('23:00', '03:00'), '2026-09-26T14:00:00Z', null],
  ['Chatham spring: the short night', 'Pacific/Chatham', NIGHT, '2026-09-26T10:00:00Z', '2026-09-26T17:15:00Z'],
  // Australia/Lord_Howe: a DST change of half an hour.
  ['Lord Howe fall: an end shown twice', 'Australia/Lord_Howe', q('23:00', '01:45'), '2026-04-04T14:50:00Z', '2026-04-04T15:15:00Z'],
  ['Lord Howe fall: after its second showing', 'Australia/Lord_Howe', q('23:00', '01:45'), '2026-04-04T15:15:00Z', null],
  // Aliases and the zone of UTC itself.
  ['UTC', 'UTC', NIGHT, '2026-01-15T23:00:00Z', '2026-01-16T07:00:00Z'],
  ['a name in other case (Intl canonicalises)', 'europe/berlin', NIGHT, '2026-01-15T22:00:00Z', '2026-01-16T06:00:00Z'],
  // start == end: no quiet hours.
  ['start == end is none', 'Europe/Berlin', q('22:00', '22:00'), '2026-01-15T21:00:00Z', null],
  ['start == end is none, any time', 'Europe/Berlin', q('00:00', '00:00'), '2026-01-15T23:30:00Z', null],
  // A window of all but one minute, and one of a minute.
  ['all but a minute', 'Europe/Berlin', q('00:01', '00:00'), '2026-01-15T12:00:00Z', '2026-01-15T23:00:00Z'],
  ['the one free minute', 'Europe/Berlin', q('00:01', '00:00'), '2026-01-15T23:00:30Z', null],
  ['one minute', 'Asia/Kolkata', q('23:59', '00:00'), '2026-06-01T18:29:30Z', '2026-06-01T18:30:00Z'],
];

describe('quiet hours: quietUntil', () => {
  it.each(table)('%s', (_name, zone, window, at, until) => {
    const result = quietUntil(window, zone, new Date(at));
    expect(result?.toISOString() ?? null).toBe(until === null ? null : new Date(until).toISOString());
  });

  // The 2026 transitions of the table's comment.
  const transitions: Record<string, string[]> = {
    'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
    'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
    'Asia/Kolkata': [],
    'Asia/Kathmandu': [],
    'Pacific/Chatham': ['2026-04-04T14:00:00Z', '2026-09-26T14:00:00Z'],
    'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
  };
  it('agrees with the clock over a year, and releases one stretch of quiet hours at one end (sampled, denser around transitions)', () => {
    const HOUR = 3_600_000;
    const failures: string[] = []; // collected, not asserted one by one: ~100,000 samples
    for (const [zone, changes] of Object.entries(transitions)) {
      const reading = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      const jumps = changes.map((c) => Date.parse(c));
      // Every 331 minutes over the year (every time of day in turn), every 17 minutes for a day and a half either side of each change.
      const samples: number[] = [];
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 331 * 60_000) samples.push(t);
      for (const j of jumps) for (let t = j - 36 * HOUR; t < j + 36 * HOUR; t += 17 * 60_000) samples.push(t);
      for (const window of [NIGHT, q('01:30', '03:15'), q('23:45', '02:45'), q('02:50', '03:30')]) {
        const crosses = window.end < window.start;
        const inWindow = (r: string) => (crosses ? r >= window.start || r < window.end : r >= window.start && r < window.end);
        let previous: { t: number; until: number | undefined } | undefined;
        for (const t of samples) {
          if (previous && t < previous.t) previous = undefined; // a new run of samples
          const until = quietUntil(window, zone, new Date(t))?.getTime();
          const fail = (what: string) => failures.push(`${zone} ${JSON.stringify(window)} ${new Date(t).toISOString()}: ${what}`);
          const nearJump = jumps.some((j) => Math.abs(t - j) <= 2 * HOUR);
          // The clock in the window: quiet. Outside it: not, except the repeated hour inside a window.
          if (inWindow(reading.format(t))) {
            if (until === undefined) fail('the clock is in the window, not quiet');
          } else if (!nearJump && until !== undefined) fail('the clock is outside the window, quiet');
          if (until !== undefined) {
            if (until <= t || until - t > 25 * HOUR) fail(`end ${new Date(until).toISOString()} out of range`);
            if (quietUntil(window, zone, new Date(until)) !== undefined) fail('quiet at its own end');
            // At the end the clock reads the end, unless the clock jumped over it.
            if (!jumps.includes(until) && reading.format(until) !== window.end) fail(`the clock reads ${reading.format(until)} at the end`);
            // Within one stretch of quiet hours, every instant is released at the same end.
            if (previous?.until !== undefined && previous.until > t && until !== previous.until) fail('another end than the instant before');
          }
          previous = { t, until };
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('is not quiet for a value checkQuietHours refuses, nor for an invalid date', () => {
    const at = new Date('2026-01-15T23:00:00Z');
    expect(quietUntil(NIGHT, 'Mars/Olympus_Mons', at)).toBeUndefined();
    expect(quietUntil(NIGHT, '+05:30', at)).toBeUndefined();
    expect(quietUntil(q('7:00', '22:00'), 'UTC', at)).toBeUndefined();
    expect(quietUntil(q('22:00', '24:00'), 'UTC', at)).toBeUndefined();
    expect(quietUntil(null as never, 'UTC', at)).toBeUndefined();
    expect(quietUntil(NIGHT, 'UTC', new Date(NaN))).toBeUndefined();
    expect(quietUntil(NIGHT, 'UTC', new Date(-62198755200000))).toBeUndefined(); // year 0: not a reading
  });
});

describe('quiet hours: checkQuietHours', () => {
  it('accepts a well-formed value in a known zone, start == end included', () => {
    expect(checkQuietHours(NIGHT, 'Europe/Berlin')).toBeUndefined();
    expect(checkQuietHours(q('00:00', '23:59'), 'Asia/Kathmandu')).toBeUndefined();
    expect(checkQuietHours(q('08:00', '08:00'), 'Etc/GMT+5')).toBeUndefined();
  });

  const refused: Array<[unknown, unknown, string]> = [
    [null, 'UTC', 'quietHours'],
    ['22:00-07:00', 'UTC', 'quietHours'],
    [['22:00', '07:00'], 'UTC', 'quietHours'],
    [{ start: '22:00', end: '07:00', days: [] }, 'UTC', 'quietHours'],
    [{ end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: '7:00', end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: '24:00', end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: '22:60', end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: '22:00:00', end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: ' 22:00', end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: 2200, end: '07:00' }, 'UTC', 'quietHours.start'],
    [{ start: '22:00', end: '07:00\n' }, 'UTC', 'quietHours.end'],
    [{ start: '22:00', end: '٠٧:٠٠' }, 'UTC', 'quietHours.end'],
    [NIGHT, '', 'timeZone'],
    [NIGHT, 'Foo/Bar', 'timeZone'],
    [NIGHT, '+05:30', 'timeZone'],
    [NIGHT, 'Europe/Berlin ', 'timeZone'],
    [NIGHT, `Europe/${'x'.repeat(100)}`, 'timeZone'],
    [NIGHT, 42, 'timeZone'],
    [NIGHT, null, 'timeZone'],
  ];
  it.each(refused)('refuses %j in %j, naming %s', (quiet, zone, field) => {
    const problem = checkQuietHours(quiet, zone);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toContain(field);
  });

  it('knows time zones as the runtime does', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC', 'Etc/GMT-14']) {
      expect(isTimeZone(zone), zone).toBe(true);
    }
    for (const zone of ['Europe/Atlantis', 'GMT+5', '05:30', '../etc/passwd', undefined]) expect(isTimeZone(zone), String(zone)).toBe(false);
  });
});
