import type { BusinessHours } from '@agentry/db';

const DAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** Formatters per time zone (building one costs far more than using it). Bounded by the zones in use. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with business hours as a tenant sent them (empty: nothing): an unknown time zone,
 * a day outside 0–6, a time that is not `HH:MM`, an interval that does not end after it starts.
 *
 * @example
 * businessHoursIssues({ time_zone: 'Europe/Berlin', intervals: [{ day: 1, start: '09:00', end: '17:00' }] }); // []
 */
export function businessHoursIssues(hours: BusinessHours): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  if (!isTimeZone(hours.time_zone)) {
    issues.push({ path: '/time_zone', message: 'must be an IANA time zone such as Europe/Berlin' });
  }
  hours.intervals.forEach((interval, i) => {
    if (!Number.isInteger(interval.day) || interval.day < 0 || interval.day > 6) {
      issues.push({ path: `/intervals/${i}/day`, message: 'must be 0 (Sunday) to 6 (Saturday)' });
    }
    for (const field of ['start', 'end'] as const) {
      if (!TIME.test(interval[field])) {
        issues.push({ path: `/intervals/${i}/${field}`, message: 'must be a time HH:MM (24:00 for midnight)' });
      }
    }
    if (TIME.test(interval.start) && TIME.test(interval.end) && minutes(interval.end) <= minutes(interval.start)) {
      issues.push({ path: `/intervals/${i}/end`, message: 'must be after start' });
    }
  });
  return issues;
}

function minutes(time: string): number {
  const [h, m] = time.split(':').map(Number);
  return h! * 60 + m!;
}

/**
 * Whether `now` falls in the business hours (in their time zone); null hours = always open, no
 * intervals = never. An unknown time zone counts as closed (the API refuses one, so only a zone a
 * runtime dropped gets here).
 *
 * @example
 * isWithinBusinessHours({ time_zone: 'UTC', intervals: [{ day: 1, start: '09:00', end: '17:00' }] },
 *   new Date('2026-11-23T10:00:00Z')); // true: a Monday, 10:00 UTC
 */
export function isWithinBusinessHours(hours: BusinessHours | null, now: Date): boolean {
  if (!hours) return true;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatterFor(hours.time_zone).formatToParts(now);
  } catch {
    return false;
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = DAYS[part('weekday')];
  const at = Number(part('hour')) * 60 + Number(part('minute'));
  return hours.intervals.some(
    (interval) => interval.day === day && at >= minutes(interval.start) && at < minutes(interval.end),
  );
}
