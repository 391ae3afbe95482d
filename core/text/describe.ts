/** Human wording of times and people for episode text: "Monday, 8 May 2023, 13:56–14:10 (UTC+08:00)". */

export function formatOffset(min: number): string {
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `UTC${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** Shifts an instant so its UTC fields read as local wall-clock time at the given offset. */
export function toLocal(at: Date, utcOffsetMin: number): Date {
  return new Date(at.getTime() + utcOffsetMin * 60_000);
}

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function hhmm(d: Date): string {
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

export function localDate(at: Date, utcOffsetMin: number): string {
  return toLocal(at, utcOffsetMin).toISOString().slice(0, 10);
}

/**
 * The local start of a span and its times, "20:10–20:16" (one time for an instant, the end's day as
 * `endDay` says it when the span ends on another day).
 */
function spanTimes(start: Date, end: Date, utcOffsetMin: number, endDay: (d: Date) => string): { s: Date; times: string } {
  const s = toLocal(start, utcOffsetMin);
  const e = toLocal(end, utcOffsetMin);
  const sameDay = s.toISOString().slice(0, 10) === e.toISOString().slice(0, 10);
  const until = hhmm(s) === hhmm(e) && sameDay ? '' : sameDay ? `–${hhmm(e)}` : ` – ${endDay(e)} ${hhmm(e)}`;
  return { s, times: `${hhmm(s)}${until}` };
}

/** `zone: false` leaves the offset out, for text that has stated it once already. */
export function describeSpan(start: Date, end: Date, utcOffsetMin: number, o: { zone?: boolean } = {}): string {
  // A span over days names its last day as its first ("Thursday, 26 November"), with the year when it is another.
  const endDay = (e: Date) => {
    const day = describeDay(e.toISOString().slice(0, 10));
    return e.getUTCFullYear() === toLocal(start, utcOffsetMin).getUTCFullYear() ? day.replace(/ \d{4}$/, '') : day;
  };
  const { s, times } = spanTimes(start, end, utcOffsetMin, (e) => `${endDay(e)},`);
  return `${describeDay(s.toISOString().slice(0, 10))}, ${times}${o.zone === false ? '' : ` (${formatOffset(utcOffsetMin)})`}`;
}

/** A calendar day (YYYY-MM-DD) as a person says it: "Friday, 27 November 2026". */
export function describeDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return `${weekdays[d.getUTCDay()]}, ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

const weekdaysZh = '日一二三四五六';

/** "2024年3月1日星期五" */
function dayZh(d: Date): string {
  return `${d.getUTCFullYear()}年${d.getUTCMonth() + 1}月${d.getUTCDate()}日星期${weekdaysZh[d.getUTCDay()]}`;
}

/** `describeSpan` in Chinese: "2024年3月1日星期五 20:10–20:16（UTC+08:00）". */
export function describeSpanZh(start: Date, end: Date, utcOffsetMin: number): string {
  const { s, times } = spanTimes(start, end, utcOffsetMin, dayZh);
  return `${dayZh(s)} ${times}（${formatOffset(utcOffsetMin)}）`;
}

export function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? 'someone';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The periods a search read its query as naming, in words: “last week” read as 2026-11-16 to 2026-11-22. */
export function periodsRead(periods: readonly { phrase: string; from: string; to: string }[]): string {
  return periods.map((p) => `“${p.phrase}” read as ${p.from === p.to ? p.from : `${p.from} to ${p.to}`}`).join('; ');
}

/** "a photo", "an attachment": a noun with its indefinite article. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
}

/** "1 message", "3 messages", "1 memory", "2 memories": a count with its noun, the noun's last word plural unless it is one. */
export function quantity(n: number, noun: string): string {
  if (n === 1) return `1 ${noun}`;
  const plural = /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : /(?:s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
  return `${n} ${plural}`;
}
