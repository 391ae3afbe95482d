import type { EngineContext } from '../context/engine-context.js';
import type { PackConfig } from '../context/retrieval-config.js';
import type { StoredMessage } from '../domain/conversation.js';
import type { SearchMode } from '../domain/search.js';
import { hasFilters, type EpisodeFilters, type EpisodeHeader } from '../store/episodes.js';
import { boundedMemo } from '../text/bounded-memo.js';
import { localDate, toLocal } from '../text/describe.js';
import { countWords, cutToWords, excerpt } from '../text/quote.js';
import { tokenize } from '../text/tokenize.js';
import {
  feedbackTerms,
  messageDocs,
  queryTerms,
  scoreDocs,
  textTerms,
  type MessageDoc,
  type QueryTerms,
  type ScoredDoc,
} from './messages.js';
import { charWords } from './char-words.js';
import { SPOKEN_AHEAD_MS } from './upcoming.js';
import { anchorWindow, closeness, timeAnchors, type AskedAt, type TimeAnchor } from './query-time.js';
import { episodeSource, searchMemories, type Hit, type SearchOutcome } from './search.js';

/**
 * Packing evidence: what a companion is handed about a query, within a word budget. Ranking happens
 * at message level — the found episodes' messages scored one by one, with their episode's title, date
 * and people as context — and the best messages are packed with minimal context: their episode's
 * header once (title and absolute date), and a neighbouring turn where it carries the referent (the
 * reply to a question, the line a short answer answers). Selection is diversified across episodes and
 * days, so one topic does not fill the budget.
 */

export interface PackRequest {
  ownerId: string;
  query: string;
  /** What the returned text may cost at most: words (a CJK character counts as one), or units of `measure`. */
  budget: number;
  /** When given, nothing said after it is packed (a replay as of a past moment), and each block's header says how long ago it was. */
  now?: Date | undefined;
  /** The asker's UTC offset: with `now`, the days the query names relative to it ("yesterday") are read on their clock. */
  utcOffsetMin?: number | undefined;
  mode?: SearchMode | undefined;
  /** How the caller counts (see `Measure`); words and the packer's own headers by default. */
  measure?: Measure | undefined;
  /** Messages the caller shows otherwise (what the facts beside the evidence were drawn from): not quoted again. */
  shown?: ReadonlySet<string> | undefined;
}

/**
 * What a line of packed text costs, and the header line a block is shown with. A caller that counts
 * tokens and shows its own headers (loadContext) packs to its budget exactly, instead of through a
 * words-to-tokens guess that either leaves budget unused or drops the last blocks.
 */
export interface Measure {
  cost: (line: string) => number;
  header?: ((e: EpisodeHeader) => string) | undefined;
}

export interface PackedMessage {
  id: string;
  conversationId: string;
  externalId: string | null;
  speaker: string;
  sentAt: Date;
  utcOffsetMin: number;
  text: string;
  /** False for a neighbouring turn packed for its context. */
  matched: boolean;
}

export interface EvidenceBlock {
  episodeId: string;
  title: string;
  summary: string;
  start: Date;
  end: Date;
  utcOffsetMin: number;
  /** The best score among its matched messages. */
  score: number;
  header: string;
  messages: PackedMessage[];
  /** The header and one line per message, as it appears in `text`. */
  text: string;
  words: number;
}

export interface EvidencePack {
  /** Best block first; inside a block, messages in the order they were sent. */
  blocks: EvidenceBlock[];
  /** The blocks, separated by blank lines: what would be handed to an LLM. */
  text: string;
  words: number;
  coveredMessageIds: string[];
  modeUsed: SearchMode;
  warnings: string[];
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function ago(from: Date, now: Date): string {
  const days = Math.floor((now.getTime() - from.getTime()) / 86_400_000);
  if (days < 0) return '';
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 14) return `${days} days ago`;
  if (days < 60) return `${Math.round(days / 7)} weeks ago`;
  if (days < 730) return `${Math.round(days / 30.44)} months ago`;
  return `${Math.round(days / 365.25)} years ago`;
}

/** "[Mon 8 May 2023] Caroline and Melanie on adoption agencies" (local date of the episode's start). */
export function blockHeader(e: Pick<EpisodeHeader, 'title' | 'temporal'>, now?: Date): string {
  const d = toLocal(e.temporal.start, e.temporal.utcOffsetMin);
  const date = `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  const when = now ? ago(e.temporal.start, now) : '';
  return `[${date}${when ? `, ${when}` : ''}] ${e.title.replace(/\s+/g, ' ').trim()}`;
}

/** A title without the names of the people who talked ("Caroline and Melanie on adoption" → "adoption"): the lines name them. */
export function shortTitle(e: Pick<EpisodeHeader, 'title' | 'participants'>): string {
  const m = namesOpening(e.participants)?.exec(e.title);
  return m ? e.title.slice(m[0].length) : e.title;
}

/**
 * The opening of a title that names these people ("Ann and Ben on …"), compiled once per set of
 * names: a packer's sixty episodes are mostly of the same few people, and compiling it for each took
 * ~0.5 ms of a loadContext.
 */
const opening = boundedMemo(1000, (names) => new RegExp(`^(?:(?:${names})(?:, | and |、|和)?)+(?: on |聊到|说到)`, 'u'));
function namesOpening(participants: readonly string[]): RegExp | null {
  const names = participants.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return names ? opening(names) : null;
}

function line(m: StoredMessage, text: string): string {
  return `${m.speaker}: ${text.replace(/\s+/g, ' ').trim()}`;
}

/** A short answer or one that opens by pointing back ("Yes, …", "That was …") leans on the turn before it. */
const LEANS_BACK =
  /^(?:yes|yeah|yep|yup|no|nope|sure|definitely|absolutely|totally|exactly|right|true|it|it's|that|that's|this|they|those|there|we|wow|oh|haha|thanks|thank|same|me too|是|对|嗯|好|没有|不是|那|这)\b/iu;

function needsPrevious(doc: MessageDoc): boolean {
  return doc.lengths[0] < 6 || LEANS_BACK.test(doc.text.trim());
}

function asksQuestion(doc: MessageDoc): boolean {
  return /[?？]\s*(?:\[[^\]]*\])?\s*$/u.test(doc.text.trim()) || /[?？]/u.test(doc.text.slice(-80));
}

export interface Stage {
  docs: MessageDoc[];
  episodeScore: Map<string, number>;
  /** How close each episode is in meaning to the query, 0–1 over the candidates (0: the farthest, or not found by meaning). */
  episodeMeaning: Map<string, number>;
  /** Dates the query names; messages near them rank higher. */
  anchors: TimeAnchor[];
  /** Query–message similarity, where messages have vectors. */
  similarity?: ReadonlyMap<string, number> | undefined;
  modeUsed: SearchMode;
  warnings: string[];
}

export interface FirstStage {
  /** Episodes best first, with their fused search score and their similarity where the vector half found them. */
  hits: { id: string; score: number; similarity: number | null }[];
  anchors: TimeAnchor[];
  modeUsed: SearchMode;
  warnings: string[];
  /** The episode index's statistics for the query's terms, when the keyword search read them. */
  termStats: SearchOutcome['termStats'];
}

/**
 * The first stage: episodes by hybrid (or keyword) search; when the query names a date, also the best
 * episodes of that period (a filtered search reads every posting, so none of them is missed).
 */
export async function firstStage(
  ctx: EngineContext,
  ownerId: string,
  query: string,
  depth: number,
  mode: SearchMode,
  asked?: AskedAt,
): Promise<FirstStage> {
  const anchors = await timeAnchors(query, asked);
  // The periods' searches run beside the search: their keyword halves while the query is embedded.
  const [outcome, inPeriods] = await Promise.all([
    searchMemories(
      { embedder: ctx.embedder, config: ctx.config.retrieval },
      { text: query, mode, limit: depth, sources: [episodeSource(ctx.store, ownerId, {}, ctx.config.retrieval)], similarities: false },
    ),
    periodHits(ctx, ownerId, { text: query, mode, anchors, filters: {}, limit: Math.max(5, Math.ceil(depth / 4)) }),
  ]);
  const hits = outcome.hits.map((h) => ({ id: h.id, score: h.score, similarity: h.similarity }));
  const seen = new Set(hits.map((h) => h.id));
  for (const h of inPeriods) if (!seen.has(h.id)) hits.push({ id: h.id, score: hits.at(-1)?.score ?? 0, similarity: h.similarity });
  return { hits, anchors, modeUsed: outcome.modeUsed, warnings: outcome.warnings, termStats: outcome.termStats };
}

/**
 * The best episodes of the periods a query names (the first two) and the days around them (people
 * talk about a day in the days after it: `anchorWindow`), each found by a search of that window (a
 * filtered search reads every posting, so none of them is missed), with the period's words. Their
 * scores are not on the scale of an unfiltered search's: callers rank them below its hits.
 */
export async function periodHits(
  ctx: EngineContext,
  ownerId: string,
  o: { text: string; mode: SearchMode; anchors: readonly TimeAnchor[]; filters: EpisodeFilters; limit: number },
): Promise<Hit[]> {
  const anchors = o.anchors.slice(0, 2);
  const periods = await Promise.all(
    anchors.map((a) =>
      searchMemories(
        { embedder: ctx.embedder, config: ctx.config.retrieval },
        {
          text: o.text,
          mode: o.mode,
          limit: o.limit,
          sources: [episodeSource(ctx.store, ownerId, { ...o.filters, ...anchorWindow(a) }, ctx.config.retrieval)],
          similarities: false,
        },
      ),
    ),
  );
  // The first period's hits first, each episode once; then what was said of them before they came.
  const out = new Map<string, Hit>();
  periods.forEach((period, i) => {
    for (const h of period.hits) if (!out.has(h.id)) out.set(h.id, { ...h, during: anchors[i]!.phrase });
  });
  if (!hasFilters(o.filters))
    for (const a of anchors)
      for (const id of await spokenOfBefore(ctx, ownerId, a, o.limit))
        if (!out.has(id))
          out.set(id, { kind: 'episode', id, score: 0, bm25: null, similarity: null, matchedBy: [], matchedTerms: [], during: a.phrase });
  return [...out.values()];
}

/**
 * Episodes of the SPOKEN_AHEAD_MS before a period whose words name a day or a week of it ("want
 * to rehearse on Wednesday evening?" on Monday, for "what did we plan for Wednesday?"), latest first:
 * the days episodes keep of their time words.
 */
export async function spokenOfBefore(ctx: EngineContext, ownerId: string, a: TimeAnchor, limit: number): Promise<string[]> {
  const found = await ctx.store.read.episodes.namingDays(
    ownerId,
    { since: new Date(a.start.getTime() - SPOKEN_AHEAD_MS), until: a.start },
    { from: localDate(a.start, 0), to: localDate(a.end, 0), granularities: ['day', 'week'] },
    limit,
  );
  return found.map((e) => e.id);
}

/** Term statistics as the store has them; those of a query's terms from the first stage, which read them already. */
function termStatsAfter(ctx: EngineContext, ownerId: string, first: FirstStage): TermStats {
  const known = first.termStats;
  return (terms) =>
    known && terms.every((t) => known.terms.has(t)) ? Promise.resolve(known.stats) : ctx.store.read.bm25.termStats(ownerId, terms);
}

/** The candidates of a first stage: every message of the found episodes, with their episode's header. */
export async function stageOf(ctx: EngineContext, ownerId: string, first: FirstStage): Promise<Stage> {
  const ids = first.hits.map((h) => h.id);
  const read = ctx.store.read;
  const [headers, messages] = await Promise.all([read.episodes.headers(ownerId, ids), read.conversations.messagesOfEpisodes(ownerId, ids)]);
  return stageFrom(first, messageDocs(messages, new Map(headers.map((h) => [h.id, h]))));
}

export function stageFrom(first: FirstStage, docs: MessageDoc[]): Stage {
  const best = first.hits[0]?.score ?? 0;
  const worst = first.hits.at(-1)?.score ?? 0;
  const episodeScore = new Map(first.hits.map((h) => [h.id, best > worst ? (h.score - worst) / (best - worst) : 1]));
  // An episode the vector half did not find is farther than every one it found: it counts as the farthest.
  const similar = first.hits.flatMap((h) => (h.similarity === null ? [] : [h.similarity]));
  const near = Math.max(...similar);
  const far = Math.min(...similar);
  const episodeMeaning = new Map(
    first.hits.map((h) => [h.id, h.similarity !== null && near > far ? (h.similarity - far) / (near - far) : 0]),
  );
  return { docs, episodeScore, episodeMeaning, anchors: first.anchors, modeUsed: first.modeUsed, warnings: first.warnings };
}

/** People the query names: speakers of the candidate messages whose name terms all occur in the query. */
export function namedSpeakers(docs: readonly MessageDoc[], query: QueryTerms): Set<string> {
  const named = new Set<string>();
  const seen = new Set<string>();
  for (const d of docs) {
    const s = d.message.speaker;
    if (seen.has(s)) continue;
    seen.add(s);
    const terms = tokenize(s);
    if (terms.length > 0 && terms.every((t) => query.has(t))) named.add(s);
  }
  return named;
}

export interface RankedMessage {
  doc: MessageDoc;
  score: number;
  matched: string[];
  /** The neighbour (−1 before, +1 after) whose match this message mostly borrows its score from, if any. */
  leansOn: -1 | 1 | null;
}

/** Document frequencies of some terms in the owner's episode index (a store read, or a cache in benchmarks). */
export type TermStats = (terms: readonly string[]) => Promise<{ docCount: number; df: ReadonlyMap<string, number> }>;

/** The terms of the candidates' own texts (read only as far as a caller iterates). */
function* textVocabulary(docs: readonly MessageDoc[]): Iterable<string> {
  for (const d of docs) yield* d.fields[0].keys();
}

/**
 * Message-level ranking of the candidates: BM25F (+ feedback terms), part of the neighbouring turns'
 * match (an answer rarely repeats the question's words), the episode's first-stage rank and how close
 * it is in meaning to the query, and a boost for the speaker the question names. A query's
 * one-character Chinese words also match the candidates' words that hold them (core/retrieval/char-words.ts).
 */
export async function rankMessages(stage: Stage, query: string, termStats: TermStats, cfg: PackConfig): Promise<RankedMessage[]> {
  const q = queryTerms(query);
  for (const [t, w] of charWords(q, textVocabulary(stage.docs))) q.set(t, w);
  const named = namedSpeakers(stage.docs, q);
  if (cfg.speakerTerms !== 1) for (const s of named) for (const t of tokenize(s)) if (q.has(t)) q.set(t, q.get(t)! * cfg.speakerTerms);
  const scoring = { k1: cfg.k1, b: cfg.b, fields: cfg.fields };
  const stats = await termStats([...q.keys()]);
  let scored: ScoredDoc[] = scoreDocs(stage.docs, q, stats, scoring);

  if (cfg.feedback.terms > 0) {
    const top = [...scored]
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, cfg.feedback.docs);
    if (top.length >= cfg.feedback.minDocs) {
      const speakerTerms = new Set([...new Set(stage.docs.map((d) => d.message.speaker))].flatMap((s) => tokenize(s)));
      const fbStats = await termStats(textTerms(top));
      const extra = feedbackTerms(top, q, fbStats, { terms: cfg.feedback.terms, minDocs: cfg.feedback.minDocs, exclude: speakerTerms });
      if (extra.length) {
        const expanded: QueryTerms = new Map(q);
        for (const [t, w] of extra) expanded.set(t, cfg.feedback.weight * w);
        const df = new Map([...stats.df, ...fbStats.df]);
        scored = scoreDocs(stage.docs, expanded, { docCount: stats.docCount, df }, scoring);
      }
    }
  }
  return combine(scored, stage, named, cfg);
}

/** Own match, borrowed match, episode rank and episode meaning in one score per message (pure: benchmarks call it directly). */
export function combine(
  scored: readonly ScoredDoc[],
  stage: Pick<Stage, 'episodeScore' | 'episodeMeaning' | 'anchors' | 'similarity'>,
  named: ReadonlySet<string>,
  cfg: PackConfig,
): RankedMessage[] {
  const maxScore = Math.max(0, ...scored.map((s) => s.score)) || 1;
  // With message vectors, a message's own match mixes keywords and meaning (similarity min–max scaled over the candidates).
  const sims = stage.similarity && cfg.vectorWeight > 0 ? scored.map((s) => stage.similarity!.get(s.doc.message.id) ?? null) : null;
  const present = sims?.filter((x): x is number => x !== null) ?? [];
  const lo = Math.min(...present);
  const hi = Math.max(...present);
  const own = new Map(
    scored.map((s, i) => {
      const kw = s.score / maxScore;
      const v = sims?.[i];
      return [
        s.doc.message.id,
        v === null || v === undefined || hi <= lo ? kw : (1 - cfg.vectorWeight) * kw + cfg.vectorWeight * ((v - lo) / (hi - lo)),
      ];
    }),
  );
  const bySeq = new Map(scored.map((s) => [`${s.doc.message.conversationId}:${s.doc.message.seq}`, s]));
  const near = (s: ScoredDoc, step: number) => bySeq.get(`${s.doc.message.conversationId}:${s.doc.message.seq + step}`);
  return scored
    .map((s): RankedMessage => {
      const m = s.doc.message;
      const e = m.episodeId ? (stage.episodeScore.get(m.episodeId) ?? 0) : 0;
      const meaning = m.episodeId ? (stage.episodeMeaning.get(m.episodeId) ?? 0) : 0;
      const mine = own.get(m.id)!;
      const b = cfg.borrow;
      const from = (step: number, w: number) => {
        if (w === 0) return 0;
        const n = near(s, step);
        return n ? w * own.get(n.doc.message.id)! : 0;
      };
      const fromBefore = Math.max(from(-1, b.previous), from(-2, b.previous2));
      const fromAfter = Math.max(from(1, b.next), from(2, b.next2));
      const borrowed = Math.max(fromBefore, fromAfter);
      const leansOn = borrowed > mine ? (fromBefore >= fromAfter ? -1 : 1) : null;
      let score = (1 - cfg.episodeWeight) * (mine + borrowed) + cfg.episodeWeight * e + cfg.episodeMeaning * meaning;
      if (named.has(m.speaker)) score *= 1 + cfg.speakerBoost;
      if (s.doc.asks) score *= cfg.asking;
      if (stage.anchors.length && cfg.timeBoost > 0) score *= 1 + cfg.timeBoost * closeness(m.sentAt, m.utcOffsetMin, stage.anchors);
      return { doc: s.doc, score, matched: s.matched, leansOn };
    })
    .sort(
      (a, b) =>
        b.score - a.score || a.doc.message.sentAt.getTime() - b.doc.message.sentAt.getTime() || a.doc.message.seq - b.doc.message.seq,
    );
}

/**
 * Search results stay episodes, ordered with message-level evidence: each episode hit is scored by its
 * best message (own match, borrowed match, its episode's first-stage score, the named speaker and
 * date). Returns that score per episode id.
 */
export async function episodeEvidenceScores(
  ctx: EngineContext,
  ownerId: string,
  query: string,
  hits: readonly { id: string; score: number }[],
  episodes: readonly { header: EpisodeHeader; messages: StoredMessage[] }[],
  known: SearchOutcome['termStats'],
  anchors: readonly TimeAnchor[],
): Promise<Map<string, number>> {
  const cfg = ctx.config.retrieval.pack;
  // The hits are in the fused order already, which has the vector half: they are re-sorted by what their
  // messages say, not by their meaning again (LoCoMo dev, use-lite: 0.795 at 1000 words without, 0.790 with).
  const first: FirstStage = {
    hits: hits.map((h) => ({ id: h.id, score: h.score, similarity: null })),
    anchors: [...anchors],
    modeUsed: 'hybrid',
    warnings: [],
    termStats: known,
  };
  const stage = stageFrom(
    first,
    messageDocs(
      episodes.flatMap((e) => e.messages),
      new Map(episodes.map((e) => [e.header.id, e.header])),
    ),
  );
  const ranked = await rankMessages(stage, query, termStatsAfter(ctx, ownerId, first), cfg);
  const best = new Map<string, number>();
  for (const r of ranked) {
    const id = r.doc.message.episodeId;
    if (id && !best.has(id)) best.set(id, r.score);
  }
  return best;
}

interface OpenBlock {
  episode: EpisodeHeader;
  header: string;
  score: number;
  order: number;
  picked: Map<string, { doc: MessageDoc; matched: boolean }>;
}

/**
 * Packs ranked messages into blocks within the budget (greedy, diversity-discounted); words unless
 * `measure` counts otherwise. Messages `shown` elsewhere are neither packed nor added as neighbours.
 */
export function packRanked(
  ranked: readonly RankedMessage[],
  budget: number,
  cfg: PackConfig,
  now?: Date,
  measure: Measure = { cost: countWords },
  shown: ReadonlySet<string> = new Set(),
): EvidenceBlock[] {
  const { episodeDecay, dayDecay } = cfg;
  const { cost: costOf } = measure;
  // Each episode's header and its cost, once: candidates of an episode not packed yet ask again and again.
  const headers = new Map<string, { text: string; cost: number }>();
  const headerOf = (episode: EpisodeHeader) => {
    let h = headers.get(episode.id);
    if (!h) {
      const text = measure.header
        ? measure.header(episode)
        : blockHeader(
            cfg.header === 'date'
              ? { ...episode, title: '' }
              : cfg.header === 'short'
                ? { ...episode, title: shortTitle(episode) }
                : episode,
            now,
          ).trimEnd();
      headers.set(episode.id, (h = { text, cost: costOf(text) }));
    }
    return h;
  };
  // Neighbours by conversation and position.
  const position = new Map<string, { list: MessageDoc[]; i: number }>();
  const byConversation = new Map<string, MessageDoc[]>();
  for (const r of ranked) {
    const list = byConversation.get(r.doc.message.conversationId) ?? [];
    list.push(r.doc);
    byConversation.set(r.doc.message.conversationId, list);
  }
  for (const list of byConversation.values()) {
    list.sort((a, b) => a.message.seq - b.message.seq);
    list.forEach((d, i) => position.set(d.message.id, { list, i }));
  }
  const adjacent = (d: MessageDoc, step: 1 | -1): MessageDoc | null => {
    const p = position.get(d.message.id);
    const n = p?.list[p.i + step];
    return n && n.message.seq === d.message.seq + step ? n : null;
  };

  const blocks = new Map<string, OpenBlock>();
  const taken = new Set<string>(shown);
  const perDay = new Map<string, number>();
  const perEpisode = new Map<string, number>();
  // A long message (a chatbot's answer in an imported history) is quoted by its sentences that hold
  // the query's words, within `quoteWords`: whole, it would fill the budget with what was not asked.
  const termsOf = new Map(ranked.map((r) => [r.doc.message.id, r.matched]));
  const quotes = new Map<string, MessageDoc>();
  const quoted = (d: MessageDoc): MessageDoc => {
    let q = quotes.get(d.message.id);
    if (!q) {
      q = countWords(d.text) > cfg.quoteWords ? { ...d, text: excerpt(d.text, termsOf.get(d.message.id) ?? [], cfg.quoteWords) } : d;
      quotes.set(d.message.id, q);
    }
    return q;
  };
  const lineCost = new Map<string, number>();
  const costOfLine = (d: MessageDoc) => {
    let n = lineCost.get(d.message.id);
    if (n === undefined) lineCost.set(d.message.id, (n = costOf(line(d.message, d.text))));
    return n;
  };
  const dayOf = new Map<string, string>();
  const day = (d: MessageDoc) => {
    let k = dayOf.get(d.message.id);
    if (k === undefined) dayOf.set(d.message.id, (k = localDate(d.message.sentAt, d.message.utcOffsetMin)));
    return k;
  };
  let used = 0;
  // Best first; `ranked` is sorted already, the filter keeps that order.
  const pool = ranked.filter((r) => r.doc.episode !== null && r.score > 0);
  const done = new Uint8Array(pool.length);
  let left = pool.length;
  let skipped = 0;

  while (left > 0 && used < budget && skipped < 200) {
    // The best candidate after diversity discounts. A discount only lowers a score, so the scan stops
    // at the first raw score below the best discounted one found.
    let bestI = -1;
    let bestScore = -1;
    for (let i = 0; i < pool.length; i++) {
      if (done[i]) continue;
      const r = pool[i]!;
      if (r.score <= bestScore) break;
      if (taken.has(r.doc.message.id)) {
        done[i] = 1;
        left--;
        continue;
      }
      const s = r.score * episodeDecay ** (perEpisode.get(r.doc.episode!.id) ?? 0) * dayDecay ** (perDay.get(day(r.doc)) ?? 0);
      if (s > bestScore) {
        bestScore = s;
        bestI = i;
      }
    }
    if (bestI < 0) break;
    done[bestI] = 1;
    left--;
    const r = pool[bestI]!;
    const episode = r.doc.episode!;
    const add: { doc: MessageDoc; matched: boolean }[] = [{ doc: quoted(r.doc), matched: true }];
    if (cfg.neighbours === 'borrowed') {
      const n = r.leansOn ? adjacent(r.doc, r.leansOn) : null;
      if (n && !taken.has(n.message.id) && n.episode?.id === episode.id) add.push({ doc: quoted(n), matched: false });
    } else if (cfg.neighbours !== 'none') {
      const prev = cfg.neighbours !== 'answers' && (needsPrevious(r.doc) || r.leansOn === -1) ? adjacent(r.doc, -1) : null;
      const next = cfg.neighbours !== 'referents' && (asksQuestion(r.doc) || r.leansOn === 1) ? adjacent(r.doc, 1) : null;
      for (const n of [prev, next])
        if (n && !taken.has(n.message.id) && n.episode?.id === episode.id) add.push({ doc: quoted(n), matched: false });
    }
    let block = blocks.get(episode.id);
    const fresh = block ? null : headerOf(episode);
    const header = block?.header ?? fresh!.text;
    let cost = (fresh?.cost ?? 0) + add.reduce((n, a) => n + costOfLine(a.doc), 0);
    // A neighbour that does not fit is left out before the message itself is.
    while (used + cost > budget && add.length > 1) cost -= costOfLine(add.pop()!.doc);
    if (used + cost > budget) {
      skipped++;
      if (blocks.size === 0 && taken.size === 0) {
        // Nothing fits whole: the first message is cut to the budget so the answer is never empty (under
        // a header without its title if even the header is too long).
        const full = fresh!.cost + costOf(`${r.doc.message.speaker}:`) + 1 <= budget;
        const head = full ? header : blockHeader({ title: '', temporal: episode.temporal }, now).trimEnd();
        const room = budget - costOf(head) - costOf(`${r.doc.message.speaker}:`);
        const cut = cutToWords(quoted(r.doc).text, Math.max(1, room), costOf);
        return [
          finishBlock({
            episode,
            header: head,
            score: r.score,
            order: 0,
            picked: new Map([[r.doc.message.id, { doc: { ...r.doc, text: cut }, matched: true }]]),
          }),
        ];
      }
      continue;
    }
    if (!block) {
      block = { episode, header, score: r.score, order: blocks.size, picked: new Map() };
      blocks.set(episode.id, block);
    }
    for (const a of add) {
      block.picked.set(a.doc.message.id, a);
      taken.add(a.doc.message.id);
    }
    perDay.set(day(r.doc), (perDay.get(day(r.doc)) ?? 0) + 1);
    perEpisode.set(episode.id, (perEpisode.get(episode.id) ?? 0) + 1);
    used += cost;
  }
  return [...blocks.values()].sort((a, b) => b.score - a.score || a.order - b.order).map(finishBlock);
}

function finishBlock(b: OpenBlock): EvidenceBlock {
  const picked = [...b.picked.values()].sort((x, y) => x.doc.message.seq - y.doc.message.seq);
  const messages = picked.map(({ doc, matched }) => ({
    id: doc.message.id,
    conversationId: doc.message.conversationId,
    externalId: doc.message.externalId,
    speaker: doc.message.speaker,
    sentAt: doc.message.sentAt,
    utcOffsetMin: doc.message.utcOffsetMin,
    text: doc.text,
    matched,
  }));
  const text = [b.header, ...picked.map(({ doc }) => line(doc.message, doc.text))].join('\n');
  return {
    episodeId: b.episode.id,
    title: b.episode.title,
    summary: b.episode.summary,
    start: b.episode.temporal.start,
    end: b.episode.temporal.end,
    utcOffsetMin: b.episode.temporal.utcOffsetMin,
    score: b.score,
    header: b.header,
    messages,
    text,
    words: countWords(text),
  };
}

/**
 * The evidence for a query within `budget`: the best messages of the owner's memory with their
 * episode headers, as blocks (best first) and as one text. `coveredMessageIds` are the messages whose
 * text is in it.
 */
export async function packEvidence(ctx: EngineContext, req: PackRequest): Promise<EvidencePack> {
  const cfg = ctx.config.retrieval.pack;
  const budget = Math.max(1, Math.floor(req.budget));
  const asked = req.now && req.utcOffsetMin !== undefined ? { now: req.now, utcOffsetMin: req.utcOffsetMin } : undefined;
  const first = await firstStage(ctx, req.ownerId, req.query, cfg.depth, req.mode ?? 'hybrid', asked);
  const found = await stageOf(ctx, req.ownerId, first);
  const now = req.now;
  const stage = now ? { ...found, docs: found.docs.filter((d) => d.message.sentAt <= now) } : found;
  const ranked = stage.docs.length ? await rankMessages(stage, req.query, termStatsAfter(ctx, req.ownerId, first), cfg) : [];
  const blocks = packRanked(ranked, budget, cfg, now, req.measure, req.shown);
  const text = blocks.map((b) => b.text).join('\n\n');
  return {
    blocks,
    text,
    words: countWords(text),
    coveredMessageIds: blocks.flatMap((b) => b.messages.map((m) => m.id)),
    modeUsed: stage.modeUsed,
    warnings: stage.warnings,
  };
}
