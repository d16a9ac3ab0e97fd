import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { businessHoursIssues, isWithinBusinessHours } from './business-hours.ts';

const weekdays = (start: string, end: string) => [1, 2, 3, 4, 5].map((day) => ({ day, start, end }));

describe('business hours (a fixed clock)', () => {
  const berlin = { time_zone: 'Europe/Berlin', intervals: weekdays('09:00', '17:00') };

  it('reads the clock in the tenant’s time zone', () => {
    // Monday 2026-11-23: Berlin is UTC+1 in winter.
    expect(isWithinBusinessHours(berlin, new Date('2026-11-23T07:59:00Z'))).toBe(false); // 08:59 in Berlin
    expect(isWithinBusinessHours(berlin, new Date('2026-11-23T08:00:00Z'))).toBe(true); // 09:00
    expect(isWithinBusinessHours(berlin, new Date('2026-11-23T15:59:00Z'))).toBe(true); // 16:59
    expect(isWithinBusinessHours(berlin, new Date('2026-11-23T16:00:00Z'))).toBe(false); // 17:00: the end is out
    // Summer time (UTC+2): the same local hours are an hour earlier in UTC.
    expect(isWithinBusinessHours(berlin, new Date('2026-07-06T07:30:00Z'))).toBe(true); // Monday 09:30
    // Saturday 2026-11-28, noon: no interval.
    expect(isWithinBusinessHours(berlin, new Date('2026-11-28T11:00:00Z'))).toBe(false);
  });

  it('takes the weekday of the zone, not of UTC', () => {
    const tokyo = { time_zone: 'Asia/Tokyo', intervals: [{ day: 1, start: '00:00', end: '02:00' }] };
    // Sunday 23:30 UTC is Monday 08:30 in Tokyo: outside; Sunday 15:30 UTC is Monday 00:30: inside.
    expect(isWithinBusinessHours(tokyo, new Date('2026-11-22T15:30:00Z'))).toBe(true);
    expect(isWithinBusinessHours(tokyo, new Date('2026-11-22T23:30:00Z'))).toBe(false);
  });

  it('no business hours: always open; no intervals: never; 24:00 closes the day', () => {
    expect(isWithinBusinessHours(null, new Date())).toBe(true);
    expect(isWithinBusinessHours({ time_zone: 'UTC', intervals: [] }, new Date())).toBe(false);
    const allDay = { time_zone: 'UTC', intervals: [{ day: 1, start: '00:00', end: '24:00' }] };
    expect(isWithinBusinessHours(allDay, new Date('2026-11-23T23:59:59Z'))).toBe(true);
    expect(isWithinBusinessHours(allDay, new Date('2026-11-24T00:00:00Z'))).toBe(false);
  });

  it('refuses what it cannot read, path by path', () => {
    expect(businessHoursIssues(berlin)).toEqual([]);
    expect(
      businessHoursIssues({
        time_zone: 'Mars/Olympus',
        intervals: [
          { day: 7, start: '9:00', end: '17:00' },
          { day: 1, start: '18:00', end: '09:00' },
        ],
      }).map((i) => i.path),
    ).toEqual(['/time_zone', '/intervals/0/day', '/intervals/0/start', '/intervals/1/end']);
  });

  it('any hostile input: never throws, and valid hours answer a boolean for any instant', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.record({ day: fc.integer({ min: -3, max: 9 }), start: fc.string(), end: fc.string() })),
        fc.date({ noInvalidDate: true }),
        (zone, intervals, now) => {
          const hours = { time_zone: zone, intervals };
          const issues = businessHoursIssues(hours);
          const open = isWithinBusinessHours(hours, now);
          expect(typeof open).toBe('boolean');
          // An interval that is not valid never opens anything.
          if (issues.some((i) => i.path === '/time_zone')) expect(open).toBe(false);
        },
      ),
    );
  });
});
