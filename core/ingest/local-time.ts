import { parseIsoWithOffset } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';

/**
 * Chat exports from WhatsApp, QQ, LINE and WeChat's StrTime carry wall-clock times of the exporting
 * device with no zone. This module turns such a wall time into the exact instant and the UTC offset
 * that applied at that moment in a named IANA zone, DST included. One helper for every importer so
 * that all formats agree on the rule.
 */

export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

// Asking Intl for the zone builds a formatter (tens of microseconds): an import asks once a message.
// Remembered while TZ is unchanged, and for a minute at most, so a machine moved to another zone is
// followed as a new process would follow it.
let machineZone: { tz: string | undefined; name: string; until: number } | undefined;

/** The zone of this machine: what exports without a zone are assumed to be in unless told otherwise. */
export function machineTimeZone(): string {
  const now = Date.now();
  const tz = process.env['TZ'];
  if (!machineZone || machineZone.tz !== tz || now > machineZone.until) {
    machineZone = { tz, name: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', until: now + 60_000 };
  }
  return machineZone.name;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      throw new NemoriError('INVALID_INPUT', `unknown time zone "${timeZone}": use an IANA name such as Europe/Berlin or Asia/Shanghai`);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws INVALID_INPUT for a name Intl does not know; returns the canonical name. */
export function checkTimeZone(timeZone: string): string {
  return formatter(timeZone).resolvedOptions().timeZone;
}

// Offsets change only at transitions, which in every current tz rule fall on a quarter hour; so every
// instant in the same 15-minute bucket has the same offset. Caching per bucket keeps a 2-million-line
// import from calling Intl millions of times.
const BUCKET_MS = 15 * 60 * 1000;
const offsetCache = new Map<string, Map<number, number>>();

function computeOffset(ms: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  const asUtc = Date.UTC(year, get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const wholeSeconds = Math.floor(ms / 1000) * 1000;
  return Math.round((asUtc - wholeSeconds) / 60000);
}

/** Minutes east of UTC in `timeZone` at `instant` (e.g. +60 for Berlin in winter, +480 for Shanghai). */
export function offsetAt(instant: Date | number, timeZone: string): number {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  let zone = offsetCache.get(timeZone);
  if (!zone) {
    zone = new Map();
    offsetCache.set(timeZone, zone);
  }
  const bucket = Math.floor(ms / BUCKET_MS);
  let off = zone.get(bucket);
  if (off === undefined) {
    off = computeOffset(bucket * BUCKET_MS, timeZone);
    if (zone.size > 100_000) zone.clear();
    zone.set(bucket, off);
  }
  return off;
}

/**
 * The instant a wall-clock time denotes in `timeZone`, and the offset in force then.
 *
 * Wall times that do not exist (the hour skipped when clocks go forward) or exist twice (the hour
 * repeated when clocks go back) are resolved the way Temporal's `disambiguation: 'compatible'` does,
 * i.e. like most calendars and phones: a skipped time moves forward by the gap (02:30 → 03:30 CEST),
 * a repeated time takes its first occurrence (the earlier instant, still on summer time).
 */
export function wallTimeToInstant(t: WallTime, timeZone: string): { at: Date; utcOffsetMin: number } {
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second ?? 0);
  // Offsets just before and just after the wall time (a day apart brackets any transition).
  const before = offsetAt(asUtc - 86_400_000, timeZone);
  const after = offsetAt(asUtc + 86_400_000, timeZone);
  const candidates: number[] = [];
  for (const off of before === after ? [before] : [before, after]) {
    const instant = asUtc - off * 60_000;
    if (offsetAt(instant, timeZone) === off) candidates.push(instant);
  }
  if (candidates.length > 0) {
    // Repeated hour: both offsets fit; the earlier instant is the first occurrence.
    const instant = Math.min(...candidates);
    return { at: new Date(instant), utcOffsetMin: offsetAt(instant, timeZone) };
  }
  // Skipped hour: read the wall time with the offset before the jump, then report the offset after it.
  const instant = asUtc - before * 60_000;
  return { at: new Date(instant), utcOffsetMin: offsetAt(instant, timeZone) };
}

/**
 * True when the fields name a real calendar date and time of day (no 31 February, no 25:00) in a year
 * a message can have (1900–2199: a year 0 or 9999 is a typo or a placeholder, not a time).
 */
export function isValidWallTime(t: WallTime): boolean {
  if (![t.year, t.month, t.day, t.hour, t.minute, t.second ?? 0].every(Number.isInteger)) return false;
  if (t.year < 1900 || t.year > 2199) return false;
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.hour < 0 || t.hour > 23 || t.minute < 0 || t.minute > 59) return false;
  const s = t.second ?? 0;
  if (s < 0 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(t.year, t.month, 0)).getUTCDate();
  return t.day <= daysInMonth;
}

/**
 * An ISO time a program sent (a companion's turn, a conversation given to the API), its offset kept. A
 * UTC time (`Z`, what `toISOString()` writes) says when, not where the person was: it is on this
 * machine's calendar, as a turn sent without a time is.
 */
export function instantSent(value: string): { at: Date; utcOffsetMin: number } {
  const sent = parseIsoWithOffset(value);
  return /z$/i.test(value.trim()) ? { at: sent.at, utcOffsetMin: offsetAt(sent.at, machineTimeZone()) } : sent;
}
