import { describe, expect, it } from 'vitest';
import { addEpisode, addFact, discoveredIn, newFact, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

const later = new Date(NOW.getTime() + 60_000);

describe('facts repository', () => {
  const store = useStore();

  it('stores a fact under its key and changes it in place', async () => {
    const [a] = owners();
    const id = await addFact(store(), a, 'person:alice', 'likes tea', { tags: ['drink'], importance: 0.4 });
    const read = store().read.facts;
    expect(await read.byKey(a, 'person:alice')).toMatchObject({
      id,
      ownerId: a,
      value: 'likes tea',
      version: 1,
      tags: ['drink'],
      importance: 0.4,
      baseImportance: 0.4,
      tier: 'active',
      accessCount: 0,
    });
    expect((await read.byIds(a, [id])).map((n) => n.key)).toEqual(['person:alice']);

    await store().transaction((r) =>
      r.facts.update(a, id, { value: 'likes coffee', version: 2, keywords: ['coffee'], accessed: later }, later),
    );
    expect(await read.byKey(a, 'person:alice')).toMatchObject({
      value: 'likes coffee',
      version: 2,
      keywords: ['coffee'],
      accessCount: 1,
      lastAccessed: later,
      updatedAt: later,
    });
    await store().transaction((r) => r.facts.recordAccess(a, [{ id, relevance: 0.7 }], later));
    expect(await read.byKey(a, 'person:alice')).toMatchObject({ accessCount: 2, relevance: expect.closeTo(0.7, 5) });
    await store().transaction(async (r) => {
      await r.facts.setImportance(a, [{ id, importance: 0.2 }]);
      expect(await r.facts.mark(a, id, true, 0.95)).toBe(true);
    });
    expect(await read.byKey(a, 'person:alice')).toMatchObject({ importance: expect.closeTo(0.95, 5), markedImportant: true });
  });

  it('lists by type and tier, newest change first, page by page', async () => {
    const [a] = owners();
    const ids: string[] = [];
    for (const [i, key] of ['person:a', 'person:b', 'place:c'].entries()) {
      ids.push(await store().transaction((r) => r.facts.insert(a, newFact(key, `v${i}`), new Date(NOW.getTime() + i * 1000))));
    }
    await store().transaction((r) => r.facts.setTier(a, [ids[0]!], 'trash', { kind: 'forgotten', request: { by: 'oldest' } }, NOW));
    const read = store().read.facts;
    expect((await read.list(a, { tiers: ['active', 'archived'], limit: 10 })).map((n) => n.key)).toEqual(['place:c', 'person:b']);
    expect((await read.list(a, { tiers: ['active', 'archived', 'trash'], entityType: 'person', limit: 10 })).map((n) => n.key)).toEqual([
      'person:b',
      'person:a',
    ]);
    const first = await read.list(a, { tiers: ['active', 'archived', 'trash'], limit: 1 });
    expect(
      (
        await read.list(a, { tiers: ['active', 'archived', 'trash'], limit: 10, before: { at: first[0]!.updatedAt, id: first[0]!.id } })
      ).map((n) => n.key),
    ).toEqual(['person:b', 'person:a']);
    expect(await read.entityTypes(a)).toEqual([
      { entityType: 'person', count: 1 },
      { entityType: 'place', count: 1 },
    ]);
  });

  it('moves facts between tiers with a reason', async () => {
    const [a] = owners();
    const id = await addFact(store(), a, 'person:bob', 'lives in Bern');
    const moved = await store().transaction((r) => r.facts.setTier(a, [id], 'archived', { kind: 'important' }, later));
    expect(moved).toEqual([id]);
    expect(await store().read.facts.byKey(a, 'person:bob')).toMatchObject({
      tier: 'archived',
      tierChangedAt: later,
      tierReason: { kind: 'important' },
    });
  });

  it('shows a search result with its source messages and episodes', async () => {
    const [a] = owners();
    const episodeId = await addEpisode(store(), a, 'Tea time');
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) => discoveredIn(r, a, id, episodeId, 'likes tea'));
    expect(await store().read.facts.searchResults(a, [id])).toEqual([
      {
        id,
        key: 'person:alice',
        entityType: 'person',
        label: 'alice',
        value: 'likes tea',
        context: '',
        version: 1,
        confidence: 1,
        updatedAt: NOW,
        sources: [],
        episodeIds: [episodeId],
      },
    ]);
  });

  it('deletes a fact with every version, link, relationship, keyword entry and vector', async () => {
    const [a] = owners();
    const episodeId = await addEpisode(store(), a, 'Where it was said');
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    const other = await addFact(store(), a, 'person:bob', 'likes tea too');
    await store().transaction(async (r) => {
      await discoveredIn(r, a, id, episodeId, 'likes tea');
      await r.relationships.relate(
        a,
        { sourceId: id, targetId: other, type: 'similar_to', strength: 0.9, description: '', discoveryEpisodeId: null },
        NOW,
      );
      await r.factTerms.set(a, id, new Map([['tea', 1]]), 1, 3);
      await r.factVectors.set(a, id, SPACE.modelId, vec(1, 0, 0));
    });
    expect(await store().transaction((r) => r.facts.delete(a, [id]))).toEqual([id]);
    const read = store().read;
    expect(await read.facts.byIds(a, [id])).toEqual([]);
    expect(await read.factVersions.list(a, id)).toEqual([]);
    expect(await read.factLinks.ofEpisodes(a, [episodeId])).toEqual([]);
    expect(await read.relationships.of(a, [other])).toEqual([]);
    expect(await read.factTerms.search(a, ['tea'], { limit: 5, filters: {}, k1: 1.2, b: 0.75 })).toEqual([]);
    expect(await read.factVectors.vectors(a, SPACE.modelId)).toBe(0);
    expect(await read.facts.byIds(a, [other])).toHaveLength(1);
  });

  it('never shows or changes one owner’s facts to another', async () => {
    const [a, b] = owners();
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    const read = store().read.facts;
    expect(await read.byKey(b, 'person:alice')).toBeNull();
    expect(await read.byIds(b, [id])).toEqual([]);
    expect(await read.list(b, { tiers: ['active', 'archived', 'trash'], limit: 10 })).toEqual([]);
    expect(await read.entityTypes(b)).toEqual([]);
    expect(await read.searchResults(b, [id])).toEqual([]);
    // The same key is another owner's own fact.
    const theirs = await addFact(store(), b, 'person:alice', 'likes coffee');
    expect(theirs).not.toBe(id);
    const out = await store().transaction(async (r) => {
      await r.facts.update(b, id, { value: 'changed' }, later);
      await r.facts.recordAccess(b, [{ id, relevance: 1 }], later);
      await r.facts.setImportance(b, [{ id, importance: 0 }]);
      return [await r.facts.setTier(b, [id], 'trash', null, later), await r.facts.mark(b, id, true, 1), await r.facts.delete(b, [id])];
    });
    expect(out).toEqual([[], false, []]);
    expect(await read.byKey(a, 'person:alice')).toMatchObject({
      id,
      value: 'likes tea',
      accessCount: 0,
      importance: 0.5,
      tier: 'active',
      markedImportant: null,
      updatedAt: NOW,
    });
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    await rolledBack(store(), (r) => r.facts.insert(a, newFact('person:ghost', 'was never here'), NOW));
    expect(await store().read.facts.byKey(a, 'person:ghost')).toBeNull();
    const id = await addFact(store(), a, 'person:alice', 'likes tea');
    await rolledBack(store(), async (r) => {
      await r.facts.update(a, id, { value: 'likes coffee' }, later);
      await r.facts.delete(a, [id]);
    });
    expect(await store().read.facts.byKey(a, 'person:alice')).toMatchObject({ value: 'likes tea' });
  });
});
