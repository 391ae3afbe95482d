/**
 * Dates as the person lived them. An episode carries its instant (UTC) and the UTC offset it
 * happened in; we show its wall-clock time in that offset, whatever the computer's time zone, so a
 * trip to Lisbon reads in Lisbon time. Trick: shift the instant by the offset and format in UTC.
 */
import { intlTag, type Locale } from '../i18n/locale';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The episode's wall clock as a Date whose UTC fields are the local ones. */
export function wallClock(iso: string, utcOffsetMin: number): Date {
  return new Date(Date.parse(iso) + utcOffsetMin * MINUTE);
}

/** 'YYYY-MM-DD' of the local day an instant falls on. */
export function dayKey(iso: string, utcOffsetMin: number): string {
  return wallClock(iso, utcOffsetMin).toISOString().slice(0, 10);
}

export function dayKeyOf(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month, day)).toISOString().slice(0, 10);
}

export function parseDayKey(key: string): { year: number; month: number; day: number } {
  const [y, m, d] = key.split('-').map(Number);
  return { year: y ?? 1970, month: (m ?? 1) - 1, day: d ?? 1 };
}

const fmt = (locale: Locale, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(intlTag(locale), { timeZone: 'UTC', ...options });

/** "Monday, 8 May 2023" / "2023年5月8日星期一" */
export function formatDay(key: string, locale: Locale): string {
  return fmt(locale, { dateStyle: 'full' }).format(new Date(`${key}T00:00:00Z`));
}

/** A run of days as a person names it: the day, the month ("March 2024"), the year, or "Monday, 16 – Sunday, 22 November 2026". */
export function formatDays(from: string, to: string, locale: Locale): string {
  if (from === to) return formatDay(from, locale);
  const a = parseDayKey(from);
  const b = parseDayKey(to);
  const lastOfMonth = new Date(Date.UTC(b.year, b.month + 1, 0)).getUTCDate();
  if (a.day === 1 && b.day === lastOfMonth && a.year === b.year) {
    if (a.month === b.month) return formatMonth(a.year, a.month, locale);
    if (a.month === 0 && b.month === 11) return fmt(locale, { year: 'numeric' }).format(new Date(Date.UTC(a.year, 0, 1)));
  }
  return fmt(locale, { dateStyle: 'full' }).formatRange(new Date(`${from}T00:00:00Z`), new Date(`${to}T00:00:00Z`));
}

export function formatMonth(year: number, month: number, locale: Locale): string {
  return fmt(locale, { year: 'numeric', month: 'long' }).format(new Date(Date.UTC(year, month, 1)));
}

export function formatTime(iso: string, utcOffsetMin: number, locale: Locale): string {
  return fmt(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(wallClock(iso, utcOffsetMin));
}

export function formatDateTime(iso: string, utcOffsetMin: number, locale: Locale): string {
  return fmt(locale, { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' }).format(wallClock(iso, utcOffsetMin));
}

/**
 * A moment of this computer (a fact learnt, a memory moved to the trash) in the person's own clock,
 * unlike an episode's times, which keep the offset they happened in.
 */
export function formatHere(iso: string, locale: Locale): string {
  return formatDateTime(iso, -new Date(iso).getTimezoneOffset(), locale);
}

/** "UTC+02:00" */
export function formatOffset(utcOffsetMin: number): string {
  const sign = utcOffsetMin < 0 ? '−' : '+';
  const abs = Math.abs(utcOffsetMin);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** "09:00–20:17", or with dates when the span crosses midnight. */
export function formatSpan(start: string, end: string, utcOffsetMin: number, locale: Locale): string {
  const sameDay = dayKey(start, utcOffsetMin) === dayKey(end, utcOffsetMin);
  const a = sameDay ? formatTime(start, utcOffsetMin, locale) : formatDateTime(start, utcOffsetMin, locale);
  const b = sameDay ? formatTime(end, utcOffsetMin, locale) : formatDateTime(end, utcOffsetMin, locale);
  return a === b ? a : `${a} – ${b}`;
}

/** Monday-first grid of a month: leading blanks (null) then day numbers. */
export function monthGrid(year: number, month: number): (number | null)[] {
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay(); // 0 = Sunday
  const lead = (first + 6) % 7;
  const days = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return [...Array<null>(lead).fill(null), ...Array.from({ length: days }, (_, i) => i + 1)];
}

export function addMonths(year: number, month: number, delta: number): { year: number; month: number } {
  const d = new Date(Date.UTC(year, month + delta, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() };
}

/**
 * The instant range that surely holds every episode whose *local* date is in [fromKey, toKeyExclusive):
 * offsets run from −12 h to +14 h, so widen by those; callers filter by local day after.
 */
export function instantRangeForLocalDays(fromKey: string, toKeyExclusive: string): { since: string; until: string } {
  return {
    since: new Date(Date.parse(`${fromKey}T00:00:00Z`) - 14 * 60 * MINUTE).toISOString(),
    until: new Date(Date.parse(`${toKeyExclusive}T00:00:00Z`) + 12 * 60 * MINUTE).toISOString(),
  };
}

export function nextDayKey(key: string): string {
  return new Date(Date.parse(`${key}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
}

const RELATIVE_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * DAY],
  ['month', 30 * DAY],
  ['week', 7 * DAY],
  ['day', DAY],
  ['hour', 60 * MINUTE],
  ['minute', MINUTE],
];

/** How long ago (or from now) an instant is, in the largest whole unit: "3 minutes ago", "yesterday", "3分钟前". */
export function formatRelative(iso: string, now: number, locale: Locale): string {
  const diff = Date.parse(iso) - now;
  const rtf = new Intl.RelativeTimeFormat(intlTag(locale), { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(diff) >= size) return rtf.format(Math.trunc(diff / size), unit);
  }
  return rtf.format(0, 'second');
}
