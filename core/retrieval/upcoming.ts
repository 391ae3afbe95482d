import type { EngineContext } from '../context/engine-context.js';
import type { StoredMessage } from '../domain/conversation.js';
import { localDate } from '../text/describe.js';
import type { TimeReference } from '../domain/episode.js';
import { contentTerms, unshouted } from '../text/keywords.js';
import { countWords } from '../text/quote.js';
import {
  annotateRelativeTimes,
  askedAt,
  findTimeMentions,
  namesPlan,
  withoutTimeNotes,
  withTimeNotes,
  type TimeMention,
} from '../text/relative-time.js';
import { sentenceSpans } from '../text/sentences.js';
import { CHAR_WORDS_PER_CHAR } from './char-words.js';
import { clockTimes } from '../text/clock-time.js';
import { tokenize } from '../text/tokenize.js';

/**
 * A day ahead that the person spoke of (or days: "next week"), and what was said of it; or one that has
 * gone by since, of which nothing was said after it came.
 */
export interface Upcoming {
  /**
   * The first day it names from today on (YYYY-MM-DD, the person's calendar); before today for a plan
   * gone by.
   */
  day: string;
  /** The last day of the days it names, when they are several ("next week", "December 3rd to 7th"). */
  until?: string;
  /** The time of day said with its day ("Monday 9am"), minutes after midnight on the speaker's clock. */
  clock?: number;
  /** Its day has gone by, or its time of day today did, an hour ago or more: news of it may be asked for. */
  goneBy: boolean;
  message: StoredMessage;
  /**
   * The message with the days its time words name written after them, as episodes keep it; of a long
   * message, the sentence that names the day and the one before it (`quoteAt`).
   */
  text: string;
  /**
   * The latest message said since that may call it off or move it ("Helix moved my interview to
   * Monday"), with its days written in: shown with the plan for the reader to weigh, since a word in
   * common ("the meeting got cancelled") does not make it the same plan.
   */
  later?: { message: StoredMessage; text: string };
  /** `later` moved it to another time of its day ("moved the meeting to 3pm"): still a plan, at `clock`. */
  retimed?: true;
  /**
   * The turn it answers (its last sentence), when the sentence that names the day says nothing else:
   * "Until the 28th." to "How long is she staying?", "Friday at 10." to "When is your interview?".
   */
  answers?: { message: StoredMessage; text: string };
}

const DAY_MS = 86_400_000;
/**
 * How long before a day what was said of it ahead is looked for ("on Wednesday", said on Monday): by
 * Coming up and by a search that names a period.
 */
export const SPOKEN_AHEAD_MS = 60 * DAY_MS;
/** Episodes read that speak of the days ahead, the latest told: enough for a section of a few lines. */
const EPISODES = 20;
/** How many days ahead a birthday or an anniversary is coming up, however few the plans are read for. */
const YEARLY_NOTICE_DAYS = 14;
/** Plans gone by listed at most: the few a companion may ask after. */
const GONE_BY = 3;
/**
 * How long after the time of day it was said for a plan of today is over: the dentist at 9 is one to
 * ask after at 10:30, not at 9:15.
 */
const OVER_MS = 60 * 60_000;
/** Days and weeks: "next month" is too far from any one day to be coming up. */
const GRANULARITIES: readonly string[] = ['day', 'week'];

type Reference = Pick<TimeReference, 'granularity' | 'start' | 'end' | 'yearly'>;

/** Soonest first; on one day, a day before the days it begins ("Friday" before "next week"). */
const byDay = (a: { day: string; until?: string }, b: { day: string; until?: string }) =>
  a.day.localeCompare(b.day) || (a.until ?? a.day).localeCompare(b.until ?? b.day);
/** As they come: by day, then by the time of day said (a plan said without one last). */
const byTime = (a: Upcoming, b: Upcoming) => byDay(a, b) || (a.clock ?? DAY_MINUTES) - (b.clock ?? DAY_MINUTES);
const DAY_MINUTES = 24 * 60;

/** The moment a day (YYYY-MM-DD) reaches `clock` minutes after its midnight, on a clock at `utcOffsetMin`. */
const instantOf = (day: string, clock: number, utcOffsetMin: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + (clock - utcOffsetMin) * 60_000);
/** Whether a plan at `time` is over by `now` (OVER_MS after it). */
const overBy = (time: Date, now: Date) => time.getTime() + OVER_MS <= now.getTime();

/**
 * What the person said of the days ahead (`o.days`, today included), in the SPOKEN_AHEAD_MS before
 * `now`: "my final interview is on Friday at 10" said on Monday is Friday's on Thursday, so a
 * companion opening a conversation can wish them luck; "next week I'm in Lisbon" said on Thursday is
 * coming up from Monday to Sunday, and "Maya's birthday is December 3rd" is there every year, however
 * long ago it was said. Found through the days episodes keep of their time words, then read again in
 * the messages that say them, and in the turns `o.unbuilt` just said that no episode holds yet.
 * Soonest first, the person's own words first, then those naming the plan, then the latest said; each
 * plan once, with what was said since that may call it off or move it (`later`).
 *
 * With `o.back`, also the plans of the days gone by in the `back` days before today ("the interview on
 * Friday" on Saturday), said before their day and neither called off nor talked about since it came:
 * what a companion may ask after. At most GONE_BY of them, first.
 */
export async function upcomingMentions(
  ctx: EngineContext,
  ownerId: string,
  now: Date,
  utcOffsetMin: number,
  o: { days: number; back?: number; limit: number; unbuilt: readonly StoredMessage[] },
): Promise<Upcoming[]> {
  const today = localDate(now, utcOffsetMin);
  const from = localDate(new Date(now.getTime() - (o.back ?? 0) * DAY_MS), utcOffsetMin);
  const to = localDate(new Date(now.getTime() + o.days * DAY_MS), utcOffsetMin);
  const since = new Date(now.getTime() - SPOKEN_AHEAD_MS);
  // The days ahead by month and day: where a birthday said any year before falls this time — from
  // further ahead than a plan, time enough to find a present.
  const byMonthDay = new Map<string, string>();
  const yearlyTo = localDate(new Date(now.getTime() + Math.max(o.days, YEARLY_NOTICE_DAYS) * DAY_MS), utcOffsetMin);
  for (let t = Date.parse(today); t <= Date.parse(yearlyTo); t += DAY_MS) {
    const day = localDate(new Date(t), 0);
    byMonthDay.set(day.slice(5), day);
  }
  /**
   * The days ahead a reference said at `said` names, or null; a day gone by only when it was said
   * before that day began. Without `said`, whether it names such days at all.
   */
  const ahead = (r: Reference, said?: Date): Pick<Upcoming, 'day' | 'until'> | null => {
    if (r.yearly) {
      const day = byMonthDay.get(r.start.slice(5)); // 29 February only where this year has it
      return day ? { day } : null;
    }
    if ((said && said < since) || !GRANULARITIES.includes(r.granularity) || r.start > to || (r.end ?? r.start) < from) return null;
    const until = r.end ? { until: r.end } : {};
    if ((r.end ?? r.start) >= today) return { day: r.start < today ? today : r.start, ...until };
    return !said || localDate(said, utcOffsetMin) < r.start ? { day: r.start, ...until } : null;
  };
  const read = ctx.store.read;
  const recent = await read.episodes.namingDays(ownerId, { since, until: now }, { from, to, granularities: GRANULARITIES }, EPISODES);
  const yearly = await read.episodes.namingYearly(ownerId, now, [...byMonthDay.keys()], EPISODES);
  // The phrases that name those days in each episode: only its messages that say one are read again.
  const phrases = new Map([...recent, ...yearly].map((e) => [e.id, e.references.filter((r) => ahead(r)).map((r) => r.phrase)]));
  const told = await read.conversations.messagesOfEpisodes(ownerId, [...phrases.keys()]);
  const toldIds = new Set(told.map((m) => m.id));
  const unbuilt = o.unbuilt.filter((m) => !toldIds.has(m.id));
  const out: Upcoming[] = [];
  const messages = [...told, ...unbuilt];
  const before = turnsBefore(messages);
  for (const m of messages) {
    if (m.sentAt > now) continue;
    const said = m.episodeId === null ? undefined : phrases.get(m.episodeId);
    if (said && !said.some((p) => m.text.includes(p))) continue;
    const asked = before.get(m.id);
    const mentions = findTimeMentions(m.text, m.sentAt, m.utcOffsetMin, asked ? { answering: asked.text } : {});
    // Days spoken of ahead: several ("next week") only when they began after the day they were named
    // on — "this week is hectic" said on Monday is how the week is going, not a plan.
    const saidOn = localDate(m.sentAt, m.utcOffsetMin);
    const named = mentions
      .filter((x) => x.end === undefined || x.start > saidOn)
      .flatMap((x) => {
        const days = ahead(x, m.sentAt);
        if (!days) return [];
        if (x.clock === undefined) return [{ ...days, mention: x, goneBy: days.day < today }];
        // At a time of day on the speaker's clock: a plan only when said before it.
        const time = instantOf(x.start, x.clock, m.utcOffsetMin);
        return m.sentAt < time ? [{ ...days, clock: x.clock, mention: x, goneBy: overBy(time, now) }] : [];
      })
      .sort(byDay);
    // Its first day to come, and its first gone by: "the dentist on Thursday, mum comes on Sunday" is
    // a plan of each.
    for (const first of [named.find((d) => !d.goneBy), named.find((d) => d.goneBy)]) {
      if (!first) continue;
      const { mention, ...days } = first;
      const answers =
        asked && saysLittle(m.text, mention)
          ? { answers: { message: asked, text: annotateRelativeTimes(lastSaid(asked.text), asked.sentAt, asked.utcOffsetMin) } }
          : {};
      out.push({ ...days, message: m, text: quoteAt(m.text, mentions, mention.index), ...answers });
    }
  }
  // The person's own words before another's (a companion's "Noted: December 3rd"), those that name
  // the plan before those that only name its day ("so nervous about Friday"), the latest first. A plan
  // is shown once: said again in its episode, or on another day naming the same thing ("my interview on
  // Friday" said again on Wednesday). Two plans of one day in one talk ("the interview on Friday at 10",
  // then "dentist on Friday at 4") are two. What calls off the day it names ("the dentist cancelled
  // Thursday") is not what is coming up on it. A day said with its time of day is a plan (明天下午三点还要去银行).
  const plan = new Map(out.map((u) => [u, u.clock !== undefined || namesPlan(planWords(u))]));
  const own = (u: Upcoming) => (u.message.role === 'user' ? 0 : 1);
  const vague = (u: Upcoming) => (plan.get(u) ? 0 : 1);
  out.sort((a, b) => byDay(a, b) || own(a) - own(b) || vague(a) - vague(b) || b.message.sentAt.getTime() - a.message.sentAt.getTime());
  const things = new Map<Upcoming, Set<string>>();
  const planThings = (u: Upcoming) => {
    let t = things.get(u);
    if (!t) things.set(u, (t = thingsOfPlan(u)));
    return t;
  };
  const samePlan = (k: Upcoming, u: Upcoming) =>
    [...planThings(k)].some((t) => planThings(u).has(t)) ||
    ((k.message.episodeId ?? k.message.id) === (u.message.episodeId ?? u.message.id) && !(plan.get(k) && plan.get(u)));
  const shown: Upcoming[] = [];
  const gone = (u: Upcoming) => u.goneBy;
  for (const u of out) {
    if (callsOff(u.message.text) || (!gone(u) && shown.filter((k) => !gone(k)).length === o.limit)) continue;
    // What only names the day ("so nervous about Friday", a companion's "good luck tomorrow") adds
    // nothing to a plan of that day.
    const that = shown.filter((k) => k.day === u.day && k.until === u.until);
    const same = that.find((k) => samePlan(k, u));
    // Said again without its time of day ("so nervous about the interview"): at the time said before.
    if (same) {
      if (same.clock === undefined && u.clock !== undefined) Object.assign(same, { clock: u.clock, goneBy: same.goneBy || u.goneBy });
    } else if (plan.get(u) || that.length === 0) shown.push(u);
  }
  const changed = await withChanges(ctx, ownerId, now, today, shown, messages);
  // A plan gone by that was called off or moved is not one, unless moved to another time of its day;
  // one talked about since its day came, the companion has heard of.
  const goneBy = o.back ? changed.filter((u) => gone(u) && (!u.later || u.retimed)) : [];
  const unheard = await notTalkedAboutSince(ctx, ownerId, now, utcOffsetMin, goneBy, planThings, messages);
  return [...unheard, ...changed.filter((u) => !gone(u)).sort(byTime)];
}

/**
 * The latest GONE_BY of the plans gone by (oldest first) that nobody but a companion spoke of again
 * once their day had come ("the interview went well!"): no message since names a thing the plan names,
 * among those read already (the plans' episodes, the turns just said) or in the episodes since that
 * the keyword index finds naming them.
 */
async function notTalkedAboutSince(
  ctx: EngineContext,
  ownerId: string,
  now: Date,
  utcOffsetMin: number,
  plans: readonly Upcoming[],
  thingsOf: (u: Upcoming) => Set<string>,
  known: readonly StoredMessage[],
): Promise<Upcoming[]> {
  const out: Upcoming[] = [];
  const read = ctx.store.read;
  const saidOf = messageThings();
  // The latest few are looked into (each a keyword search): what a companion opens with stays quick
  // however many plans the last days held.
  for (const u of [...plans].reverse().slice(0, 3 * GONE_BY)) {
    if (out.length === GONE_BY) break;
    const things = thingsOf(u);
    // A plan that names no thing ("see you Friday!") cannot be told spoken of.
    if (things.size === 0) {
      out.unshift(u);
      continue;
    }
    // Its time of day on the speaker's clock, else the day's start on the person's calendar.
    const came = u.clock === undefined ? instantOf(u.day, 0, utcOffsetMin) : instantOf(u.day, u.clock, u.message.utcOffsetMin);
    // A one-character thing (牙) is said inside words (牙医): the index's words with it are looked for too.
    const lone = [...things].filter((t) => /^\p{Script=Han}$/u.test(t));
    const outcomes = outcomesOf(things);
    const words = [...things, ...outcomes, ...(lone.length ? await read.bm25.pairsWith(ownerId, lone, CHAR_WORDS_PER_CHAR) : [])];
    const { hits } = await read.bm25.search(ownerId, words, {
      limit: EPISODES,
      filters: { since: came, until: now },
      params: ctx.config.retrieval.bm25,
    });
    const more = await read.conversations.messagesOfEpisodes(
      ownerId,
      hits.map((h) => h.episodeId),
    );
    const since = [...known, ...more].filter((m) => m.sentAt >= came && m.sentAt <= now && m.role !== 'assistant');
    const others = plans.filter((v) => v !== u).map(thingsOf);
    if (!since.some((m) => tellsOf(saidOf(m), m.text, { things, outcomes, others }))) out.unshift(u);
  }
  return out;
}

/** The turn before each message of a talk, when someone else said it (askedAt): what the message may answer. */
function turnsBefore(messages: readonly StoredMessage[]): Map<string, StoredMessage> {
  const talks = new Map<string, StoredMessage[]>();
  for (const m of messages) {
    const talk = talks.get(m.conversationId);
    if (talk) talk.push(m);
    else talks.set(m.conversationId, [m]);
  }
  const out = new Map<string, StoredMessage>();
  for (const talk of talks.values()) {
    talk.sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime() || a.seq - b.seq);
    talk.forEach((m, i) => {
      const at = askedAt(talk, i);
      if (at >= 0) out.set(m.id, talk[at]!);
    });
  }
  return out;
}

/** The last sentence of a turn: the question a reply answers comes last ("Great to hear. How long is she staying?"). */
function lastSaid(text: string): string {
  const last = sentenceSpans(text).at(-1);
  return last ? text.slice(last.from, last.to).trim() : text;
}

/** The sentence of a text that `at` stands in, and its place among the text's sentences. */
function sentenceOf(text: string, at: number): { spans: { from: number; to: number }[]; k: number } {
  const spans = sentenceSpans(text);
  const k = spans.findIndex((s) => at >= s.from && at < s.to);
  return { spans, k: Math.max(0, k) };
}

/** Whether the sentence that names a day says nothing else once the day is left out ("Until the 28th.", "Friday at 10."). */
function saysLittle(text: string, at: TimeMention): boolean {
  const { spans, k } = sentenceOf(text, at.index);
  const { from, to } = spans[k] ?? { from: 0, to: text.length };
  return contentTerms(text.slice(from, at.index) + ' ' + text.slice(at.index + at.phrase.length, to)).size === 0;
}

/** A message of up to this many words is quoted whole with the plan it holds. */
const QUOTED_WORDS = 60;

/**
 * A message as a plan or its change is quoted, with the days its time words name written in: whole, or
 * of a long one (a companion is often told a day's worth at once) the sentence at `at` — the one that
 * names the day, or calls it off — and the one before it, with "…" where the message goes on: quoted
 * from its start, the plan could be cut off.
 */
function quoteAt(text: string, mentions: readonly TimeMention[], at: number): string {
  if (countWords(text) <= QUOTED_WORDS) return withTimeNotes(text, mentions);
  const { spans, k } = sentenceOf(text, at);
  const from = spans[Math.max(0, k - 1)]!.from;
  const to = spans[k]!.to;
  const inside = mentions.filter((m) => m.index >= from && m.index + m.phrase.length <= to).map((m) => ({ ...m, index: m.index - from }));
  const quote = withTimeNotes(text.slice(from, to), inside).replace(/\s+/g, ' ').trim();
  return `${k > 1 ? '… ' : ''}${quote}${k < spans.length - 1 ? ' …' : ''}`;
}

/** Words that say a plan was called off, or moved: what was said of it before no longer holds. */
const CALLED_OFF = /\b(?:cancel(?:led|ed|ling|s)?|call(?:ed|ing)? (?:it )?off|no longer|(?:is|are|['’]s) off|not happening)\b|取消|不去了/i;
const MOVED =
  /\b(?:postpon(?:e|ed|ing)|reschedul(?:e|ed|ing)|moved|delayed|(?:pushed|bumped|shifted) (?:(?:it|them|us|me|back) )?(?:back|out|to|till|until))\b|推迟|延期|改期|改到|改成|改在|延后|挪到|推到|顺延/i;
const callsOff = (text: string) => CALLED_OFF.test(text) && !MOVED.test(text);
/**
 * The index terms of those the keyword index finds said in other episodes, tokenised on first use.
 * Not "moved", which also moves house: a plan moved to a day ahead is read with that day, one moved
 * further only in its own episode or the turns just said.
 */
let changedTerms: string[] | undefined;

/**
 * The plans, each with the latest message said since that calls it off or moves it ("Helix moved my
 * interview to Monday", "the dentist cancelled", 面试取消了): one that says so and names a thing the
 * plan names — not only a name, "Sam cancelled his visit" says nothing of "dinner with Sam on Friday".
 * Such messages are looked for among those read already (the plans' episodes, the turns just said) and
 * in the episodes since the first plan that the keyword index finds saying such words.
 */
async function withChanges(
  ctx: EngineContext,
  ownerId: string,
  now: Date,
  today: string,
  plans: Upcoming[],
  known: readonly StoredMessage[],
): Promise<Upcoming[]> {
  // A birthday said a year ago is not a plan anything since has called off.
  const recent = plans.filter((u) => u.message.sentAt.getTime() >= now.getTime() - SPOKEN_AHEAD_MS);
  if (recent.length === 0) return plans;
  const since = new Date(Math.min(...recent.map((u) => u.message.sentAt.getTime())));
  // Not a character alone (到 of 挪到): it would bring every episode that says it.
  changedTerms ??= [
    ...new Set(tokenize('cancelled postponed rescheduled moved pushed bumped delayed 取消 推迟 延期 改期 改到 延后 挪到 推到 顺延')),
  ].filter((t) => !/^\p{Script=Han}$/u.test(t));
  const { hits } = await ctx.store.read.bm25.search(ownerId, changedTerms, {
    limit: EPISODES,
    filters: { since, until: now },
    params: ctx.config.retrieval.bm25,
  });
  const have = new Set(known.map((m) => m.episodeId));
  const more = await ctx.store.read.conversations.messagesOfEpisodes(
    ownerId,
    hits.flatMap((h) => (have.has(h.episodeId) ? [] : [h.episodeId])),
  );
  const changes = [...known, ...more]
    .filter((m) => m.sentAt > since && m.sentAt <= now && (CALLED_OFF.test(m.text) || MOVED.test(m.text)))
    .sort((a, b) => b.sentAt.getTime() - a.sentAt.getTime());
  const thingsOf = messageThings();
  return plans.map((u) => {
    // A day given in answer names its things in the question ("When is your interview?" — "Friday at 10.").
    const named = new Set([...thingsOf(u.message), ...(u.answers ? thingsOf(u.answers.message) : [])]);
    const later =
      recent.includes(u) &&
      changes.find((c) => c.sentAt > u.message.sentAt && c.id !== u.message.id && [...thingsOf(c)].some((t) => named.has(t)));
    if (!later) return u;
    const change = CALLED_OFF.exec(later.text)?.index ?? MOVED.exec(later.text)?.index ?? 0;
    const mentions = findTimeMentions(later.text, later.sentAt, later.utcOffsetMin);
    return {
      ...u,
      ...movedTo(u, later, mentions, now, today),
      later: { message: later, text: quoteAt(later.text, mentions, change) },
    };
  });
}

/**
 * A plan of a day to come, or of today, moved to another time of that day ("Helix moved the meeting
 * to 3pm"): at that time, and gone by an hour after it.
 */
function movedTo(u: Upcoming, later: StoredMessage, mentions: readonly TimeMention[], now: Date, today: string): Partial<Upcoming> {
  if (u.day < today || callsOff(later.text) || !MOVED.test(later.text) || mentions.some((m) => m.granularity === 'day')) return {};
  const [clock, ...more] = clockTimes(later.text);
  if (!clock || more.length) return {};
  const time = instantOf(u.day, clock.minutes, later.utcOffsetMin);
  return { clock: clock.minutes, goneBy: overBy(time, now), retimed: true };
}

type PlanSaid = { text: string; answers?: { text: string } | undefined };

/** A plan's words without their time notes, after the question it answers ("When is your interview?" — "Friday at 10."). */
function planWords(u: PlanSaid): string {
  return withoutTimeNotes(u.answers ? `${u.answers.text} ${u.text}` : u.text);
}

/** The things a plan names, in its message and the question it answers. */
export function thingsOfPlan(u: PlanSaid): Set<string> {
  return commonTerms(planWords(u));
}

/**
 * Whether a text names a thing the plan names: "The interview went great!" speaks of the interview on
 * Friday, and 牙医说没什么问题 of 周四看牙 (a Chinese word with the one-character thing in it). Or tells
 * how a plan of its kind went, unless it names another of `others` plans: 复诊结果挺好 tells of the
 * 复诊, not of the 体检 the day after.
 */
export function speaksOf(text: string, things: ReadonlySet<string>, others: readonly ReadonlySet<string>[] = []): boolean {
  return tellsOf(commonTerms(text), text, { things, outcomes: outcomesOf(things), others });
}

/**
 * speaksOf, for a text whose things (`said`) are known: it names one of the plan's `things`, or says one
 * of its `outcomes` and names no thing of the `others` that the plan does not name.
 */
function tellsOf(
  said: ReadonlySet<string>,
  text: string,
  plan: { things: ReadonlySet<string>; outcomes: ReadonlySet<string>; others: readonly ReadonlySet<string>[] },
): boolean {
  if (namesAny(said, plan.things)) return true;
  return tellsOutcome(text, plan.outcomes) && !plan.others.some((o) => namesAny(said, new Set([...o].filter((t) => !plan.things.has(t)))));
}

/**
 * Words that tell how a plan went without naming it: "I got the job!" after the interview, "passed!"
 * after the exam, 拿到offer after 面试. By the plan's thing, as index terms.
 */
const OUTCOMES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  (
    [
      [
        ['interview', '面试'],
        ['job', 'offer', 'hired', 'rejected', '录用', '入职'],
      ],
      [
        ['exam', 'test', '考试'],
        ['passed', 'failed', 'flunked', 'aced', 'grade', 'score', 'results', '成绩', '分数', '挂科'],
      ],
      [
        ['flight', '航班'],
        ['landed', '落地'],
      ],
      [
        ['surgery', 'operation', '手术'],
        ['recovery', 'recovering', '恢复'],
      ],
      [
        ['match', 'game', 'race', 'tournament', 'final', '比赛', '决赛'],
        // "won" is a function word of the index (won't): "we lost", "we beat them", 赢了 are heard.
        ['lost', 'beat', 'score', 'medal', '赢了', '输了', '夺冠', '冠军', '亚军', '名次'],
      ],
      [
        ['checkup', 'scan', 'biopsy', '体检', '复查', '检查'],
        ['results', 'diagnosis', 'benign', '结果', '报告', '诊断', '指标'],
      ],
      [
        ['application', 'visa', '申请', '签证'],
        ['accepted', 'admitted', 'approved', 'denied', 'rejected', '录取', '下签', '拒签'],
      ],
      [
        ['audition', 'tryout', '试镜'],
        ['cast', 'callback', '选上'],
      ],
    ] as const
  ).flatMap(([plans, told]) => {
    const terms = new Set(told.map(term));
    return plans.map((p) => [term(p), terms] as const);
  }),
);

/** A word's index term: its stem, or for a Chinese word the word itself among the bigrams it gives. */
function term(word: string): string {
  const terms = tokenize(word);
  return terms.length === 1 ? terms[0]! : word;
}

function outcomesOf(things: ReadonlySet<string>): Set<string> {
  return new Set([...things].flatMap((t) => [...(OUTCOMES.get(t) ?? [])]));
}

function tellsOutcome(text: string, outcomes: ReadonlySet<string>): boolean {
  return outcomes.size > 0 && tokenize(text).some((t) => outcomes.has(t));
}

function namesAny(said: ReadonlySet<string>, things: ReadonlySet<string>): boolean {
  return [...said].some((t) => things.has(t) || (/^\p{Script=Han}{2,}$/u.test(t) && [...t].some((c) => things.has(c))));
}

/** The things each message names (commonTerms), worked out once per message. */
function messageThings(): (m: StoredMessage) => Set<string> {
  const things = new Map<string, Set<string>>();
  return (m) => {
    let t = things.get(m.id);
    if (!t) things.set(m.id, (t = commonTerms(m.text)));
    return t;
  };
}

/**
 * The things a message names, without the names of people and places: words written with a capital
 * inside a sentence are left out ("Helix", "Sam"), a sentence's first word is kept ("Dinner with Sam"), and
 * a shouted sentence is read in lower case ("THE INTERVIEW WENT GREAT!!!").
 */
function commonTerms(text: string): Set<string> {
  const lowered = unshouted(text).replace(/(^\s*|[.!?]\s+)(\p{Lu})/gu, (_, before: string, c: string) => before + c.toLowerCase());
  const terms = contentTerms(lowered.replace(/\b\p{Lu}[\p{L}\p{N}'’-]*/gu, ' '));
  if (A_CALL.test(text)) terms.add(CALL_TERM);
  return terms;
}

/** "Call" names a plan where it is a thing ("the Figma call", "a call with Sam"), not what someone will do ("I'll call"). */
const A_CALL =
  /\b(?:(?:the|a|an|my|our|your|this|that|his|her|their)(?: [\p{L}-]+)?|zoom|video|phone|review|sales|client|team|work|intro|screening) calls?\b|\bcalls? with\b/iu;
const CALL_TERM = term('call');
