import { describe, expect, it } from 'vitest';
import type { NewRelationship } from '../../core/store/relationships.js';
import { addEpisode, addFact, addFacts, NOW, owners, rolledBack, useStore } from './helpers.js';

const rel = (sourceId: string, targetId: string, o: Partial<NewRelationship> = {}): NewRelationship => ({
  sourceId,
  targetId,
  type: 'related',
  strength: 0.5,
  description: '',
  discoveryEpisodeId: null,
  ...o,
});

describe('fact relationships repository', () => {
  const store = useStore();

  it('relates two facts once per type, reinforcing rather than duplicating', async () => {
    const [a] = owners();
    const episode = await addEpisode(store(), a, 'Both said');
    const [tea, cups] = [await addFact(store(), a, 'person:alice', 'likes tea'), await addFact(store(), a, 'thing:cups', 'blue')];
    const later = new Date(NOW.getTime() + 60_000);
    await store().transaction(async (r) => {
      await r.relationships.relate(a, rel(tea, cups, { strength: 0.7, description: 'drinks from', discoveryEpisodeId: episode }), NOW);
      await r.relationships.relate(a, rel(tea, cups, { strength: 0.4 }), later);
      await r.relationships.relate(a, rel(tea, tea), NOW);
    });
    const [one, ...rest] = await store().read.relationships.of(a, [cups]);
    expect(rest).toEqual([]);
    expect(one).toMatchObject({
      sourceId: tea,
      targetId: cups,
      type: 'related',
      description: 'drinks from',
      discoveryEpisodeId: episode,
      createdAt: NOW,
      lastReinforced: later,
    });
    expect(one!.strength).toBeCloseTo(0.7, 5);
  });

  it('leaves out relationships with a trashed end, and goes with either fact', async () => {
    const [a] = owners();
    const [x, y, z] = await addFacts(store(), a, ['thing:x', 'thing:y', 'thing:z']);
    await store().transaction(async (r) => {
      await r.relationships.relate(a, rel(x, y, { strength: 0.9 }), NOW);
      await r.relationships.relate(a, rel(z, x, { type: 'part_of' }), NOW);
    });
    const read = store().read.relationships;
    expect((await read.of(a, [x])).map((r) => [r.sourceId, r.targetId])).toEqual([
      [x, y],
      [z, x],
    ]);
    await store().transaction((r) => r.facts.setTier(a, [y], 'trash', null, NOW));
    expect((await read.of(a, [x])).map((r) => r.sourceId)).toEqual([z]);
    await store().transaction((r) => r.facts.delete(a, [z]));
    expect(await read.of(a, [x])).toEqual([]);
  });

  it('relates only an owner’s own facts, and shows them to that owner only', async () => {
    const [a, b] = owners();
    const [tea, cups] = [await addFact(store(), a, 'person:alice', 'likes tea'), await addFact(store(), a, 'thing:cups', 'blue')];
    const theirs = await addFact(store(), b, 'thing:saucers', 'white');
    await store().transaction((r) => r.relationships.relate(a, rel(tea, cups, { strength: 0.3, description: 'mine' }), NOW));
    await store().transaction(async (r) => {
      await r.relationships.relate(b, rel(tea, cups, { strength: 1, description: 'taken over' }), NOW);
      await r.relationships.relate(b, rel(theirs, cups), NOW);
      await r.relationships.relate(a, rel(tea, theirs), NOW);
    });
    expect(await store().read.relationships.of(b, [tea, cups, theirs])).toEqual([]);
    const mine = await store().read.relationships.of(a, [tea, cups, theirs]);
    expect(mine).toMatchObject([{ sourceId: tea, targetId: cups, description: 'mine' }]);
    expect(mine[0]!.strength).toBeCloseTo(0.3, 5);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const [x, y] = await addFacts(store(), a, ['thing:x', 'thing:y']);
    await rolledBack(store(), (r) => r.relationships.relate(a, rel(x, y), NOW));
    expect(await store().read.relationships.of(a, [x])).toEqual([]);
  });
});
