/**
 * Hybrid search fuses the keyword and the vector ranking by rank (reciprocal-rank fusion) by default:
 * a memory that says the query's words keeps its place however poorly the model scores it, because
 * no model's similarities are trusted to outweigh an exact match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../core/embed/embedder.js';
import type { Engine } from '../../core/engine/open-engine.js';
import type { RetrievalConfig } from '../../core/context/retrieval-config.js';
import { episodeSource, searchMemories } from '../../core/retrieval/search.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

/** A poor model: it puts the memory about taxes farthest from every query, the others all close. */
const poor: Embedder = {
  modelId: 'test/poor',
  dimensions: 2,
  async embed(texts, kind) {
    const s = Math.SQRT1_2;
    return texts.map((t) => Float32Array.from(kind === 'query' ? [0, 1] : /tax/i.test(t) ? [1, 0] : [s, s]));
  },
  async dispose() {},
};

describe('hybrid fusion', () => {
  let engine: Engine;
  beforeAll(async () => {
    // The floor is off so that fusion alone decides the order.
    engine = await openMemoryEngine({ embedder: poor, config: { retrieval: { vectorFloor: 'off' } } });
  });
  afterAll(async () => {
    await engine.close();
  });

  const texts = [
    'I adore hiking in the mountains',
    'The quarterly tax report is due on Friday',
    'Our team won the basketball game last night',
    'Baked sourdough bread with my sister',
  ];
  const ingest = async (ownerId: string) => {
    await engine.call('ingestConversation', {
      ownerId,
      conversation: {
        id: 'd',
        messages: texts.map((text, i) => ({
          id: `d-${i}`,
          speaker: 'Lin',
          text,
          timestamp: new Date(Date.UTC(2024, 2, 1 + i)).toISOString(),
        })),
      },
    });
  };

  it('keeps an exact keyword match first when the model ranks it last', async () => {
    const ownerId = newOwner('fusion');
    await ingest(ownerId);
    const r = await engine.call('search', { ownerId, query: 'quarterly tax report', mode: 'hybrid' });
    expect(r.mode).toBe('hybrid');
    expect(r.results.length).toBe(texts.length);
    expect(r.results[0]?.text).toContain('tax report');
    expect(r.results[0]?.reason.matchedBy).toEqual(['bm25', 'vector']);
  });

  it('looks up the similarity of a keyword match outside the nearest only where it is shown or scored', async () => {
    const ownerId = newOwner('fusion-sims');
    await ingest(ownerId);
    // Two candidates per mode: the model's nearest are other memories, the tax report only a keyword match.
    const run = (retrieval: RetrievalConfig, similarities?: boolean) =>
      searchMemories(
        { embedder: poor, config: retrieval },
        {
          text: 'quarterly tax report',
          mode: 'hybrid',
          limit: 2,
          sources: [episodeSource(engine.context.store, ownerId, {}, retrieval)],
          similarities,
        },
      );
    const rrf: RetrievalConfig = { ...engine.context.config.retrieval, candidateFactor: 1, minCandidates: 1 };
    const shown = await run(rrf);
    const ranked = await run(rrf, false);
    const taxOf = (hits: { id: string; bm25: number | null; similarity: number | null }[]) => hits.find((h) => h.bm25 !== null);
    expect(taxOf(shown.hits)?.similarity).toBeCloseTo(0, 5);
    // Rank fusion does not score with it: the same hits, in the same order, with the same scores.
    expect(taxOf(ranked.hits)?.similarity).toBeNull();
    expect(ranked.hits.map((h) => [h.id, h.score])).toEqual(shown.hits.map((h) => [h.id, h.score]));
    // Weighted fusion scores with it, so it is looked up whatever the caller asks (keywords weigh most
    // here, so the keyword match is among the two shown).
    const weighted = await run({ ...rrf, fusion: 'weighted', alpha: 0.2 }, false);
    expect(taxOf(weighted.hits)?.similarity).toBeCloseTo(0, 5);
  });
});
