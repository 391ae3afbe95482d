import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import type { Bm25Doc, Bm25Params, FieldVector } from '../../core/store/bm25.js';
import { chunks } from '../../core/store/sql.js';
import { Store } from '../../core/store/store.js';
import { tempDir } from '../helpers/engine.js';
import { addEpisode, bm25Params, CONSISTENT, doc, NOW, owners, useStore } from './helpers.js';

/**
 * The packed layout of the BM25 postings (migration 008): blocks of a term's postings, strongest first,
 * that must always hold exactly the postings of the live documents, scoped by owner.
 */

const search = (store: Store, ownerId: string, terms: string[], params: Bm25Params = bm25Params, limit = 1000) =>
  store.read.bm25.search(ownerId, terms, { limit, filters: {}, params }).then((r) => r.hits);

/** Parameters with the averages of `docs` pinned: indexed batch by batch or rebuilt in bulk, they get the very same impacts. */
function pinnedTo(docs: readonly Bm25Doc[]) {
  const corpus = { docCount: docs.length, lengths: [0, 0, 0, 0, docs.reduce((n, d) => n + d.lengths[4], 0)] as FieldVector };
  return { ...bm25Params, corpus };
}

/** Each query's ranking with every posting read, and with `per` of each term's. */
const rankings = (store: Store, ownerId: string, queries: string[][], per: number) =>
  Promise.all(queries.flatMap((q) => [search(store, ownerId, q), search(store, ownerId, q, { ...bm25Params, postingsPerTerm: per })]));

/** Rebuilds the owner's index in bulk from `docs`, `batch` at a time. */
async function rebuildFrom(store: Store, ownerId: string, docs: readonly Bm25Doc[], batch: number): Promise<void> {
  await store.transaction(async (r) => {
    const index = await r.bm25.rebuild(ownerId, pinnedTo(docs));
    for (const part of chunks(docs, batch)) await index.add(part);
    await index.finish();
  });
}

/** `count` episodes, indexed `batch` to a transaction: each holds "snow", a word of its own, and `i` fillers (distinct lengths, so distinct impacts). */
async function snowfall(store: Store, ownerId: string, count: number, batch: number): Promise<string[]> {
  const ids: string[] = [];
  for (let at = 0; at < count; at += batch) {
    const docs: Bm25Doc[] = [];
    for (let i = at; i < Math.min(count, at + batch); i++) {
      const id = await addEpisode(store, ownerId, `Day ${i}`);
      ids.push(id);
      docs.push(doc(id, ['snow', `day${i}`, ...Array.from({ length: i }, () => 'filler')]));
    }
    await store.transaction((r) => r.bm25.add(ownerId, docs, bm25Params));
  }
  return ids;
}

describe('BM25 postings in blocks', () => {
  const store = useStore();

  it('moves a term’s postings into blocks, merging them once the new ones are a quarter of all, and reads exactly its strongest postings', async () => {
    const [a] = owners();
    const ids = await snowfall(store(), a, 700, 20);
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    // Each day's own word waits on its term's row. "snow" and "filler" (700 postings each) moved into
    // blocks 140 at a time: merged into one sorted run at 140, 280, 420 and 560 (the new postings were
    // a quarter of all or more), and the last 140 a run of their own: 5 + 2 blocks each.
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(2 * 7);
    // Reading at most 7 postings of "snow" finds the 7 strongest, as reading all of them ranks them.
    const all = await search(store(), a, ['snow']);
    expect(all).toHaveLength(700);
    const few = { ...bm25Params, postingsPerTerm: 7 };
    expect(await search(store(), a, ['snow'], few)).toEqual(all.slice(0, 7));
    // The shortest days weigh most: the strongest leave the index, the next ones come up.
    expect(all.slice(0, 3).map((h) => h.episodeId)).toEqual(ids.slice(0, 3));
    await store().transaction((r) => r.bm25.remove(a, ids.slice(0, 3)));
    expect(await store().read.bm25.verify(a)).toMatchObject({ dfMismatches: 0, postingMismatches: 0, statsMismatch: false });
    expect((await search(store(), a, ['snow'], few)).map((h) => h.episodeId)).toEqual(all.slice(3, 10).map((h) => h.episodeId));
  });

  it('moves a batch’s postings into blocks a piece at a time, as one sorted run per merged term, the very blocks a bulk rebuild packs', async () => {
    const [a] = owners();
    // 150 terms in each of 350 documents, 1–3 times (many ties, which the document number orders).
    const terms = Array.from({ length: 150 }, (_, k) => `w${k}`);
    const docs: Bm25Doc[] = [];
    for (let i = 0; i < 350; i++) {
      const id = await addEpisode(store(), a, `Day ${i}`);
      docs.push(
        doc(
          id,
          terms.flatMap((t, k) => Array.from({ length: 1 + ((i + k) % 3) }, () => t)),
        ),
      );
    }
    const pinned = pinnedTo(docs);
    // The first 200 make 30,000 postings in two blocks a term; the next 150 wait, 22,500, and every term
    // merges: the 300 old blocks read back and 52,500 postings written, each way in several statements.
    for (const part of [docs.slice(0, 200), docs.slice(200)]) await store().transaction((r) => r.bm25.add(a, part, pinned));
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    // Each term's 350 postings are one run: 2 full blocks and one of 94 (unmerged, 2 + 2).
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(150 * 3);
    const queries = [['w0'], ['w7', 'w149'], ['w1', 'w2', 'w3']];
    const live = await rankings(store(), a, queries, 5);

    await rebuildFrom(store(), a, docs, docs.length);
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(150 * 3);
    expect(await rankings(store(), a, queries, 5)).toEqual(live);
  });

  it('takes a removed document’s postings out of the block that holds them, also among blocks of equal impacts', async () => {
    const [a] = owners();
    const ids: string[] = [];
    // 300 documents alike: "snow" and "flake" weigh the same in each, so their blocks' impact ranges are one.
    for (let at = 0; at < 300; at += 50) {
      const docs: Bm25Doc[] = [];
      for (let i = at; i < at + 50; i++) {
        const id = await addEpisode(store(), a, `Day ${i}`);
        ids.push(id);
        docs.push(doc(id, ['snow', 'flake']));
      }
      await store().transaction((r) => r.bm25.add(a, docs, bm25Params));
    }
    // Each term's 300 postings: one run of three blocks.
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(2 * 3);
    const gone = [0, 127, 128, 200, 256, 299].map((i) => ids[i]!);
    await store().transaction((r) => r.bm25.remove(a, gone));
    expect(await store().read.bm25.verify(a)).toMatchObject({ dfMismatches: 0, postingMismatches: 0, statsMismatch: false });
    const hits = (await search(store(), a, ['snow'])).map((h) => h.episodeId);
    expect(hits).toHaveLength(294);
    expect(hits.filter((id) => gone.includes(id))).toEqual([]);

    // Every document of a block goes (the first block of each term, less the two already gone): the
    // block goes too, and one removal reaches both a term's blocks and the postings waiting on its row.
    const waiting = await addEpisode(store(), a, 'Day 300');
    await store().transaction((r) => r.bm25.add(a, [doc(waiting, ['snow', 'flake'])], bm25Params));
    await store().transaction((r) => r.bm25.remove(a, [...ids.slice(1, 127), waiting]));
    expect(await store().read.bm25.verify(a)).toMatchObject({ dfMismatches: 0, postingMismatches: 0, statsMismatch: false });
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(2 * 2);
    expect(await search(store(), a, ['snow'])).toHaveLength(294 - 126);
  });

  it('rebuilds an owner’s index in bulk to the very rankings indexing the documents batch by batch gives, and goes on as a live one', async () => {
    const [a] = owners();
    const docs: Bm25Doc[] = [];
    for (let i = 0; i < 300; i++) {
      const id = await addEpisode(store(), a, `Day ${i}`);
      docs.push(doc(id, ['snow', `day${i}`, `week${Math.floor(i / 7)}`, ...Array.from({ length: i % 13 }, () => 'filler')]));
    }
    // The same averages for both builds, so both compute the very same impacts.
    const pinned = pinnedTo(docs);
    for (const batch of chunks(docs, 40)) await store().transaction((r) => r.bm25.add(a, batch, pinned));
    const queries = [['snow'], ['filler', 'week3'], ['day7', 'snow', 'filler']];
    const ranked = () => rankings(store(), a, queries, 20);
    const before = await ranked();

    await rebuildFrom(store(), a, docs, 64);
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    expect(await ranked()).toEqual(before);
    // "snow" (300 postings) and "filler" (276) each in one sorted run of three blocks; the rarer words wait on their rows.
    expect((await store().read.forgetting.rowCounts(a)).tables.bm25_postings).toBe(2 * 3);

    const more = await addEpisode(store(), a, 'Day 300');
    await store().transaction(async (r) => {
      await r.bm25.remove(a, [docs[0]!.episodeId, docs[150]!.episodeId]);
      await r.bm25.add(a, [doc(more, ['snow', 'week0', 'filler'])], pinned);
    });
    // (The two removed documents' episodes are still there: out of the index, not deleted.)
    expect(await store().read.bm25.verify(a)).toEqual({ ...CONSISTENT, episodesWithoutDoc: 2 });
    expect((await search(store(), a, ['week0'])).map((h) => h.episodeId)).toContain(more);
  });

  it('scores the best documents by every query term they hold, also terms whose postings it did not read', async () => {
    const [a] = owners();
    await snowfall(store(), a, 200, 50);
    // All 200 postings of both terms read: the exact scores.
    const exact = new Map((await search(store(), a, ['snow', 'filler'])).map((h) => [h.episodeId, h]));
    // Seven of each read: the shortest days are found by "snow", the longest by "filler", and each
    // holds the other term too, weakly. They are ranked by both.
    const hits = await search(store(), a, ['snow', 'filler'], { ...bm25Params, postingsPerTerm: 7, rescoreDepth: 14 }, 10);
    expect(hits).toHaveLength(10);
    for (const h of hits) {
      const e = exact.get(h.episodeId)!;
      expect(h.matchedTerms).toEqual(e.matchedTerms);
      expect(h.score).toBeCloseTo(e.score, 9);
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => y - x));
  });

  it('ranks as a filtered search that sums every posting does: the same documents, scores and matched terms, up to 63 terms', async () => {
    const [a] = owners();
    // Episode i holds "snow", every term k with i % (k + 2) === 0, and i fillers: 50 terms of all frequencies.
    const terms = Array.from({ length: 50 }, (_, k) => `t${k}`);
    const docs: Bm25Doc[] = [];
    for (let i = 1; i <= 120; i++) {
      const id = await addEpisode(store(), a, `Day ${i}`);
      docs.push(doc(id, ['snow', ...terms.filter((_, k) => i % (k + 2) === 0), ...Array.from({ length: i % 7 }, () => 'filler')]));
    }
    await store().transaction((r) => r.bm25.add(a, docs, bm25Params));
    // A filter every episode passes: scored in SQL over every posting.
    const everything = { since: new Date(0) };
    for (const query of [terms, ['snow', 't0', 't1', 't40'], ['t49', 't33', 't31', 'filler']]) {
      const read = await search(store(), a, query, bm25Params, 20);
      const all = (await store().read.bm25.search(a, query, { limit: 120, filters: everything, params: bm25Params })).hits;
      const exact = new Map(all.map((h) => [h.episodeId, h]));
      // Alike episodes score the same, up to the last bit: JS and SQL add the same terms in other
      // orders, so such ties may come in either order. The ranks' scores agree, and each episode's own.
      read.forEach((h, i) => {
        expect(h.score).toBeCloseTo(all[i]!.score, 9);
        expect(h.score).toBeCloseTo(exact.get(h.episodeId)!.score, 9);
        expect(h.matchedTerms).toEqual(exact.get(h.episodeId)!.matchedTerms);
      });
    }
    // Terms past the 32nd are among those matched (the mask's upper half).
    expect((await search(store(), a, terms, bm25Params, 20)).some((h) => h.matchedTerms.includes('t40'))).toBe(true);
  });

  it('keeps the blocks equal to the live documents’ postings through remove, park, restore and deleting the episode', async () => {
    const [a] = owners();
    const ids = await snowfall(store(), a, 40, 4);
    const before = await search(store(), a, ['snow', 'day7', 'day8']);
    await store().transaction((r) => r.bm25.park(a, [ids[7]!, ids[8]!, ids[20]!], NOW));
    expect(await store().read.bm25.verify(a)).toMatchObject({ dfMismatches: 0, postingMismatches: 0, statsMismatch: false });
    expect(await search(store(), a, ['day7'])).toEqual([]);
    // "day7" has no document left: its term goes, and comes back under a new id on restore.
    await store().transaction((r) => r.bm25.unpark(a, [ids[7]!, ids[8]!, ids[20]!]));
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    expect(await search(store(), a, ['snow', 'day7', 'day8'])).toEqual(before);

    await store().transaction((r) => r.episodes.delete(a, ids[9]!));
    await store().transaction((r) => r.bm25.remove(a, [ids[10]!, ids[11]!]));
    const left = await store().read.bm25.verify(a);
    // The deleted episode's document went with it (its postings through the trigger); its term counts did not.
    expect(left).toMatchObject({ postingMismatches: 0, docsWithoutEpisode: 0, episodesWithoutDoc: 2 });
    const hits = await search(store(), a, ['snow']);
    expect(hits.map((h) => h.episodeId)).not.toContain(ids[9]);
    expect(hits).toHaveLength(37);
  });

  it('numbers terms and documents per owner: another owner’s writes and removals leave these blocks alone', async () => {
    const [a, b] = owners();
    await snowfall(store(), a, 30, 5);
    const before = await search(store(), a, ['snow', 'day3', 'filler']);
    const counts = await store().read.forgetting.rowCounts(a);
    // b's terms and documents get the same numbers as a's: only the owner tells them apart.
    const theirs = await snowfall(store(), b, 30, 5);
    await store().transaction(async (r) => {
      await r.bm25.remove(b, theirs.slice(0, 10));
      await r.bm25.park(b, theirs.slice(10, 20), NOW);
      await r.episodes.delete(b, theirs[25]!);
    });
    await store().transaction((r) => r.bm25.unpark(b, theirs.slice(10, 15)));
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
    // (Deleting an episode outright leaves its term counts to bm25.remove, which the engine calls first.)
    expect(await store().read.bm25.verify(b)).toMatchObject({ postingMismatches: 0, docsWithoutEpisode: 0 });
    expect((await store().read.forgetting.rowCounts(a)).tables).toEqual(counts.tables);
    expect(await search(store(), a, ['snow', 'day3', 'filler'])).toEqual(before);
    expect(await search(store(), b, ['snow'])).toHaveLength(14);
  });

  it('counts a term whose postings disagree with its document frequency, from its blocks’ counts and its waiting list', async () => {
    const dir = tempDir('nemori-bm25-df-');
    const [a] = owners();
    const made = await Store.open({ dir });
    await snowfall(made, a, 300, 100);
    expect(await made.read.bm25.verify(a)).toEqual(CONSISTENT);
    await made.close();
    // Written behind the store: a waiting term's count off by one, a waiting term emptied, one block's
    // count off by one, and a block of a term that does not exist.
    const db = await PGlite.create({ dataDir: path.join(dir, 'pg'), extensions: { vector } });
    await db.exec(`UPDATE bm25_terms SET df = df + 1 WHERE owner_id = '${a}' AND term = 'day7';
      UPDATE bm25_terms SET docs = '{}', impacts = '{}' WHERE owner_id = '${a}' AND term = 'day9';
      UPDATE bm25_postings SET n = n - 1 WHERE ctid = (SELECT min(ctid) FROM bm25_postings WHERE owner_id = '${a}');
      INSERT INTO bm25_postings (owner_id, term_id, n, min_impact, max_impact, docs, impacts)
        SELECT owner_id, 999999, n, min_impact, max_impact, docs, impacts FROM bm25_postings WHERE owner_id = '${a}' LIMIT 1;`);
    await db.close();
    const store = await Store.open({ dir });
    try {
      expect(await store.read.bm25.verify(a, { postings: false, documents: false })).toEqual({
        dfMismatches: 4,
        postingMismatches: null,
        docsWithoutEpisode: null,
        episodesWithoutDoc: null,
        statsMismatch: false,
      });
      // Going deep, the block whose count disagrees with its arrays has a wrong shape too.
      expect((await store.read.bm25.verify(a)).postingMismatches).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
