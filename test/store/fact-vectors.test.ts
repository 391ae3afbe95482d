import { describe, expect, it } from 'vitest';
import type { FactFilters } from '../../core/store/facts.js';
import type { Store } from '../../core/store/store.js';
import { addFact, newFact, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

const nearest = async (store: Store, ownerId: string, v: Float32Array, limit = 10) =>
  store.read.factVectors.search(ownerId, SPACE, v, {
    limit,
    filters: {},
    vectors: await store.read.factVectors.vectors(ownerId, SPACE.modelId),
  });

describe('fact vectors repository', () => {
  const store = useStore();

  it('finds the nearest active facts, and lists the ones to (re-)embed', async () => {
    const [a] = owners();
    const [north, east] = [await addFact(store(), a, 'thing:north', 'up'), await addFact(store(), a, 'thing:east', 'right')];
    await store().transaction(async (r) => {
      await r.factVectors.set(a, north, SPACE.modelId, vec(0, 1, 0));
      await r.factVectors.set(a, east, SPACE.modelId, vec(1, 0, 0));
    });
    const read = store().read.factVectors;
    expect(await read.vectors(a, SPACE.modelId)).toBe(2);
    expect((await nearest(store(), a, vec(0.1, 1, 0))).map((h) => h.id)).toEqual([north, east]);
    expect(await nearest(store(), a, vec(0, 1, 0), 1)).toEqual([{ id: north, similarity: expect.closeTo(1, 5) }]);
    const byId = await read.similarities(a, SPACE, vec(0, 1, 0), [east, north]);
    expect(byId.sort((x, y) => y.similarity - x.similarity)).toEqual([
      { id: north, similarity: expect.closeTo(1, 5) },
      { id: east, similarity: expect.closeTo(0, 5) },
    ]);
    expect(await read.presence(a, SPACE.modelId)).toEqual({ facts: true, vectors: 2 });
    expect(await read.presence(a, null)).toEqual({ facts: true, vectors: 0 });
    expect(await read.stale(a, SPACE.modelId, 10)).toEqual([]);
    expect((await read.stale(a, 'another-model', 10)).map((n) => n.id).sort()).toEqual([north, east].sort());
    await store().transaction((r) => r.factVectors.set(a, east, SPACE.modelId, vec(0, 0, 1)));
    expect((await nearest(store(), a, vec(0, 0, 1)))[0]).toEqual({ id: east, similarity: expect.closeTo(1, 5) });
  });

  it('follows the fact’s tier: only an active fact gets a vector, and only active facts are searched', async () => {
    const [a] = owners();
    const fact = await addFact(store(), a, 'thing:north', 'up');
    await store().transaction(async (r) => {
      await r.facts.setTier(a, [fact], 'archived', null, NOW);
      await r.factVectors.set(a, fact, SPACE.modelId, vec(0, 1, 0));
    });
    expect(await store().read.factVectors.vectors(a, SPACE.modelId)).toBe(0);
    expect(await store().read.factVectors.stale(a, SPACE.modelId, 10)).toEqual([]);

    await store().transaction(async (r) => {
      await r.facts.setTier(a, [fact], 'active', null, NOW);
      await r.factVectors.set(a, fact, SPACE.modelId, vec(0, 1, 0));
    });
    expect((await nearest(store(), a, vec(0, 1, 0))).map((h) => h.id)).toEqual([fact]);
    // Even a vector left behind by a move would not be searched.
    await store().transaction((r) => r.facts.setTier(a, [fact], 'trash', null, NOW));
    expect(await nearest(store(), a, vec(0, 1, 0))).toEqual([]);
    await store().transaction((r) => r.factVectors.remove(a, [fact]));
    expect(await store().read.factVectors.vectors(a, SPACE.modelId)).toBe(0);
    expect(await store().read.factVectors.presence(a, SPACE.modelId)).toEqual({ facts: false, vectors: 0 });
  });

  it('narrows by the facts’ metadata, and leaves out a vector a move left behind, filtered or not', async () => {
    const [a] = owners();
    const [north, east, west] = [
      await addFact(store(), a, 'thing:north', 'up'),
      await addFact(store(), a, 'place:east', 'right'),
      await addFact(store(), a, 'place:west', 'left'),
    ];
    await store().transaction(async (r) => {
      await r.factVectors.set(a, north, SPACE.modelId, vec(0, 1, 0));
      await r.factVectors.set(a, east, SPACE.modelId, vec(1, 0, 0));
      await r.factVectors.set(a, west, SPACE.modelId, vec(-1, 0.1, 0));
      await r.facts.setTier(a, [west], 'archived', null, NOW);
    });
    const search = (filters: FactFilters) => store().read.factVectors.search(a, SPACE, vec(0, 1, 0), { limit: 10, filters, vectors: 3 });
    expect((await search({})).map((h) => h.id)).toEqual([north, east]);
    expect((await search({ entityTypes: ['place'] })).map((h) => h.id)).toEqual([east]);
    expect((await search({ entityTypes: ['thing'], minImportance: 0.9 })).map((h) => h.id)).toEqual([]);
  });

  it('with the model’s index, a person with more facts than are compared exactly still gets the nearest, archived ones left out', async () => {
    const [a] = owners();
    const space = { modelId: 'test-model-48', dimensions: 48 };
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const points = Array.from({ length: 600 }, () => Float32Array.from({ length: space.dimensions }, random));
    const ids = await store().transaction(async (r) => {
      await r.factVectors.ensureIndex(space);
      await r.factVectors.ensureIndex(space);
      const ids: string[] = [];
      for (const [i, v] of points.entries()) {
        const id = await r.facts.insert(a, newFact(`thing:t${i}`, `value ${i}`), NOW);
        await r.factVectors.set(a, id, space.modelId, v);
        ids.push(id);
      }
      return ids;
    });
    const near = (i: number) => points[i]!.map((x, d) => x + (d % 5 === 0 ? 0.05 : 0));
    // Counted only as far as choosing the search needs.
    const vectors = await store().read.factVectors.vectors(a, space.modelId);
    expect(vectors).toBe(401);
    const search = (v: Float32Array, among = vectors) =>
      store().read.factVectors.search(a, space, v, { limit: 10, filters: {}, vectors: among });
    for (const i of [3, 250, 599]) {
      const hits = await search(near(i));
      expect(hits[0]!.id).toBe(ids[i]);
      // Compared exactly (as for a person with fewer facts), the nearest is the same.
      expect((await search(near(i), 0))[0]!.id).toBe(ids[i]);
      expect(hits).toHaveLength(10);
      expect(hits.map((h) => h.similarity)).toEqual([...hits.map((h) => h.similarity)].sort((x, y) => y - x));
    }
    await store().transaction((r) => r.facts.setTier(a, [ids[250]!], 'archived', null, NOW));
    expect((await search(near(250))).map((h) => h.id)).not.toContain(ids[250]);
  });

  it('never shows or changes one owner’s vectors to another', async () => {
    const [a, b] = owners();
    const fact = await addFact(store(), a, 'thing:north', 'up');
    await store().transaction((r) => r.factVectors.set(a, fact, SPACE.modelId, vec(0, 1, 0)));
    expect(await nearest(store(), b, vec(0, 1, 0))).toEqual([]);
    expect(await store().read.factVectors.vectors(b, SPACE.modelId)).toBe(0);
    expect(await store().read.factVectors.stale(b, 'another-model', 10)).toEqual([]);
    await store().transaction(async (r) => {
      await r.factVectors.set(b, fact, SPACE.modelId, vec(1, 0, 0));
      await r.factVectors.remove(b, [fact]);
    });
    expect(await nearest(store(), a, vec(0, 1, 0))).toEqual([{ id: fact, similarity: expect.closeTo(1, 5) }]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const fact = await addFact(store(), a, 'thing:north', 'up');
    await rolledBack(store(), (r) => r.factVectors.set(a, fact, SPACE.modelId, vec(0, 1, 0)));
    expect(await store().read.factVectors.vectors(a, SPACE.modelId)).toBe(0);
  });
});
