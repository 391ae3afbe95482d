import { describe, expect, it } from 'vitest';
import type { NewFactVersion } from '../../core/store/fact-versions.js';
import { addEpisode, addFact, NOW, owners, rolledBack, useStore } from './helpers.js';

const version = (n: number, value: string, o: Partial<NewFactVersion> = {}): NewFactVersion => ({
  version: n,
  value,
  context: '',
  confidence: 0.9,
  link: n === 1 ? null : 'updates',
  method: 'upsert',
  episodeId: null,
  sourceMessageIds: [],
  ...o,
});

describe('fact versions repository', () => {
  const store = useStore();

  it('keeps every value with its lineage, marks corrections and prunes the oldest', async () => {
    const [a] = owners();
    const episodeId = await addEpisode(store(), a, 'Where it changed');
    const id = await addFact(store(), a, 'person:alice', 'lives in Bern');
    await store().transaction(async (r) => {
      await r.factVersions.add(a, id, version(1, 'lives in Bern'), NOW);
      await r.factVersions.add(a, id, version(2, 'lives in Basel', { episodeId }), NOW);
      await r.factVersions.add(a, id, version(3, 'lives in Zurich', { link: 'corrects', method: 'user_feedback' }), NOW);
      await r.factVersions.markCorrected(a, id, 2, 0.3);
    });
    const read = store().read.factVersions;
    expect((await read.list(a, id)).map((v) => [v.version, v.value, v.link, v.corrected, v.episodeId])).toEqual([
      [1, 'lives in Bern', null, false, null],
      [2, 'lives in Basel', 'updates', true, episodeId],
      [3, 'lives in Zurich', 'corrects', false, null],
    ]);
    expect((await read.list(a, id))[1]!.confidence).toBeCloseTo(0.3, 5);
    expect(await store().transaction((r) => r.factVersions.prune(a, id, 2))).toBe(1);
    expect((await read.list(a, id)).map((v) => v.version)).toEqual([2, 3]);
  });

  it('collects the source messages of every kept version', async () => {
    const [a] = owners();
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    const [m1, m2] = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    await store().transaction(async (r) => {
      await r.factVersions.add(a, id, version(1, 'likes tea', { sourceMessageIds: [m1] }), NOW);
      await r.factVersions.add(a, id, version(2, 'likes green tea', { sourceMessageIds: [m1, m2] }), NOW);
    });
    expect((await store().read.factVersions.sourceMessages(a, [id])).get(id)?.sort()).toEqual([m1, m2]);
  });

  it('never shows or changes one owner’s versions to another', async () => {
    const [a, b] = owners();
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) =>
      r.factVersions.add(a, id, version(1, 'likes tea', { sourceMessageIds: ['00000000-0000-4000-8000-000000000003'] }), NOW),
    );
    const read = store().read.factVersions;
    expect(await read.list(b, id)).toEqual([]);
    expect(await read.sourceMessages(b, [id])).toEqual(new Map());
    const pruned = await store().transaction(async (r) => {
      await r.factVersions.add(b, id, version(2, 'likes coffee'), NOW);
      await r.factVersions.markCorrected(b, id, 1, 0);
      return r.factVersions.prune(b, id, 0);
    });
    expect(pruned).toBe(0);
    expect((await read.list(a, id)).map((v) => [v.version, v.value, v.corrected])).toEqual([[1, 'likes tea', false]]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) => r.factVersions.add(a, id, version(1, 'likes tea'), NOW));
    await rolledBack(store(), async (r) => {
      await r.factVersions.add(a, id, version(2, 'likes coffee'), NOW);
      await r.factVersions.markCorrected(a, id, 1, 0);
      await r.factVersions.prune(a, id, 1);
    });
    expect((await store().read.factVersions.list(a, id)).map((v) => [v.version, v.corrected])).toEqual([[1, false]]);
  });
});
