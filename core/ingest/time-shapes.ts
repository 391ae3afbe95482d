import { z } from 'zod';
import type { ReadContext } from './import-format.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, offsetAt, wallTimeToInstant } from './local-time.js';

/**
 * Every shape a time takes in the JSON exports people bring: what the app itself writes, and what tools
 * that convert or re-export chats write instead. Exact shapes are taken as written — ISO 8601 with `Z`
 * or an offset (fractions of a second kept to the millisecond), unix seconds or milliseconds as a
 * number or a string of digits. An ISO time without a zone is a wall-clock time and is read in the
 * import's time zone; a UTC time is on that zone's calendar (Instant). Anything else, and any date that
 * is not a real one (month 13, 30 February, 25:00) or lies outside the years a message can have, is
 * refused: never rolled over into another day.
 */

export interface Instant {
  at: Date;
  /**
   * The offset the time was written in. A UTC time (`Z`, unix) says when, not where the person was: it
   * is on the import zone's calendar, as a local time is — "tomorrow" said at 23:30 UTC on a Monday
   * from Shanghai (07:30 on Tuesday there) is Wednesday.
   */
  utcOffsetMin: number;
}

export type TimeReading = { ok: true; instant: Instant; exact: boolean } | { ok: false; problem: string };

/** `s` and `ms` name what a field holds by its definition; `auto` reads numbers above 10^11 as milliseconds. */
export type UnixUnit = 's' | 'ms' | 'auto';

// 1900–2199: wider than any history a person writes down, narrow enough that a year 0 or a mistyped
// year is refused instead of stored as an instant no one can find.
export const EARLIEST_MESSAGE_MS = Date.UTC(1900, 0, 1);
export const LATEST_MESSAGE_MS = Date.UTC(2200, 0, 1);
// No digital message is older than 1980; a unix time before it is a placeholder (0, 5) or a value in the
// wrong unit (seconds in a milliseconds field land in January 1970).
const EARLIEST_UNIX_MS = Date.UTC(1980, 0, 1);

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DIGITS = /^-?\d+(?:\.\d+)?$/;
// Seconds since 1970 pass 10^11 only in the year 5138: anything larger is milliseconds.
const SECONDS_BELOW = 1e11;

function inRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_MESSAGE_MS && ms < LATEST_MESSAGE_MS;
}

const outOfRange = (what: string) => `${what} is not a time between 1900 and 2199`;

function readUnix(n: number, raw: string, unit: UnixUnit, timeZone: string): TimeReading {
  const ms = unit === 'ms' || (unit === 'auto' && Math.abs(n) >= SECONDS_BELOW) ? n : n * 1000;
  if (!inRange(ms) || ms < EARLIEST_UNIX_MS) return { ok: false, problem: `"${raw}" is not a unix time between 1980 and 2199` };
  const at = new Date(Math.round(ms));
  return { ok: true, instant: { at, utcOffsetMin: offsetAt(at, timeZone) }, exact: true };
}

function readIso(value: string, timeZone: string): TimeReading | null {
  const m = ISO.exec(value.trim());
  if (!m) return null;
  const wall = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 };
  if (!isValidWallTime(wall)) return { ok: false, problem: `"${value}" is not a real date and time` };
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const zone = m[8];
  if (!zone) {
    const { at, utcOffsetMin } = wallTimeToInstant(wall, timeZone);
    return { ok: true, instant: { at: new Date(at.getTime() + millis), utcOffsetMin }, exact: false };
  }
  const utc = zone.toUpperCase() === 'Z';
  let utcOffsetMin = 0;
  if (!utc) {
    const hours = Number(zone.slice(1, 3));
    const minutes = zone.length > 3 ? Number(zone.slice(-2)) : 0;
    if (hours > 14 || minutes > 59) return { ok: false, problem: `"${value}" has an impossible UTC offset` };
    utcOffsetMin = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  const ms = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, millis) - utcOffsetMin * 60_000;
  if (!inRange(ms)) return { ok: false, problem: outOfRange(`"${value}"`) };
  const at = new Date(ms);
  return { ok: true, instant: { at, utcOffsetMin: utc ? offsetAt(at, timeZone) : utcOffsetMin }, exact: true };
}

/** Reads one time value in any shape above; local times are read in `timeZone`. */
export function readTime(value: string | number, o: { timeZone: string; unit?: UnixUnit }): TimeReading {
  const unit = o.unit ?? 'auto';
  if (typeof value === 'number') return readUnix(value, String(value), unit, o.timeZone);
  const iso = readIso(value, o.timeZone);
  if (iso) return iso;
  if (DIGITS.test(value.trim())) return readUnix(Number(value.trim()), value, unit, o.timeZone);
  return {
    ok: false,
    problem: `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}" is not a time (expected ISO 8601 like 2023-05-08T21:56:00.000Z or +08:00, a local 2023-05-08T21:56:00, or unix seconds or milliseconds)`,
  };
}

/**
 * A time field of an export's schema: any shape `readTime` reads, checked where zod can report it with
 * the field's place in the file. The instant itself is read afterwards with the import's time zone.
 */
export function timeField(unit: UnixUnit = 'auto') {
  return z.union([z.string(), z.number()]).superRefine((v, ctx) => {
    // The zone does not change whether a value is valid: UTC stands in for the import's zone here.
    const r = readTime(v, { timeZone: 'UTC', unit });
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.problem });
  });
}

/** Reads a value `timeField` has accepted. */
export function instantOf(value: string | number, o: { timeZone: string; unit?: UnixUnit }): { instant: Instant; exact: boolean } {
  const r = readTime(value, o);
  if (!r.ok) throw new Error(`instantOf: unchecked time ${JSON.stringify(value)}: ${r.problem}`);
  return r;
}

/** The zone local times of this import are read in: the one given (`--tz`), else this machine's. */
export function importTimeZone(ctx: ReadContext): string {
  return checkTimeZone(ctx.timeZone ?? machineTimeZone());
}
