/**
 * Times of day said in a text ("at 9am", "Friday at 10", "15:30", "noon", 下午三点, 晚上8点半, 10点一刻),
 * as minutes after midnight on the speaker's clock. An hour said without what part of the day it is
 * ("at 3", "3:30", 三点开会) is read as a daytime appointment is: 7 to 11 in the morning, 12 to 6 after
 * noon — and 5 to 11 in the evening where its sentence names an evening's doing ("dinner at 8", 九点半的电影).
 */
export interface ClockTime {
  /** UTF-16 offset of the phrase in the text. */
  index: number;
  /** Offset just past the phrase. */
  end: number;
  /** Minutes after midnight, 0–1439. */
  minutes: number;
}

const EN_CLOCK = new RegExp(
  [
    // 9am, 9:30 pm, 10.15a.m.
    String.raw`\b(?<h12>\d{1,2})(?:[:.](?<m12>\d{2}))?\s?(?<ampm>[ap])(?:m\b|\.m\.)`,
    // 15:30, 9:05 (not a ratio or a score: "3:2")
    String.raw`(?<![$€£¥\d.,])\b(?<h24>\d{1,2})[:.](?<m24>\d{2})\b(?![:.]?\d)`,
    // "at 10", "@ 3", "10 o'clock": an hour alone, not a count of something
    String.raw`(?:\bat|@)\s?(?<hat>\d{1,2})\b(?![:.,]?\d|\s?[ap]\.?m\b|\s?(?:%|percent|st\b|nd\b|rd\b|th\b|years?\b|yrs?\b|kg\b|km\b|miles?\b|people\b|min|hours?\b|hrs?\b|days?\b|weeks?\b|months?\b))`,
    String.raw`\b(?<hoc>\d{1,2})\s?o['’]?clock\b`,
    String.raw`\b(?<noon>noon|midday)\b`,
  ].join('|'),
  'gi',
);

const ZH_NUMERAL = '[零〇一二两三四五六七八九十]{1,3}';
const ZH_CLOCK = new RegExp(
  String.raw`(?<part>凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|晚)?\s?(?<h>\d{1,2}|${ZH_NUMERAL})\s?[点點](?:钟|鐘)?` +
    String.raw`(?:(?<half>半)|(?<quarter>一刻)|(?<quarters>三刻)|(?<m>\d{1,2}|${ZH_NUMERAL})分?)?` +
    String.raw`|(?<h24>\d{1,2})[:：](?<m24>\d{2})(?!\d)`,
  'g',
);

const ZH_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** 三 → 3, 十二 → 12, 二十 → 20, 12 → 12; null when it is no number up to 59. */
function numberOf(s: string): number | null {
  if (/^\d+$/.test(s)) return Number(s);
  const ten = s.indexOf('十');
  if (ten < 0) return s.length === 1 ? (ZH_DIGITS[s] ?? null) : null;
  const tens = ten === 0 ? 1 : ZH_DIGITS[s.slice(0, ten)];
  const ones = ten === s.length - 1 ? 0 : ZH_DIGITS[s.slice(ten + 1)];
  return tens === undefined || ones === undefined || s.length > 3 ? null : tens * 10 + ones;
}

/** An hour said without morning or afternoon, as an appointment's: 7–11 before noon, 1–6 after it; 5–11 after noon of an `evening`'s doing. */
const daytime = (h: number, evening: boolean) => (evening && h >= 5 && h <= 11 ? h + 12 : h >= 1 && h <= 6 ? h + 12 : h);

/** What is done of an evening, in the sentence of an hour said alone: "dinner at 8" is at 20:00. */
const EVENING =
  /\b(?:dinner|supper|drinks|movies?|film|cinema|concert|gig|party|bar|pub|club|karaoke|tonight|evening|night)\b|晚饭|晚餐|夜宵|宵夜|电影|演唱会|酒吧|KTV|今晚|明晚|晚上/i;
const SENTENCE_END = /[.!?。！？\n]/;

/** Whether the sentence around `index` names an evening's doing. */
function inEvening(text: string, index: number): boolean {
  let from = index;
  while (from > 0 && !SENTENCE_END.test(text[from - 1]!)) from--;
  let to = index;
  while (to < text.length && !SENTENCE_END.test(text[to]!)) to++;
  return EVENING.test(text.slice(from, to));
}

/** "3:30" or "9:30" is an hour said alone, of twelve; "03:30" and "15:30" are a 24-hour clock's. */
const twelveHour = (h: string) => !h.startsWith('0') && Number(h) <= 12;

const at = (index: number, length: number, h: number, m: number): ClockTime | null =>
  h >= 0 && h <= 23 && m >= 0 && m <= 59 ? { index, end: index + length, minutes: h * 60 + m } : null;

/** The times of day a text says, in text order. */
export function clockTimes(text: string): ClockTime[] {
  const out: ClockTime[] = [];
  for (const x of text.matchAll(EN_CLOCK)) {
    const g = x.groups!;
    let t: ClockTime | null = null;
    if (g.h12 !== undefined) {
      const h = Number(g.h12);
      if (h >= 1 && h <= 12) t = at(x.index, x[0].length, (h % 12) + (g.ampm!.toLowerCase() === 'p' ? 12 : 0), Number(g.m12 ?? 0));
    } else if (g.h24 !== undefined)
      t = at(x.index, x[0].length, twelveHour(g.h24) ? daytime(Number(g.h24), inEvening(text, x.index)) : Number(g.h24), Number(g.m24));
    else if (g.hat !== undefined || g.hoc !== undefined)
      t = at(x.index, x[0].length, daytime(Number(g.hat ?? g.hoc), inEvening(text, x.index)), 0);
    else t = at(x.index, x[0].length, 12, 0);
    if (t) out.push(t);
  }
  for (const x of text.matchAll(ZH_CLOCK)) {
    const g = x.groups!;
    let t: ClockTime | null = null;
    if (g.h24 !== undefined)
      t = at(x.index, x[0].length, twelveHour(g.h24) ? daytime(Number(g.h24), inEvening(text, x.index)) : Number(g.h24), Number(g.m24));
    else {
      const h = numberOf(g.h!);
      const m = g.half ? 30 : g.quarter ? 15 : g.quarters ? 45 : g.m !== undefined ? numberOf(g.m) : 0;
      // 一点 alone is also "a little" (好一点, 晚一点到): an hour only with a part of the day or its minutes.
      const plain = (g.part === undefined || g.part === '晚') && g.h === '一' && !g.half && !g.quarter && !g.quarters && g.m === undefined;
      if (h !== null && m !== null && !plain) {
        const part = g.part;
        const hour =
          part === undefined
            ? daytime(h, inEvening(text, x.index))
            : /下午|傍晚|晚上|夜里|晚/.test(part) && h < 12
              ? h + 12
              : part === '中午' && h <= 3
                ? h + 12
                : h;
        t = at(x.index, x[0].length, hour, m);
      }
    }
    if (t) out.push(t);
  }
  out.sort((a, b) => a.index - b.index);
  const kept: ClockTime[] = [];
  for (const t of out) if (kept.length === 0 || t.index >= kept.at(-1)!.end) kept.push(t);
  return kept;
}

/** "09:00" */
export function formatClock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
