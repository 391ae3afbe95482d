import type { SearchResultItem } from '../api/search-contract.js';
import type { EngineContext } from '../context.js';
import { factText } from '../semantic/text.js';
import type { EpisodeFilters } from '../store/episodes.js';
import type { FactFilters } from '../store/facts.js';
import { explainHit } from './explain.js';
import { episodeSource, factSource, searchMemories, type Hit, type SearchMode, type SearchSource } from './search.js';

/**
 * The retrieval service every caller shares (the search operation, remember, enhanced query, discovery's
 * context): search over episodes and/or facts, hits turned into result items with scores, the reason
 * for each, and provenance down to the source messages.
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

/** Runs a search over episodes and/or facts and turns the hits into result items with provenance. */
export async function searchItems(ctx: EngineContext, q: MemoryQuery): Promise<{ items: SearchResultItem[]; modeUsed: SearchMode; warnings: string[] }> {
  const { store } = ctx;
  const sources: SearchSource[] = [];
  if (q.episodes) sources.push(episodeSource(store, q.ownerId, q.episodes, ctx.config.retrieval));
  if (q.facts) sources.push(factSource(store, q.ownerId, q.facts, ctx.config.retrieval));
  const outcome = await searchMemories({ embedder: ctx.embedder, config: ctx.config.retrieval }, { text: q.text, mode: q.mode, limit: q.limit, sources });
  const ids = (kind: Hit['kind']) => outcome.hits.filter((h) => h.kind === kind).map((h) => h.id);
  const read = store.read;
  const episodeIds = ids('episode');
  const factIds = ids('semantic');
  const [episodes, facts] = await Promise.all([read.episodes.searchResults(q.ownerId, episodeIds), read.facts.searchResults(q.ownerId, factIds)]);
  if (q.markAccessed) {
    const now = ctx.clock.now();
    await store.transaction(async (r) => {
      await r.episodes.recordAccess(q.ownerId, episodeIds, now);
      await r.facts.recordAccess(q.ownerId, outcome.hits.filter((h) => h.kind === 'semantic').map((h) => ({ id: h.id, relevance: h.score })), now);
    });
  }
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const factById = new Map(facts.map((f) => [f.id, f]));
  const items = outcome.hits.flatMap((h): SearchResultItem[] => {
    const scoring = { score: h.score, scores: { bm25: h.bm25, vector: h.similarity }, reason: { matchedBy: h.matchedBy, terms: h.matchedTerms, explanation: explainHit(h) } };
    if (h.kind === 'semantic') {
      const f = factById.get(h.id);
      if (!f) return [];
      return [{
        kind: 'semantic',
        id: f.id,
        key: f.key,
        entityType: f.entityType,
        title: f.label,
        summary: f.value,
        text: factText(f),
        context: f.context,
        version: f.version,
        confidence: f.confidence,
        updatedAt: f.updatedAt.toISOString(),
        ...scoring,
        sources: f.sources.map((m) => ({ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt.toISOString() })),
        episodeIds: f.episodeIds,
      }];
    }
    const e = episodeById.get(h.id);
    if (!e) return [];
    return [{
      kind: 'episode',
      id: e.id,
      title: e.title,
      summary: e.summary,
      text: e.content,
      start: e.temporal.start.toISOString(),
      end: e.temporal.end.toISOString(),
      utcOffsetMin: e.temporal.utcOffsetMin,
      ...scoring,
      sources: e.sources.map((m) => ({ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt.toISOString() })),
    }];
  });
  return { items, modeUsed: outcome.modeUsed, warnings: outcome.warnings };
}

