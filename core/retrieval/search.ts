import type { SearchMode } from '../domain/search.js';
import type { Embedder } from '../embed/embedder.js';
import type { EpisodeFilters } from '../store/episodes.js';
import type { FactFilters } from '../store/facts.js';
import type { Store } from '../store/store.js';
import type { RetrievalConfig } from '../context/retrieval-config.js';
import { tokenize } from '../text/tokenize.js';
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
  keyword(terms: readonly string[], limit: number): Promise<{ id: string; score: number; matchedTerms: string[] }[]>;
  hasVectors(modelId: string): Promise<boolean>;
  nearest(
    space: VectorSpace,
    vector: Float32Array,
    limit: number,
    within?: readonly string[],
  ): Promise<{ id: string; similarity: number }[]>;
}

export function episodeSource(store: Store, ownerId: string, filters: EpisodeFilters, config: RetrievalConfig): SearchSource {
  const read = store.read;
  return {
    kind: 'episode',
    keyword: (terms, limit) =>
      read.bm25
        .search(ownerId, terms, { limit, filters, params: config.bm25 })
        .then((hs) => hs.map((h) => ({ id: h.episodeId, score: h.score, matchedTerms: h.matchedTerms }))),
    hasVectors: (modelId) => read.vectors.any(ownerId, modelId),
    nearest: (space, vector, limit, within) =>
      read.vectors
        .search(ownerId, space, vector, { limit, filters: within ? {} : filters, within })
        .then((hs) => hs.map((h) => ({ id: h.episodeId, similarity: h.similarity }))),
  };
}

export function factSource(store: Store, ownerId: string, filters: FactFilters, config: RetrievalConfig): SearchSource {
  const read = store.read;
  return {
    kind: 'semantic',
    keyword: (terms, limit) => read.factTerms.search(ownerId, terms, { limit, filters, k1: config.bm25.k1, b: config.bm25.b }),
    hasVectors: (modelId) => read.factVectors.any(ownerId, modelId),
    nearest: (space, vector, limit, within) => read.factVectors.search(ownerId, space, vector, { limit, filters, within }),
  };
}

export interface SearchRequest {
  text: string;
  mode: SearchMode;
  limit: number;
  sources: readonly SearchSource[];
  /** A query vector computed earlier (benchmarks time search apart from embedding). */
  queryVector?: Float32Array | undefined;
}

export interface SearchDeps {
  embedder: Embedder | null;
  config: RetrievalConfig;
}

export interface SearchOutcome {
  hits: Hit[];
  modeUsed: SearchMode;
  warnings: string[];
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
    .sort((x, y) => y.score - x.score || x.kind.localeCompare(y.kind) || x.id.localeCompare(y.id));
}

/**
 * Keyword (BM25), vector (pgvector) or hybrid search over one owner's memories of one or more kinds.
 * Hybrid takes the union of every source's keyword and vector candidates and gives every keyword
 * candidate its exact vector similarity, so a strong keyword hit is never dropped for lack of a vector
 * rank; scores are scaled over the whole union, so episodes and facts compete in one ranking. Without
 * a usable model, hybrid degrades to keyword search with a warning instead of failing.
 */
export async function searchMemories(deps: SearchDeps, req: SearchRequest): Promise<SearchOutcome> {
  const { embedder, config } = deps;
  const warnings: string[] = [];
  const terms = tokenize(req.text);
  const k = Math.max(req.limit * config.candidateFactor, config.minCandidates);

  let mode = req.mode;
  let space: VectorSpace | null = null;
  let withVectors: SearchSource[] = [];
  if (mode !== 'bm25') {
    if (!embedder) {
      warnings.push('no embedding model is available, so results come from keyword search only');
    } else {
      for (const s of req.sources) if (await s.hasVectors(embedder.modelId)) withVectors.push(s);
      // Archived memories have no vector (core/forgetting), so "none yet" may also mean "all archived".
      if (withVectors.length === 0)
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
  if (mode !== 'vector') {
    const lists = await Promise.all(req.sources.map((s) => s.keyword(terms, k)));
    // Ranks are over the merged keyword list, so RRF treats both kinds alike.
    const merged = lists.flatMap((hits, i) => hits.map((h) => ({ kind: req.sources[i]!.kind, ...h }))).sort((a, b) => b.score - a.score);
    merged.forEach((h, i) => (at(h.kind, h.id).bm25 = { score: h.score, terms: h.matchedTerms, rank: i + 1 }));
  }
  if (space && embedder) {
    const qv = req.queryVector ?? (await embedder.embed([req.text], 'query'))[0]!;
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
    if (mode === 'hybrid') {
      // Keyword candidates the vector lists missed get their exact similarity (a cheap lookup by id).
      // Vector candidates the keyword lists missed score 0 on keywords: with BM25's candidate depth they
      // match no query term strongly, and rescoring them by term costs more than it changes.
      for (const s of withVectors) {
        const need = [...candidates.values()].filter((c) => c.kind === s.kind && c.similarity === null).map((c) => c.id);
        if (need.length === 0) continue;
        for (const h of await s.nearest(space, qv, need.length, need)) at(s.kind, h.id).similarity = h.similarity;
      }
    }
  }

  if (mode === 'hybrid') return { hits: fuse(candidates.values(), config).slice(0, req.limit), modeUsed: 'hybrid', warnings };
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
  single.sort((x, y) => y.score - x.score || x.kind.localeCompare(y.kind) || x.id.localeCompare(y.id));
  return { hits: single.slice(0, req.limit), modeUsed: mode, warnings };
}
