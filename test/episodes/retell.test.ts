import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEngine } from '../../core/engine/open-engine.js';
import type { Episode } from '../../core/domain/episode.js';
import { HEURISTIC_VERSION } from '../../core/episodes/heuristic.js';
import { bm25Doc, embeddingText } from '../../core/retrieval/indexing.js';
import { retellEpisodes } from '../../core/episodes/retell.js';
import { openEmbedder } from '../../core/embed/index.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { ingestExchange, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';

/**
 * A store keeps what the rules of its day told of each episode. Episodes told by older rules are made
 * here as an older Nemori stored them: a noisy title and keyword, an older version, indexed by those
 * words, and never edited (updated when created).
 */
const OLD_TITLE = 'Lin on goo, heh and lets';

async function ageEpisodes(engine: Engine, ownerId: string): Promise<void> {
  const ctx = engine.context;
  const episodes = await ctx.store.read.episodes.getMany(ownerId, await ctx.store.read.episodes.ids(ownerId));
  const oldTexts = episodes.map((e) => embeddingText({ ...e, title: OLD_TITLE }));
  const vectors = ctx.embedder && Object.fromEntries((await ctx.embedder.embed(oldTexts, 'passage')).map((v, i) => [episodes[i]!.id, v]));
  await ctx.store.transaction(async (r) => {
    for (const e of episodes) {
      const old = { ...e, title: OLD_TITLE, keywords: ['goo'], processingVersion: 'heuristic-1' };
      expect(await r.episodes.reword(ownerId, [{ id: e.id, words: old, version: old.processingVersion }], 'heuristic')).toEqual([e.id]);
      await r.bm25.remove(ownerId, [e.id]);
      await r.bm25.add(ownerId, [bm25Doc(old)], ctx.config.retrieval.bm25);
      if (ctx.embedder) await r.vectors.upsert(ownerId, ctx.embedder.modelId, [{ episodeId: e.id, vector: vectors![e.id]! }]);
    }
  });
}

const talks = [
  { id: 'dentist', at: '2024-05-06T09:00:00+08:00', text: 'I finally booked the dentist appointment for Friday morning.' },
  { id: 'bike', at: '2024-05-08T19:00:00+08:00', text: 'The new bike saddle is much better on the long rides.' },
];

async function episodesOf(engine: Engine, ownerId: string): Promise<Episode[]> {
  const read = engine.context.store.read.episodes;
  return read.getMany(ownerId, await read.ids(ownerId));
}

describe('episodes told by older rules', () => {
  const engines: Engine[] = [];
  afterAll(async () => {
    for (const e of engines) await e.close();
  });

  it('are told again by `rebuildIndexes`: today’s words and index entries, same ids, times and recalls; others are left', async () => {
    const engine = await openMemoryEngine();
    engines.push(engine);
    const [alice, bob] = [newOwner('alice'), newOwner('bob')];
    for (const owner of [alice, bob]) for (const t of talks) await ingestExchange(engine, owner, t);
    const fresh = await episodesOf(engine, alice);
    expect(fresh.map((e) => e.processingVersion)).toEqual([HEURISTIC_VERSION, HEURISTIC_VERSION]);
    await engine.call('getEpisode', { ownerId: alice, id: fresh[0]!.id });
    for (const owner of [alice, bob]) await ageEpisodes(engine, owner);
    // A person's edit is theirs to keep, whatever rules told the episode first.
    const edited = (await episodesOf(engine, alice))[1]!;
    await engine.call('updateEpisode', { ownerId: alice, id: edited.id, patch: { title: 'Bike fitting' } });
    const aged = await episodesOf(engine, alice);
    const before = await engine.call('search', { ownerId: alice, query: 'goo', mode: 'bm25' });
    expect(before.results.map((r) => r.id).sort()).toEqual(aged.map((e) => e.id).sort());

    const out = await engine.call('rebuildIndexes', { ownerId: alice });
    expect(out.retold).toBe(1);
    const now = await episodesOf(engine, alice);
    expect(now[0]).toMatchObject({
      id: fresh[0]!.id,
      title: fresh[0]!.title,
      summary: fresh[0]!.summary,
      keywords: fresh[0]!.keywords,
      processingVersion: HEURISTIC_VERSION,
      createdAt: aged[0]!.createdAt,
      updatedAt: aged[0]!.updatedAt,
      recallCount: 1,
    });
    expect(now[0]!.title).not.toBe(OLD_TITLE);
    expect(now[1]).toMatchObject({ title: 'Bike fitting', processingVersion: 'heuristic-1' });
    const goo = await engine.call('search', { ownerId: alice, query: 'goo', mode: 'bm25' });
    expect(goo.results.map((r) => r.id)).toEqual([edited.id]);
    const dentist = await engine.call('search', { ownerId: alice, query: 'dentist appointment', mode: 'bm25' });
    expect(dentist.results[0]?.id).toBe(fresh[0]!.id);
    // Another owner's episodes are theirs: untouched.
    expect((await episodesOf(engine, bob)).map((e) => e.title)).toEqual([OLD_TITLE, OLD_TITLE]);
    // Told once: a second rebuild has nothing to tell.
    expect((await engine.call('rebuildIndexes', { ownerId: alice })).retold).toBe(0);
  });

  it('get the vector of their new words, with a model', async () => {
    const engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()) });
    engines.push(engine);
    const ownerId = newOwner();
    for (const t of talks) await ingestExchange(engine, ownerId, t);
    await ageEpisodes(engine, ownerId);
    expect(await retellEpisodes(engine.context, ownerId)).toBe(2);
    const embedder = engine.context.embedder!;
    const space = { modelId: embedder.modelId, dimensions: embedder.dimensions };
    for (const e of await episodesOf(engine, ownerId)) {
      expect(e.title).not.toBe(OLD_TITLE);
      const [now, old] = await embedder.embed([embeddingText(e), embeddingText({ ...e, title: OLD_TITLE })], 'passage');
      const [sameAsNew] = await engine.context.store.read.vectors.similarities(ownerId, space, now!, [e.id]);
      const [sameAsOld] = await engine.context.store.read.vectors.similarities(ownerId, space, old!, [e.id]);
      expect(sameAsNew!.similarity).toBeGreaterThan(0.999);
      expect(sameAsOld!.similarity).toBeLessThan(sameAsNew!.similarity);
    }
  });

  it('are told again in the background of an engine that stays open, for every owner', async () => {
    const home = tempDir();
    const owners = [newOwner('alice'), newOwner('bob')];
    const first = await openEngine({ home, embedder: null });
    for (const owner of owners) for (const t of talks) await ingestExchange(first, owner, t);
    const fresh = await Promise.all(owners.map((o) => episodesOf(first, o)));
    for (const owner of owners) await ageEpisodes(first, owner);
    await first.close();

    const engine = await openEngine({ home, embedder: null, scheduleForgetting: true, config: { segment: { retellAfterSeconds: 0 } } });
    engines.push(engine);
    await vi.waitFor(
      async () => {
        for (const [k, owner] of owners.entries()) {
          const titles = (await episodesOf(engine, owner)).map((e) => e.title);
          expect(titles).toEqual(fresh[k]!.map((e) => e.title));
        }
      },
      { timeout: 20_000, interval: 50 },
    );
    expect((await engine.call('search', { ownerId: owners[1]!, query: 'goo', mode: 'bm25' })).results).toEqual([]);
  });
});
