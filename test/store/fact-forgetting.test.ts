import { describe, expect, it } from 'vitest';
import { addEpisode, addFact, addFacts, newFact, NOW, owners, rolledBack, useStore } from './helpers.js';

const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

describe('fact forgetting repository', () => {
  const store = useStore();

  it('reads access records, tier counts and the trash view with the reason of each move', async () => {
    const [a] = owners();
    const [x, y, z] = await addFacts(store(), a, ['thing:x', 'thing:y', 'thing:z']);
    await store().transaction(async (r) => {
      await r.facts.setTier(a, [x], 'trash', null, minutes(1));
      await r.facts.setTier(a, [y], 'trash', null, minutes(2));
      await r.factForgetting.setReasons(a, [
        { id: x, reason: { kind: 'important' } },
        { id: y, reason: { kind: 'emptied' } },
      ]);
    });
    const read = store().read.factForgetting;
    expect(await read.tierCounts(a)).toEqual({ active: 1, archived: 0, trash: 2 });
    expect((await read.rows(a)).map((r) => r.id).sort()).toEqual([x, y, z].sort());
    expect(await read.rows(a, [z])).toEqual([
      expect.objectContaining({ id: z, tier: 'active', baseImportance: 0.5, recallCount: 0, marked: null }),
    ]);
    const trash = await read.inTier(a, 'trash', { limit: 1 });
    expect(trash).toEqual([expect.objectContaining({ id: y, tierChangedAt: minutes(2), tierReason: { kind: 'emptied' } })]);
    expect(await read.inTier(a, 'trash', { limit: 5, before: { at: minutes(2), id: y } })).toEqual([
      expect.objectContaining({ id: x, tierReason: { kind: 'important' } }),
    ]);
  });

  it('measures capacity and picks what to evict: unprotected, unimportant, least recently used first', async () => {
    const [a] = owners();
    const ins = (key: string, importance: number, at: number) =>
      store().transaction((r) => r.facts.insert(a, newFact(key, key, { importance }), minutes(at)));
    const [low, old, recent, high] = [
      await ins('thing:low', 0.1, 5),
      await ins('thing:old', 0.5, 0),
      await ins('thing:recent', 0.5, 9),
      await ins('thing:high', 0.95, 1),
    ];
    const marked = await ins('thing:marked', 0.5, 2);
    await store().transaction(async (r) => {
      await r.facts.mark(a, marked, true, 0.5);
      await r.factTerms.set(a, low, new Map([['low', 1]]), 1, 10);
    });
    const read = store().read.factForgetting;
    expect(await read.usage(a, 0.9, 0.2)).toEqual({ items: 5, tokens: 10, protected: 2, lowImportance: 1, versions: 5, trashed: 0 });
    expect((await read.evictionOrder(a, 0.9, 0.2, 10, [])).map((n) => n.id)).toEqual([low, old, recent]);
    expect((await read.evictionOrder(a, 0.9, 0.2, 10, [low])).map((n) => n.id)).toEqual([old, recent]);
    expect((await read.pick(a, { order: 'lru', limit: 1 })).map((n) => n.id)).toEqual([old]);
    expect((await read.pick(a, { order: 'importance', limit: 1 })).map((n) => n.id)).toEqual([low]);
    expect((await read.pick(a, { createdBefore: minutes(2) })).map((n) => n.id)).toEqual([old, high]);
  });

  it('finds the facts a "forget about" reaches: by text, old values included, and by the episodes they came from', async () => {
    const [a] = owners();
    const episode = await addEpisode(store(), a, 'Told');
    const [now, once, derived] = [
      await addFact(store(), a, 'person:tom', 'plays chess'),
      await addFact(store(), a, 'person:lin', 'plays go'),
      await addFact(store(), a, 'thing:board', 'wooden'),
    ];
    await store().transaction(async (r) => {
      await r.factVersions.add(
        a,
        once,
        {
          version: 1,
          value: 'plays chess with Tom',
          context: '',
          confidence: 1,
          link: null,
          method: 'upsert',
          episodeId: null,
          sourceMessageIds: [],
        },
        NOW,
      );
      await r.factVersions.add(
        a,
        derived,
        {
          version: 1,
          value: 'wooden',
          context: '',
          confidence: 1,
          link: null,
          method: 'diff_analysis',
          episodeId: episode,
          sourceMessageIds: [],
        },
        NOW,
      );
    });
    const read = store().read.factForgetting;
    expect((await read.mentioning(a, 'TOM')).map((n) => n.id).sort()).toEqual([now, once].sort());
    expect((await read.derivedFrom(a, [episode])).map((n) => n.id)).toEqual([derived]);
  });

  it('never shows or changes one owner’s facts to another', async () => {
    const [a, b] = owners();
    const fact = await addFact(store(), a, 'person:tom', 'plays chess');
    const episode = await addEpisode(store(), a, 'Told');
    await store().transaction((r) =>
      r.factVersions.add(
        a,
        fact,
        {
          version: 1,
          value: 'plays chess',
          context: '',
          confidence: 1,
          link: null,
          method: 'upsert',
          episodeId: episode,
          sourceMessageIds: [],
        },
        NOW,
      ),
    );
    const read = store().read.factForgetting;
    expect(await read.rows(b)).toEqual([]);
    expect(await read.rows(b, [fact])).toEqual([]);
    expect(await read.tierCounts(b)).toEqual({ active: 0, archived: 0, trash: 0 });
    expect(await read.usage(b, 0.9, 0.2)).toEqual({ items: 0, tokens: 0, protected: 0, lowImportance: 0, versions: 0, trashed: 0 });
    expect(await read.evictionOrder(b, 0.9, 0.2, 10, [])).toEqual([]);
    expect(await read.pick(b, { order: 'lru', limit: 5 })).toEqual([]);
    expect(await read.mentioning(b, 'chess')).toEqual([]);
    expect(await read.derivedFrom(b, [episode])).toEqual([]);
    await store().transaction((r) => r.factForgetting.setReasons(b, [{ id: fact, reason: { kind: 'emptied' } }]));
    expect((await read.rows(a, [fact]))[0]!.tierReason).toBeNull();
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const fact = await addFact(store(), a, 'thing:x', '1');
    await rolledBack(store(), (r) => r.factForgetting.setReasons(a, [{ id: fact, reason: { kind: 'emptied' } }]));
    expect((await store().read.factForgetting.rows(a, [fact]))[0]!.tierReason).toBeNull();
  });
});
