import { searchEpisodes } from '../../retrieval/search.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { explainHit } from '../explain.js';

export function searchHandlers({ ctx }: HandlerEnv): Handlers<'search'> {
  const { store } = ctx;
  return {
    async search(i) {
      const started = performance.now();
      const filters = { since: i.since, until: i.until, episodeTypes: i.episodeTypes, minImportance: i.minImportance };
      const outcome = await searchEpisodes(
        { store, embedder: ctx.embedder, config: ctx.config.retrieval },
        { ownerId: i.ownerId, text: i.query, mode: i.mode, limit: i.limit, filters },
      );
      const ids = outcome.hits.map((h) => h.episodeId);
      const rows = await store.read.episodes.searchResults(i.ownerId, ids);
      if (i.markAccessed) await store.read.episodes.recordAccess(i.ownerId, ids, ctx.clock.now());
      const byId = new Map(rows.map((e) => [e.id, e]));
      const results = outcome.hits.flatMap((h) => {
        const e = byId.get(h.episodeId);
        if (!e) return [];
        return [{
          kind: 'episode' as const,
          id: e.id,
          title: e.title,
          summary: e.summary,
          text: e.content,
          start: e.temporal.start.toISOString(),
          end: e.temporal.end.toISOString(),
          utcOffsetMin: e.temporal.utcOffsetMin,
          score: h.score,
          scores: { bm25: h.bm25, vector: h.similarity },
          reason: { matchedBy: h.matchedBy, terms: h.matchedTerms, explanation: explainHit(h) },
          sources: e.sources.map((m) => ({ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt.toISOString() })),
        }];
      });
      for (const w of outcome.warnings) ctx.warn(w);
      return { query: i.query, mode: outcome.modeUsed, results, warnings: outcome.warnings, tookMs: performance.now() - started };
    },
  };
}
