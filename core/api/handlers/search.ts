import type { z } from 'zod';
import type { MemoryQuery } from '../../retrieval/find.js';
import { askedHere, type AskedAt } from '../../retrieval/query-time.js';
import { searchItems } from '../search-results.js';
import type { SearchInput } from '../contract.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** Which kinds a search input asks for, with each kind's filters (null: that kind is not searched). */
export function queryOf(i: z.infer<typeof SearchInput>, asked: AskedAt): MemoryQuery {
  const episodeOnly = i.since !== undefined || i.until !== undefined || i.episodeTypes !== undefined || i.importSources !== undefined;
  const factOnly = i.entityTypes !== undefined || i.tags !== undefined || i.source !== undefined || i.minConfidence !== undefined;
  const wantEpisodes = i.kind === 'episodic' || (i.kind === 'all' && !factOnly);
  const wantFacts = i.kind === 'semantic' || (i.kind === 'all' && !episodeOnly);
  return {
    ownerId: i.ownerId,
    text: i.query,
    mode: i.mode,
    limit: i.limit,
    episodes: wantEpisodes
      ? { since: i.since, until: i.until, episodeTypes: i.episodeTypes, minImportance: i.minImportance, importSources: i.importSources }
      : null,
    facts: wantFacts
      ? { entityTypes: i.entityTypes, tags: i.tags, source: i.source, minConfidence: i.minConfidence, minImportance: i.minImportance }
      : null,
    markAccessed: i.markAccessed,
    asked,
  };
}

export function searchHandlers({ ctx }: HandlerEnv): Handlers<'search'> {
  return {
    async search(i) {
      const started = performance.now();
      const { items, modeUsed, warnings, periods } = await searchItems(ctx, queryOf(i, askedHere(ctx.clock.now())));
      for (const w of warnings) ctx.warn(w);
      return {
        query: i.query,
        mode: modeUsed,
        results: items,
        periods: periods.map(({ phrase, from, to }) => ({ phrase, from, to })),
        warnings,
        tookMs: performance.now() - started,
      };
    },
  };
}
