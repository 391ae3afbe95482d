/**
 * Relative time expressions → absolute dates, resolved against the message's own timestamp in the
 * sender's local time zone. Episodes must state absolute dates: "I went hiking yesterday" sent on
 * 2023-05-08 is stored as "I went hiking yesterday (2023-05-07)", so the memory still means something
 * a year later and a query for "May 7" can find it.
 *
 * Everything here is a pure function of (text, ref instant, UTC offset): the result never depends on
 * the time zone of the machine running it.
 *
 * English: chrono-node's casual parser. A result is RELATIVE when re-parsing the text against a
 * reference shifted by 400 days (changing year, month, day and weekday) changes a stated (certain)
 * date component ("yesterday", "next month", "two weeks ago"); otherwise it is absolute and gets no
 * note ("on 8 May 2023", "May 8", "2023-05-07"). An absolute day named with its month's name ("on
 * December 3rd", "8 May 2023") is still returned, marked `stated` (a year it leaves out is chrono's
 * nearest), so what is coming up can be found; other absolute dates are not. Time-only phrases ("at
 * 3pm", "this morning"), hour/minute offsets ("2 hours ago") and "now" are ignored: they do not move
 * the date.
 *
 * Weeks are Monday–Sunday everywhere (ISO 8601), in both languages:
 *   - "last week" / 上周 = the previous Monday–Sunday week; "this week" / 这周 / 本周 = the current
 *     one; "next week" / 下周 = the following one (granularity 'week', start Monday, end Sunday).
 *   - "N weeks ago" / N周前 = the Monday–Sunday week containing the day 7·N days before.
 *   - weekends ("this/last/next weekend", 周末 = 这周末, 上周末, 下周末) = Saturday–Sunday of the
 *     current / previous / next week (granularity 'day', with an end).
 * Weekdays:
 *   - Chinese 上周X / 这周X / 下周X = day X of the previous / current / next Monday–Sunday week. Said on
 *     Monday 2023-05-08, 上周六 = 2023-05-06; said on Sunday 2023-05-07, 上周六 = 2023-04-29 (the
 *     current week, Mon 05-01 … Sun 05-07, already contains 05-06).
 *   - English "last X" keeps chrono's rule: the most recent X strictly before today (1–7 days back).
 *     Said on Monday 2023-05-08 "last Saturday" = 2023-05-06, and on Sunday 2023-05-07 it is also
 *     2023-05-06 ("last" in English usually means "the one just past", unlike 上周X).
 *   - English "next X" keeps chrono's rule, which is exactly "X of the next Monday–Sunday week"
 *     (said on Monday 2023-05-08, "next Tuesday" = 2023-05-16, not tomorrow).
 *   - English "this X" is overridden to "X of the current Monday–Sunday week" (chrono would always
 *     look forward, so "this Monday" said on a Wednesday would become next week's Monday; in a
 *     conversation about what happened it means two days ago).
 *   - A bare English weekday ("on Saturday") is resolved only where its sentence's tense leaves no
 *     doubt (`byTense`): "we went hiking on Saturday" is the Saturday just past, "I have my
 *     interview on Friday" and "want to rehearse on Wednesday?" the coming ones; "on Saturday", "every
 *     Saturday", a habit ("I usually have yoga on Monday", "Sunday is my day off") and the sender's own
 *     weekday are not, since a wrong absolute date is worse than none.
 *     A bare Chinese weekday likewise: 我周五有面试 is the coming Friday, 周六我们去爬山了 the Saturday
 *     just past; 周六很开心 and 每周三 are not dated. A day something is arranged for ("a table for
 *     Friday") or a plan is moved to ("moved my interview to Monday", 改到周三) is to come, whatever
 *     the tense. A weekday with its day of the month ("Saturday the 5th") is the nearest such day.
 * Days of the month named alone ("on the 5th", "by the 21st", 我5号要飞东京) are dated by tense the
 * same way. Ranges of days stated with their month keep their last day ("December 3rd to 7th",
 * "Dec 3-7", 12月3日到7日); a day stated in a sentence about a birthday, a birth or an anniversary
 * (生日, 出生, 纪念日) is marked `yearly`: it comes round again.
 *
 * Chinese: chrono's zh parser was checked (chrono-node 2.10.3) and not used: it does not parse
 * 下个月 / 上个月 / 去年 / 周末 / 上周末 / 两周前 at all, its 上周X counts weeks from Sunday, its 明天
 * stays "today" before 02:00, and it reads the reference in the machine's local time zone rather
 * than the sender's. A small table-driven resolver covers the common expressions instead:
 * 大前天 前天 昨天 今天 明天 后天 大后天 (and 昨晚 今晚 明早 …); 上上周/上周/这周/本周/下周/下下周 with an
 * optional weekday (一…日, 星期天/礼拜天) or 末; bare 周末; N天/N周/N个星期/N个月/N年 + 前/后 (之前, 以后 …)
 * with Arabic or Chinese numerals (一二两三…十…百, 半个月, 半年); 上个月/这个月/本月/下个月 (初/底/末);
 * 大前年 前年 去年 今年 明年 后年 大后年; and a day stated with its month (12月3日, 2026年12月3号), kept
 * as `stated` with the nearest year when none is said. A match must start at an Intl.Segmenter word
 * boundary, which rejects substrings of other words (然后|天黑 is not 后天, 登上|月球 is not 上月,
 * 之前|天气 is not 前天).
 *
 * Dates: 'day' → YYYY-MM-DD, 'month' → YYYY-MM, 'year' → YYYY; 'week' and weekends carry an end.
 */
// The English parser alone: chrono-node's root loads every locale, ~140 ms more at every start.
import * as chrono from 'chrono-node/en';
import type { ParsedResult } from 'chrono-node';
import { clockTimes, type ClockTime } from './clock-time.js';
import type { z } from 'zod';
import type { TimeReference } from '../domain/episode.js';
import { wordSegments } from './word-segments.js';

export type TimeGranularity = 'day' | 'week' | 'month' | 'year';

export interface TimeMention {
  /** The phrase as it appears in the text. */
  phrase: string;
  /** UTF-16 offset of `phrase` in the text. */
  index: number;
  /** YYYY-MM-DD ('day', 'week'), YYYY-MM ('month') or YYYY ('year'). */
  start: string;
  /** Last day of a range (weeks, weekends, "from yesterday to today"), same format as start. */
  end?: string;
  granularity: TimeGranularity;
  /** The text states this day itself ("on December 3rd"): no note is written after it. */
  stated?: true;
  /** A stated day that comes round every year: a birthday ("born on", 出生), an anniversary (生日, 纪念日). */
  yearly?: true;
  /**
   * The time of day said with a single day ("Monday 9am", "at 3pm on Friday", 周四下午三点), in
   * minutes after midnight on the speaker's clock.
   */
  clock?: number;
}

/* ---------------- civil-calendar helpers (no time zones: plain Y-M-D arithmetic in UTC) -------- */

interface CivilDate {
  y: number;
  /** 1–12 */
  m: number;
  d: number;
}

function civil(y: number, m: number, d: number): CivilDate {
  const t = new Date(Date.UTC(y, m - 1, d)); // normalises overflow: (2023, 5, 0) → 2023-04-30
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

function addDays(c: CivilDate, n: number): CivilDate {
  return civil(c.y, c.m, c.d + n);
}

/** Monday = 0 … Sunday = 6 */
function isoWeekday(c: CivilDate): number {
  return (new Date(Date.UTC(c.y, c.m - 1, c.d)).getUTCDay() + 6) % 7;
}

/** Monday of the week `weekOffset` weeks away from the week containing `c`. */
function mondayOf(c: CivilDate, weekOffset = 0): CivilDate {
  return addDays(c, -isoWeekday(c) + 7 * weekOffset);
}

function addMonths(c: CivilDate, n: number): { y: number; m: number } {
  const total = c.y * 12 + (c.m - 1) + n;
  return { y: Math.floor(total / 12), m: (((total % 12) + 12) % 12) + 1 };
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const fmtYear = (y: number): string => pad(y, 4);
const fmtMonth = (y: number, m: number): string => `${fmtYear(y)}-${pad(m, 2)}`;
const fmtDay = (c: CivilDate): string => `${fmtMonth(c.y, c.m)}-${pad(c.d, 2)}`;

const dayMention = (phrase: string, index: number, c: CivilDate): TimeMention => ({
  phrase,
  index,
  start: fmtDay(c),
  granularity: 'day',
});
const weekMention = (phrase: string, index: number, monday: CivilDate): TimeMention => ({
  phrase,
  index,
  start: fmtDay(monday),
  end: fmtDay(addDays(monday, 6)),
  granularity: 'week',
});
/** Saturday–Sunday of the week starting `monday`. */
const weekendMention = (phrase: string, index: number, monday: CivilDate): TimeMention => ({
  phrase,
  index,
  start: fmtDay(addDays(monday, 5)),
  end: fmtDay(addDays(monday, 6)),
  granularity: 'day',
});
const monthMention = (phrase: string, index: number, ym: { y: number; m: number }): TimeMention => ({
  phrase,
  index,
  start: fmtMonth(ym.y, ym.m),
  granularity: 'month',
});
const yearMention = (phrase: string, index: number, y: number): TimeMention => ({
  phrase,
  index,
  start: fmtYear(y),
  granularity: 'year',
});

interface WallClock {
  date: CivilDate;
  hour: number;
  minute: number;
  second: number;
}

/** The sender's wall clock at `ref`: shift the instant by the offset and read it as UTC. */
function wallClock(ref: Date, utcOffsetMinutes: number): WallClock {
  const t = new Date(ref.getTime() + utcOffsetMinutes * 60_000);
  return {
    date: { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() },
    hour: t.getUTCHours(),
    minute: t.getUTCMinutes(),
    second: t.getUTCSeconds(),
  };
}

/* ---------------- Chinese ---------------- */

const ZH_DAY_OFFSETS: Readonly<Record<string, number>> = {
  大前天: -3,
  前天: -2,
  昨天: -1,
  昨日: -1,
  昨晚: -1,
  昨夜: -1,
  今天: 0,
  今日: 0,
  今晚: 0,
  今早: 0,
  今夜: 0,
  明天: 1,
  明日: 1,
  明晚: 1,
  明早: 1,
  后天: 2,
  大后天: 3,
};
const ZH_YEAR_OFFSETS: Readonly<Record<string, number>> = {
  大前年: -3,
  前年: -2,
  去年: -1,
  今年: 0,
  明年: 1,
  后年: 2,
  大后年: 3,
};
/** 上/下 + 周|个月 prefixes: how many weeks / months away. */
const ZH_RELATIVE_PREFIX: Readonly<Record<string, number>> = { 上上: -2, 上: -1, 这: 0, 本: 0, 下: 1, 下下: 2 };
const ZH_WEEKDAY: Readonly<Record<string, number>> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6 };
const ZH_DIGIT: Readonly<Record<string, number>> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
/** Largest count accepted per unit; beyond it the "number" is more likely a year (2020年前) or noise. */
const ZH_MAX_COUNT = { day: 3650, week: 520, month: 1200, year: 200 } as const;

const alternatives = (keys: readonly string[]): string => [...keys].sort((a, b) => b.length - a.length).join('|');
const PREFIX_ALT = alternatives(Object.keys(ZH_RELATIVE_PREFIX));

/**
 * One pass over the text; alternatives are tried left to right at each position, so a count phrase
 * (三天前) wins over the day word inside it and 大前天 wins over 前天.
 */
const ZH_PATTERN = new RegExp(
  [
    // N天前 / 两周后 / 三个星期之前 / 五个月以后 / 十年前 / 半年前 (月 needs 个 unless 半: 三月前 may mean "before March")
    `(?<!第)(?<num>[0-9０-９]+|[零〇一二两三四五六七八九十百]+|半)(?<unit>天|个?(?:周|星期|礼拜)|个?月|年)(?:之|以)?(?<dir>前|后)(?!往)`,
    // 上周 / 这周三 / 下个星期天 / 上周末 / 下下周
    `(?<wp>${PREFIX_ALT})个?(?:周(?:(?<wd1>[一二三四五六日])|(?<we>末))?|(?:星期|礼拜)(?<wd2>[一二三四五六日天])?)(?!期)`,
    // bare 周末 (每周末 / 每个周末 are habits, not dates)
    `(?<![每个])(?<bw>周末)`,
    // a bare weekday, 周五 / 星期天 (每周五 is a habit): dated by the tense of its sentence
    `(?<![每个上下这本])(?:周|星期|礼拜)(?<bwd>[一二三四五六日天])(?!期)`,
    // 上个月 / 本月 / 下个月底
    `(?<mp>${PREFIX_ALT})个?月(?:初|底|末|中旬|上旬|下旬)?`,
    // a day stated with its month, 12月3日 / 2026年12月3号 (kept as stated, no note): before 年 alone
    `(?<![0-9])(?:(?<zy>[0-9]{4})年)?(?<zm>[0-9]{1,2})月(?<zd>[0-9]{1,2})[日号](?:(?:到|至|[-–~～])(?:(?<zm2>[0-9]{1,2})月)?(?<zd2>[0-9]{1,2})[日号])?`,
    // a day of the month alone, 5号 (我5号要飞东京), dated by the tense of its sentence; not 5号楼, 3号线
    `(?<![0-9０-９月第])(?<bdm>[0-9]{1,2})号(?=[上下早中晚那之以前后到至开出回飞去来见要有就已刚才再还也都会在我你他她，。！？、,.!?\\s]|$)`,
    `(?<yw>${alternatives(Object.keys(ZH_YEAR_OFFSETS))})(?:初|底|末)?`,
    `(?<dw>${alternatives(Object.keys(ZH_DAY_OFFSETS))})`,
  ].join('|'),
  'g',
);
/** Cheap pre-check so texts without any candidate never reach the regex engine or the segmenter. */
const ZH_HINT = /[天日晚早夜周星拜末月年号]/;

function parseZhNumber(s: string): number | null {
  if (/^[0-9０-９]+$/.test(s)) {
    return Number(s.replace(/[０-９]/g, (c) => String(c.charCodeAt(0) - 0xff10)));
  }
  if (s === '半') return 0.5;
  let total = 0;
  let digit: number | null = null;
  for (const ch of s) {
    if (ch === '十' || ch === '百') {
      total += (digit ?? 1) * (ch === '十' ? 10 : 100);
      digit = null;
    } else if (ch === '零' || ch === '〇') {
      continue; // placeholder, as in 一百零五
    } else {
      // Two digits in a row (一两, 三四) is a vague range ("one or two"), not a number.
      if (digit !== null) return null;
      digit = ZH_DIGIT[ch] ?? null;
      if (digit === null) return null;
    }
  }
  total += digit ?? 0;
  return total > 0 ? total : null;
}

function wordStarts(text: string): Set<number> {
  const starts = new Set<number>();
  for (const s of wordSegments(text)) starts.add(s.index);
  return starts;
}

/** What a plan is called, in the words people jot one down with ("Dentist on Friday at 4", 周四下午复诊). */
const EN_PLANS =
  /\b(?:appointments?|meetings?|interviews?|exams?|tests?|flights?|trips?|visits?|dinner|lunch|brunch|party|class|lessons?|lectures?|seminars?|workshops?|conference|training|practice|calls?|check-?ups?|dentist|doctor|physio|therapy|vet|haircut|surgery|operation|deadline|presentation|demo|concert|gig|match|recital|drinks|movies?|film|cinema|picnic|barbecue|bbq|karaoke|wedding|funeral|graduation|ceremony|rehearsal|shift|reservation|viewing|move|moving|movers|removals|keys|new (?:flat|apartment|house|home|place|job))\b/i;
const ZH_PLANS =
  /预约|面试|开会|会议|考试|考驾照|驾考|路考|航班|约会|聚会|聚餐|吃饭|晚饭|午饭|晚餐|午餐|早餐|夜宵|电影|唱歌|野餐|烧烤|爬山|徒步|见面|复诊|体检|手术|看牙|看病|培训|讲座|婚礼|葬礼|毕业典礼|演出|出差|旅行|搬家|入住|交房|收房|看房|钥匙|入职|出发|高铁|火车|飞机/;
/** Verbs of a timetable, whose present speaks of a day to come: "Maya flies in on Sunday". */
const EN_TIMETABLE = 'arrives|arriving|leaves|leaving|flies|flying|lands|landing|departs|starts|starting|begins|returns';
const EN_TIMETABLED = new RegExp(`\\b(?:${EN_TIMETABLE})\\b`, 'i');

/**
 * Whether a text names a plan ("the interview", 复诊, "Maya flies in"), not only a day and how one
 * feels about it ("so nervous about Friday").
 */
export function namesPlan(text: string): boolean {
  return EN_PLANS.test(text) || ZH_PLANS.test(text) || EN_TIMETABLED.test(text);
}

/**
 * The tense of the sentence a bare Chinese weekday stands in: done (了, 已经, 刚, 昨天) or to come (要,
 * 会, 打算, 准备, 再, 明天, and 有 / 是 / 能, the present, which with a weekday speaks of the coming
 * one: 我周五有面试). Both, or neither: no tense.
 */
const ZH_TENSE: Tense = {
  ends: ['。', '！', '？', '；', '!', '?', '\n'],
  // Not the 了 of an appointment made (约了, 约好了, 订了, 定了): what was arranged is to come.
  past: /(?<!约|约好|订|定)了|已经|刚|昨天|上次/,
  // 会 as "will", not the 会 of 聚会, 开会, 会议, 约会, 机会, 晚会, 社会.
  future: /要|(?<![聚开约机晚社宴])会(?!议)|将|打算|准备|计划|想|再|明天|下次|有|是|能|可以|约了|约好|订了|定了/,
  // Moved to the day, or an appointment made for it (约了周四, 订了周五的票).
  ahead: (before) => /(?:改到|改成|改在|推到|推迟到|延到|延期到|延后到|挪到|约了|约好了?|约在|订了|订在|定了|定在)$/.test(before),
  behind: /自从$/,
  habit: /通常|一般|总是|经常|往往|平时|每次/,
  plans: ZH_PLANS,
  awaits: /什么时候|见\s*$/,
  judged: /很|真|太|不错|开心|难忘|好玩|好累|无聊|辛苦/,
};

function resolveZh(
  g: Record<string, string | undefined>,
  phrase: string,
  index: number,
  today: CivilDate,
  text: string,
  earlier: readonly TimeMention[],
  answering: string | undefined,
): TimeMention | null {
  if (g.num !== undefined && g.unit !== undefined && g.dir !== undefined) {
    const n = parseZhNumber(g.num);
    if (n === null) return null;
    const sign = g.dir === '前' ? -1 : 1;
    const unit = g.unit.replace('个', '');
    if (unit === '天') {
      if (!Number.isInteger(n) || n > ZH_MAX_COUNT.day) return null;
      return dayMention(phrase, index, addDays(today, sign * n));
    }
    if (unit === '月') {
      if (n === 0.5) return weekMention(phrase, index, mondayOf(addDays(today, sign * 15))); // 半个月 ≈ 15 days
      if (!g.unit.startsWith('个') || !Number.isInteger(n) || n > ZH_MAX_COUNT.month) return null;
      return monthMention(phrase, index, addMonths(today, sign * n));
    }
    if (unit === '年') {
      if (n === 0.5) return monthMention(phrase, index, addMonths(today, sign * 6));
      if (!Number.isInteger(n) || n > ZH_MAX_COUNT.year) return null;
      return yearMention(phrase, index, today.y + sign * n);
    }
    // 周 / 星期 / 礼拜
    if (!Number.isInteger(n) || n > ZH_MAX_COUNT.week) return null;
    return weekMention(phrase, index, mondayOf(addDays(today, sign * 7 * n)));
  }
  if (g.wp !== undefined) {
    const monday = mondayOf(today, ZH_RELATIVE_PREFIX[g.wp] ?? 0);
    if (g.we !== undefined) return weekendMention(phrase, index, monday);
    const wd = g.wd1 ?? g.wd2;
    if (wd !== undefined) return dayMention(phrase, index, addDays(monday, ZH_WEEKDAY[wd] ?? 0));
    return weekMention(phrase, index, monday);
  }
  if (g.bw !== undefined) return weekendMention(phrase, index, mondayOf(today)); // 周末 = 这周末
  if (g.zm !== undefined && g.zd !== undefined) {
    const m = Number(g.zm);
    const d = Number(g.zd);
    if (m < 1 || m > 12 || d < 1 || d > 31) return null;
    // A year left out is the nearest: 12月3日 said in November is this December's.
    const years = g.zy !== undefined ? [Number(g.zy)] : [today.y - 1, today.y, today.y + 1];
    const away = (y: number) => Math.abs(Date.UTC(y, m - 1, d) - Date.UTC(today.y, today.m - 1, today.d));
    const y = years.reduce((a, b) => (away(b) < away(a) ? b : a));
    const day = civil(y, m, d);
    if (day.m !== m) return null; // 2月30日
    const stated: TimeMention = { ...dayMention(phrase, index, day), stated: true };
    if (g.zd2 === undefined) return stated;
    // 12月3日到7日, 12月30日至1月2日: the range's end, in the next year if its month comes round again.
    const m2 = g.zm2 === undefined ? m : Number(g.zm2);
    const last = civil(m2 < m ? y + 1 : y, m2, Number(g.zd2));
    return fmtDay(last) > stated.start && last.m === m2 ? { ...stated, end: fmtDay(last) } : stated;
  }
  if (g.bwd !== undefined) {
    const day = byTense(text, { index, phrase }, today, onWeekday(ZH_WEEKDAY[g.bwd] ?? 0), ZH_TENSE, earlier, answering);
    return day && dayMention(phrase, index, day);
  }
  if (g.bdm !== undefined) {
    const d = Number(g.bdm);
    const day = d >= 1 && d <= 31 ? byTense(text, { index, phrase }, today, onDayOfMonth(d), ZH_TENSE, earlier, answering) : null;
    return day && dayMention(phrase, index, day);
  }
  if (g.mp !== undefined) return monthMention(phrase, index, addMonths(today, ZH_RELATIVE_PREFIX[g.mp] ?? 0));
  if (g.yw !== undefined) return yearMention(phrase, index, today.y + (ZH_YEAR_OFFSETS[g.yw] ?? 0));
  if (g.dw !== undefined) return dayMention(phrase, index, addDays(today, ZH_DAY_OFFSETS[g.dw] ?? 0));
  return null;
}

function findChineseMentions(text: string, today: CivilDate, answering: string | undefined): TimeMention[] {
  if (!ZH_HINT.test(text)) return [];
  const out: TimeMention[] = [];
  let starts: Set<number> | null = null;
  for (const m of text.matchAll(ZH_PATTERN)) {
    const index = m.index;
    starts ??= wordStarts(text);
    if (!starts.has(index)) continue; // the match begins inside another word
    const mention = resolveZh(m.groups ?? {}, m[0], index, today, text, out, answering);
    if (mention !== null) out.push(mention);
  }
  return out;
}

/* ---------------- English (chrono-node) ---------------- */

/** Words without which chrono cannot produce a relative date or a day named with its month; skips chrono for most messages. */
const EN_HINT =
  /\b(?:yesterday|today|tonight|tomorrow|tmrw?|ago|later|last|next|this|past|from now|within|in\s+(?:a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several|couple)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+\d{1,2}(?:st|nd|rd|th)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d+(?:st|nd|rd|th)?|\d+(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b/i;
const EN_WEEK_PHRASE = /^(?:the\s+)?(this|last|next|past|previous|coming)\s+week$/i;
const EN_MODIFIER = /\b(this|last|past|next)\b/i;
const EN_WEEKEND = /\bweekend\b/i;
const EN_MONTH_NAME = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/i;
const EN_WEEK_UNIT = /\bweeks?\b/i;
const EN_WEEK_BEYOND = /\b(?:the\s+)?(week|weekend)\s+(after\s+next|before\s+last)\b/gi;
/**
 * Days counted from a day the story told, not from the message: "the next day it rained", "a week later
 * she called" (chrono reads them as tomorrow and next week).
 */
const EN_NARRATED = /^(?:(?:the\s+)?(?:next|following)\s+day|.+\s+later)$/i;
/** How long, not when: chrono reads "for a week" as "in a week" ("she is staying for a week", "for two days"). */
const EN_DURATION =
  /^for\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a\s+few|a\s+couple(?:\s+of)?|several|another)\s+(?:more\s+)?(?:days?|nights?|weeks?|months?|years?|hours?|minutes?)$/i;
const EN_LEADING_JUNK = /^[\s,(（]+/;
const EN_TRAILING_JUNK = /[\s,)）]+$/;
/**
 * The tense of the sentence a bare weekday stands in, read from words that leave no doubt: a verb in
 * the past ("went", "did", "I cooked") or "ago"/"yesterday"; what is to come ("will", "going to",
 * "want to", "tomorrow") or the present, which with a weekday speaks of the coming one ("I have my
 * interview on Friday", "are you free on Friday?"). Something arranged ("I booked a table on Friday")
 * is both: done, for a day that may be to come. Both, or neither: no tense.
 */
const EN_PAST =
  /\b(?:was|were|wasn'?t|weren'?t|did|didn'?t|had|hadn'?t|went|came|saw|met|got|told|said|made|took|left|spent|bought|gave|found|felt|thought|ate|drove|flew|won|lost|began|wrote|ago|yesterday|last)\b|\b(?:i|we|he|she|they|you)\s+(?:\w+ly\s+)?(?!(?:n|f|bl|br|sp|proc|succ|exc|s|h)eed\b)\w+ed\b/i;
// With the present of what keeps a timetable: "Maya flies in on Sunday", "my course starts on Monday".
const EN_FUTURE = new RegExp(
  `\\b(?:will|won'?t|shall|gonna|going to|wanna|want to|wants to|plan to|planning|let'?s|tomorrow|next|upcoming|until|till|am|is|are|have|has|need|needs|can|could|should|booked|reserved|scheduled|rescheduled|postponed|arranged|planned|signed up|registered|opens|comes|coming|${EN_TIMETABLE})\\b|['’](?:ll|re|m)\\b`,
  'i',
);
/**
 * After a weekday, the day of the month that fixes it: "Saturday the 5th", "Sat, 5th" (with its month
 * after it, "Friday the 20th of November", the date is stated and chrono reads it).
 */
const EN_WEEKDAY_DATE =
  /^,?\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)/i;
/**
 * "on the 5th", "by the 21st.": a day of the month alone, after a word that makes it a date and
 * before the end of what it says ("on the 5th floor", "the 3rd of May" are not this).
 */
const EN_DAY_OF_MONTH =
  /\b(?:on|by|until|till|before|after|from|since|for)\s+(the\s+(\d{1,2})(?:st|nd|rd|th))\b(?=\s*(?:$|[.,!?;:)\n]|(?:at|and|or|then|so|when|in|for|with|morning|afternoon|evening|night)\b))/gi;
/** "every Tuesday", "each Friday": a habit, not a day. */
const EN_HABIT = /\b(?:every|each)\s+$/i;

/** How a language's sentences end and what says their tense, for `byTense`. */
interface Tense {
  ends: readonly string[];
  past: RegExp;
  future: RegExp;
  /**
   * Whether the words just before the day (`before`) make it one to come whatever the tense: "a table
   * for Friday", "moved my interview to Monday", 改到周一.
   */
  ahead: (before: string, sentence: string) => boolean;
  /** …or that it was ("since Monday", 自从周一)… */
  behind: RegExp;
  /** Words that make the day a habit, not a date: "I usually have yoga on Monday", 我平时周三去游泳. */
  habit: RegExp;
  /**
   * What makes a sentence without a tense speak of a day to come: a plan named without a verb, the
   * way people jot them down ("Physio appointment on Thursday at 4", "Dinner with Sam on Saturday?",
   * 周四下午复诊)…
   */
  plans: RegExp;
  /** …words that await a day: a farewell until then ("see you Monday", 周一晚上见), a question of when (什么时候)… */
  awaits: RegExp;
  /** …unless it judges the day, which then was: "Great dinner on Saturday!", 周六聚会很开心. */
  judged: RegExp;
}

const EN_TENSE: Tense = {
  ends: ['.', '!', '?', ';', '\n'],
  past: EN_PAST,
  future: EN_FUTURE,
  ahead: (before, sentence) =>
    /\bfor\s+$/i.test(before) ||
    (/\b(?:to|till|until)\s+$/i.test(before) && /\b(?:moved|postponed|rescheduled|pushed|bumped|shifted|delayed)\b/i.test(sentence)),
  behind: /\bsince\s+$/i,
  habit: /\b(?:usually|always|often|normally|generally|typically|never|days? off)\b/i,
  plans: EN_PLANS,
  awaits: /\bsee you\b/i,
  // Not "good luck", which wishes it well.
  judged:
    /\b(?:great|fun|nice|amazing|awesome|lovely|wonderful|terrible|awful|horrible|good(?! luck)|bad|best|worst|boring|tiring|exhausting|stressful|brutal|thanks?)\b/i,
};

/**
 * The day a weekday or a day of the month named alone is (周五 without 上/这/下, "on the 5th" without
 * its month; `is` says which days it can be), from the tense of its sentence — or, without one, of
 * the question it answers: the one just past or the coming one (a plan jotted down without a verb is
 * to come: `Tense.plans`) — and, to come, not before a day the sentence named already ("back on
 * Wednesday" after "Monday", 下周二手术，周三回来 is the Wednesday after). None when today is such a
 * day (today, or a week away?), when the sentence speaks of a habit, or when it does not say.
 */
function byTense(
  text: string,
  at: { index: number; phrase: string },
  today: CivilDate,
  is: (c: CivilDate) => boolean,
  tense: Tense,
  earlier: readonly TimeMention[],
  answering: string | undefined,
): CivilDate | null {
  if (is(today)) return null;
  const { from, sentence } = sentenceAround(text, at, tense.ends);
  if (tense.habit.test(sentence)) return null;
  const before = text.slice(Math.max(0, at.index - 8), at.index);
  const ahead = tense.ahead(before, sentence);
  let said = tense.behind.test(before) ? 'past' : tenseOf(sentence, ahead, tense, false);
  // A sentence without a tense of its own that answers a question takes the question's: "When is your
  // interview?" — "Friday at 10.", "How was the weekend?" — "Sunday brunch with Sam". Only then is a
  // plan named without a verb read as one to come.
  if (said === 'none' && answering !== undefined) said = tenseOf(lastSentence(answering, tense.ends), false, tense, true);
  if (said === 'none') said = tenseOf(sentence, ahead, tense, true);
  if (said === 'none' || said === 'both') return null;
  const past = said === 'past';
  const notBefore = past
    ? undefined
    : earlier.filter((m) => m.index >= from && m.index < at.index && m.granularity === 'day').at(-1)?.start;
  let day = today;
  for (let i = 0; i < MAX_SCAN_DAYS; i++) {
    day = addDays(day, past ? -1 : 1);
    if (is(day) && (notBefore === undefined || fmtDay(day) >= notBefore)) return day;
  }
  return null;
}

/**
 * Whether a sentence speaks of what was or what is to come (`ahead`: the words before the day say it
 * is to come), both, or neither; with `jotted`, a plan named without a verb is to come.
 */
function tenseOf(sentence: string, ahead: boolean, tense: Tense, jotted: boolean): 'past' | 'to come' | 'both' | 'none' {
  const past = !ahead && tense.past.test(sentence);
  const planned = jotted && (tense.plans.test(sentence) || tense.awaits.test(sentence));
  const toCome = ahead || tense.future.test(sentence) || (!past && planned && !tense.judged.test(sentence));
  return past && toCome ? 'both' : past ? 'past' : toCome ? 'to come' : 'none';
}

/** The last sentence of a text, without what ends it. */
function lastSentence(text: string, stops: readonly string[]): string {
  let end = text.length;
  while (end > 0 && (stops.includes(text[end - 1]!) || /\s/.test(text[end - 1]!))) end--;
  const from = Math.max(...stops.map((c) => text.lastIndexOf(c, end - 1))) + 1;
  return text.slice(from, end);
}

/** The sentence `at` stands in (where it starts in the text, and its words without `at`'s phrase). */
function sentenceAround(text: string, at: { index: number; phrase: string }, stops: readonly string[]): { from: number; sentence: string } {
  const from = Math.max(...stops.map((c) => text.lastIndexOf(c, at.index - 1))) + 1;
  const ends = stops.map((c) => text.indexOf(c, at.index + at.phrase.length)).filter((i) => i >= 0);
  return { from, sentence: text.slice(from, ends.length ? Math.min(...ends) : text.length).replace(at.phrase, ' ') };
}

/** How far `byTense` and `nearestDay` look: every weekday of every day of the month comes round within it. */
const MAX_SCAN_DAYS = 400;

/** The day nearest to today, before or after (today itself first), that `is` accepts. */
function nearestDay(today: CivilDate, is: (c: CivilDate) => boolean): CivilDate | null {
  for (let i = 0; i < MAX_SCAN_DAYS; i++) {
    for (const day of i === 0 ? [today] : [addDays(today, i), addDays(today, -i)]) if (is(day)) return day;
  }
  return null;
}

const onWeekday = (weekday: number) => (c: CivilDate) => isoWeekday(c) === weekday;
const onDayOfMonth = (d: number) => (c: CivilDate) => c.d === d;

/** Days added to the reference for the "is it relative?" re-parse: moves year, month, day and weekday. */
const SHIFT_DAYS = 400;

function resultDate(c: { get(component: 'year' | 'month' | 'day'): number | null }): CivilDate | null {
  const y = c.get('year');
  const m = c.get('month');
  const d = c.get('day');
  return y === null || m === null || d === null ? null : { y, m, d };
}

function findEnglishMentions(text: string, wall: WallClock, answering: string | undefined): TimeMention[] {
  if (!EN_HINT.test(text)) return [];
  const today = wall.date;
  // chrono reads the reference's fields in the machine's zone: build a Date whose local fields ARE the
  // sender's wall clock, so every chrono computation happens in the sender's calendar.
  const refLocal = new Date(today.y, today.m - 1, today.d, wall.hour, wall.minute, wall.second);
  const results = chrono.casual.parse(text, refLocal);
  let shifted: Map<string, ParsedResult> | null = null;
  const out: TimeMention[] = [];

  for (const r of results) {
    const tags = r.tags();
    if (tags.has('casualReference/now') || tags.has('result/relativeDateAndTime')) continue;
    // chrono's weekday pattern may swallow "(", "," or "on" around the phrase.
    const lead = EN_LEADING_JUNK.exec(r.text)?.[0].length ?? 0;
    const phrase = r.text.slice(lead).replace(EN_TRAILING_JUNK, '');
    const index = r.index + lead;
    if (phrase.length === 0 || EN_DURATION.test(phrase) || EN_NARRATED.test(phrase)) continue;

    const week = EN_WEEK_PHRASE.exec(phrase);
    if (week) {
      const mod = week[1]!.toLowerCase();
      if (mod === 'past') {
        // "the past week" is the rolling seven days ending today, not a calendar week.
        out.push({ phrase, index, start: fmtDay(addDays(today, -6)), end: fmtDay(today), granularity: 'day' });
      } else {
        const offset = mod === 'this' ? 0 : mod === 'last' || mod === 'previous' ? -1 : 1;
        out.push(weekMention(phrase, index, mondayOf(today, offset)));
      }
      continue;
    }

    if (r.start.isCertain('weekday') && !r.start.isCertain('day')) {
      const mod = EN_MODIFIER.exec(phrase)?.[1]?.toLowerCase();
      if (mod === undefined) {
        const weekday = r.start.get('weekday');
        if (weekday === null || EN_HABIT.test(text.slice(Math.max(0, index - 8), index))) continue;
        const wd = (weekday + 6) % 7; // chrono's weekday is Sunday = 0
        // "Saturday the 5th": the day of the month says which Saturday, whatever the tense.
        const dated = EN_WEEKDAY_DATE.exec(text.slice(index + phrase.length));
        const d = Number(dated?.[1]);
        if (dated && d >= 1 && d <= 31) {
          const day = nearestDay(today, (c) => isoWeekday(c) === wd && c.d === d);
          if (day) out.push(dayMention(phrase + dated[0], index, day));
          continue;
        }
        const day = byTense(text, { index, phrase }, today, onWeekday(wd), EN_TENSE, out, answering);
        if (day) out.push(dayMention(phrase, index, day));
        continue;
      }
      if (EN_WEEKEND.test(phrase)) {
        const offset = mod === 'this' ? 0 : mod === 'next' ? 1 : -1;
        out.push(weekendMention(phrase, index, mondayOf(today, offset)));
        continue;
      }
      const weekday = r.start.get('weekday');
      if (mod === 'this' && weekday !== null) {
        out.push(dayMention(phrase, index, addDays(mondayOf(today), (weekday + 6) % 7)));
        continue;
      }
      const date = resultDate(r.start);
      if (date) out.push(dayMention(phrase, index, date));
      continue;
    }

    const certainDay = r.start.isCertain('day');
    const certainMonth = r.start.isCertain('month');
    const certainYear = r.start.isCertain('year');
    if (!certainDay && !certainMonth && !certainYear) continue; // time of day only: "at 3pm"

    if (shifted === null) {
      const refShifted = new Date(today.y, today.m - 1, today.d + SHIFT_DAYS, wall.hour, wall.minute, wall.second);
      shifted = new Map(chrono.casual.parse(text, refShifted).map((s) => [`${s.index}:${s.text}`, s]));
    }
    const twin = shifted.get(`${r.index}:${r.text}`);
    if (twin === undefined) continue;
    const moved = (['year', 'month', 'day'] as const).some((c) => r.start.isCertain(c) && r.start.get(c) !== twin.start.get(c));
    const start = resultDate(r.start);
    if (start === null) continue;
    if (!moved) {
      // Absolute: the text itself fixes every component it states. A day it names by its month's name
      // ("on December 3rd") is kept as stated, for what is coming up; no note is written after it.
      if (certainDay && certainMonth && EN_MONTH_NAME.test(phrase)) {
        // "December 3rd to 7th", "Dec 3-7": the range's last day too.
        const end = r.end?.isCertain('day') ? resultDate(r.end) : null;
        out.push({
          ...dayMention(phrase, index, start),
          ...(end && fmtDay(end) > fmtDay(start) ? { end: fmtDay(end) } : {}),
          stated: true,
        });
      }
      continue;
    }
    if (EN_WEEK_UNIT.test(phrase)) {
      out.push(weekMention(phrase, index, mondayOf(start))); // "two weeks ago", "in a week"
    } else if (certainDay) {
      const end = r.end ? resultDate(r.end) : null;
      const m = dayMention(phrase, index, start);
      if (end) m.end = fmtDay(end);
      out.push(m);
    } else if (certainMonth) {
      out.push(monthMention(phrase, index, start));
    } else {
      out.push(yearMention(phrase, index, start.y));
    }
  }
  // "the week after next", "the weekend before last": chrono reads the week after, or a Saturday.
  for (const m of text.matchAll(EN_WEEK_BEYOND)) {
    const monday = mondayOf(today, /after/i.test(m[2]!) ? 2 : -2);
    out.push(/end$/i.test(m[1]!) ? weekendMention(m[0], m.index, monday) : weekMention(m[0], m.index, monday));
  }
  // "on the 5th", which chrono leaves alone: the 5th just past or to come, as the sentence's tense says.
  for (const m of text.matchAll(EN_DAY_OF_MONTH)) {
    const phrase = m[1]!;
    const index = m.index + m[0].length - phrase.length;
    const d = Number(m[2]);
    const day = d >= 1 && d <= 31 ? byTense(text, { index, phrase }, today, onDayOfMonth(d), EN_TENSE, out, answering) : null;
    if (day) out.push(dayMention(phrase, index, day));
  }
  return out;
}

/* ---------------- public API ---------------- */

/**
 * Relative time phrases in `text`, in text order, resolved against `ref` (the message's instant)
 * as seen on the sender's wall clock (`utcOffsetMinutes`, e.g. +480 for UTC+8, -300 for UTC-5),
 * and the days it states by their month's name (`stated`). `answering`: the turn before, by someone
 * else, whose tense a short answer without one of its own takes.
 */
export function findTimeMentions(text: string, ref: Date, utcOffsetMinutes: number, o: { answering?: string } = {}): TimeMention[] {
  if (Number.isNaN(ref.getTime())) throw new RangeError('findTimeMentions: the reference date is invalid');
  if (!Number.isFinite(utcOffsetMinutes) || Math.abs(utcOffsetMinutes) > 18 * 60) {
    throw new RangeError(`findTimeMentions: UTC offset ${utcOffsetMinutes} min is outside ±18 h`);
  }
  if (text.length === 0) return [];
  const wall = wallClock(ref, utcOffsetMinutes);
  const all = [...findEnglishMentions(text, wall, o.answering), ...findChineseMentions(text, wall.date, o.answering)];
  all.sort((a, b) => a.index - b.index || b.phrase.length - a.phrase.length);
  // Drop overlaps (a Chinese and an English reading of the same span, or nested matches).
  const out: TimeMention[] = [];
  let end = -1;
  for (const m of all) {
    if (m.index < end) continue;
    const yearly = m.stated && m.end === undefined && YEARLY.test(sentenceAround(text, m, SENTENCE_ENDS).sentence);
    out.push(yearly ? { ...m, yearly: true } : m);
    end = m.index + m.phrase.length;
  }
  return withClocks(text, out);
}

/** How far from its day a time of day may be said and still be that day's ("Monday 9am", "at 9am sharp on Monday"). */
const CLOCK_REACH = 24;

/**
 * Each single day said with the time of day next to it in its sentence, after it or else before it,
 * with no other day between them, each time of day one day's: "dentist Thursday at 10, mum comes
 * Sunday at 3pm" is 10:00 on Thursday and 15:00 on Sunday; 周四上午十点复诊，周五体检 has no time on Friday.
 */
function withClocks(text: string, mentions: TimeMention[]): TimeMention[] {
  if (!mentions.some(isSingleDay)) return mentions;
  const clocks = clockTimes(text);
  if (clocks.length === 0) return mentions;
  const bounds = mentions.map((m, i) => {
    const ends = SENTENCE_ENDS.map((c) => text.indexOf(c, m.index + m.phrase.length)).filter((k) => k >= 0);
    const prev = mentions[i - 1];
    return {
      from: Math.max(prev ? prev.index + prev.phrase.length : 0, ...SENTENCE_ENDS.map((c) => text.lastIndexOf(c, m.index - 1) + 1)),
      to: Math.min(mentions[i + 1]?.index ?? text.length, ...ends),
    };
  });
  const taken = new Map<TimeMention, ClockTime>();
  mentions.forEach((m, i) => {
    const after = clocks.find((c) => c.index >= m.index && c.end <= bounds[i]!.to && c.index - (m.index + m.phrase.length) <= CLOCK_REACH);
    if (isSingleDay(m) && after) taken.set(m, after);
  });
  const claimed = new Set(taken.values());
  mentions.forEach((m, i) => {
    if (!isSingleDay(m) || taken.has(m)) return;
    const before = clocks.findLast(
      (c) => !claimed.has(c) && c.index >= bounds[i]!.from && c.end <= m.index && m.index - c.end <= CLOCK_REACH,
    );
    if (before) taken.set(m, before);
  });
  return mentions.map((m) => {
    const clock = taken.get(m);
    return clock ? { ...m, clock: clock.minutes } : m;
  });
}

const isSingleDay = (m: TimeMention) => m.granularity === 'day' && m.end === undefined && !m.yearly;

/** What makes a day stated in a sentence come round every year. */
const YEARLY = /\b(?:birthdays?|b-?days?|anniversar(?:y|ies)|born)\b|生日|纪念日|周年|出生|生于/i;
const SENTENCE_ENDS = [...new Set([...EN_TENSE.ends, ...ZH_TENSE.ends])];

/** A mention as an episode keeps it among its time references (without its place in the message). */
export function timeReference(m: TimeMention): z.infer<typeof TimeReference> {
  return {
    phrase: m.phrase,
    start: m.start,
    ...(m.end ? { end: m.end } : {}),
    granularity: m.granularity,
    ...(m.stated ? { stated: true } : {}),
    ...(m.yearly ? { yearly: true } : {}),
  };
}

/** "2023-05-07", "2023-06", "2022", or "2023-05-01 – 2023-05-07" for ranges. */
export function formatTimeMention(m: TimeMention): string {
  return m.end === undefined ? m.start : `${m.start} – ${m.end}`;
}

/** An annotation already follows the phrase (idempotence: annotating twice changes nothing). */
const ALREADY_ANNOTATED = /^\s*[(（]\s*\d{4}(?:-\d{2}){0,2}/;
/** The notes `withTimeNotes` writes: " (2023-05-07)", "（2023-05）", " (2023-05-01 – 2023-05-07)". */
const TIME_NOTE = / ?[(（]\d{4}(?:-\d{2}){0,2}(?: – \d{4}(?:-\d{2}){0,2})?[)）]/g;

/** A text without the notes `withTimeNotes` wrote into it: what it said. */
export function withoutTimeNotes(text: string): string {
  return text.replace(TIME_NOTE, '');
}
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

/**
 * Appends the absolute date after each relative phrase: "I went hiking yesterday (2023-05-07)",
 * "我昨天（2023-05-07）去爬山了" (full-width parentheses after a Chinese phrase). Absolute dates and
 * phrases that already carry an annotation are left alone.
 */
export function annotateRelativeTimes(text: string, ref: Date, utcOffsetMinutes: number, o: { answering?: string } = {}): string {
  return withTimeNotes(text, findTimeMentions(text, ref, utcOffsetMinutes, o));
}

/** How many messages one reply may be sent in ("ugh, don't remind me" — "Friday at 10"). */
const REPLY_MESSAGES = 3;

/**
 * Where the turn a message of a talk answers is: the message before the reply it is part of (up to
 * REPLY_MESSAGES in a row by its speaker), when someone else said it; -1 otherwise.
 */
export function askedAt(turns: readonly { speaker: string }[], i: number): number {
  const by = turns[i]!.speaker;
  for (let j = i - 1; j >= 0 && j >= i - REPLY_MESSAGES; j--) if (turns[j]!.speaker !== by) return j;
  return -1;
}

/** What the message at `i` of a talk answers, for `findTimeMentions`: the text of the turn before its reply. */
export function answering(turns: readonly { speaker: string }[], texts: readonly string[], i: number): { answering?: string } {
  const at = askedAt(turns, i);
  return at < 0 ? {} : { answering: texts[at]! };
}

const POSSESSIVE = /^['’]s\b/;

/** `annotateRelativeTimes` for a caller that found the text's mentions already (and keeps them too). */
export function withTimeNotes(text: string, mentions: readonly TimeMention[]): string {
  let out = text;
  for (let i = mentions.length - 1; i >= 0; i--) {
    const m = mentions[i]!;
    if (m.stated) continue;
    // After a possessive, not inside it: "yesterday's (2026-11-23) run".
    const at = m.index + m.phrase.length + (POSSESSIVE.exec(out.slice(m.index + m.phrase.length))?.[0].length ?? 0);
    if (ALREADY_ANNOTATED.test(out.slice(at, at + 16))) continue;
    const label = formatTimeMention(m);
    const note = CJK_CHAR.test(m.phrase) ? `（${label}）` : ` (${label})`;
    out = out.slice(0, at) + note + out.slice(at);
  }
  return out;
}
