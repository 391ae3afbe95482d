import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { rebuildIndexes } from '../../core/episodes/lifecycle.js';
import { manyConversationsFile, newOwner, openMemoryEngine } from '../helpers/engine.js';
import { CONSISTENT } from '../store/helpers.js';

/**
 * A rebuild stopped part way (a crash, kill -9: here a throw from its progress callback, the point
 * where the process could die between batches) used to leave the keyword index cleared and partly
 * refilled — keyword search found nothing, and nothing noticed. It now replaces the index in one
 * transaction: stopped anywhere, the old index is whole.
 */
describe('an interrupted rebuild', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('leaves the keyword index as it was', async () => {
    const ownerId = newOwner();
    await engine.call('importFiles', { ownerId, paths: [manyConversationsFile(300)] });
    const { episodes } = (await engine.call('stats', { ownerId })).owners[0]!;
    expect(episodes).toBeGreaterThan(256);
    const store = engine.context.store;
    const before = await engine.call('search', { ownerId, query: 'topic 3', mode: 'bm25', limit: 5 });
    expect(before.results.length).toBeGreaterThan(0);

    await expect(
      rebuildIndexes(engine.context, ownerId, {
        onProgress: () => {
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');

    expect(await store.read.bm25.docCount(ownerId)).toBe(episodes);
    expect(await store.read.bm25.verify(ownerId)).toEqual(CONSISTENT);
    const after = await engine.call('search', { ownerId, query: 'topic 3', mode: 'bm25', limit: 5 });
    expect(after.results.map((r) => r.id)).toEqual(before.results.map((r) => r.id));
  });
});
