import type { EngineContext } from '../context/engine-context.js';
import type { SearchMode } from '../domain/search.js';
import { explainHit, matchedWords } from '../retrieval/explain.js';
import { findMemories, type FoundMemory, type MemoryQuery } from '../retrieval/find.js';
import type { ReadPeriod } from '../retrieval/query-time.js';
import { factText } from '../text/fact-text.js';
import type { SearchResultItem } from './search-contract.js';

const sourceView = (m: { id: string; externalId: string | null; speaker: string; sentAt: Date }) => ({
  id: m.id,
  externalId: m.externalId,
  speaker: m.speaker,
  sentAt: m.sentAt.toISOString(),
});

/** A found memory as the contract shows it: scores, the reason it matched (`named`: the query's words, matchedWords), and its source messages. */
export function resultItem(m: FoundMemory, named: (terms: readonly string[]) => string[]): SearchResultItem {
  const h = m.hit;
  const words = named(h.matchedTerms);
  const scoring = {
    score: h.score,
    scores: { bm25: h.bm25, vector: h.similarity },
    reason: {
      matchedBy: h.matchedBy,
      terms: h.matchedTerms,
      words,
      explanation: explainHit(h, words),
      ...(h.during === undefined ? {} : { during: h.during }),
    },
  };
  if (m.kind === 'semantic') {
    const f = m.fact;
    return {
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
      sources: f.sources.map(sourceView),
      episodeIds: f.episodeIds,
    };
  }
  const e = m.episode;
  return {
    kind: 'episode',
    id: e.id,
    title: e.title,
    summary: e.summary,
    text: e.content,
    start: e.temporal.start.toISOString(),
    end: e.temporal.end.toISOString(),
    utcOffsetMin: e.temporal.utcOffsetMin,
    ...scoring,
    sources: e.sources.map(sourceView),
  };
}

/** Searches and returns the contract's result items. */
export async function searchItems(
  ctx: EngineContext,
  q: MemoryQuery,
): Promise<{ items: SearchResultItem[]; modeUsed: SearchMode; warnings: string[]; periods: ReadPeriod[] }> {
  const { found, modeUsed, warnings, periods } = await findMemories(ctx, q);
  const named = matchedWords(q.text);
  return { items: found.map((m) => resultItem(m, named)), modeUsed, warnings, periods };
}
