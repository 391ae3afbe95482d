import { describe, expect, it } from 'vitest';
import { addEpisode, addFact, NOW, owners, rolledBack, useStore } from './helpers.js';

describe('fact–episode links repository', () => {
  const store = useStore();

  it('reads the one table both ways, each role once, trashed facts left out of an episode’s', async () => {
    const [a] = owners();
    const [told, repeated] = [await addEpisode(store(), a, 'Told'), await addEpisode(store(), a, 'Repeated')];
    const [tea, bern] = [await addFact(store(), a, 'person:alice', 'likes tea'), await addFact(store(), a, 'person:bob', 'lives in Bern')];
    await store().transaction(async (r) => {
      await r.factLinks.link(a, tea, told, 'discovery', NOW);
      await r.factLinks.link(a, tea, told, 'discovery', NOW);
      await r.factLinks.link(a, tea, repeated, 'linked', new Date(NOW.getTime() + 1000));
      await r.factLinks.link(a, bern, told, 'discovery', NOW);
    });
    const read = store().read.factLinks;
    expect((await read.ofFacts(a, [tea])).map((l) => [l.episodeId, l.role])).toEqual([
      [told, 'discovery'],
      [repeated, 'linked'],
    ]);
    expect((await read.ofEpisodes(a, [told])).map((l) => l.nodeId).sort()).toEqual([tea, bern].sort());
    await store().transaction((r) => r.facts.setTier(a, [bern], 'trash', null, NOW));
    expect((await read.ofEpisodes(a, [told])).map((l) => l.nodeId)).toEqual([tea]);
    expect(await read.ofFacts(a, [bern])).toHaveLength(1);
  });

  it('goes with the episode and with the fact', async () => {
    const [a] = owners();
    const episode = await addEpisode(store(), a, 'Told');
    const fact = await addFact(store(), a, 'person:alice', 'likes tea');
    await store().transaction((r) => r.factLinks.link(a, fact, episode, 'discovery', NOW));
    await store().transaction((r) => r.episodes.delete(a, episode));
    expect(await store().read.factLinks.ofFacts(a, [fact])).toEqual([]);
  });

  it('links only an owner’s own facts and episodes, and shows them to that owner only', async () => {
    const [a, b] = owners();
    const [episode, fact] = [await addEpisode(store(), a, 'Mine'), await addFact(store(), a, 'person:alice', 'likes tea')];
    const [theirEpisode, theirFact] = [await addEpisode(store(), b, 'Theirs'), await addFact(store(), b, 'person:alice', 'likes coffee')];
    await store().transaction(async (r) => {
      await r.factLinks.link(a, fact, episode, 'discovery', NOW);
      await r.factLinks.link(b, fact, theirEpisode, 'linked', NOW);
      await r.factLinks.link(b, theirFact, episode, 'linked', NOW);
      await r.factLinks.link(a, fact, theirEpisode, 'linked', NOW);
    });
    const read = store().read.factLinks;
    expect(await read.ofFacts(b, [fact])).toEqual([]);
    expect(await read.ofEpisodes(b, [episode])).toEqual([]);
    expect((await read.ofFacts(a, [fact])).map((l) => l.episodeId)).toEqual([episode]);
    expect((await read.ofEpisodes(a, [episode])).map((l) => l.nodeId)).toEqual([fact]);
    expect(await store().read.facts.searchResults(a, [fact])).toMatchObject([{ episodeIds: [episode] }]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const [episode, fact] = [await addEpisode(store(), a, 'Told'), await addFact(store(), a, 'person:alice', 'likes tea')];
    await rolledBack(store(), (r) => r.factLinks.link(a, fact, episode, 'discovery', NOW));
    expect(await store().read.factLinks.ofFacts(a, [fact])).toEqual([]);
  });
});
