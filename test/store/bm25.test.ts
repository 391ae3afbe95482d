import { describe, expect, it } from 'vitest';
import type { Repos } from '../../core/store/repos.js';
import type { Store } from '../../core/store/store.js';
import { addEpisode, bm25Params, CONSISTENT, doc, draft, NOW, owners, rolledBack, useStore } from './helpers.js';

const search = (store: Store, ownerId: string, terms: string[]) =>
  store.read.bm25.search(ownerId, terms, { limit: 10, filters: {}, params: bm25Params }).then((r) => r.hits);

/** The owner's whole index rebuilt from no documents. */
const emptied = async (r: Repos, ownerId: string) =>
  (await r.bm25.rebuild(ownerId, { ...bm25Params, corpus: { docCount: 0, lengths: [0, 0, 0, 0, 0] } })).finish();

/** An owner with three indexed episodes. */
async function indexed(store: Store, ownerId: string) {
  const ids = [
    await addEpisode(store, ownerId, 'Gornergrat'),
    await addEpisode(store, ownerId, 'Boots'),
    await addEpisode(store, ownerId, 'Tea'),
  ];
  await store.transaction((r) =>
    r.bm25.add(
      ownerId,
      [doc(ids[0]!, ['gornergrat', 'train', 'snow']), doc(ids[1]!, ['boots', 'snow', 'snow']), doc(ids[2]!, ['tea', 'kettle'])],
      bm25Params,
    ),
  );
  return ids as [string, string, string];
}

describe('BM25 repository', () => {
  const store = useStore();

  it('keeps postings, document frequencies and corpus totals in step with what is indexed', async () => {
    const [a] = owners();
    const [gornergrat, boots] = await indexed(store(), a);
    const read = store().read.bm25;
    expect(await read.verify(a)).toEqual(CONSISTENT);
    expect(await read.docCount(a)).toBe(3);
    const hits = await search(store(), a, ['snow']);
    expect(hits.map((h) => h.episodeId).sort()).toEqual([gornergrat, boots].sort());
    expect(hits[0]).toMatchObject({ episodeId: boots, matchedTerms: ['snow'] });
    // The statistics it scored with are the ones a message ranker would read.
    const { termStats } = await read.search(a, ['snow', 'zermatt', 'snow'], { limit: 10, filters: {}, params: bm25Params });
    expect(termStats).toEqual(await read.termStats(a, ['snow', 'zermatt']));
    expect(termStats).toEqual({ docCount: 3, df: new Map([['snow', 2]]) });

    await store().transaction((r) => r.bm25.remove(a, [boots]));
    expect(await read.verify(a)).toMatchObject({
      dfMismatches: 0,
      postingMismatches: 0,
      docsWithoutEpisode: 0,
      statsMismatch: false,
      episodesWithoutDoc: 1,
    });
    expect(await read.docCount(a)).toBe(2);
    expect((await search(store(), a, ['snow'])).map((h) => h.episodeId)).toEqual([gornergrat]);
    expect(await search(store(), a, ['boots'])).toEqual([]);
  });

  it('parks a trashed episode’s entries and puts the very same ones back on restore', async () => {
    const [a] = owners();
    const [gornergrat] = await indexed(store(), a);
    const before = await search(store(), a, ['snow', 'train']);
    await store().transaction(async (r) => {
      await r.bm25.park(a, [gornergrat], NOW);
      await r.forgetting.setEpisodeTier(a, 'trash', [{ id: gornergrat, reason: { kind: 'forgotten', request: { by: 'oldest' } } }], NOW);
    });
    const read = store().read.bm25;
    expect(await read.verify(a)).toEqual(CONSISTENT);
    expect(await read.docCount(a)).toBe(2);
    expect(await search(store(), a, ['train'])).toEqual([]);
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_parked).toBe(1);

    // Re-indexing a trashed episode leaves it out of the live index.
    await store().transaction((r) => r.bm25.add(a, [doc(gornergrat, ['gornergrat'])], bm25Params));
    expect(await search(store(), a, ['gornergrat'])).toEqual([]);

    const restored = await store().transaction(async (r) => {
      await r.forgetting.setEpisodeTier(a, 'active', [{ id: gornergrat, reason: { kind: 'restored', from: 'trash' } }], NOW);
      return r.bm25.unpark(a, [gornergrat]);
    });
    expect(restored).toEqual([gornergrat]);
    expect(await read.verify(a)).toEqual(CONSISTENT);
    expect(await read.docCount(a)).toBe(3);
    expect(await search(store(), a, ['snow', 'train'])).toEqual(before);
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_parked).toBe(0);
  });

  it('finds the best matches among the episodes a filter keeps, however many better ones it leaves out', async () => {
    const [a, b] = owners();
    const day = (d: number) => new Date(NOW.getTime() + d * 86_400_000);
    const at = (d: number) => ({ temporal: { start: day(d), end: day(d), utcOffsetMin: 0 } });
    const before = await Promise.all(Array.from({ length: 30 }, (_, i) => addEpisode(store(), a, `Old ${i}`, at(-10))));
    const kept = await Promise.all(['Snow walk', 'Snow and boots', 'Ski lift', 'Tea'].map((t) => addEpisode(store(), a, t, at(0))));
    // Another owner's stronger match in the same days is never among them.
    const other = await addEpisode(store(), b, 'Snow day', at(0));
    await store().transaction(async (r) => {
      await r.bm25.add(
        a,
        [
          ...before.map((id) => doc(id, ['snow', 'snow', 'snow', 'boots'])),
          doc(kept[0]!, ['snow', 'walk']),
          doc(kept[1]!, ['snow', 'boots', 'boots']),
          doc(kept[2]!, ['ski', 'lift', 'snow', 'snow']),
          doc(kept[3]!, ['tea']),
        ],
        bm25Params,
      );
      await r.bm25.add(b, [doc(other, ['snow', 'snow', 'snow', 'boots', 'boots'])], bm25Params);
    });
    const read = store().read.bm25;
    const best = async (terms: string[], limit: number) => {
      const all = (await read.search(a, terms, { limit: 40, filters: {}, params: bm25Params })).hits;
      const inDays = (await read.search(a, terms, { limit, filters: { since: day(-1), until: day(1) }, params: bm25Params })).hits;
      // The best of the episodes in those days, with the scores and words the whole index gives them.
      expect(inDays).toEqual(all.filter((h) => kept.includes(h.episodeId)).slice(0, limit));
      return inDays.map((h) => h.episodeId);
    };
    // Words with more postings than the days have episodes (those are read), and with fewer (their postings are).
    expect(await best(['snow', 'boots'], 2)).toEqual([kept[1], kept[2]]);
    expect(await best(['walk', 'lift'], 2)).toEqual([kept[0], kept[2]]);
    expect(await best(['tea', 'snow'], 10)).toEqual([kept[3], kept[2], kept[0], kept[1]]);
  });

  it('finds the best of thousands of episodes a filter keeps below thousands of better matches it leaves out', async () => {
    const [a] = owners();
    const day = (d: number) => new Date(NOW.getTime() + d * 86_400_000);
    const at = (d: number) => ({ temporal: { start: day(d), end: day(d), utcOffsetMin: 0 } });
    const many = (n: number, d: number) =>
      store().transaction((r) =>
        r.episodes.insertMany(
          a,
          null,
          Array.from({ length: n }, (_, i) => draft(`Episode ${i}`, at(d))),
          NOW,
        ),
      );
    // The days keep too many episodes to score each, and more stronger matches lie outside them than a
    // search scores and sorts itself before looking at which are kept: the best kept ones are among
    // the others, which Postgres scores.
    const before = await many(2100, -10);
    const others = await many(2000, 0);
    const kept = await Promise.all(['Snow and boots', 'Snow', 'Snow walk walk'].map((t) => addEpisode(store(), a, t, at(0))));
    await store().transaction((r) =>
      r.bm25.add(
        a,
        [
          ...before.map((id) => doc(id, ['snow', 'snow', 'snow'])),
          ...others.map((id) => doc(id, ['snow', 'rain', 'rain', 'rain'])),
          doc(kept[0]!, ['snow', 'boots']),
          doc(kept[1]!, ['snow']),
          doc(kept[2]!, ['snow', 'walk', 'walk']),
        ],
        bm25Params,
      ),
    );
    const inDays = (terms: string[], limit: number) =>
      store()
        .read.bm25.search(a, terms, { limit, filters: { since: day(-1), until: day(1) }, params: bm25Params })
        .then((r) => r.hits);
    // One "snow" weighs more in fewer words.
    const found = await inDays(['snow'], 3);
    expect(found.map((h) => h.episodeId)).toEqual([kept[1], kept[0], kept[2]]);
    expect(found.map((h) => h.matchedTerms)).toEqual([['snow'], ['snow'], ['snow']]);
    expect(found[0]!.score).toBeGreaterThan(found[1]!.score);
    expect((await inDays(['walk', 'boots'], 10)).map((h) => h.episodeId)).toEqual([kept[2], kept[0]]);
    // Equal scores come in the order the episodes were indexed.
    expect((await inDays(['rain'], 2)).map((h) => h.episodeId)).toEqual(others.slice(0, 2));
  });

  it('drops stale parked entries', async () => {
    const [a] = owners();
    const [gornergrat] = await indexed(store(), a);
    await store().transaction((r) => r.bm25.park(a, [gornergrat], NOW));
    await store().transaction((r) => r.bm25.dropParked(a, [gornergrat]));
    expect(await store().transaction((r) => r.bm25.unpark(a, [gornergrat]))).toEqual([]);
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_parked).toBe(0);
  });

  it('never shows or changes one owner’s index to another', async () => {
    const [a, b] = owners();
    const ids = await indexed(store(), a);
    const before = await search(store(), a, ['snow', 'tea']);
    expect(await search(store(), b, ['snow', 'tea'])).toEqual([]);
    expect(await store().read.bm25.docCount(b)).toBe(0);
    expect(await store().read.bm25.verify(b)).toEqual(CONSISTENT);
    const unindexed = await addEpisode(store(), a, 'Not indexed yet');
    await store().transaction(async (r) => {
      await r.bm25.add(b, [doc(unindexed, ['snow'])], bm25Params);
      await r.bm25.remove(b, ids);
      await r.bm25.park(b, ids, NOW);
      await r.bm25.unpark(b, ids);
      await r.bm25.dropParked(b, ids);
      await emptied(r, b);
    });
    expect(await store().read.bm25.verify(a)).toMatchObject({
      dfMismatches: 0,
      postingMismatches: 0,
      docsWithoutEpisode: 0,
      statsMismatch: false,
      episodesWithoutDoc: 1,
    });
    expect(await store().read.bm25.docCount(a)).toBe(3);
    expect(await store().read.bm25.docCount(b)).toBe(0);
    expect(await search(store(), a, ['snow', 'tea'])).toEqual(before);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Lost');
    await rolledBack(store(), (r) => r.bm25.add(a, [doc(id, ['lost', 'words'])], bm25Params));
    expect(await store().read.bm25.docCount(a)).toBe(0);
    expect(await search(store(), a, ['lost'])).toEqual([]);
    const [kept] = await indexed(store(), a);
    await rolledBack(store(), async (r) => {
      await r.bm25.park(a, [kept], NOW);
      await emptied(r, a);
    });
    expect(await store().read.bm25.docCount(a)).toBe(3);
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_parked).toBe(0);
  });

  it('empties an owner’s whole index when rebuilt from no documents', async () => {
    const [a] = owners();
    await indexed(store(), a);
    await store().transaction((r) => emptied(r, a));
    expect(await store().read.bm25.docCount(a)).toBe(0);
    expect(await store().read.bm25.verify(a)).toMatchObject({
      dfMismatches: 0,
      postingMismatches: 0,
      docsWithoutEpisode: 0,
      statsMismatch: false,
      episodesWithoutDoc: 3,
    });
  });
});
