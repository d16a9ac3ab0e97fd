/** One weekly interval: `day` 0 = Sunday … 6, `start`/`end` as `HH:MM` (`24:00` = midnight). */
export interface Interval {
  day: number;
  start: string;
  end: string;
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The 1-based numbers of the rows that are not valid intervals (a bad time, or an end not after the
 * start), so the form can say which before the API does.
 *
 * @example
 * intervalIssues([{ day: 1, start: '17:00', end: '09:00' }]); // [1]
 */
export function intervalIssues(intervals: readonly Interval[]): number[] {
  return intervals.flatMap((it, i) =>
    Number.isInteger(it.day) &&
    it.day >= 0 &&
    it.day <= 6 &&
    TIME.test(it.start) &&
    TIME.test(it.end) &&
    minutes(it.end) > minutes(it.start)
      ? []
      : [i + 1],
  );
}

/** The IANA time zones this browser knows (the current one first kept in the list). */
export function timeZones(current: string): string[] {
  const known: string[] =
    typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC', current];
  const all = new Set(['UTC', ...known]);
  all.add(current);
  return [...all].sort();
}
