/**
 * Dates a query names ("on 8 May, 2023", "in April 2022", "2021", "2023年5月8日"): a question about a
 * time wants what was said around then first. Absolute dates are read from any query (a stated year or
 * month); a relative one ("last week") only where it is known when the person asks (`relativeAnchors`).
 */
import { isPhatic } from '../text/keywords.js';
import { findTimeMentions } from '../text/relative-time.js';

export interface TimeAnchor {
  /** The named day, month or year, as UTC instants of its first and last moment (dates are read as UTC). */
  start: Date;
  end: Date;
  granularity: 'day' | 'month' | 'year';
  /** The words of the query that name it. */
  phrase: string;
  /** Named relative to when the query is asked ("last week"), not stated ("May 2023"). */
  relative: boolean;
}

/** When a query is asked, on the asker's clock. */
export interface AskedAt {
  now: Date;
  utcOffsetMin: number;
  /**
   * Whether the periods going on now (today, this week) count: a search's do; a companion's opening's
   * are what it is told as recent already.
   */
  current?: boolean;
}

/** A query a person asks now, at this machine (on its clock): periods going on now count. */
export function askedHere(now: Date): AskedAt {
  return { now, utcOffsetMin: -now.getTimezoneOffset(), current: true };
}

const DAY = 86_400_000;

type Period = Omit<TimeAnchor, 'phrase' | 'relative'>;

function span(y: number, m: number | null, d: number | null): Period | null {
  if (y < 1900 || y > 2200) return null;
  if (m === null) return { start: new Date(Date.UTC(y, 0, 1)), end: new Date(Date.UTC(y + 1, 0, 1) - 1), granularity: 'year' };
  if (m < 0 || m > 11) return null;
  if (d === null) return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1) - 1), granularity: 'month' };
  if (d < 1 || d > 31) return null;
  return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1) - 1), granularity: 'day' };
}

const CHINESE_DATE = /(\d{4})\s*年(?:\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?)?/g;
const ISO_DATE = /\b(\d{4})-(\d{2})(?:-(\d{2}))?\b/g;
const BARE_YEAR = /\b(19\d\d|20\d\d|21\d\d)\b/g;

/**
 * chrono-node, loaded by the first query that needs it: loaded, it holds about 26 MB for as long as the
 * app runs, and most queries state no year, so most sessions never need it.
 */
let chrono: Promise<typeof import('chrono-node')> | null = null;

/** Absolute dates in a query, most specific first, without duplicates. */
export async function queryTimeAnchors(text: string): Promise<TimeAnchor[]> {
  // Every form read below states a four-digit year; most queries have none, and chrono costs
  // milliseconds per search.
  if (!/\d{4}/.test(text)) return [];
  const out: TimeAnchor[] = [];
  const covered: [number, number][] = [];
  const add = (a: Period | null, from: number, to: number) => {
    if (!a) return;
    covered.push([from, to]);
    if (!out.some((x) => x.start.getTime() === a.start.getTime() && x.end.getTime() === a.end.getTime()))
      out.push({ ...a, phrase: text.slice(from, to), relative: false });
  };
  const inside = (i: number) => covered.some(([a, b]) => i >= a && i < b);

  for (const m of text.matchAll(CHINESE_DATE)) {
    add(span(Number(m[1]), m[2] ? Number(m[2]) - 1 : null, m[3] ? Number(m[3]) : null), m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(ISO_DATE)) {
    if (!inside(m.index)) add(span(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : null), m.index, m.index + m[0].length);
  }
  // English: chrono, kept only where the year is stated ("May 8" alone could be any year).
  if (/[a-z]/i.test(text)) {
    chrono ??= import('chrono-node');
    for (const r of (await chrono).en.parse(text, new Date(Date.UTC(2000, 0, 1)))) {
      if (inside(r.index)) continue;
      const c = r.start;
      // A stated year, in the words themselves: chrono marks relative results ("last week") certain too.
      if (!c.isCertain('year') || !/\d{4}/.test(r.text)) continue;
      const y = c.get('year')!;
      const month = c.isCertain('month') ? c.get('month')! - 1 : null;
      const day = month !== null && c.isCertain('day') ? c.get('day')! : null;
      add(span(y, month, day), r.index, r.index + r.text.length);
    }
  }
  for (const m of text.matchAll(BARE_YEAR)) if (!inside(m.index)) add(span(Number(m[1]), null, null), m.index, m.index + m[0].length);
  const rank = { day: 0, month: 1, year: 2 } as const;
  return out.sort((a, b) => rank[a.granularity] - rank[b.granularity]);
}

/**
 * The days, weeks, months and years a query names relative to when it is asked ("yesterday", "last
 * week", "上周五", "两个月前"), read on the asker's wall clock: a companion's opening ("how did
 * yesterday's interview go?") is asked at a known moment, so those days can be found. What is going on
 * now, and what is to come ("what do I have tomorrow?": what was said of it before it came), only when
 * `current` says so: the packer's evidence is what was said in and after a period.
 */
export function relativeAnchors(text: string, now: Date, utcOffsetMin: number, current = false): TimeAnchor[] {
  const local = now.getTime() + utcOffsetMin * 60_000;
  const today = Math.floor(local / DAY) * DAY;
  // "2023-05-07", "2023-05" or "2023" as the period `span` makes of it.
  const period = (ymd: string) => {
    const [y, m, d] = ymd.split('-').map(Number);
    return span(y!, m === undefined ? null : m - 1, d ?? null);
  };
  return findTimeMentions(text, now, utcOffsetMin)
    .flatMap((m): TimeAnchor[] => {
      if (m.stated) return [];
      const first = period(m.start);
      const last = m.end ? period(m.end) : first;
      // A week is a run of days: it falls off as a day does.
      return first && last ? [{ start: first.start, end: last.end, granularity: first.granularity, phrase: m.phrase, relative: true }] : [];
    })
    .filter((a) => current || a.end.getTime() < today);
}

/**
 * Every period a query names: its stated dates and, when it is known when it was asked, those named
 * relative to then.
 */
export async function timeAnchors(text: string, asked?: AskedAt): Promise<TimeAnchor[]> {
  const stated = await queryTimeAnchors(text);
  if (!asked) return stated;
  const same = (a: TimeAnchor, b: TimeAnchor) => a.start.getTime() === b.start.getTime() && a.end.getTime() === b.end.getTime();
  const relative = relativeAnchors(text, asked.now, asked.utcOffsetMin, asked.current);
  return [...stated, ...relative.filter((r) => !stated.some((a) => same(a, r)))];
}

/**
 * What a query asks about besides when: its text without the words that name periods relative to now
 * ("dinner last week" asks about dinner). Those words say when, which closeness weighs; matched as
 * words, they would find whatever says "week". A stated date stays: an episode's text says the day it
 * happened on ("talked on Monday, 8 May 2023"), so its words find that day (LoCoMo dev, use-lite, the
 * search path at 1000 words: 0.786 keeping them, 0.780 without).
 */
export function besidesPeriods(text: string, anchors: readonly TimeAnchor[]): string {
  return withoutWords(
    text,
    anchors.filter((a) => a.relative),
  );
}

/** A text without the words that name these periods. */
function withoutWords(text: string, anchors: readonly TimeAnchor[]): string {
  return anchors.reduce((t, a) => t.replace(a.phrase, ' '), text);
}

/** A period a query named, as it was read: the person's words, its first and last day on their clock, the instants it spans. */
export interface ReadPeriod {
  phrase: string;
  from: string;
  to: string;
  since: Date;
  until: Date;
}

/** An anchor as read on the asker's clock. */
export function readPeriod(a: TimeAnchor, asked: AskedAt): ReadPeriod {
  const shift = asked.utcOffsetMin * 60_000;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    phrase: a.phrase,
    from: day(a.start),
    to: day(a.end),
    since: new Date(a.start.getTime() - shift),
    until: new Date(a.end.getTime() - shift),
  };
}

/**
 * Whether a query names periods and nothing to look up in them ("what did I do last weekend?", "what
 * did we talk about in May 2023?", 上周我做了什么): what it asks for is those periods' episodes.
 */
export function namesOnlyPeriods(text: string, anchors: readonly TimeAnchor[]): boolean {
  return anchors.length > 0 && isPhatic(withoutWords(text, anchors));
}

/**
 * How close an instant is to the anchors, 0–1: 1 inside a named period (read in the sender's local
 * time), falling off outside it over a week for a day, a fortnight for a month, two months for a year —
 * people talk about a day in the days after it.
 */
export function closeness(at: Date, utcOffsetMin: number, anchors: readonly TimeAnchor[]): number {
  if (anchors.length === 0) return 0;
  const local = at.getTime() + utcOffsetMin * 60_000;
  let best = 0;
  for (const a of anchors) {
    const scale = a.granularity === 'day' ? 7 * DAY : a.granularity === 'month' ? 14 * DAY : 60 * DAY;
    const d = local < a.start.getTime() ? a.start.getTime() - local : local > a.end.getTime() ? local - a.end.getTime() : 0;
    // Talk comes after the fact more often than before it: distances before the period count double.
    const x = Math.exp(-(local < a.start.getTime() ? 2 * d : d) / scale);
    if (x > best) best = x;
  }
  return best;
}

/** The period to search for candidates of an anchor: the anchor widened by its fall-off. */
export function anchorWindow(a: TimeAnchor): { since: Date; until: Date } {
  const pad = a.granularity === 'day' ? 14 * DAY : a.granularity === 'month' ? 28 * DAY : 90 * DAY;
  return { since: new Date(a.start.getTime() - pad / 2), until: new Date(a.end.getTime() + pad) };
}
