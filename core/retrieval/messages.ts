import type { StoredMessage } from '../domain/conversation.js';
import type { EpisodeHeader } from '../store/episodes.js';
import { messageText } from '../text/message-text.js';
import { tokenize } from '../text/tokenize.js';

/**
 * Scoring single messages against a query: BM25F over three fields — the message's own text, its
 * speaker, and its episode's context (title, topics, people) — with the idf of the owner's episode
 * index. A message is short and often leaves its subject unsaid ("we went there on Friday"); the
 * context fields let the episode say it, weighted low so the message's own words decide.
 */

export interface MessageFieldWeights {
  text: number;
  speaker: number;
  context: number;
  /** The turns just before and after it. */
  near: number;
}

export interface MessageScoring {
  k1: number;
  b: number;
  fields: MessageFieldWeights;
}

/** A query as weighted terms: the asked ones weigh 1, terms added by feedback less. */
export type QueryTerms = Map<string, number>;

export function queryTerms(text: string): QueryTerms {
  const q: QueryTerms = new Map();
  for (const t of tokenize(text)) q.set(t, (q.get(t) ?? 0) + 1);
  return q;
}

/** Idf as the episode index computes it (BM25's, always positive). */
export function idf(docCount: number, df: number | undefined): number {
  if (!df || docCount <= 0) return 0;
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** A text's terms with how often each occurs. */
type Counts = ReadonlyMap<string, number>;

/** A message prepared for scoring once per query: its terms per field. */
export interface MessageDoc {
  message: StoredMessage;
  episode: EpisodeHeader | null;
  text: string;
  /**
   * Term counts of its text, speaker, episode context, and the turns just before and after it (shared,
   * read-only). The two neighbouring turns score as one field, `near`: their counts are added when read,
   * not merged into a map of their own that every message would keep.
   */
  fields: [Counts, Counts, Counts, Counts, Counts];
  /** Lengths of the scored fields: text, speaker, context, near (both neighbouring turns). */
  lengths: [number, number, number, number];
  /** Whether it asks rather than tells (ends with a question). */
  asks: boolean;
}

const NONE: Counts = new Map();

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** What an episode contributes to each of its messages: title, topics, named people and things. */
export function episodeContextText(e: EpisodeHeader): string {
  return [e.title, ...e.keywords, ...e.entities].join(' \n ');
}

/**
 * Term counts of recently scored texts: a person searches the same memories again and again, and
 * tokenising is most of the cost of scoring messages. Bounded, because the process that holds the
 * store serves searches for days: a chat message's counts take ~0.6 kB, so at most ~12 MB, the
 * messages of ~20 `loadContext` calls or a few hundred searches. A full clear is crude but O(1)
 * amortised: unlike an import, a search does not come back to what it scored before the clear.
 */
const TERMS_CACHE_MAX = 20_000;
interface Bag {
  counts: Counts;
  length: number;
}
const bags = new Map<string, Bag>();
function bag(key: string, text: () => string): Bag {
  let b = bags.get(key);
  if (!b) {
    const tokens = tokenize(text());
    if (bags.size >= TERMS_CACHE_MAX) bags.clear();
    bags.set(key, (b = { counts: counts(tokens), length: tokens.length }));
  }
  return b;
}

/**
 * Messages as scoring documents. The neighbouring-turns field takes the turns before and after a
 * message within its episode (so a message scores the same whichever other episodes were loaded).
 */
export function messageDocs(messages: readonly StoredMessage[], episodes: ReadonlyMap<string, EpisodeHeader>): MessageDoc[] {
  // A message's text never changes; an episode's title and topics can be edited, so they are keyed by text.
  // Each message's bag is looked up once, for itself and for the turns it neighbours; each episode's once.
  const own = new Map(
    messages.map((m) => {
      const text = messageText(m);
      return [m.id, { text, bag: bag(`m:${m.id}:${text.length}`, () => text) }];
    }),
  );
  const contexts = new Map<string, Bag>();
  const contextOf = (episode: EpisodeHeader | null): Bag => {
    const key = episode?.id ?? '';
    let b = contexts.get(key);
    if (!b) {
      const ctxText = episode ? episodeContextText(episode) : '';
      contexts.set(key, (b = bag(`e:${ctxText}`, () => ctxText)));
    }
    return b;
  };
  const at = new Map(messages.map((m) => [`${m.conversationId}:${m.seq}`, m]));
  return messages.map((m): MessageDoc => {
    const episode = m.episodeId ? (episodes.get(m.episodeId) ?? null) : null;
    const context = contextOf(episode);
    const { text, bag: mine } = own.get(m.id)!;
    const speaker = bag(`s:${m.speaker}`, () => m.speaker);
    const neighbour = (step: number) => {
      const n = at.get(`${m.conversationId}:${m.seq + step}`);
      return n && n.episodeId === m.episodeId ? own.get(n.id)!.bag : null;
    };
    const before = neighbour(-1);
    const after = neighbour(1);
    return {
      message: m,
      episode,
      text,
      fields: [mine.counts, speaker.counts, context.counts, before?.counts ?? NONE, after?.counts ?? NONE],
      lengths: [mine.length, speaker.length, context.length, (before?.length ?? 0) + (after?.length ?? 0)],
      asks: /[?？]\s*(?:\[[^\]]*\])?\s*$/u.test(text.trim()),
    };
  });
}

export interface ScoredDoc {
  doc: MessageDoc;
  score: number;
  matched: string[];
}

/** A query term that can score: its place in the query (scores are summed in that order), weight and idf. */
interface ScoringTerm {
  term: string;
  at: number;
  weight: number;
  idf: number;
}

/**
 * The query terms to look up in a message, in the query's order: all of them when the query is the
 * shorter side, else those the message holds in some field. A Chinese query's one-character words
 * bring in every candidate word that holds them (core/retrieval/char-words.ts): 74 terms on average
 * for the synthetic companion queries, against a few dozen words in a message and its context.
 */
function termsToScore(d: MessageDoc, terms: readonly ScoringTerm[], byTerm: ReadonlyMap<string, ScoringTerm>): readonly ScoringTerm[] {
  let held = 0;
  for (const f of d.fields) held += f.size;
  if (terms.length <= held) return terms;
  const out: ScoringTerm[] = [];
  for (const f of d.fields)
    for (const t of f.keys()) {
      const s = byTerm.get(t);
      if (s && !out.includes(s)) out.push(s);
    }
  return out.sort((a, b) => a.at - b.at);
}

/** BM25F scores of every message (0 when no query term occurs in any field). */
export function scoreDocs(
  docs: readonly MessageDoc[],
  query: QueryTerms,
  stats: { docCount: number; df: ReadonlyMap<string, number> },
  p: MessageScoring,
): ScoredDoc[] {
  const avg = [0, 0, 0, 0];
  for (const d of docs) for (let f = 0; f < 4; f++) avg[f]! += d.lengths[f]!;
  for (let f = 0; f < 4; f++) avg[f] = Math.max(1, avg[f]! / Math.max(1, docs.length));
  const w = [p.fields.text, p.fields.speaker, p.fields.context, p.fields.near];
  const terms = [...query].flatMap(([term, weight], at): ScoringTerm[] => {
    const i = idf(stats.docCount, stats.df.get(term));
    return i > 0 ? [{ term, at, weight, idf: i }] : [];
  });
  const byTerm = new Map(terms.map((s) => [s.term, s]));
  return docs.map((d) => {
    let score = 0;
    const matched: string[] = [];
    for (const { term: t, weight, idf: i } of termsToScore(d, terms, byTerm)) {
      let pseudo = 0;
      for (let f = 0; f < 4; f++) {
        if (w[f] === 0) continue;
        const tf = f < 3 ? d.fields[f]!.get(t) : (d.fields[3].get(t) ?? 0) + (d.fields[4].get(t) ?? 0);
        if (!tf) continue;
        pseudo += (w[f]! * tf) / (1 - p.b + (p.b * d.lengths[f]!) / avg[f]!);
      }
      if (pseudo === 0) continue;
      matched.push(t);
      score += (weight * i * ((p.k1 + 1) * pseudo)) / (p.k1 + pseudo);
    }
    return { doc: d, score, matched };
  });
}

/** Distinct terms of the messages' own text: what feedback may draw from. */
export function textTerms(docs: readonly ScoredDoc[]): string[] {
  const out = new Set<string>();
  for (const d of docs) for (const t of d.doc.fields[0].keys()) out.add(t);
  return [...out];
}

/**
 * Pseudo-relevance feedback (RM3-like, on terms): the terms that weigh most in the best-scoring
 * messages — relative score × frequency share in each, times idf — leaving out the query's own terms
 * and the speakers' names. A term must occur in `minDocs` of them: one message's words are its own
 * wording, what several share is the topic.
 */
export function feedbackTerms(
  top: readonly ScoredDoc[],
  query: QueryTerms,
  stats: { docCount: number; df: ReadonlyMap<string, number> },
  o: { terms: number; minDocs: number; exclude: ReadonlySet<string> },
): [string, number][] {
  if (o.terms <= 0 || top.length === 0) return [];
  const weight = new Map<string, number>();
  const docs = new Map<string, number>();
  const best = top[0]!.score || 1;
  for (const s of top) {
    const rel = s.score / best;
    const len = Math.max(1, s.doc.lengths[0]);
    for (const [t, tf] of s.doc.fields[0]) {
      if (query.has(t) || o.exclude.has(t)) continue;
      weight.set(t, (weight.get(t) ?? 0) + (rel * tf) / len);
      docs.set(t, (docs.get(t) ?? 0) + 1);
    }
  }
  const scored = [...weight]
    .filter(([t]) => docs.get(t)! >= o.minDocs)
    .map(([t, x]): [string, number] => [t, x * idf(stats.docCount, stats.df.get(t))])
    .filter(([, x]) => x > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, o.terms);
  const top1 = scored[0]?.[1] ?? 1;
  return scored.map(([t, x]) => [t, x / top1]);
}
