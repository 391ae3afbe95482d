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
 * Episode hits re-sorted by their message-level evidence (core/retrieval/pack.ts): those on the page
 * (the first `limit` hits) and, from the first `depth` hits below it, half as many again: those with
 * the strongest keyword match. The re-sort scores messages by the query's words, so a hit whose episode
 * matches them strongly is the one worth reading; one keyword search did not find has nothing for it to
 * score. LoCoMo dev, use-lite, 1000 words: a page of 10 0.719 re-sorted alone, 0.788 so, 0.790 with as
 * many again — which costs a 100k-episode hybrid search ~2 ms more, where half as many costs no more
 * than the noise. They keep the places episodes had among the hits, so facts stay where fusion put them.
 * Their rows are read here, with their messages, in the one query that reads the page's rows anyway.
 */
async function rerankEpisodes(
  ctx: EngineContext,
  ownerId: string,
  text: string,
  hits: Hit[],
  { limit, depth }: { limit: number; depth: number },
  termStats: SearchOutcome['termStats'],
): Promise<{ hits: Hit[]; rows: SearchResultRow[] }> {
  const isEpisode = (i: number) => hits[i]!.kind === 'episode';
  const page = hits.slice(0, Math.min(limit, depth)).flatMap((_, i) => (isEpisode(i) ? [i] : []));
  const below = hits
    .slice(0, depth)
    .flatMap((h, i) => (i >= limit && isEpisode(i) && h.bm25 !== null ? [i] : []))
    .sort((a, b) => hits[b]!.bm25! - hits[a]!.bm25! || a - b)
    .slice(0, Math.ceil(page.length / 2));
  const slots = [...page, ...below].sort((a, b) => a - b);
  if (slots.length < 2) return { hits, rows: [] };
  const rows = await ctx.store.read.episodes.searchResultsWithMessages(
    ownerId,
    slots.map((i) => hits[i]!.id),
  );
  // Every episode hit within the depth sets the scale of the episodes' own scores, read or not: the
  // last hit read would otherwise count as the worst and lose all of that share.
  const scale = hits.slice(0, depth).filter((h) => h.kind === 'episode');
  const scores = await episodeEvidenceScores(ctx, ownerId, text, scale, rows, termStats);
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
  // The page is re-sorted with the hits just below it: a small page (a companion's search asks for 8)
  // re-sorted alone could only reorder what fusion put on it.
  const depth = q.episodes ? ctx.config.retrieval.rerankDepth : 0;
  let known: SearchResultRow[] = [];
  const outcome = await searchMemories(
    { embedder: ctx.embedder, config: ctx.config.retrieval },
    {
      text: q.text,
      mode: q.mode,
      limit: q.limit,
      sources,
      resort:
        depth > 0
          ? {
              depth,
              by: async (hits, termStats) => {
                const r = await rerankEpisodes(ctx, q.ownerId, q.text, hits, { limit: q.limit, depth }, termStats);
                known = r.rows;
                return r.hits;
              },
            }
          : undefined,
    },
  );
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
