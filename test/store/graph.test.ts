import { describe, expect, it } from 'vitest';
import type { GraphInput } from '../../core/store/graph.js';
import { addEpisode, NOW, owners, rolledBack, useStore } from './helpers.js';

const thomas: GraphInput = {
  entities: [
    { name: 'Thomas', key: 'thomas', type: 'PERSON', role: 'lender', aliases: [{ alias: 'Tom', key: 'tom' }] },
    { name: 'Lighthouse novel', key: 'lighthouse novel', type: 'WORK', role: null, aliases: [] },
  ],
  relationships: [{ subjectKey: 'thomas', predicate: 'lent', objectKey: 'lighthouse novel' }],
};

describe('knowledge graph repository', () => {
  const store = useStore();

  it('links an episode to its entities and triples, walkable both ways', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'The novel');
    const keys = await store().transaction((r) => r.graph.setEpisodeGraph(a, id, thomas, NOW));
    const tom = keys.get('tom')!;
    expect(keys.get('thomas')).toBe(tom);
    const read = store().read.graph;
    const g = await read.episodeGraph(a, id);
    expect(g.entities.map((e) => ({ name: e.name, aliases: e.aliases, role: e.role }))).toEqual([
      { name: 'Lighthouse novel', aliases: [], role: null },
      { name: 'Thomas', aliases: ['Tom'], role: 'lender' },
    ]);
    expect(g.relationships).toEqual([
      {
        subject: { id: tom, name: 'Thomas', type: 'PERSON' },
        predicate: 'lent',
        object: expect.objectContaining({ name: 'Lighthouse novel' }),
      },
    ]);
    expect(await read.entities(a, { keyPrefix: 'to', limit: 10 })).toEqual([
      { id: tom, name: 'Thomas', type: 'PERSON', aliases: ['Tom'], episodes: 1 },
    ]);
    expect(await read.episodesOf(a, [tom])).toEqual([{ entityId: tom, episodeId: id }]);
    expect(await read.neighbours(a, [tom])).toEqual([
      { subjectId: tom, predicate: 'lent', objectId: keys.get('lighthouse novel'), episodeId: id },
    ]);
    expect(await read.episodesOfEntityKey(a, 'tom')).toEqual([id]);
  });

  it('drops an episode’s links, triples and orphaned entities with the episode', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Gone');
    await store().transaction((r) => r.graph.setEpisodeGraph(a, id, thomas, NOW));
    await store().transaction((r) => r.episodes.delete(a, id));
    expect(await store().read.graph.entities(a, { limit: 10 })).toEqual([]);
    expect(await store().read.graph.episodesOfEntityKey(a, 'thomas')).toEqual([]);
  });

  it('never shows one owner’s graph to another, and gives each owner their own entities', async () => {
    const [a, b] = owners();
    const mine = await addEpisode(store(), a, 'Mine');
    const theirs = await addEpisode(store(), b, 'Theirs');
    const aKeys = await store().transaction((r) => r.graph.setEpisodeGraph(a, mine, thomas, NOW));
    const read = store().read.graph;
    expect(await read.entities(b, { limit: 10 })).toEqual([]);
    expect(await read.episodeGraph(b, mine)).toEqual({ entities: [], relationships: [] });
    expect(await read.episodesOf(b, [aKeys.get('tom')!])).toEqual([]);
    expect(await read.neighbours(b, [aKeys.get('tom')!])).toEqual([]);
    expect(await read.episodesOfEntityKey(b, 'tom')).toEqual([]);
    const bKeys = await store().transaction((r) => r.graph.setEpisodeGraph(b, theirs, thomas, NOW));
    expect(bKeys.get('tom')).not.toBe(aKeys.get('tom'));
    expect((await read.entities(a, { limit: 10 })).map((e) => e.episodes)).toEqual([1, 1]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Lost');
    await rolledBack(store(), (r) => r.graph.setEpisodeGraph(a, id, thomas, NOW));
    expect(await store().read.graph.entities(a, { limit: 10 })).toEqual([]);
    expect(await store().read.graph.episodeGraph(a, id)).toEqual({ entities: [], relationships: [] });
  });
});
