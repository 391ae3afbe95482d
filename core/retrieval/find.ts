import type { EngineContext } from '../context/engine-context.js';
import type { SearchMode } from '../domain/search.js';
import type { EpisodeFilters, SearchResultRow } from '../store/episodes.js';
import type { FactFilters, FactResultRow } from '../store/facts.js';
import { episodeEvidenceScores } from './pack.js';
import { episodeSource, factSource, searchMemories, type Hit, type SearchOutcome, type SearchSource } from './search.js';

/**
 * The retrieval service every caller shares (the search operation, remember, enhanced query, discovery's
 * context): search over episodes and/or facts, each hit with the stored record it points at, its scores
 * and provenance down to the source messages.
 */

export interface MemoryQuery {
  ownerId: string;
  text: string;
  mode: SearchMode;
  limit: number;
  episodes: EpisodeFilters | null;
  facts: FactFilters | null;
  markAccessed: boolean;
}

/** A ranked hit with the record it found, best first. */
export type FoundMemory = { kind: 'episode'; hit: Hit; episode: SearchResultRow } | { kind: 'semantic'; hit: Hit; fact: FactResultRow };

export interface FoundMemories {
  found: FoundMemory[];
  modeUsed: SearchMode;
  warnings: string[];
}

/**
 * The first `depth` episode hits re-sorted by their message-level evidence (core/retrieval/pack.ts);
 * they keep the places episodes had among the hits, so facts stay where fusion put them. Their rows
 * are read here, with their messages, in the one query that reads them for the results anyway.
 */
async function rerankEpisodes(
  ctx: EngineContext,
  ownerId: string,
  text: string,
  hits: Hit[],
  depth: number,
  termStats: SearchOutcome['termStats'],
): Promise<{ hits: Hit[]; rows: SearchResultRow[] }> {
  const slots = hits.flatMap((h, i) => (h.kind === 'episode' ? [i] : [])).slice(0, depth);
  if (slots.length < 2) return { hits, rows: [] };
  const rows = await ctx.store.read.episodes.searchResultsWithMessages(
    ownerId,
    slots.map((i) => hits[i]!.id),
  );
  const scores = await episodeEvidenceScores(
    ctx,
    ownerId,
    text,
    slots.map((i) => hits[i]!),
    rows,
    termStats,
  );
  const reordered = slots.map((i) => hits[i]!).sort((a, b) => (scores.get(b.id) ?? 0) - (scores.get(a.id) ?? 0) || b.score - a.score);
  const out = [...hits];
  slots.forEach((slot, j) => (out[slot] = reordered[j]!));
  return { hits: out, rows: rows.map(({ header: _, messages: __, ...row }) => row) };
}

/** Runs a search over episodes and/or facts and reads the records of the hits (in rank order). */
export async function findMemories(ctx: EngineContext, q: MemoryQuery): Promise<FoundMemories> {
  const { store } = ctx;
  const sources: SearchSource[] = [];
  if (q.episodes) sources.push(episodeSource(store, q.ownerId, q.episodes, ctx.config.retrieval));
  if (q.facts) sources.push(factSource(store, q.ownerId, q.facts, ctx.config.retrieval));
  // Only hits that are returned anyway are re-sorted: their rows are read in any case, so re-sorting
  // costs their messages and the scoring, never more rows.
  const depth = q.episodes ? Math.min(q.limit, ctx.config.retrieval.rerankDepth) : 0;
  const outcome = await searchMemories(
    { embedder: ctx.embedder, config: ctx.config.retrieval },
    { text: q.text, mode: q.mode, limit: q.limit, sources },
  );
  let known: SearchResultRow[] = [];
  if (depth > 0) {
    const r = await rerankEpisodes(ctx, q.ownerId, q.text, outcome.hits, depth, outcome.termStats);
    outcome.hits = r.hits;
    known = r.rows;
  }
  const ids = (kind: Hit['kind']) => outcome.hits.filter((h) => h.kind === kind).map((h) => h.id);
  const read = store.read;
  const episodeIds = ids('episode');
  const factIds = ids('semantic');
  const have = new Set(known.map((e) => e.id));
  const [more, facts] = await Promise.all([
    read.episodes.searchResults(
      q.ownerId,
      episodeIds.filter((id) => !have.has(id)),
    ),
    read.facts.searchResults(q.ownerId, factIds),
  ]);
  const episodes = [...known, ...more];
  if (q.markAccessed) {
    const now = ctx.clock.now();
    await store.transaction(async (r) => {
      await r.episodes.recordAccess(q.ownerId, episodeIds, now);
      await r.facts.recordAccess(
        q.ownerId,
        outcome.hits.filter((h) => h.kind === 'semantic').map((h) => ({ id: h.id, relevance: h.score })),
        now,
      );
    });
  }
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const factById = new Map(facts.map((f) => [f.id, f]));
  const found = outcome.hits.flatMap((hit): FoundMemory[] => {
    if (hit.kind === 'semantic') {
      const fact = factById.get(hit.id);
      return fact ? [{ kind: 'semantic', hit, fact }] : [];
    }
    const episode = episodeById.get(hit.id);
    return episode ? [{ kind: 'episode', hit, episode }] : [];
  });
  return { found, modeUsed: outcome.modeUsed, warnings: outcome.warnings };
}
