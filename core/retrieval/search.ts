import type { SearchMode } from '../domain/search.js';
import type { Embedder } from '../embed/embedder.js';
import type { Bm25TermStats } from '../store/bm25.js';
import type { EpisodeFilters } from '../store/episodes.js';
import type { VectorHit } from '../store/vectors.js';
import type { FactFilters } from '../store/facts.js';
import type { Store } from '../store/store.js';
import type { RetrievalConfig } from '../context/retrieval-config.js';
import { tokenize } from '../text/tokenize.js';
import { CHAR_WORDS_PER_CHAR, charWords, holdsChar, loneChars } from './char-words.js';
import { contentTerms } from '../text/keywords.js';
import { queryVector } from './query-vectors.js';
import { relevanceFloor } from './relevance-floor.js';

export type MatchedBy = 'bm25' | 'vector';
export type HitKind = 'episode' | 'semantic';

export interface Hit {
  kind: HitKind;
  id: string;
  score: number;
  bm25: number | null;
  similarity: number | null;
  matchedBy: MatchedBy[];
  matchedTerms: string[];
  /** The words of the query naming the period the hit is from, when it is from one the query named. */
  during?: string | undefined;
}

interface VectorSpace {
  modelId: string;
  dimensions: number;
}

/**
 * One kind of memory as search sees it: a keyword index and a vector index over the owner's items.
 * Episodes and semantic facts are two sources; searching both fuses them in one ranking.
 */
export interface SearchSource {
  kind: HitKind;
  /**
   * What the source can find for the owner: any item at all, and any vector of this model (null: no
   * vectors wanted). A source with nothing is not searched: a query costs more than this probe.
   */
  presence(modelId: string | null): Promise<{ items: boolean; vectors: boolean }>;
  /** Best items for the terms; `termStats`: the index statistics it scored with, when it has them to share. */
  keyword(
    terms: readonly string[],
    limit: number,
  ): Promise<{ hits: { id: string; score: number; matchedTerms: string[] }[]; termStats?: Bm25TermStats | null }>;
  /** The `limit` nearest items, nearest first. */
  nearest(space: VectorSpace, vector: Float32Array, limit: number): Promise<{ id: string; similarity: number }[]>;
  /** The similarity of each of these items that has a vector in the space. */
  similarities(space: VectorSpace, vector: Float32Array, ids: readonly string[]): Promise<{ id: string; similarity: number }[]>;
}

/**
 * A keyword search that finds fewer than `limit` items for a query with one-character Chinese words is
 * made again with the two-character words the index holds those in (core/retrieval/char-words.ts): a
 * word that finds little is looked for inside words too, and a search that found enough pays nothing
 * for the lookup (a common character is in hundreds of words).
 */
async function widenedByPairs<T extends { hits: readonly unknown[] }>(
  terms: readonly string[],
  limit: number,
  pairsWith: (chars: string[]) => Promise<string[]>,
  search: (also?: ReadonlyMap<string, number>) => Promise<T>,
): Promise<T> {
  const first = await search();
  const chars = first.hits.length < limit ? loneChars(terms) : [];
  if (chars.length === 0) return first;
  const also = charWords(new Set(terms), await pairsWith(chars));
  return also.size ? search(also) : first;
}

const byId = (hits: readonly VectorHit[]) => hits.map((h) => ({ id: h.episodeId, similarity: h.similarity }));

export function episodeSource(store: Store, ownerId: string, filters: EpisodeFilters, config: RetrievalConfig): SearchSource {
  const read = store.read;
  // How many episodes have vectors, as the presence probe counted them: it chooses how they are compared.
  let vectors = 0;
  return {
    kind: 'episode',
    keyword: async (terms, limit) => {
      const r = await widenedByPairs(
        terms,
        limit,
        (chars) => read.bm25.pairsWith(ownerId, chars, CHAR_WORDS_PER_CHAR),
        (also) => read.bm25.search(ownerId, terms, { limit, filters, params: config.bm25, also }),
      );
      return { hits: r.hits.map((h) => ({ id: h.episodeId, score: h.score, matchedTerms: h.matchedTerms })), termStats: r.termStats };
    },
    // Whether there are episodes at all, the keyword search finds out as cheaply as a probe would.
    presence: async (modelId) => {
      vectors =
        modelId === null
          ? 0
          : await store.untilNextWrite(`episode-vectors:${ownerId}:${modelId}`, (r) => r.vectors.vectors(ownerId, modelId));
      return { items: true, vectors: vectors > 0 };
    },
    nearest: (space, vector, limit) => read.vectors.search(ownerId, space, vector, { limit, filters, vectors }).then(byId),
    similarities: (space, vector, ids) => read.vectors.similarities(ownerId, space, vector, ids).then(byId),
  };
}

export function factSource(store: Store, ownerId: string, filters: FactFilters, config: RetrievalConfig): SearchSource {
  const read = store.read;
  // How many facts have vectors, as the presence probe counted them: it chooses how they are compared.
  let vectors = 0;
  return {
    kind: 'semantic',
    keyword: (terms, limit) =>
      widenedByPairs(
        terms,
        limit,
        (chars) => read.factTerms.pairsWith(ownerId, chars, CHAR_WORDS_PER_CHAR),
        async (also) => ({
          hits: await read.factTerms.search(ownerId, terms, { limit, filters, k1: config.bm25.k1, b: config.bm25.b, also }),
        }),
      ),
    presence: (modelId) =>
      store
        .untilNextWrite(`facts:${ownerId}:${modelId}`, (r) => r.factVectors.presence(ownerId, modelId))
        .then((p) => {
          vectors = p.vectors;
          return { items: p.facts, vectors: p.vectors > 0 };
        }),
    nearest: (space, vector, limit) => read.factVectors.search(ownerId, space, vector, { limit, filters, vectors }),
    similarities: (space, vector, ids) => read.factVectors.similarities(ownerId, space, vector, ids),
  };
}

export interface SearchRequest {
  text: string;
  mode: SearchMode;
  limit: number;
  sources: readonly SearchSource[];
  /** A query vector computed earlier (benchmarks time search apart from embedding). */
  queryVector?: Float32Array | undefined;
  /**
   * False: hybrid hits found by keywords only keep `similarity: null` instead of having it looked up.
   * Rank fusion does not score with it, so a caller that keeps only ids and scores (the evidence
   * packer's first stage) saves that lookup; weighted fusion looks it up regardless.
   */
  similarities?: boolean | undefined;
  /**
   * Re-sorts the best hits (of every kind, in their order; `depth` of them, or the page if it holds more)
   * before they are cut to `limit`, so a hit just below the page can move onto it; candidates are still
   * drawn for `limit`.
   */
  resort?: { depth: number; by: (hits: Hit[], termStats: SearchOutcome['termStats']) => Promise<Hit[]> } | undefined;
}

export interface SearchDeps {
  embedder: Embedder | null;
  config: RetrievalConfig;
}

export interface SearchOutcome {
  hits: Hit[];
  modeUsed: SearchMode;
  warnings: string[];
  /** The episode index's statistics for the query's terms, when the keyword search read them: message rankers reuse them. */
  termStats: { terms: ReadonlySet<string>; stats: Bm25TermStats } | null;
}

/**
 * Whether matched terms hold a word the query looks for (contentTerms), or a word holding one of its
 * one-character content words (猫咪 for 猫). A query with no such word looks for anything it says.
 */
function seeksIn(query: string): (matched: readonly string[]) => boolean {
  const content = contentTerms(query);
  if (content.size === 0) return () => true;
  const chars = loneChars(content);
  return (matched) => matched.some((t) => content.has(t) || chars.some((c) => holdsChar(t, c)));
}

/** Min–max scaling into [0, 1] over the candidate set, so keyword and vector scores can be mixed. */
function scaler(values: number[]): (v: number | null) => number {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return (v) => (v === null ? 0 : hi > lo ? (v - lo) / (hi - lo) : 1);
}

interface Candidate {
  kind: HitKind;
  id: string;
  bm25: { score: number; terms: string[]; rank: number } | null;
  similarity: number | null;
  vecRank: number | null;
}

function fuse(candidates: Iterable<Candidate>, config: RetrievalConfig): Hit[] {
  const all = [...candidates];
  const bScale = scaler(all.flatMap((c) => (c.bm25 ? [c.bm25.score] : [])));
  const vScale = scaler(all.flatMap((c) => (c.similarity !== null ? [c.similarity] : [])));
  return all
    .map<Hit>((c) => {
      const score =
        config.fusion === 'rrf'
          ? (c.bm25 ? 1 / (config.rrfK + c.bm25.rank) : 0) + (c.vecRank !== null ? 1 / (config.rrfK + c.vecRank) : 0)
          : config.alpha * vScale(c.similarity) + (1 - config.alpha) * bScale(c.bm25?.score ?? null);
      const matchedBy: MatchedBy[] = [];
      if (c.bm25 && c.bm25.score > 0) matchedBy.push('bm25');
      if (c.vecRank !== null) matchedBy.push('vector');
      return {
        kind: c.kind,
        id: c.id,
        score,
        bm25: c.bm25?.score ?? null,
        similarity: c.similarity,
        matchedBy,
        matchedTerms: c.bm25?.terms ?? [],
      };
    })
    .sort(
      (x, y) => y.score - x.score || x.kind.localeCompare(y.kind) || higherFirst(x.bm25, y.bm25) || higherFirst(x.similarity, y.similarity),
    );
}

/**
 * For sorting, best first: the higher score first, a missing one last. Sorts end on ties in the
 * candidates' order (keyword hits as the index ranks them, then the rest by meaning), never on ids,
 * which are random: the same conversations rank the same in every store built from them.
 */
function higherFirst(a: number | null, b: number | null): number {
  return Math.sign((b ?? -Infinity) - (a ?? -Infinity)) || 0;
}

/**
 * Keyword (BM25), vector (pgvector) or hybrid search over one owner's memories of one or more kinds.
 * Hybrid fuses the union of every source's keyword and vector candidates, so a strong keyword hit is
 * never dropped for lack of a vector rank; ranks (or scores) are taken over the whole union, so
 * episodes and facts compete in one ranking. Without a usable model, hybrid degrades to keyword search
 * with a warning instead of failing.
 */
export async function searchMemories(deps: SearchDeps, req: SearchRequest): Promise<SearchOutcome> {
  const { embedder, config } = deps;
  const warnings: string[] = [];
  const terms = tokenize(req.text);
  const k = Math.max(req.limit * config.candidateFactor, config.minCandidates);

  let mode = req.mode;
  let space: VectorSpace | null = null;
  const wanted = mode !== 'bm25' && embedder ? embedder.modelId : null;
  const presence = await Promise.all(req.sources.map((s) => s.presence(wanted)));
  const sources = req.sources.filter((_, i) => presence[i]!.items);
  let withVectors = req.sources.filter((_, i) => presence[i]!.vectors);
  if (mode !== 'bm25') {
    if (!embedder) {
      warnings.push('no embedding model is available, so results come from keyword search only');
    } else {
      // Archived memories have no vector (core/forgetting), so "none yet" may also mean "all archived".
      // With nothing to search at all (no facts yet), there is nothing a vector could have found.
      if (withVectors.length === 0 && sources.length > 0)
        warnings.push(
          `no active memories are embedded with ${embedder.modelId} (none yet, or all archived), so results come from keyword search only`,
        );
      else space = { modelId: embedder.modelId, dimensions: embedder.dimensions };
    }
    if (!space) {
      mode = 'bm25';
      withVectors = [];
    }
  }

  const candidates = new Map<string, Candidate>();
  const at = (kind: HitKind, id: string): Candidate => {
    const key = `${kind}:${id}`;
    let c = candidates.get(key);
    if (!c) candidates.set(key, (c = { kind, id, bm25: null, similarity: null, vecRank: null }));
    return c;
  };
  // The query's vector is made in the model's worker while the keyword half runs here; nothing to
  // search by meaning (no facts yet) asks for none.
  const vector =
    space && embedder && withVectors.length > 0
      ? req.queryVector
        ? Promise.resolve(req.queryVector)
        : queryVector(embedder, req.text)
      : null;
  vector?.catch(() => {});
  let termStats: SearchOutcome['termStats'] = null;
  if (mode !== 'vector') {
    const lists = await Promise.all(sources.map((s) => s.keyword(terms, k)));
    const stats = lists.find((l) => l.termStats)?.termStats;
    if (stats) termStats = { terms: new Set(terms), stats };
    // Ranks are over the merged keyword list, so RRF treats both kinds alike.
    const merged = lists.flatMap((l, i) => l.hits.map((h) => ({ kind: sources[i]!.kind, ...h }))).sort((a, b) => b.score - a.score);
    // A hit that shares only the query's function words with it ("去", "tomorrow") is no keyword match
    // of what the query looks for; it stays only if it is close in meaning. Ranks are kept as they were.
    const sought = seeksIn(req.text);
    merged.forEach((h, i) => {
      if (sought(h.matchedTerms)) at(h.kind, h.id).bm25 = { score: h.score, terms: h.matchedTerms, rank: i + 1 };
    });
  }
  const qv = vector ? await vector : null;
  /** Gives the items the nearest ones missed their similarity, looked up by id. */
  const lookUp = async (items: { kind: HitKind; id: string; similarity: number | null }[]) => {
    if (!space || !qv) return;
    await Promise.all(
      withVectors.map(async (s) => {
        const ids = items.filter((c) => c.kind === s.kind && c.similarity === null).map((c) => c.id);
        if (ids.length === 0) return;
        const found = new Map((await s.similarities(space, qv, ids)).map((h) => [h.id, h.similarity]));
        for (const c of items) if (c.kind === s.kind && found.has(c.id)) c.similarity = found.get(c.id)!;
      }),
    );
  };
  if (space && embedder && qv) {
    const lists = await Promise.all(withVectors.map((s) => s.nearest(space, qv, k)));
    const merged = lists
      .flatMap((hits, i) => hits.map((h) => ({ kind: withVectors[i]!.kind, ...h })))
      .sort((a, b) => b.similarity - a.similarity);
    // Results found only by meaning must clear the model's relevance floor (core/retrieval/relevance-floor.ts).
    const floor =
      config.vectorFloor === 'off'
        ? -Infinity
        : config.vectorFloor === 'measured'
          ? await relevanceFloor(embedder, req.text)
          : config.vectorFloor;
    let rank = 0;
    for (const h of merged) {
      if (h.similarity < floor && !candidates.has(`${h.kind}:${h.id}`)) continue;
      const c = at(h.kind, h.id);
      c.similarity = h.similarity;
      c.vecRank = ++rank;
    }
    // Vector candidates the keyword lists missed score 0 on keywords: with BM25's candidate depth they
    // match no query term strongly, and rescoring them by term costs more than it changes. Keyword
    // candidates the nearest ones missed get their similarity: weighted fusion scores with it (so a
    // strong keyword hit is never dropped for lack of one), and results show it — under rank fusion,
    // which does not score with it, only for the hits returned.
    if (mode === 'hybrid' && config.fusion === 'weighted') await lookUp([...candidates.values()]);
  }

  const page = async (ranked: Hit[]) => {
    const { resort } = req;
    return (resort ? await resort.by(ranked.slice(0, Math.max(req.limit, resort.depth)), termStats) : ranked).slice(0, req.limit);
  };
  if (mode === 'hybrid') {
    const hits = await page(fuse(candidates.values(), config));
    if (config.fusion === 'rrf' && req.similarities !== false) await lookUp(hits);
    return { hits, modeUsed: 'hybrid', warnings, termStats };
  }
  const single = [...candidates.values()].map<Hit>((c) =>
    mode === 'vector'
      ? { kind: c.kind, id: c.id, score: c.similarity ?? 0, bm25: null, similarity: c.similarity, matchedBy: ['vector'], matchedTerms: [] }
      : {
          kind: c.kind,
          id: c.id,
          score: c.bm25?.score ?? 0,
          bm25: c.bm25?.score ?? null,
          similarity: null,
          matchedBy: ['bm25'],
          matchedTerms: c.bm25?.terms ?? [],
        },
  );
  single.sort((x, y) => y.score - x.score || x.kind.localeCompare(y.kind));
  return { hits: await page(single), modeUsed: mode, warnings, termStats };
}
