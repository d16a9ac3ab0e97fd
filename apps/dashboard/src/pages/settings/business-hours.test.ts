import { describe, expect, it } from 'vitest';
import { intervalIssues, timeZones } from './business-hours.ts';

describe('intervalIssues', () => {
  it('names the rows with a bad time or an end not after the start', () => {
    expect(
      intervalIssues([
        { day: 1, start: '09:00', end: '17:00' },
        { day: 2, start: '17:00', end: '09:00' },
        { day: 3, start: '9:00', end: '17:00' },
        { day: 7, start: '09:00', end: '17:00' },
        { day: 5, start: '00:00', end: '24:00' },
        { day: 6, start: '10:00', end: '10:00' },
      ]),
    ).toEqual([2, 3, 4, 6]);
  });
});

describe('timeZones', () => {
  it('lists UTC and the current zone, sorted', () => {
    const zones = timeZones('Europe/Berlin');
    expect(zones).toContain('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect([...zones].sort()).toEqual(zones);
  });
});
