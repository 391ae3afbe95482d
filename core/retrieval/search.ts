import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import type { EpisodeFilters } from '../store/episodes.js';
import type { Store } from '../store/store.js';
import type { RetrievalConfig } from './config.js';
import { tokenize } from './tokenize.js';

export const SearchMode = z.enum(['hybrid', 'bm25', 'vector']);
export type SearchMode = z.infer<typeof SearchMode>;
export type MatchedBy = 'bm25' | 'vector';

export interface EpisodeHit {
  episodeId: string;
  score: number;
  bm25: number | null;
  similarity: number | null;
  matchedBy: MatchedBy[];
  matchedTerms: string[];
}

export interface SearchRequest {
  ownerId: string;
  text: string;
  mode: SearchMode;
  limit: number;
  filters: EpisodeFilters;
  /** A query vector computed earlier (benchmarks time search apart from embedding). */
  queryVector?: Float32Array | undefined;
}

export interface SearchDeps {
  store: Store;
  embedder: Embedder | null;
  config: RetrievalConfig;
}

export interface SearchOutcome {
  hits: EpisodeHit[];
  modeUsed: SearchMode;
  warnings: string[];
}

/** Min–max scaling into [0, 1] over the candidate set, so keyword and vector scores can be mixed. */
function scaler(values: number[]): (v: number | null) => number {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return (v) => (v === null ? 0 : hi > lo ? (v - lo) / (hi - lo) : 1);
}

function fuse(
  bm25: Map<string, { score: number; terms: string[] }>,
  vec: Map<string, number>,
  config: RetrievalConfig,
  rankOf: { bm25: Map<string, number>; vec: Map<string, number> },
): EpisodeHit[] {
  const ids = new Set([...bm25.keys(), ...vec.keys()]);
  const bScale = scaler([...bm25.values()].map((x) => x.score));
  const vScale = scaler([...vec.values()]);
  const hits: EpisodeHit[] = [];
  for (const id of ids) {
    const b = bm25.get(id) ?? null;
    const v = vec.get(id) ?? null;
    let score: number;
    if (config.fusion === 'rrf') {
      const rb = rankOf.bm25.get(id);
      const rv = rankOf.vec.get(id);
      score = (rb === undefined ? 0 : 1 / (config.rrfK + rb)) + (rv === undefined ? 0 : 1 / (config.rrfK + rv));
    } else {
      score = config.alpha * vScale(v) + (1 - config.alpha) * bScale(b?.score ?? null);
    }
    const matchedBy: MatchedBy[] = [];
    if (b && b.score > 0) matchedBy.push('bm25');
    if (rankOf.vec.has(id)) matchedBy.push('vector');
    hits.push({ episodeId: id, score, bm25: b?.score ?? null, similarity: v, matchedBy, matchedTerms: b?.terms ?? [] });
  }
  return hits.sort((x, y) => y.score - x.score || x.episodeId.localeCompare(y.episodeId));
}

/**
 * Keyword (BM25F), vector (pgvector HNSW) or hybrid search over one owner's episodes. Hybrid takes the
 * union of both candidate lists and gives every keyword candidate its exact vector similarity, so a
 * strong keyword hit is never dropped for lack of a vector rank. Without a usable model, hybrid degrades to
 * keyword search with a warning (seed 004) instead of failing.
 */
export async function searchEpisodes(deps: SearchDeps, req: SearchRequest): Promise<SearchOutcome> {
  const { store, embedder, config } = deps;
  const warnings: string[] = [];
  const read = store.read;
  const terms = tokenize(req.text);
  const k = Math.max(req.limit * config.candidateFactor, config.minCandidates);
  const bm25Params = config.bm25;

  let mode = req.mode;
  let space: { modelId: string; dimensions: number } | null = null;
  if (mode !== 'bm25') {
    if (!embedder) {
      warnings.push('no embedding model is available, so results come from keyword search only');
    } else if (!(await read.vectors.any(req.ownerId, embedder.modelId))) {
      // Archived memories have no vector (core/forgetting), so "none yet" may also mean "all archived".
      warnings.push(`no active memories are embedded with ${embedder.modelId} (none yet, or all archived), so results come from keyword search only`);
    } else {
      space = { modelId: embedder.modelId, dimensions: embedder.dimensions };
    }
    if (!space) mode = 'bm25';
  }

  const bm25Hits = mode === 'vector' ? [] : await read.bm25.search(req.ownerId, terms, { limit: k, filters: req.filters, params: bm25Params });
  let vecHits: { episodeId: string; similarity: number }[] = [];
  if (space && embedder) {
    const qv = req.queryVector ?? (await embedder.embed([req.text], 'query'))[0]!;
    vecHits = await read.vectors.search(req.ownerId, space, qv, { limit: k, filters: req.filters });
    if (mode === 'hybrid') {
      // Keyword candidates the vector list missed get their exact similarity (a cheap lookup by id).
      // Vector candidates the keyword list missed score 0 on keywords: with BM25's candidate depth they
      // match no query term strongly, and rescoring them by term costs more than it changes.
      const inVec = new Set(vecHits.map((h) => h.episodeId));
      const needVec = bm25Hits.filter((h) => !inVec.has(h.episodeId)).map((h) => h.episodeId);
      const moreVec = needVec.length ? await read.vectors.search(req.ownerId, space, qv, { limit: needVec.length, filters: {}, within: needVec }) : [];
      const bm25Map = new Map(bm25Hits.map((h) => [h.episodeId, { score: h.score, terms: h.matchedTerms }]));
      const vecMap = new Map([...vecHits, ...moreVec].map((h) => [h.episodeId, h.similarity]));
      const rankOf = {
        bm25: new Map(bm25Hits.map((h, i) => [h.episodeId, i + 1])),
        vec: new Map(vecHits.map((h, i) => [h.episodeId, i + 1])),
      };
      return { hits: fuse(bm25Map, vecMap, config, rankOf).slice(0, req.limit), modeUsed: 'hybrid', warnings };
    }
  }
  if (mode === 'vector') {
    const hits = vecHits.slice(0, req.limit).map<EpisodeHit>((h) => ({
      episodeId: h.episodeId,
      score: h.similarity,
      bm25: null,
      similarity: h.similarity,
      matchedBy: ['vector'],
      matchedTerms: [],
    }));
    return { hits, modeUsed: 'vector', warnings };
  }
  const hits = bm25Hits.slice(0, req.limit).map<EpisodeHit>((h) => ({
    episodeId: h.episodeId,
    score: h.score,
    bm25: h.score,
    similarity: null,
    matchedBy: ['bm25'],
    matchedTerms: h.matchedTerms,
  }));
  return { hits, modeUsed: 'bm25', warnings };
}
