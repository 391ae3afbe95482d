import { describe, expect, it } from 'vitest';
import { newOwner } from '../helpers/engine.js';
import { diary, episodeOf, sharedEngine, TestClock } from './helpers.js';
import { CONSISTENT } from '../store/helpers.js';

const entries = [
  { key: 'vending', text: 'The vending machine on the third floor sells lukewarm cola', day: 0 },
  { key: 'pigeon', text: 'A pigeon landed on the balcony railing and stared at the laundry', day: 1 },
  { key: 'birth', text: 'Our daughter Mia was born at three in the morning, healthy and loud', day: 2 },
  { key: 'wifi', text: 'The cabin wifi password is moonlight42, written on the fridge', day: 3 },
  { key: 'ramen', text: 'We tried the new ramen shop downtown and the broth was rich', day: 4 },
];
const kept = entries.filter((e) => !['vending', 'pigeon'].includes(e.key));

describe('a year of simulated use', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  const engine = sharedEngine(clock);

  it('lets unused trivia fade to the archive, the trash and out, while what matters stays', async () => {
    const ownerId = newOwner('year');
    await engine().call('ingestConversation', { ownerId, conversation: diary('life', entries) });
    const id = Object.fromEntries(await Promise.all(entries.map(async (e) => [e.key, await episodeOf(engine(), ownerId, e.key)] as const)));
    // Trivia, as an importance-scoring builder would rate it; the birth is trivia-rated too, but the
    // person marks it important; the wifi password is trivia-rated and recalled every week.
    for (const key of ['vending', 'pigeon', 'birth', 'wifi']) {
      await engine().call('updateEpisode', { ownerId, id: id[key]!, patch: { importance: 0.1 } });
    }
    await engine().call('markMemory', { ownerId, id: id.birth!, important: true });

    const tierOf = async () => {
      const rows = await engine().context.store.read.forgetting.episodeDecayRows(ownerId);
      const byId = new Map(rows.map((r) => [r.id, r.tier]));
      return Object.fromEntries(entries.map((e) => [e.key, byId.get(id[e.key]!) ?? 'purged']));
    };
    const firstDay: Record<string, Record<string, number>> = {};
    for (let day = 1; day <= 365; day++) {
      clock.advanceDays(1);
      if (day % 7 === 0) await engine().call('getEpisode', { ownerId, id: id.wifi! });
      const pass = await engine().call('runForgetting', { ownerId });
      expect(pass.dryRun).toBe(false);
      for (const [key, tier] of Object.entries(await tierOf())) (firstDay[key] ??= {})[tier] ??= day;
    }

    // Trivia: archived, then trashed, then purged 30 days later — all within the year.
    for (const key of ['vending', 'pigeon']) {
      const life = firstDay[key]!;
      expect(life.archived).toBeGreaterThan(30);
      expect(life.trash).toBeGreaterThan(life.archived!);
      expect(life.purged! - life.trash!).toBe(30);
      expect(life.purged).toBeLessThanOrEqual(365);
    }
    // The marked and the frequently recalled memories never left the active tier.
    expect(Object.keys(firstDay.birth!)).toEqual(['active']);
    expect(Object.keys(firstDay.wifi!)).toEqual(['active']);
    // An ordinary memory nobody recalled for a year is archived, not trashed.
    expect(firstDay.ramen!.archived).toBeGreaterThan(180);
    expect(firstDay.ramen!.trash).toBeUndefined();

    // Importance learned from use: recall raised the wifi password's, the mark fixed the birth's.
    const wifi = await engine().call('explainDecay', { ownerId, id: id.wifi! });
    expect(wifi.importance).toBeGreaterThan(0.3);
    expect(wifi.baseImportance).toBeCloseTo(0.1);
    expect((await engine().call('explainDecay', { ownerId, id: id.birth! })).importance).toBe(1);

    // The purged trivia is gone from every search mode; the archived memory is found by keyword only.
    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const r = await engine().call('search', { ownerId, query: 'vending machine cola pigeon balcony', mode });
      expect(r.results.map((x) => x.id)).not.toContain(id.vending);
      expect(r.results.map((x) => x.id)).not.toContain(id.pigeon);
    }
    const ramenByKeyword = await engine().call('search', { ownerId, query: 'ramen broth', mode: 'bm25' });
    expect(ramenByKeyword.results[0]?.id).toBe(id.ramen);
    const ramenByMeaning = await engine().call('search', { ownerId, query: 'ramen broth', mode: 'vector', limit: 50 });
    expect(ramenByMeaning.results.map((x) => x.id)).not.toContain(id.ramen);
    expect((await engine().call('listArchive', { ownerId })).items.map((x) => x.id)).toEqual([id.ramen]);
    expect((await engine().call('listTrash', { ownerId })).items).toEqual([]);
  });

  it('purge leaves no orphan rows, vectors or index terms: the index is as if the trivia never existed', async () => {
    const subject = newOwner('purged');
    const control = newOwner('control');
    const start = clock.now();
    await engine().call('ingestConversation', { ownerId: subject, conversation: diary('life', entries) });
    await engine().call('ingestConversation', { ownerId: control, conversation: diary('life', kept) });
    for (const key of ['vending', 'pigeon']) {
      await engine().call('markMemory', { ownerId: subject, id: await episodeOf(engine(), subject, key), important: false });
    }
    for (const key of kept.map((e) => e.key)) {
      await engine().call('markMemory', { ownerId: subject, id: await episodeOf(engine(), subject, key), important: true });
    }
    // Not important: trashed within months; purged 30 days after.
    const trashed = await engine().call('runForgetting', { ownerId: subject, now: new Date(start.getTime() + 200 * 86_400_000) });
    expect(trashed.moved.trashed).toBe(2);
    const before = await engine().context.store.read.forgetting.rowCounts(subject);
    expect(before.episodesByTier.trash).toBe(2);
    expect(before.tables.bm25_parked).toBe(2);
    const purged = await engine().call('runForgetting', { ownerId: subject, now: new Date(start.getTime() + 231 * 86_400_000) });
    expect(purged.moved.purged).toBe(2);

    const a = await engine().context.store.read.forgetting.rowCounts(subject);
    const b = await engine().context.store.read.forgetting.rowCounts(control);
    expect(Object.values(a.orphans).every((n) => n === 0)).toBe(true);
    expect(a.orphans).toEqual(b.orphans);
    for (const table of ['episodes', 'bm25_postings', 'bm25_docs', 'bm25_terms', 'episode_embeddings', 'bm25_parked'] as const) {
      expect({ table, n: a.tables[table] }).toEqual({ table, n: b.tables[table] });
    }
    expect(a.bm25StatsDocs).toBe(b.bm25StatsDocs);
    expect(await engine().context.store.read.bm25.verify(subject)).toEqual(CONSISTENT);
    // The trivia's source messages are kept only as import keys, so re-importing brings nothing back.
    expect(a.tables.messages).toBe(entries.length);
    expect(a.tombstones).toBe(2);
    const again = await engine().call('ingestConversation', { ownerId: subject, conversation: diary('life', entries) });
    expect(again).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
    expect((await engine().context.store.read.forgetting.rowCounts(subject)).tables.episodes).toBe(kept.length);
  });
});
