import type { z } from 'zod';
import type { EngineContext } from '../../context/engine-context.js';
import type { StoredMessage } from '../../domain/conversation.js';
import type { EpisodeHeader } from '../../store/episodes.js';
import { packEvidence, shortTitle } from '../../retrieval/pack.js';
import { namesOnlyPeriods, readPeriod, timeAnchors, type ReadPeriod } from '../../retrieval/query-time.js';
import { speaksOf, thingsOfPlan } from '../../retrieval/upcoming.js';
import { describeDay, describeSpan, formatOffset, localDate } from '../../text/describe.js';
import { isPhatic } from '../../text/keywords.js';
import { tokenize } from '../../text/tokenize.js';
import { estimateTokens, factText } from '../../text/fact-text.js';
import { LoadContextInput, type ContextItem, type LoadContextOutput } from '../companion-contract.js';
import { DEFAULT_OWNER } from '../../domain/owner.js';
import type { OperationName, OpInput, OpOutput } from '../contract.js';
import type { EpisodeView } from '../views.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** A validated call of another operation: companion operations are built from the others, not beside them. */
export type CallOp = <K extends OperationName>(name: K, input: OpInput<K>) => Promise<OpOutput<K>>;

/**
 * `loadContext`: what a companion should know when a conversation starts, as one Markdown block within
 * a token budget. Built from the other operations — summarizeKnowledge ("What I know about you"),
 * listUpcoming ("Coming up"), search over facts — the latest episodes' titles and summaries
 * ("Recently", after the turns just said that no episode holds yet), and the evidence packer ("Related
 * to …": the messages of the person's memory that best answer the opening message, with their
 * episode's date and title), plus the turns just said that match it.
 *
 * Tokens are counted with the knowledge store's estimate (`estimateTokens`: ~4 Latin characters or one
 * CJK character per token, about 1.3 per English word), line by line, so the block never exceeds the
 * budget. Without a query, facts and recent episodes get half the budget each: the latest episodes,
 * however old, are all there is to open with. With one, what answers it matters most: the person's
 * most important facts get at most an eighth (facts that answer the query come under "Related"), and
 * "Recently" only episodes of the last RECENT_DAYS — what the person may want to pick up again — at
 * most a sixth; "Related" gets the rest, packed to fit what the other two left. Every token the
 * general facts take is one the evidence cannot (LoCoMo development set, use-lite, with discovery's
 * facts drawn from LoCoMo's own observations: 0.720 / 0.829 / 0.887 at 500 / 1000 / 2000 words with a
 * quarter, 0.762 / 0.831 / 0.889 with an eighth; nothing changes without facts). A fact that answers
 * the query is compact evidence: it says when its value was said, and the packer does not quote the
 * messages it was drawn from again (with those facts: 0.762 / 0.831 / 0.889 → 0.780 / 0.846 / 0.891). An
 * older episode earns its place by answering the query, in "Related", not by being the last one: a
 * memory last used months ago would otherwise spend a sixth of every budget on a stale "Recently" —
 * unless nothing answers the query, when the latest are again the best opening. What a section
 * leaves unused goes to the others.
 *
 * Every token a header spends is one the evidence cannot: the title states the time zone once and
 * times in it are written without it, and an episode's heading leaves out the people its quoted lines
 * name (LoCoMo development set, use-lite: 0.784 / 0.839 / 0.880 → 0.792 / 0.839 / 0.886 at 500 / 1000
 * / 2000 words; at 2000 no conversation worse).
 */

const RECENT = 8;
/** The episodes of a period an opening asks about that are read (the latest). */
const PERIOD_EPISODES = 30;
const RECENT_DAYS = 14;
const RELATED_FACTS = 5;
const PENDING = 5;
/** The latest messages no episode holds yet that are read, of how many conversations "Recently" quotes them, and how much of each. */
const UNBUILT_READ = 100;
const UNBUILT_CONVERSATIONS = 2;
const UNBUILT_TOKENS = 200;
const SUMMARY_CHARS = 280;
/** How much of a turn just said is quoted. */
const TURN_CHARS = 400;
/** The share of the budget the person's most important facts may take when there is a query. */
const ABOUT_SHARE = 1 / 8;
const RECENT_SHARE = 1 / 6;
/** "Coming up": what the person said of the next UPCOMING_DAYS days (listUpcoming), at most UPCOMING_SHARE of the budget. */
const UPCOMING_DAYS = 7;
const UPCOMING = 6;
const UPCOMING_SHARE = 1 / 8;
/**
 * "Gone by, not talked about since": plans of the last GONE_BY_DAYS days (listUpcoming's `daysBack`), or
 * of the days since the person last talked when that was longer ago (at most GONE_BY_MAX_DAYS): what
 * came while they were away is what a companion asks after first. At most GONE_BY_SHARE of the budget.
 */
const GONE_BY_DAYS = 3;
const GONE_BY_MAX_DAYS = 31;
/** What was said in the last hour is the conversation opening now, not the one before it. */
const OPENING_MS = 3_600_000;
const GONE_BY_SHARE = 1 / 12;

/** How many days back plans gone by are looked for: since the person last talked before this conversation, within bounds. */
function daysAway(now: Date, offset: number, recent: readonly EpisodeHeader[], unbuilt: readonly StoredMessage[]): number {
  const before = now.getTime() - OPENING_MS;
  const last = Math.max(
    ...recent.map((e) => e.temporal.end.getTime()).filter((t) => t <= before),
    ...unbuilt.map((m) => m.sentAt.getTime()).filter((t) => t <= before),
  );
  if (!Number.isFinite(last)) return GONE_BY_DAYS;
  const days = (Date.parse(localDate(now, offset)) - Date.parse(localDate(new Date(last), offset))) / 86_400_000;
  return Math.min(GONE_BY_MAX_DAYS, Math.max(GONE_BY_DAYS, days));
}

const shorten = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
};
const at = (iso: string, offset: number, zone = true) => describeSpan(new Date(iso), new Date(iso), offset, { zone });
/** `shown`: the zone the reader was told already, left out of a span in it. */
const spanOf = (e: { start: string; end: string; utcOffsetMin: number }, shown?: number) =>
  describeSpan(new Date(e.start), new Date(e.end), e.utcOffsetMin, { zone: e.utcOffsetMin !== shown });

type Quotable = Pick<UpcomingItem['message'], 'id' | 'conversationId' | 'speaker' | 'text' | 'sentAt' | 'utcOffsetMin'>;

/** A message as loadContext quotes it: as an operation gave it (its time written out) or as stored. */
function quoted(m: Quotable | (Omit<Quotable, 'sentAt'> & Pick<StoredMessage, 'sentAt'>)) {
  const sentAt = typeof m.sentAt === 'string' ? m.sentAt : m.sentAt.toISOString();
  return {
    id: m.id,
    conversationId: m.conversationId,
    speaker: m.speaker,
    text: m.text,
    sentAt,
    utcOffsetMin: m.utcOffsetMin,
    when: at(sentAt, m.utcOffsetMin),
  };
}

/** A plan as loadContext's sections give it: the message that said it, its days, what changed it and what it answers. */
function plan({ day, until, at, message, later, answers }: UpcomingItem) {
  return {
    day,
    ...(until ? { until } : {}),
    ...(at ? { at } : {}),
    ...(later ? { later: quoted(later.message) } : {}),
    ...(answers ? { answers: quoted(answers.message) } : {}),
    ...quoted(message),
  };
}

/** How many of the query's terms a message says (0: it does not match). */
function matcher(query: string): (text: string) => number {
  const terms = new Set(tokenize(query));
  return (text) => (terms.size === 0 ? 0 : new Set(tokenize(text).filter((t) => terms.has(t))).size);
}

interface Block<T> {
  lines: string[];
  cost: number;
  item: T;
}
const block = <T>(lines: string[], item: T): Block<T> => ({ lines, item, cost: lines.reduce((n, l) => n + estimateTokens(l), 0) });

interface Section<T> {
  header: string;
  blocks: Block<T>[];
  chosen: Set<number>;
  used: number;
  /** Leaves out a candidate another section already shows. */
  skip: (item: T) => boolean;
}

/**
 * Takes the section's candidates in order while they fit `allowance` (a section's best candidate may
 * go over it, up to `limit`, rather than leave the section empty); returns the tokens spent.
 */
function fill<T>(s: Section<T>, allowance: number, limit = allowance): number {
  let spent = 0;
  s.blocks.forEach((b, n) => {
    if (s.chosen.has(n) || s.skip(b.item)) return;
    const cost = b.cost + (s.chosen.size === 0 ? estimateTokens(s.header) : 0);
    if (spent + cost > (s.chosen.size === 0 ? Math.max(allowance, limit) : allowance)) return;
    s.chosen.add(n);
    spent += cost;
  });
  s.used += spent;
  return spent;
}

/** Candidates neither in this section nor shown by another. */
const left = <T>(s: Section<T>) => s.blocks.filter((b, n) => !s.chosen.has(n) && !s.skip(b.item)).length;
const picked = <T>(s: Section<T>) => s.blocks.filter((_, n) => s.chosen.has(n));
const render = <T>(s: Section<T>) => (s.chosen.size ? [s.header, ...picked(s).flatMap((b) => b.lines)] : []);

type AboutItem = { key: string | null };
type UpcomingItem = OpOutput<'listUpcoming'>['items'][number];
type RelatedItem = ContextItem;
/** An episode as Recently names it: its title, summary and time. */
type RecentEpisode = Pick<EpisodeView, 'id' | 'title' | 'summary' | 'start' | 'end' | 'utcOffsetMin'>;

function recentEpisode({ id, title, summary, temporal }: EpisodeHeader): RecentEpisode {
  return { id, title, summary, start: temporal.start.toISOString(), end: temporal.end.toISOString(), utcOffsetMin: temporal.utcOffsetMin };
}

type RecentItem = { kind: 'episode'; episode: RecentEpisode } | { kind: 'turns'; messages: StoredMessage[] };

/**
 * What was just said and is in no episode yet — the turns of a conversation going on, whose episodes are
 * built a moment after they arrive, or the last turns of one whose server stopped before it built them —
 * as "Recently"'s first items: a block per conversation (the latest first), its last turns that fit
 * UNBUILT_TOKENS. Turns `shown` elsewhere are left out.
 */
function unbuiltBlocks(unbuilt: readonly StoredMessage[], shown: ReadonlySet<string>, offset: number): Block<RecentItem>[] {
  const byConversation = new Map<string, StoredMessage[]>();
  for (const m of [...unbuilt].reverse()) {
    if (shown.has(m.id)) continue;
    const list = byConversation.get(m.conversationId);
    if (list) list.push(m);
    else byConversation.set(m.conversationId, [m]);
  }
  return [...byConversation.values()].slice(0, UNBUILT_CONVERSATIONS).map((latestFirst) => {
    const turns: { m: StoredMessage; line: string }[] = [];
    let cost = 0;
    for (const m of latestFirst) {
      const line = `  ${m.speaker}: ${shorten(m.text, TURN_CHARS)}`;
      if (turns.length > 0 && cost + estimateTokens(line) > UNBUILT_TOKENS) break;
      turns.unshift({ m, line });
      cost += estimateTokens(line);
    }
    const first = turns[0]!.m;
    const last = turns.at(-1)!.m;
    const when = describeSpan(first.sentAt, last.sentAt, last.utcOffsetMin, { zone: last.utcOffsetMin !== offset });
    const item: RecentItem = { kind: 'turns', messages: turns.map((t) => t.m) };
    return block([`- ${when} — **just said, not in an episode yet**`, ...turns.map((t) => t.line)], item);
  });
}

/**
 * `recordAccess: false` reads without counting what it hands over as recalled (the engine's warm-up,
 * which no one asked for, must not change what forgetting sees).
 */
export async function loadContext(
  ctx: EngineContext,
  op: CallOp,
  i: z.infer<typeof LoadContextInput>,
  { recordAccess = true }: { recordAccess?: boolean } = {},
): Promise<LoadContextOutput> {
  const now = i.now?.at ?? ctx.clock.now();
  // An opening that says nothing to look up ("hi!", "在吗？") gets what no query gets: the latest
  // episodes and who the person is, not old greetings that share its words.
  let query = i.query && !isPhatic(i.query) ? i.query : null;
  const warnings: string[] = [];

  // Candidates, most useful first in each section.
  const recentSince = now.getTime() - RECENT_DAYS * 86_400_000;
  const [recent, about, factHits, unbuilt] = await Promise.all([
    ctx.store.read.episodes.listHeaders(i.ownerId, { until: now, limit: RECENT }),
    op('summarizeKnowledge', { ownerId: i.ownerId, tokenLimit: i.budgetTokens, ...(i.now ? { asOf: now } : {}) }),
    query ? op('search', { ownerId: i.ownerId, query, kind: 'semantic', limit: RELATED_FACTS, markAccessed: recordAccess }) : null,
    ctx.store.read.conversations.recentPending(i.ownerId, new Date(recentSince), now, UNBUILT_READ),
  ]);
  if (factHits) warnings.push(...factHits.warnings);
  // The zone the companion says the person is in, else that of what they said last (turns just said,
  // else the latest episode), else this machine's.
  const offset = i.now?.utcOffsetMin ?? unbuilt.at(-1)?.utcOffsetMin ?? recent[0]?.temporal.utcOffsetMin ?? -now.getTimezoneOffset();
  // An opening that asks only about a period ("what did we talk about last week?", 上个月我们聊了什么):
  // that period's episodes, latest first, take the place of the latest ones, and nothing is looked up.
  // One about days to come ("what do I have tomorrow?") has nothing said in them yet: Coming up answers it.
  const named = query ? await timeAnchors(query, { now, utcOffsetMin: offset, current: true }) : [];
  const onlyPeriods = query !== null && namesOnlyPeriods(query, named);
  const asked = onlyPeriods ? readPeriod(named[0]!, { now, utcOffsetMin: offset }) : null;
  const period = asked && asked.since <= now ? asked : null;
  if (onlyPeriods) query = null;
  // Never past `now`: a replay asking about "today" is not told what came later that day.
  const periodEpisodes = period
    ? await ctx.store.read.episodes.listHeaders(i.ownerId, {
        since: period.since,
        until: period.until < now ? period.until : now,
        limit: PERIOD_EPISODES,
      })
    : null;
  // What the person said of the days ahead, whatever the opening: the companion's "good luck tomorrow".
  const { today, items: plans } = await op('listUpcoming', {
    ownerId: i.ownerId,
    now,
    utcOffsetMin: offset,
    days: UPCOMING_DAYS,
    daysBack: daysAway(now, offset, recent, unbuilt),
    limit: UPCOMING,
  });
  const upcoming = plans.filter((u) => !u.goneBy);
  // Plans whose day came and went without a word since: the companion's "how did it go?" — unless the
  // opening speaks of it ("The interview went great!").
  // The latest first: yesterday's interview before Thursday's dentist.
  const past = plans.filter((u) => u.goneBy);
  const goneBy = past
    .filter((u) => !(i.query && speaksOf(i.query, thingsOfPlan(u), past.filter((v) => v !== u).map(thingsOfPlan))))
    .reverse();

  // "What I know about you": summarizeKnowledge's lines (most important, most certain first); an entity
  // type heading goes with the fact under it, and each fact line is its key.
  const aboutBlocks: Block<AboutItem>[] = [];
  let heading: string | null = null;
  let facts = 0;
  let inRelationships = false;
  for (const line of about.summary.split('\n').filter(Boolean)) {
    if (!line.startsWith('- ')) {
      heading = line;
      inRelationships ||= line === 'relationships:';
      continue;
    }
    const key = inRelationships ? null : (about.keys[facts++] ?? null);
    aboutBlocks.push(block(heading ? [`**${heading.replace(/:$/, '')}**`, line] : [line], { key }));
    heading = null;
  }

  const episodeBlock = (h: EpisodeHeader) => {
    const e = recentEpisode(h);
    return block<RecentItem>([`- ${spanOf(e, offset)} — **${e.title}**: ${shorten(e.summary, SUMMARY_CHARS)}`], {
      kind: 'episode',
      episode: e,
    });
  };
  const latestBlocks = (periodEpisodes ?? recent).map(episodeBlock);
  const recentBlocks = query ? recent.filter((e) => e.temporal.end.getTime() >= recentSince).map(episodeBlock) : latestBlocks;

  // Facts that answer the query, then what was just said in the conversation going on now (its
  // messages reach episodes only after they are built); the packed evidence is added below.
  const relatedBlocks: Block<RelatedItem>[] = [];
  // The messages each fact shown under Related was drawn from (the value it shows).
  let factSources = new Map<string, string[]>();
  if (query) {
    const found = (factHits?.results ?? []).flatMap((r) => (r.kind === 'semantic' ? [r] : []));
    // As of a past moment, a fact says what it said then; one not known yet is left out.
    const then = i.now
      ? await ctx.store.read.factVersions.asOf(
          i.ownerId,
          found.map((r) => r.id),
          now,
        )
      : null;
    const factResults = then
      ? found.flatMap((r) => {
          const v = then.get(r.id)?.value;
          return v ? [{ ...r, summary: v.value, version: v.version, text: factText({ label: r.title, ...v }) }] : [];
        })
      : found;
    // A fact says when the value it shows was last said (what a companion needs to place it in time), and
    // the evidence below does not quote those messages again: the fact says them in fewer words.
    factSources = then
      ? new Map(factResults.map((r) => [r.id, then.get(r.id)!.sourceMessageIds]))
      : await ctx.store.read.factVersions.sourceMessages(
          i.ownerId,
          factResults.map((r) => r.id),
          'current',
        );
    for (const r of factResults) {
      const shownValue = new Set(factSources.get(r.id) ?? []);
      const last = r.sources.filter((m) => shownValue.has(m.id)).at(-1);
      const written = Date.parse(r.updatedAt) > now.getTime() ? now.toISOString() : r.updatedAt;
      const when = last ? `said ${at(last.sentAt, offset, false)}` : `as of ${at(written, offset, false)}`;
      const item: RelatedItem = {
        kind: 'fact',
        id: r.id,
        key: r.key,
        title: r.title,
        value: r.summary,
        version: r.version,
        updatedAt: r.updatedAt,
        score: r.score,
      };
      relatedBlocks.push(block([`- Fact \`${r.key}\` (v${r.version}, ${when}): ${shorten(r.text, SUMMARY_CHARS)}`], item));
    }
    const matches = matcher(query);
    const pending = unbuilt.flatMap((m) => {
      const n = matches(m.text);
      return n > 0 ? [{ m, n }] : [];
    });
    pending.sort((a, b) => b.n - a.n || b.m.sentAt.getTime() - a.m.sentAt.getTime());
    for (const { m, n } of pending.slice(0, PENDING)) {
      const item: RelatedItem = { kind: 'message', ...quoted(m), score: n };
      const when = at(item.sentAt, item.utcOffsetMin, item.utcOffsetMin !== offset);
      relatedBlocks.push(block([`- Just said: ${item.speaker}, ${when}: “${shorten(item.text, TURN_CHARS)}”`], item));
    }
  }

  // A fact or an episode is shown once: where it was taken first.
  const relatedSection: Section<RelatedItem> = {
    header: `### Related to “${shorten(query ?? '', 80)}”`,
    blocks: relatedBlocks,
    chosen: new Set(),
    used: 0,
    skip: (x) => x.kind === 'fact' && picked(aboutSection).some((b) => b.item.key === x.key),
  };
  const inRelated = (kind: 'fact' | 'episode', id: string) =>
    picked(relatedSection).some((b) => b.item.kind === kind && (b.item.kind === 'fact' ? b.item.key : b.item.id) === id);
  const aboutSection: Section<AboutItem> = {
    header: '### What I know about you',
    blocks: aboutBlocks,
    chosen: new Set(),
    used: 0,
    skip: (x) => x.key !== null && inRelated('fact', x.key),
  };
  const planLine = (u: UpcomingItem) => {
    const inDays = Math.round((Date.parse(u.day) - Date.parse(today)) / 86_400_000);
    const soon =
      inDays === 0
        ? 'today'
        : inDays === 1
          ? 'tomorrow'
          : inDays === -1
            ? 'yesterday'
            : inDays < 0
              ? `${-inDays} days ago`
              : `in ${inDays} days`;
    const days = u.until
      ? `${describeDay(u.day)} – ${describeDay(u.until)} (${inDays === 0 || inDays === 1 ? `from ${soon}` : soon})`
      : `${describeDay(u.day)} (${soon}${u.at ? `, ${u.at}` : ''})`;
    const when = (m: UpcomingItem['message']) => at(m.sentAt, m.utcOffsetMin, m.utcOffsetMin !== offset);
    const since = u.later
      ? ` Since then, ${u.later.message.speaker}, ${when(u.later.message)}: “${shorten(u.later.text, TURN_CHARS)}”`
      : '';
    const asked = u.answers ? `, answering ${u.answers.message.speaker}’s “${shorten(u.answers.text, TURN_CHARS)}”` : '';
    return block([`- ${days} — ${u.message.speaker}, ${when(u.message)}${asked}: “${shorten(u.text, TURN_CHARS)}”${since}`], u);
  };
  const plansSection = (header: string, items: readonly UpcomingItem[]): Section<UpcomingItem> => ({
    header,
    blocks: items.map(planLine),
    chosen: new Set(),
    used: 0,
    skip: () => false,
  });
  const goneBySection = plansSection('### Gone by, not talked about since', goneBy);
  const upcomingSection = plansSection('### Coming up', upcoming);
  const recentSection: Section<RecentItem> = {
    header: period ? `### ${periodHeading(period)}` : '### Recently',
    blocks: [...(period ? [] : unbuiltBlocks(unbuilt, new Set(), offset)), ...recentBlocks],
    chosen: new Set(),
    used: 0,
    skip: (x) => x.kind === 'episode' && inRelated('episode', x.episode.id),
  };

  const title = `## What I remember — now is ${at(now.toISOString(), offset, false)} (all times ${formatOffset(offset)} unless marked)`;
  const available = Math.max(0, i.budgetTokens - estimateTokens(title));
  const sections = [aboutSection, goneBySection, upcomingSection, recentSection, relatedSection] as unknown as Section<unknown>[];
  const spent = () => sections.reduce((sum, x) => sum + x.used, 0);
  fill(upcomingSection, Math.floor(available * UPCOMING_SHARE));
  fill(goneBySection, Math.floor(available * GONE_BY_SHARE));
  if (query) {
    const aboutShare = Math.floor(available * ABOUT_SHARE);
    // Kept for Recently: its turns just said and recent episodes, up to its share.
    const recentReserve = Math.min(
      Math.floor(available * RECENT_SHARE),
      recentSection.blocks.reduce((n, b) => n + b.cost, recentSection.blocks.length ? estimateTokens(recentSection.header) : 0),
    );
    // Facts that answer the query first, under Related with when they were said; the most important
    // of the others under "What I know about you".
    fill(relatedSection, available - spent() - aboutShare - recentReserve);
    fill(aboutSection, aboutShare);
    const room = available - spent() - recentReserve - (relatedSection.chosen.size ? 0 : estimateTokens(relatedSection.header));
    const shown = new Set(picked(relatedSection).flatMap((b) => (b.item.kind === 'fact' ? (factSources.get(b.item.id) ?? []) : [])));
    const evidence = await relatedEvidence(ctx, i.ownerId, query, room, now, offset, warnings, shown, recordAccess);
    relatedSection.blocks.push(...evidence);
    fill(relatedSection, available - spent() - recentReserve);
    // Nothing answers the query ("hi" after months of silence): the latest episodes, however old, are
    // again the best there is to open with. Turns just said that Related quotes are not quoted again.
    const quotedAbove = new Set(picked(relatedSection).flatMap((b) => (b.item.kind === 'message' ? [b.item.id] : [])));
    recentSection.blocks = [
      ...unbuiltBlocks(unbuilt, quotedAbove, offset),
      ...(relatedSection.chosen.size === 0 ? latestBlocks : recentBlocks),
    ];
    for (const s of [recentSection, aboutSection] as Section<unknown>[]) fill(s, available - spent());
  } else {
    // A period asked about is what the opening wants: its episodes come first.
    if (period) fill(recentSection, available - Math.floor(available * ABOUT_SHARE));
    fill(aboutSection, Math.floor(available / 2));
    for (const s of [recentSection, aboutSection] as Section<unknown>[]) fill(s, available - spent());
  }

  const body = sections.flatMap(render);
  const empty = aboutBlocks.length + recent.length + relatedBlocks.length + unbuilt.length + plans.length === 0;
  const note = empty
    ? 'Nothing remembered yet.'
    : periodEpisodes?.length === 0
      ? `Nothing was said ${period!.from === period!.to ? `on ${period!.from}` : `from ${period!.from} to ${period!.to}`}.`
      : body.length === 0
        ? 'Nothing fits the budget.'
        : null;
  const lines = [title, ...(note && estimateTokens(note) <= available ? [note] : []), ...body];
  const markdown = lines.join('\n');
  return {
    markdown,
    tokens: lines.reduce((sum, l) => sum + estimateTokens(l), 0),
    budgetTokens: i.budgetTokens,
    now: now.toISOString(),
    query,
    sections: {
      about: {
        text: picked(aboutSection)
          .flatMap((b) => b.lines)
          .join('\n'),
        keys: picked(aboutSection).flatMap((b) => (b.item.key ? [b.item.key] : [])),
      },
      recent: picked(recentSection).flatMap(({ item: x }) =>
        x.kind === 'episode'
          ? [
              {
                id: x.episode.id,
                title: x.episode.title,
                summary: x.episode.summary,
                start: x.episode.start,
                end: x.episode.end,
                utcOffsetMin: x.episode.utcOffsetMin,
                when: spanOf(x.episode),
              },
            ]
          : [],
      ),
      unbuilt: picked(recentSection).flatMap(({ item: x }) => (x.kind === 'turns' ? x.messages.map(quoted) : [])),
      upcoming: picked(upcomingSection).map(({ item }) => plan(item)),
      goneBy: picked(goneBySection).map(({ item }) => plan(item)),
      related: picked(relatedSection).map((b) => b.item),
    },
    left: {
      about: left(aboutSection),
      goneBy: left(goneBySection),
      upcoming: left(upcomingSection),
      recent: left(recentSection),
      related: left(relatedSection),
    },
    warnings: [...new Set(warnings)],
  };
}

/** "Last week (2026-11-16 to 2026-11-22)", "上个月 (2026-10-01 to 2026-10-31)": the words the person used, and the days they mean. */
function periodHeading(p: ReadPeriod): string {
  const days = p.from === p.to ? p.from : `${p.from} to ${p.to}`;
  return `${p.phrase.charAt(0).toUpperCase()}${p.phrase.slice(1)} (${days})`;
}

/**
 * The evidence packer's blocks for the query, each as an episode line with its packed messages under
 * it. The packer counts the lines as they are shown here, in tokens, so the blocks fill `roomTokens`
 * exactly. The episodes handed over count as accessed, as search results do.
 */
async function relatedEvidence(
  ctx: EngineContext,
  ownerId: string,
  query: string,
  roomTokens: number,
  now: Date,
  shownOffset: number,
  warnings: string[],
  shown: ReadonlySet<string>,
  recordAccess: boolean,
): Promise<Block<RelatedItem>[]> {
  if (roomTokens < 1) return [];
  const header = (e: EpisodeHeader) => {
    const when = describeSpan(e.temporal.start, e.temporal.end, e.temporal.utcOffsetMin, { zone: e.temporal.utcOffsetMin !== shownOffset });
    return `- ${when} — **${shortTitle(e)}**`;
  };
  const pack = await packEvidence(ctx, {
    ownerId,
    query,
    budget: roomTokens,
    now,
    utcOffsetMin: shownOffset,
    measure: { cost: estimateTokens, header },
    shown,
  });
  warnings.push(...pack.warnings);
  const ids = pack.blocks.map((b) => b.episodeId);
  if (ids.length === 0) return [];
  // Recalled now, even as of a past moment: a replay must not set their last access back to it.
  if (recordAccess) await ctx.store.transaction((w) => w.episodes.recordAccess(ownerId, ids, ctx.clock.now()));
  return pack.blocks.map((b) => {
    const episode = { start: b.start.toISOString(), end: b.end.toISOString(), utcOffsetMin: b.utcOffsetMin };
    const item: RelatedItem = {
      kind: 'episode',
      id: b.episodeId,
      title: b.title,
      summary: b.summary,
      ...episode,
      when: spanOf(episode),
      score: b.score,
      messages: b.messages.map(quoted),
    };
    return block([b.header, ...b.messages.map((m) => `  ${m.speaker}: ${m.text.replace(/\s+/g, ' ').trim()}`)], item);
  });
}

export function loadContextHandlers({ ctx }: HandlerEnv, op: CallOp): Handlers<'loadContext'> {
  return {
    loadContext: (i) => loadContext(ctx, op, i),
  };
}

/** An opening with words to look up and no period, which every section of loadContext answers. */
const WARM_UP_OPENING = 'dinner with friends';

/**
 * The first loadContext after an open took ~0.6 s at 100k episodes and the next ones 60–80 ms: the
 * database's code not yet compiled, its pages not yet read. An engine that stays open pays that at
 * once, for the owner a companion asks about (the default one, else the first), so a companion's first
 * opening is answered as fast as the next; what it reads counts as recalled by no one.
 */
export async function warmUpLoadContext(ctx: EngineContext, op: CallOp): Promise<void> {
  const owners = await ctx.store.read.episodes.owners();
  const ownerId = owners.includes(DEFAULT_OWNER) ? DEFAULT_OWNER : owners[0];
  if (ownerId) await loadContext(ctx, op, LoadContextInput.parse({ ownerId, query: WARM_UP_OPENING }), { recordAccess: false });
}
