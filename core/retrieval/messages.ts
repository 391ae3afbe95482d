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

/** A message prepared for scoring once per query: its terms per field. */
export interface MessageDoc {
  message: StoredMessage;
  episode: EpisodeHeader | null;
  text: string;
  /** text, speaker, episode context, neighbouring turns */
  fields: [Map<string, number>, Map<string, number>, Map<string, number>, Map<string, number>];
  lengths: [number, number, number, number];
  /** Whether it asks rather than tells (ends with a question). */
  asks: boolean;
}

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** What an episode contributes to each of its messages: title, topics, named people and things. */
export function episodeContextText(e: EpisodeHeader): string {
  return [e.title, ...e.keywords, ...e.entities].join(' \n ');
}

export function messageDocs(messages: readonly StoredMessage[], episodes: ReadonlyMap<string, EpisodeHeader>): MessageDoc[] {
  const contextTokens = new Map<string, string[]>();
  const textTokens = new Map<string, string[]>();
  const docs = messages.map((m): MessageDoc => {
    const episode = m.episodeId ? (episodes.get(m.episodeId) ?? null) : null;
    let ctxTokens: string[] = [];
    if (episode) {
      ctxTokens = contextTokens.get(episode.id) ?? tokenize(episodeContextText(episode));
      contextTokens.set(episode.id, ctxTokens);
    }
    const text = messageText(m);
    const tokens = tokenize(text);
    textTokens.set(m.id, tokens);
    const speakerTokens = tokenize(m.speaker);
    return {
      message: m,
      episode,
      text,
      fields: [counts(tokens), counts(speakerTokens), counts(ctxTokens), new Map()],
      lengths: [tokens.length, speakerTokens.length, ctxTokens.length, 0],
      asks: /[?？]\s*(?:\[[^\]]*\])?\s*$/u.test(text.trim()),
    };
  });
  // The neighbouring turns' words, where the neighbour was loaded too.
  const at = new Map(docs.map((d) => [`${d.message.conversationId}:${d.message.seq}`, d]));
  for (const d of docs) {
    const near = [-1, 1].flatMap((step) => {
      const n = at.get(`${d.message.conversationId}:${d.message.seq + step}`);
      return n ? textTokens.get(n.message.id)! : [];
    });
    d.fields[3] = counts(near);
    d.lengths[3] = near.length;
  }
  return docs;
}

export interface ScoredDoc {
  doc: MessageDoc;
  score: number;
  matched: string[];
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
  const idfs = new Map<string, number>();
  for (const t of query.keys()) idfs.set(t, idf(stats.docCount, stats.df.get(t)));
  return docs.map((d) => {
    let score = 0;
    const matched: string[] = [];
    for (const [t, qw] of query) {
      const i = idfs.get(t)!;
      if (i <= 0) continue;
      let pseudo = 0;
      for (let f = 0; f < 4; f++) {
        const tf = d.fields[f]!.get(t);
        if (!tf || w[f] === 0) continue;
        pseudo += (w[f]! * tf) / (1 - p.b + (p.b * d.lengths[f]!) / avg[f]!);
      }
      if (pseudo === 0) continue;
      matched.push(t);
      score += (qw * i * ((p.k1 + 1) * pseudo)) / (p.k1 + pseudo);
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
