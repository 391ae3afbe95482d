/**
 * The store opens while the embedding model loads (each takes a few hundred milliseconds, in different
 * threads): the engine takes the model as a promise and awaits it once the store is open. A model that
 * fails closes the store it opened; a store that cannot open fails as itself, whatever the model does.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../core/embed/embedder.js';
import { openEmbedder } from '../../core/embed/index.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { TINY_MODEL_ID } from '../../core/embed/model-specs.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, tempDir } from '../helpers/engine.js';
import { DEFAULT_OWNER } from '../../core/domain/owner.js';

describe('an engine opened while its model loads', { timeout: 60_000 }, () => {
  it('searches by meaning with a model that arrived after the store opened', async () => {
    let arrive!: (e: Embedder) => void;
    const opening = openEngine({ home: tempDir('nemori-open-'), embedder: new Promise<Embedder>((r) => (arrive = r)) });
    arrive(await openEmbedder(tinyModelOptions()));
    const engine = await opening;
    try {
      expect(engine.embedding).toMatchObject({ available: true, modelId: TINY_MODEL_ID });
      const ownerId = newOwner();
      await engine.call('ingestConversation', {
        ownerId,
        conversation: {
          id: 'c1',
          messages: [{ speaker: 'Alice', text: 'We hiked up to the glacier on Sunday', timestamp: '2023-06-01T10:00:00+02:00' }],
        },
      });
      const found = await engine.call('search', { ownerId, query: 'hiking to the glacier', mode: 'vector' });
      expect(found).toMatchObject({ mode: 'vector', warnings: [] });
      expect(found.results).toHaveLength(1);
    } finally {
      await engine.close();
    }
  });

  it("fails with the model's error, and the store it opened is closed", async () => {
    const home = tempDir('nemori-open-');
    await expect(openEngine({ home, embedder: Promise.reject(new Error('the model thread crashed')) })).rejects.toThrow(
      'the model thread crashed',
    );
    // Closed, lock and all: the folder opens again.
    const again = await openEngine({ home, embedder: null });
    await again.close();
  });

  it("fails with the store's error when another engine holds the folder, the model's failure handled", async () => {
    const home = tempDir('nemori-open-');
    const holder = await openEngine({ home, embedder: null });
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(openEngine({ home, embedder: Promise.reject(new Error('no model either')) })).rejects.toMatchObject({
        code: 'STORE_LOCKED',
      });
      // Unhandled rejections are reported once the microtasks of this turn are done.
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await holder.close();
    }
  });
});

describe('an engine that stays open', { timeout: 60_000 }, () => {
  it('reads what loadContext reads once at its open, counting nothing as recalled, and answers calls made meanwhile', async () => {
    const home = tempDir('nemori-warm-');
    const setUp = await openEngine({ home, embedder: null });
    await setUp.call('ingestConversation', {
      ownerId: DEFAULT_OWNER,
      conversation: {
        id: 'c1',
        messages: [
          { speaker: 'Lena', text: 'Dinner with friends at Luigi’s was lovely', timestamp: '2026-11-20T20:00:00+01:00' },
          { speaker: 'Nemo', text: 'What did you have for dinner?', timestamp: '2026-11-20T20:01:00+01:00' },
        ],
      },
    });
    await setUp.call('memorize', { ownerId: DEFAULT_OWNER, value: 'Has dinner with friends every Friday' });
    await setUp.close();
    const recalled = async (engine: Awaited<ReturnType<typeof openEngine>>) => ({
      episodes: (await engine.call('listEpisodes', { ownerId: DEFAULT_OWNER })).episodes.map((e) => e.recallCount),
      facts: (await engine.call('listKnowledge', { ownerId: DEFAULT_OWNER })).facts.map((f) => f.accessCount),
    });

    const engine = await openEngine({ home, embedder: null, scheduleForgetting: true });
    try {
      // A companion's first call, made while the engine reads on its own.
      const first = await engine.call('search', { ownerId: DEFAULT_OWNER, query: 'Luigi', mode: 'bm25' });
      expect(first.results).toHaveLength(1);
      await engine.idle();
      expect(await recalled(engine)).toEqual({ episodes: [0], facts: [0] });
      // A companion's loadContext counts what it hands over as recalled.
      await engine.call('loadContext', { ownerId: DEFAULT_OWNER, query: 'dinner with friends' });
      expect(await recalled(engine)).toEqual({ episodes: [1], facts: [1] });
    } finally {
      await engine.close();
    }
    // Closed while it reads, it waits for the read and closes.
    await (await openEngine({ home, embedder: null, scheduleForgetting: true })).close();
  });
});
