import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store/store.js';
import { EXACT_UP_TO } from '../../core/store/vectors.js';
import { addEpisode, draft, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

const nearest = async (store: Store, ownerId: string, v: Float32Array) =>
  store.read.vectors.search(ownerId, SPACE, v, {
    limit: 10,
    filters: {},
    vectors: await store.read.vectors.vectors(ownerId, SPACE.modelId),
  });

describe('episode vectors repository', () => {
  const store = useStore();

  it('keeps vectors for active episodes only, and finds the nearest', async () => {
    const [a] = owners();
    const north = await addEpisode(store(), a, 'North');
    const east = await addEpisode(store(), a, 'East');
    const archived = await addEpisode(store(), a, 'Archived');
    await store().transaction(async (r) => {
      await r.forgetting.setEpisodeTier(a, 'archived', [{ id: archived, reason: { kind: 'important' } }], NOW);
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [
        { episodeId: north, vector: vec(0, 1, 0) },
        { episodeId: east, vector: vec(1, 0, 0) },
        { episodeId: archived, vector: vec(0, 1, 0.1) },
      ]);
    });
    const read = store().read.vectors;
    expect(await read.count(a, SPACE.modelId)).toBe(2);
    expect(await read.vectors(a, SPACE.modelId)).toBe(2);
    expect(await read.vectors(a, 'another-model')).toBe(0);
    const hits = await nearest(store(), a, vec(0.1, 1, 0));
    expect(hits.map((h) => h.episodeId)).toEqual([north, east]);
    expect(hits[0]!.similarity).toBeCloseTo(0.995, 2);
    // Any episode's exact similarity, looked up by id: the archived one has no vector.
    const byId = await read.similarities(a, SPACE, vec(0, 1, 0), [east, north, archived]);
    expect(byId.sort((x, y) => y.similarity - x.similarity)).toEqual([
      { episodeId: north, similarity: expect.closeTo(1, 5) },
      { episodeId: east, similarity: expect.closeTo(0, 5) },
    ]);
    // The archived one is not stale: only active episodes are (re-)embedded.
    expect(await read.stale(a, SPACE.modelId, 10)).toEqual([]);
    expect((await read.stale(a, 'another-model', 10)).sort()).toEqual([north, east].sort());

    await store().transaction((r) => r.vectors.remove(a, [east]));
    expect((await nearest(store(), a, vec(1, 0, 0))).map((h) => h.episodeId)).toEqual([north]);
    expect(await read.stale(a, SPACE.modelId, 10)).toEqual([east]);
  });

  it('asked for many, returns the nearest by exact similarity: the sign-bit index only chooses what is ranked', async () => {
    const [a] = owners();
    // Ninety directions in one octant: their sign bits are all alike, so the index cannot tell them
    // apart, and only reading past the `limit` asked and ranking exactly finds the nearest 60.
    const vectors = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => ({
        episodeId: await addEpisode(store(), a, `Direction ${i}`),
        vector: vec(Math.cos((i * Math.PI) / 180), Math.sin((i * Math.PI) / 180), 0.1),
      })),
    );
    await store().transaction(async (r) => {
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, vectors);
    });
    const q = vec(0.2, 1, 0.1);
    const dot = (v: Float32Array) => v[0]! * q[0]! + v[1]! * q[1]! + v[2]! * q[2]!;
    const exact = [...vectors].sort((x, y) => dot(y.vector) - dot(x.vector)).slice(0, 60);
    const search = (vectors: number) => store().read.vectors.search(a, SPACE, q, { limit: 60, filters: {}, vectors });
    // As few as these are compared exactly; as one of many, they come by sign bits and are ranked exactly.
    expect(await store().read.vectors.vectors(a, SPACE.modelId)).toBe(90);
    for (const vectors of [90, EXACT_UP_TO + 1])
      expect((await search(vectors)).map((h) => h.episodeId)).toEqual(exact.map((v) => v.episodeId));
  });

  it('finds the nearest of the episodes a filter keeps, however many nearer ones it leaves out', async () => {
    const [a] = owners();
    const day = (d: number) => new Date(NOW.getTime() + d * 86_400_000);
    const at = (d: number) => ({ temporal: { start: day(d), end: day(d), utcOffsetMin: 0 } });
    const q = vec(1, 0, 0);
    const nearer = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => ({
        episodeId: await addEpisode(store(), a, `Near ${i}`, at(-10)),
        vector: vec(1, i / 100, 0),
      })),
    );
    const inDays = await Promise.all(
      [vec(0, 1, 0), vec(1, 1, 0), vec(1, 2, 0)].map(async (vector, i) => ({
        episodeId: await addEpisode(store(), a, `Then ${i}`, at(0)),
        vector,
      })),
    );
    await store().transaction(async (r) => {
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [...nearer, ...inDays]);
    });
    const filters = { since: day(-1), until: day(1) };
    // As one of many (the index's way), and as one of few.
    for (const vectors of [63, EXACT_UP_TO + 1]) {
      const hits = await store().read.vectors.search(a, SPACE, q, { limit: 5, filters, vectors });
      expect(hits.map((h) => h.episodeId)).toEqual([1, 2, 0].map((i) => inDays[i]!.episodeId));
      expect(hits[0]!.similarity).toBeCloseTo(Math.SQRT1_2, 2);
    }
  });

  it('finds the nearest of the episodes a period keeps when they are too many to compare each: by walking the index', async () => {
    const [a] = owners();
    const day = (d: number) => new Date(NOW.getTime() + d * 86_400_000);
    const at = (d: number) => ({ temporal: { start: day(d), end: day(d), utcOffsetMin: 0 } });
    const q = vec(1, 0, 0);
    // The nearest of all lie outside the period; in it, 2,001 episodes (more than are compared each),
    // three of them near the query, the rest in other directions.
    const episodes = await store().transaction(async (r) => {
      const made: { episodeId: string; vector: Float32Array }[] = [];
      const add = async (title: string, d: number, vector: Float32Array) =>
        made.push({ episodeId: await r.episodes.insert(a, null, draft(title, at(d)), NOW), vector });
      for (let i = 0; i < 30; i++) await add(`Before ${i}`, -10, vec(1, i / 100, 0));
      for (const [i, v] of [vec(1, 0.5, 0), vec(1, 0.6, 0), vec(1, 0.7, 0)].entries()) await add(`Near ${i}`, 0, v);
      for (let i = 0; i < 1998; i++) await add(`Away ${i}`, (i % 5) / 5, vec(Math.cos(1 + i / 1000), Math.sin(1 + i / 1000), 1));
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, made);
      return made;
    });
    const hits = await store().read.vectors.search(a, SPACE, q, {
      limit: 3,
      filters: { since: day(-1), until: day(1) },
      vectors: EXACT_UP_TO + 1,
    });
    expect(hits.map((h) => h.episodeId)).toEqual([30, 31, 32].map((i) => episodes[i]!.episodeId));
  }, 60_000);

  it('goes with its episode', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Short-lived');
    await store().transaction(async (r) => {
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [{ episodeId: id, vector: vec(1, 1, 0) }]);
    });
    await store().transaction((r) => r.episodes.delete(a, id));
    expect(await store().read.vectors.count(a, SPACE.modelId)).toBe(0);
  });

  it('never shows or changes one owner’s vectors to another', async () => {
    const [a, b] = owners();
    const id = await addEpisode(store(), a, 'Mine');
    const unembedded = await addEpisode(store(), a, 'Not embedded yet');
    await store().transaction(async (r) => {
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [{ episodeId: id, vector: vec(1, 0, 0) }]);
    });
    const read = store().read.vectors;
    expect(await nearest(store(), b, vec(1, 0, 0))).toEqual([]);
    expect(await read.similarities(b, SPACE, vec(1, 0, 0), [id])).toEqual([]);
    expect(await read.vectors(b, SPACE.modelId)).toBe(0);
    expect(await read.count(b, SPACE.modelId)).toBe(0);
    expect(await read.stale(b, SPACE.modelId, 10)).toEqual([]);
    await store().transaction(async (r) => {
      await r.vectors.upsert(b, SPACE.modelId, [
        { episodeId: id, vector: vec(0, 0, 1) },
        { episodeId: unembedded, vector: vec(0, 0, 1) },
      ]);
      await r.vectors.remove(b, [id]);
    });
    expect(await nearest(store(), a, vec(1, 0, 0))).toEqual([{ episodeId: id, similarity: expect.closeTo(1, 5) }]);
    expect(await read.count(a, SPACE.modelId)).toBe(1);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Lost');
    await rolledBack(store(), async (r) => {
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [{ episodeId: id, vector: vec(1, 0, 0) }]);
    });
    expect(await store().read.vectors.count(a, SPACE.modelId)).toBe(0);
  });
});
