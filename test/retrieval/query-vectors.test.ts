/**
 * A query is embedded once however many searches ask for it: loadContext searches facts and then
 * episodes with the same opening message, and an embedding is a model run of tens of milliseconds on
 * a laptop. Searches asking at once share one run; a run that failed is asked again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder, EmbedKind } from '../../core/embed/embedder.js';
import { openEmbedder } from '../../core/embed/index.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { queryVector } from '../../core/retrieval/query-vectors.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

/** Wraps an embedder, recording every text it is asked to embed as a query. */
function counting(inner: Embedder): Embedder & { queries: string[] } {
  const queries: string[] = [];
  return {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    queries,
    embed(texts: readonly string[], kind: EmbedKind) {
      if (kind === 'query') queries.push(...texts);
      return inner.embed(texts, kind);
    },
    dispose: () => inner.dispose(),
  };
}

describe('query vectors', () => {
  let engine: Engine;
  let model: Embedder & { queries: string[] };
  beforeAll(async () => {
    model = counting(await openEmbedder(tinyModelOptions()));
    engine = await openMemoryEngine({ embedder: model });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('embeds a loadContext’s opening message once, and a search of it afterwards not again', async () => {
    const ownerId = newOwner('query-vectors');
    await engine.call('ingestConversation', {
      ownerId,
      conversation: {
        id: 'walks',
        messages: [
          { id: 'w1', speaker: 'Lin', text: 'We walked the Philosopher’s Path in Kyoto', timestamp: '2024-05-02T09:00:00Z' },
          { id: 'w2', speaker: 'Lin', text: 'The tea house by the canal was closed', timestamp: '2024-05-02T09:05:00Z' },
        ],
      },
    });
    const query = 'What did we do in Kyoto?';
    const context = await engine.call('loadContext', { ownerId, query, budgetTokens: 400 });
    expect(context.markdown).toContain('Kyoto');
    expect(model.queries.filter((q) => q === query)).toHaveLength(1);
    const found = await engine.call('search', { ownerId, query, mode: 'hybrid' });
    expect(found.results[0]?.text).toContain('Kyoto');
    expect(model.queries.filter((q) => q === query)).toHaveLength(1);
  });

  it('shares one run between searches asking at once, and asks again after a run that failed', async () => {
    let runs = 0;
    let failNext = true;
    const flaky: Embedder = {
      modelId: 'test/flaky',
      dimensions: 2,
      async embed(texts) {
        runs++;
        await new Promise((r) => setTimeout(r, 20));
        if (failNext) {
          failNext = false;
          throw new Error('the model worker stopped');
        }
        return texts.map(() => Float32Array.from([1, 0]));
      },
      async dispose() {},
    };
    await expect(queryVector(flaky, 'tea')).rejects.toThrow('the model worker stopped');
    const [a, b] = await Promise.all([queryVector(flaky, 'tea'), queryVector(flaky, 'tea')]);
    expect(a).toBe(b);
    expect(runs).toBe(2);
  });
});
