import { describe, expect, it } from 'vitest';
import {
  checkTimeZone,
  isValidWallTime,
  machineTimeZone,
  offsetAt,
  wallTimeToInstant,
  type WallTime,
} from '../../core/ingest/local-time.js';

/** `wall` in `zone` is the instant `at`, at `utcOffsetMin` minutes from UTC. */
function expectInstant(wall: WallTime, zone: string, at: string, utcOffsetMin: number): void {
  expect(wallTimeToInstant(wall, zone)).toEqual({ at: new Date(at), utcOffsetMin });
}

// Exports without a zone (WhatsApp, QQ, LINE, WeChat StrTime) are read in a named IANA zone; these
// tests pin what a person would see: the exact instant and the offset on that day, across DST.
describe('wall-clock time in a named zone', () => {
  it('Berlin: winter is UTC+1, summer UTC+2, the day of the change included', () => {
    expectInstant({ year: 2024, month: 1, day: 15, hour: 9, minute: 30 }, 'Europe/Berlin', '2024-01-15T08:30:00Z', 60);
    // Clocks go forward on 31 March 2024 at 02:00 → 03:00.
    expectInstant({ year: 2024, month: 3, day: 31, hour: 1, minute: 59 }, 'Europe/Berlin', '2024-03-31T00:59:00Z', 60);
    expectInstant({ year: 2024, month: 3, day: 31, hour: 3, minute: 0 }, 'Europe/Berlin', '2024-03-31T01:00:00Z', 120);
    expectInstant({ year: 2024, month: 7, day: 1, hour: 12, minute: 0, second: 5 }, 'Europe/Berlin', '2024-07-01T10:00:05Z', 120);
  });

  it('a time skipped by the spring change moves forward by the gap, like a phone would show it', () => {
    // 02:30 does not exist in Berlin on 31 March 2024: read as 03:30 summer time.
    expectInstant({ year: 2024, month: 3, day: 31, hour: 2, minute: 30 }, 'Europe/Berlin', '2024-03-31T01:30:00Z', 120);
  });

  it('a time repeated by the autumn change takes its first occurrence (still summer time)', () => {
    // 27 October 2024: 03:00 CEST → 02:00 CET, so 02:30 happens twice.
    expectInstant({ year: 2024, month: 10, day: 27, hour: 2, minute: 30 }, 'Europe/Berlin', '2024-10-27T00:30:00Z', 120);
    expectInstant({ year: 2024, month: 10, day: 27, hour: 3, minute: 30 }, 'Europe/Berlin', '2024-10-27T02:30:00Z', 60);
  });

  it('Shanghai is UTC+8 all year (no DST since 1991)', () => {
    expectInstant({ year: 2019, month: 7, day: 16, hour: 18, minute: 15, second: 5 }, 'Asia/Shanghai', '2019-07-16T10:15:05Z', 480);
    expectInstant({ year: 2024, month: 1, day: 1, hour: 0, minute: 0 }, 'Asia/Shanghai', '2023-12-31T16:00:00Z', 480);
  });

  it('zones west of UTC and half-hour zones', () => {
    expect(wallTimeToInstant({ year: 2024, month: 3, day: 9, hour: 23, minute: 58 }, 'America/New_York').utcOffsetMin).toBe(-300);
    expectInstant({ year: 2024, month: 3, day: 10, hour: 3, minute: 15 }, 'America/New_York', '2024-03-10T07:15:00Z', -240);
    expectInstant({ year: 2024, month: 6, day: 1, hour: 12, minute: 0 }, 'Asia/Kolkata', '2024-06-01T06:30:00Z', 330);
    expect(offsetAt(new Date('2024-06-01T00:00:00Z'), 'UTC')).toBe(0);
  });

  it("follows this machine's zone when TZ changes in the process, however often it was asked before", () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      for (let i = 0; i < 3; i++) expect(machineTimeZone()).toBe('UTC');
      process.env.TZ = 'Asia/Shanghai';
      expect(machineTimeZone()).toBe('Asia/Shanghai');
      process.env.TZ = 'America/New_York';
      expect(machineTimeZone()).toBe('America/New_York');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('rejects an unknown zone name with an actionable message', () => {
    expect(() => checkTimeZone('Mars/Olympus_Mons')).toThrow(/unknown time zone "Mars\/Olympus_Mons"/);
    expect(checkTimeZone('Asia/Shanghai')).toBe('Asia/Shanghai');
  });

  it('tells real calendar dates from impossible ones', () => {
    expect(isValidWallTime({ year: 2024, month: 2, day: 29, hour: 0, minute: 0 })).toBe(true);
    expect(isValidWallTime({ year: 2023, month: 2, day: 29, hour: 0, minute: 0 })).toBe(false);
    expect(isValidWallTime({ year: 2023, month: 13, day: 1, hour: 0, minute: 0 })).toBe(false);
    expect(isValidWallTime({ year: 2023, month: 1, day: 1, hour: 24, minute: 0 })).toBe(false);
  });
});
