import { describe, expect, it } from 'vitest';
import type { FactFilters } from '../../core/store/facts.js';
import type { Store } from '../../core/store/store.js';
import { addFact, NOW, owners, rolledBack, useStore } from './helpers.js';

const search = (store: Store, ownerId: string, terms: string[], filters: FactFilters = {}) =>
  store.read.factTerms.search(ownerId, terms, { limit: 10, filters, k1: 1.2, b: 0.75 });
const terms = (...words: string[]) => new Map(words.map((w) => [w, 1]));

describe('fact keyword index repository', () => {
  const store = useStore();

  it('scores facts by their terms, best match first, and replaces a fact’s terms when rewritten', async () => {
    const [a] = owners();
    const tea = await addFact(store(), a, 'person:alice', 'likes green tea', { tags: ['drink'] });
    const bern = await addFact(store(), a, 'person:bob', 'lives in Bern');
    await store().transaction(async (r) => {
      await r.factTerms.set(a, tea, terms('alice', 'green', 'tea'), 3, 5);
      await r.factTerms.set(a, bern, terms('bob', 'bern'), 2, 4);
    });
    expect(await search(store(), a, ['tea', 'green'])).toEqual([{ id: tea, score: expect.any(Number), matchedTerms: ['green', 'tea'] }]);
    expect(await store().read.facts.byKey(a, 'person:alice')).toMatchObject({ tokens: 5 });
    expect((await search(store(), a, ['tea', 'bern'], { tags: ['drink'] })).map((h) => h.id)).toEqual([tea]);

    await store().transaction((r) => r.factTerms.set(a, tea, terms('alice', 'coffee'), 2, 4));
    expect(await search(store(), a, ['tea'])).toEqual([]);
    expect((await search(store(), a, ['coffee'])).map((h) => h.id)).toEqual([tea]);
  });

  it('follows the fact’s tier: a trashed fact is not found, and is found again when restored', async () => {
    const [a] = owners();
    const tea = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) => r.factTerms.set(a, tea, terms('tea'), 1, 2));
    await store().transaction((r) => r.facts.setTier(a, [tea], 'archived', null, NOW));
    expect((await search(store(), a, ['tea'])).map((h) => h.id)).toEqual([tea]);
    await store().transaction((r) => r.facts.setTier(a, [tea], 'trash', null, NOW));
    expect(await search(store(), a, ['tea'])).toEqual([]);
    await store().transaction((r) => r.facts.setTier(a, [tea], 'active', null, NOW));
    expect((await search(store(), a, ['tea'])).map((h) => h.id)).toEqual([tea]);
    await store().transaction((r) => r.facts.delete(a, [tea]));
    expect(await search(store(), a, ['tea'])).toEqual([]);
  });

  it('never shows or changes one owner’s keyword entries to another', async () => {
    const [a, b] = owners();
    const tea = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) => r.factTerms.set(a, tea, terms('tea'), 1, 2));
    expect(await search(store(), b, ['tea'])).toEqual([]);
    await store().transaction((r) => r.factTerms.set(b, tea, terms('coffee'), 7, 9));
    expect(await search(store(), b, ['coffee'])).toEqual([]);
    expect((await search(store(), a, ['tea'])).map((h) => h.id)).toEqual([tea]);
    expect(await store().read.facts.byKey(a, 'person:alice')).toMatchObject({ tokens: 2 });
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const tea = await addFact(store(), a, 'person:alice', 'likes tea');
    await rolledBack(store(), (r) => r.factTerms.set(a, tea, terms('tea'), 1, 2));
    expect(await search(store(), a, ['tea'])).toEqual([]);
    expect(await store().read.facts.byKey(a, 'person:alice')).toMatchObject({ tokens: 0 });
  });
});
