import type { z } from 'zod';
import type { EngineContext } from '../../context.js';
import { episodeSource, factSource, searchMemories, type Hit, type SearchMode, type SearchSource } from '../../retrieval/search.js';
import { factText } from '../../semantic/text.js';
import type { EpisodeFilters } from '../../store/episodes.js';
import type { SemanticFilters } from '../../store/semantic.js';
import type { SearchInput, SearchResultItem } from '../contract.js';
import { explainHit } from '../explain.js';
import type { Handlers, HandlerEnv } from '../handler.js';

export interface MemoryQuery {
  ownerId: string;
  text: string;
  mode: SearchMode;
  limit: number;
  episodes: EpisodeFilters | null;
  facts: SemanticFilters | null;
  markAccessed: boolean;
}

/** Which kinds a search input asks for, with each kind's filters (null: that kind is not searched). */
export function queryOf(i: z.infer<typeof SearchInput>): MemoryQuery {
  const episodeOnly = i.since !== undefined || i.until !== undefined || i.episodeTypes !== undefined;
  const factOnly = i.entityTypes !== undefined || i.tags !== undefined || i.source !== undefined || i.minConfidence !== undefined;
  const wantEpisodes = i.kind === 'episodic' || (i.kind === 'all' && !factOnly);
  const wantFacts = i.kind === 'semantic' || (i.kind === 'all' && !episodeOnly);
  return {
    ownerId: i.ownerId,
    text: i.query,
    mode: i.mode,
    limit: i.limit,
    episodes: wantEpisodes ? { since: i.since, until: i.until, episodeTypes: i.episodeTypes, minImportance: i.minImportance } : null,
    facts: wantFacts ? { entityTypes: i.entityTypes, tags: i.tags, source: i.source, minConfidence: i.minConfidence, minImportance: i.minImportance } : null,
    markAccessed: i.markAccessed,
  };
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
  const [episodes, facts, factSources, factLinks] = await Promise.all([
    read.episodes.searchResults(q.ownerId, episodeIds),
    read.semantic.byIds(q.ownerId, factIds),
    read.semantic.sourceMessages(q.ownerId, factIds),
    read.semantic.linksOf(q.ownerId, factIds),
  ]);
  const messages = new Map((await read.conversations.messagesByIds(q.ownerId, [...new Set([...factSources.values()].flat())])).map((m) => [m.id, m]));
  if (q.markAccessed) {
    const now = ctx.clock.now();
    await read.episodes.recordAccess(q.ownerId, episodeIds, now);
    await read.semantic.recordAccess(q.ownerId, outcome.hits.filter((h) => h.kind === 'semantic').map((h) => ({ id: h.id, relevance: h.score })), now);
  }
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const factById = new Map(facts.map((f) => [f.id, f]));
  const items = outcome.hits.flatMap((h): SearchResultItem[] => {
    const scoring = { score: h.score, scores: { bm25: h.bm25, vector: h.similarity }, reason: { matchedBy: h.matchedBy, terms: h.matchedTerms, explanation: explainHit(h) } };
    if (h.kind === 'semantic') {
      const f = factById.get(h.id);
      if (!f) return [];
      const sources = (factSources.get(f.id) ?? []).flatMap((id) => {
        const m = messages.get(id);
        return m ? [{ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt.toISOString() }] : [];
      });
      sources.sort((a, b) => a.sentAt.localeCompare(b.sentAt));
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
        sources,
        episodeIds: [...new Set(factLinks.filter((l) => l.nodeId === f.id).map((l) => l.episodeId))],
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

export function searchHandlers({ ctx }: HandlerEnv): Handlers<'search'> {
  return {
    async search(i) {
      const started = performance.now();
      const { items, modeUsed, warnings } = await searchItems(ctx, queryOf(i));
      for (const w of warnings) ctx.warn(w);
      return { query: i.query, mode: modeUsed, results: items, warnings, tookMs: performance.now() - started };
    },
  };
}
