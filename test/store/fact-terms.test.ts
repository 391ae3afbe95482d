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

  it('scores with the number and average length of the owner’s facts outside the trash, through every change', async () => {
    const [a, b] = owners();
    const k1 = 1.2;
    const bParam = 0.75;
    // BM25 of a one-word fact matching a one-word query, among `n` facts of average length `avgdl`.
    const expected = (n: number, avgdl: number) =>
      Math.log(1 + (n - 1 + 0.5) / 1.5) * ((k1 + 1) / (1 + k1 * (1 - bParam + bParam / avgdl)));
    const check = async (n: number, avgdl: number) => {
      expect(await search(store(), a, ['tea'])).toEqual([{ id: tea, score: expect.closeTo(expected(n, avgdl), 9), matchedTerms: ['tea'] }]);
      expect(await store().read.facts.count(a, { tiers: ['active', 'archived'] })).toBe(n);
      expect(await store().read.facts.outsideTrash(a)).toBe(n);
    };
    const tea = await addFact(store(), a, 'thing:tea', 'tea');
    const [cat, dog] = [await addFact(store(), a, 'thing:cat', 'a cat'), await addFact(store(), a, 'thing:dog', 'a dog')];
    const other = await addFact(store(), b, 'thing:tea', 'tea');
    await store().transaction(async (r) => {
      await r.factTerms.set(a, tea, terms('tea'), 1, 1);
      await r.factTerms.set(a, cat, terms('cat'), 3, 3);
      await r.factTerms.set(a, dog, terms('dog'), 5, 5);
      await r.factTerms.set(b, other, terms('tea', 'pot'), 100, 100);
    });
    await check(3, 3);
    await store().transaction((r) => r.facts.setTier(a, [dog], 'trash', null, NOW));
    await check(2, 2);
    await store().transaction((r) => r.facts.setTier(a, [dog], 'archived', null, NOW));
    await check(3, 3);
    await store().transaction((r) => r.factTerms.set(a, cat, terms('cat'), 7, 7));
    await check(3, 13 / 3);
    await rolledBack(store(), (r) => r.facts.delete(a, [dog]));
    await check(3, 13 / 3);
    await store().transaction((r) => r.facts.delete(a, [dog]));
    await check(2, 4);
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
