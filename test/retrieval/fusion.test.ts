/**
 * Hybrid search fuses the keyword and the vector ranking by rank (reciprocal-rank fusion) by default:
 * a memory that says the query's words keeps its place however poorly the model scores it, because
 * no model's similarities are trusted to outweigh an exact match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../core/embed/embedder.js';
import type { Engine } from '../../core/engine/open-engine.js';
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

  it('keeps an exact keyword match first when the model ranks it last', async () => {
    const ownerId = newOwner('fusion');
    const texts = [
      'I adore hiking in the mountains',
      'The quarterly tax report is due on Friday',
      'Our team won the basketball game last night',
      'Baked sourdough bread with my sister',
    ];
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
    const r = await engine.call('search', { ownerId, query: 'quarterly tax report', mode: 'hybrid' });
    expect(r.mode).toBe('hybrid');
    expect(r.results.length).toBe(texts.length);
    expect(r.results[0]?.text).toContain('tax report');
    expect(r.results[0]?.reason.matchedBy).toEqual(['bm25', 'vector']);
  });
});
