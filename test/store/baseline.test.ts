import { describe, expect, it } from 'vitest';
import { addEpisode, bm25Params, doc, owners, SPACE, useStore, vec } from './helpers.js';

// The scale benchmark's bare queries: read-only, over the same tables search reads.
describe('baseline repository', () => {
  const store = useStore();

  it('counts an owner’s matches with the plain scans, and only that owner’s', async () => {
    const [a, b] = owners();
    const ids = [await addEpisode(store(), a, 'One'), await addEpisode(store(), a, 'Two')];
    await store().transaction(async (r) => {
      await r.bm25.add(a, [doc(ids[0]!, ['snow']), doc(ids[1]!, ['snow', 'tea'])], bm25Params);
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(
        a,
        SPACE.modelId,
        ids.map((episodeId) => ({ episodeId, vector: vec(1, 0, 0) })),
      );
    });
    const read = store().read.baseline;
    expect(await read.bm25(a, ['snow'], 10)).toBe(2);
    expect(await read.bm25(a, ['tea'], 10)).toBe(1);
    expect(await read.knn(a, SPACE.modelId, SPACE.dimensions, vec(1, 0, 0), 10)).toBe(2);
    expect(await read.bm25(b, ['snow'], 10)).toBe(0);
    expect(await read.knn(b, SPACE.modelId, SPACE.dimensions, vec(1, 0, 0), 10)).toBe(0);
  });
});
