import { describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { paraphrasePair } from '../fixtures/tiny-model/index.js';
import { newOwner } from '../helpers/engine.js';
import { DAY_MS, diary, episodeOf, expectSameHits, hits, sharedEngine, TestClock } from './helpers.js';

const entries = [
  { key: 'hike', text: 'I adore hiking in the mountains', day: 0 },
  { key: 'tax', text: 'The quarterly tax report is due on Friday', day: 1 },
  { key: 'ml', text: '我最近在学机器学习，做了一个推荐系统项目', day: 2 },
  { key: 'trip', text: '下周去上海出差，顺便见见老同学', day: 3 },
  { key: 'game', text: 'Our team won the basketball game last night in the mountains', day: 4 },
  { key: 'garden', text: 'The garden tomatoes finally ripened after the hiking trip', day: 5 },
];

const queries = ['hiking mountains', paraphrasePair('en-hiking').b, 'tax report Friday', '机器学习', 'basketball game', 'tomatoes garden'];
const modes = ['hybrid', 'bm25', 'vector'] as const;

async function snapshot(engine: Engine, ownerId: string) {
  const out: Record<string, Awaited<ReturnType<typeof hits>>> = {};
  for (const q of queries) for (const mode of modes) out[`${mode}:${q}`] = await hits(engine, ownerId, q, mode);
  return out;
}

describe('restoring a memory brings back the search hits it had', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  const engine = sharedEngine(clock);

  async function setup() {
    const ownerId = newOwner('restore');
    await engine().call('ingestConversation', { ownerId, conversation: diary('d', entries) });
    const hike = await episodeOf(engine(), ownerId, 'hike');
    // The person says the hike does not matter: it fades fast, while the rest (importance 0.5) stays.
    await engine().call('markMemory', { ownerId, id: hike, important: false });
    return { ownerId, hike, before: await snapshot(engine(), ownerId) };
  }

  it('from the archive: out of vector search, still found by keyword and id, back identical after restore', async () => {
    const { ownerId, hike, before } = await setup();
    const pass = await engine().call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 50 * DAY_MS) });
    expect(pass.moves.map((m) => [m.id, m.to])).toEqual([[hike, 'archived']]);
    // The reason carries the score that decided it and the threshold it crossed.
    expect(pass.moves[0]!.reason).toMatchObject({ kind: 'decay', threshold: 'archive', limit: 100, score: pass.moves[0]!.score });

    const vector = await hits(engine(), ownerId, 'hiking mountains', 'vector');
    expect(vector.map((h) => h.id)).not.toContain(hike);
    const keyword = await hits(engine(), ownerId, 'hiking mountains', 'bm25');
    expect(keyword.map((h) => h.id)).toContain(hike);
    const hybrid = await hits(engine(), ownerId, 'hiking mountains', 'hybrid');
    expect(hybrid.find((h) => h.id === hike)?.vector).toBeNull();
    expect((await engine().call('getEpisode', { ownerId, id: hike })).episode.embeddingModel).toBeNull();
    expect((await engine().call('listEpisodes', { ownerId })).episodes.map((e) => e.id)).toContain(hike);
    expect((await engine().call('listArchive', { ownerId })).items).toMatchObject([{ id: hike, tier: 'archived' }]);

    const restored = await engine().call('restoreFromArchive', { ownerId, id: hike });
    expect(restored).toMatchObject({ id: hike, from: 'archived', tier: 'active', reembedded: true });
    const after = await snapshot(engine(), ownerId);
    for (const key of Object.keys(before)) expectSameHits(before[key]!, after[key]!);
  });

  it('from the trash: invisible to every search and listing, and a rebuild does not bring it back', async () => {
    const { ownerId, hike } = await setup();
    const pass = await engine().call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
    expect(pass.moves.map((m) => [m.id, m.from, m.to])).toEqual([[hike, 'active', 'trash']]);

    for (const mode of modes) {
      const r = await hits(engine(), ownerId, 'hiking mountains', mode);
      expect(r.map((h) => h.id)).not.toContain(hike);
    }
    expect((await engine().call('listEpisodes', { ownerId })).episodes.map((e) => e.id)).not.toContain(hike);
    const trash = await engine().call('listTrash', { ownerId });
    expect(trash.items).toMatchObject([{ id: hike, tier: 'trash', reason: { kind: 'decay', threshold: 'trash', limit: 500 } }]);
    expect(Date.parse(trash.items[0]!.purgeAfter!) - Date.parse(trash.items[0]!.since!)).toBe(30 * DAY_MS);
    // Rebuilding the indexes does not resurrect it.
    await engine().call('rebuildIndexes', { ownerId });
    expect((await hits(engine(), ownerId, 'hiking mountains', 'bm25')).map((h) => h.id)).not.toContain(hike);

    await expect(engine().call('restoreFromArchive', { ownerId, id: hike })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await engine().call('restoreFromTrash', { ownerId, id: hike });
    expect((await engine().call('listTrash', { ownerId })).items).toEqual([]);
    const rows = await engine().context.store.read.forgetting.rowCounts(ownerId);
    expect(rows.orphans).toMatchObject({ trashInIndex: 0, vectorsNotActive: 0, parkedNotTrash: 0 });
    expect(rows.tables.bm25_parked).toBe(0);
    expect(await engine().context.store.read.bm25.verify(ownerId)).toMatchObject({
      dfMismatches: 0,
      postingMismatches: 0,
      episodesWithoutDoc: 0,
      statsMismatch: false,
    });
  });

  it('from the trash: the hits after a restore are the hits before the trash', async () => {
    const { ownerId, hike, before } = await setup();
    await engine().call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
    await engine().call('restoreFromTrash', { ownerId, id: hike });
    const after = await snapshot(engine(), ownerId);
    for (const key of Object.keys(before)) expectSameHits(before[key]!, after[key]!);
  });

  it('marking a trashed memory important brings it back and exempts it', async () => {
    const { ownerId, hike } = await setup();
    await engine().call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
    const marked = await engine().call('markMemory', { ownerId, id: hike, important: true });
    expect(marked).toMatchObject({ marked: true, tier: 'active', restored: true, importance: 1 });
    const later = await engine().call('runForgetting', { ownerId, dryRun: true, now: new Date(clock.now().getTime() + 3650 * DAY_MS) });
    expect(later.moves.map((m) => m.id)).not.toContain(hike);
    expect((await hits(engine(), ownerId, 'hiking mountains', 'vector')).map((h) => h.id)).toContain(hike);
  });

  it('a dry run lists what would move and why, and changes nothing', async () => {
    const { ownerId, hike, before } = await setup();
    const dry = await engine().call('runForgetting', { ownerId, dryRun: true, now: new Date(clock.now().getTime() + 400 * DAY_MS) });
    expect(dry.dryRun).toBe(true);
    expect(dry.moves.find((m) => m.id === hike)).toMatchObject({ from: 'active', to: 'trash', title: expect.any(String) });
    expect(dry.moves.filter((m) => m.to === 'archived')).toHaveLength(entries.length - 1);
    expect(dry.tiers).toEqual({ active: 0, archived: entries.length - 1, trash: 1 });
    expect(await snapshot(engine(), ownerId)).toEqual(before);
    expect((await engine().context.store.read.forgetting.rowCounts(ownerId)).tables.forgetting_runs).toBe(0);
  });
});
