import { describe, expect, it } from 'vitest';
import { openEngine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/transformers-embedder.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { tempDir } from '../helpers/engine.js';

describe('rebuilding indexes', () => {
  it('embeds facts stored while no model was available, and they persist across opens', async () => {
    const home = tempDir();
    const ownerId = 'me';
    const before = await openEngine({ home, embedder: null });
    await before.call('upsertKnowledge', { ownerId, key: 'person:emma', value: 'Emma works at the Lisbon aquarium' });
    await before.call('upsertKnowledge', { ownerId, key: 'person:emma', value: 'Emma works at the Porto zoo' });
    await before.close();

    const after = await openEngine({ home, embedder: await openEmbedder(tinyModelOptions()) });
    try {
      expect((await after.call('search', { ownerId, query: 'zoo', kind: 'semantic', mode: 'vector' })).mode).toBe('bm25');
      const out = await after.call('rebuildIndexes', { ownerId });
      expect(out).toMatchObject({ facts: 1, factsEmbedded: 1 });
      const found = await after.call('search', { ownerId, query: 'Emma works at the Porto zoo', kind: 'semantic', mode: 'vector' });
      expect(found.mode).toBe('vector');
      expect(found.results.map((r) => r.kind === 'semantic' && r.summary)).toEqual(['Emma works at the Porto zoo']);
      const k = await after.call('getKnowledge', { ownerId, key: 'person:emma' });
      expect(k.timeline.map((v) => v.value)).toEqual(['Emma works at the Lisbon aquarium', 'Emma works at the Porto zoo']);
      // Nothing stale is left: a second rebuild embeds nothing.
      expect(await after.call('rebuildIndexes', { ownerId })).toMatchObject({ factsEmbedded: 0 });
    } finally {
      await after.close();
    }
  });
});
