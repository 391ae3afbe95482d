import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/index.js';
import { learnFact } from '../../core/facts/learn.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { diary, episodeOf, TestClock } from './helpers.js';

/**
 * Semantic facts under the forgetting system: the same tiers, passes, restore, mark, purge and
 * forget-about as episodes, at the slower pace of facts. With importance 0.2 and no recall, a fact is
 * archived after about three years and trashed after about eleven and a half (an episode of the same
 * importance: months).
 */

const YEAR = 365;

describe('semantic facts fade, and come back, like episodes but ten times slower', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()), clock, warn: () => {} });
  });
  afterAll(async () => {
    await engine.close();
  });

  async function fact(ownerId: string, key: string, value: string, importance = 0.2): Promise<string> {
    const out = await engine.call('upsertKnowledge', { ownerId, key, value, metadata: { importance } });
    expect(out.action).toBe('created');
    return out.id;
  }

  /** Fact ids a search finds. Some fact keeps a vector in every test, so vector mode never falls back to keywords. */
  async function found(ownerId: string, query: string, mode: 'hybrid' | 'bm25' | 'vector'): Promise<string[]> {
    const out = await engine.call('search', { ownerId, query, mode, kind: 'semantic', limit: 50 });
    expect(out.mode).toBe(mode);
    return out.results.map((r) => r.id);
  }

  /** A fact the person marked important: it never fades, and keeps vector search running. */
  async function keeper(ownerId: string): Promise<string> {
    const id = await fact(ownerId, 'person:carol', 'Carol plays the cello in an orchestra');
    await engine.call('markMemory', { ownerId, id, important: true });
    return id;
  }

  const pass = async (ownerId: string) => (await engine.call('runForgetting', { ownerId })).moves.map((m) => [m.kind, m.id, m.from, m.to]);

  it('a fact nobody recalls stays for a year, leaves meaning search when archived, and is re-embedded on restore', async () => {
    const ownerId = newOwner('fact-archive');
    const alice = await fact(ownerId, 'person:alice', 'Alice lives in Lisbon');
    await keeper(ownerId);

    clock.advanceDays(YEAR);
    expect(await pass(ownerId)).toEqual([]);
    expect(await found(ownerId, 'Alice lives in Lisbon', 'vector')).toContain(alice);

    clock.advanceDays(3 * YEAR);
    const run = await engine.call('runForgetting', { ownerId });
    expect(run.moves).toMatchObject([
      { kind: 'semantic', id: alice, title: 'alice', from: 'active', to: 'archived', reason: { kind: 'decay', threshold: 'archive' } },
    ]);
    expect(run.tiers).toEqual({ active: 1, archived: 1, trash: 0 });
    expect(await found(ownerId, 'Alice lives in Lisbon', 'vector')).not.toContain(alice);
    expect(await found(ownerId, 'Lisbon', 'bm25')).toContain(alice);
    expect((await engine.call('listArchive', { ownerId })).items).toMatchObject([
      { kind: 'semantic', id: alice, title: 'alice', summary: 'Alice lives in Lisbon', start: null, tier: 'archived', purgeAfter: null },
    ]);

    const restored = await engine.call('restoreFromArchive', { ownerId, id: alice });
    expect(restored).toMatchObject({ kind: 'semantic', id: alice, from: 'archived', tier: 'active', reembedded: true });
    expect(await found(ownerId, 'Alice lives in Lisbon', 'vector')).toContain(alice);
    expect((await engine.call('listArchive', { ownerId })).items).toEqual([]);
    // The restore restarted its decay clock: the next pass does not archive it again.
    expect(await pass(ownerId)).toEqual([]);
  });

  it('after years more it goes to the trash, out of every search; restoring it brings back its keyword and vector hits', async () => {
    const ownerId = newOwner('fact-trash');
    const alice = await fact(ownerId, 'person:alice', 'Alice lives in Lisbon');
    const carol = await keeper(ownerId);

    clock.advanceDays(12 * YEAR);
    expect(await pass(ownerId)).toEqual([['semantic', alice, 'active', 'trash']]);
    for (const mode of ['hybrid', 'bm25', 'vector'] as const)
      expect(await found(ownerId, 'Alice lives in Lisbon', mode)).not.toContain(alice);
    expect((await engine.call('listKnowledge', { ownerId })).facts.map((f) => f.id)).toEqual([carol]);
    const trash = await engine.call('listTrash', { ownerId });
    expect(trash.items).toMatchObject([
      {
        kind: 'semantic',
        id: alice,
        title: 'alice',
        summary: 'Alice lives in Lisbon',
        start: null,
        tier: 'trash',
        reason: { kind: 'decay', threshold: 'trash' },
      },
    ]);
    expect(trash.items[0]!.purgeAfter).not.toBeNull();

    const restored = await engine.call('restoreFromTrash', { ownerId, id: alice });
    expect(restored).toMatchObject({ kind: 'semantic', from: 'trash', tier: 'active', reembedded: true });
    expect(await found(ownerId, 'Lisbon', 'bm25')).toContain(alice);
    expect(await found(ownerId, 'Alice lives in Lisbon', 'vector')).toContain(alice);
    expect((await engine.call('listTrash', { ownerId })).items).toEqual([]);
  });

  it('the trash is purged by hand or after the retention period, each fact with all its versions', async () => {
    const ownerId = newOwner('fact-purge');
    const alice = await fact(ownerId, 'person:alice', 'Alice lives in Lisbon');
    await engine.call('upsertKnowledge', { ownerId, key: 'person:alice', value: 'Alice lives in Porto', metadata: { importance: 0.2 } });
    const bob = await fact(ownerId, 'person:bob', 'Bob drinks green tea every morning');
    // Read from the store: opening the fact with getKnowledge would count as recalling it.
    expect(await engine.context.store.read.factVersions.list(ownerId, alice)).toHaveLength(2);

    // The second upsert counted as a recall, so Alice's fact takes longer to reach the trash.
    clock.advanceDays(25 * YEAR);
    expect((await pass(ownerId)).map(([, id, , to]) => [id, to]).sort()).toEqual(
      [
        [alice, 'trash'],
        [bob, 'trash'],
      ].sort(),
    );

    expect(await engine.call('purgeTrash', { ownerId, ids: [alice] })).toEqual({ purged: 1, ids: [alice] });
    await expect(engine.call('getKnowledge', { ownerId, key: 'person:alice' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await engine.context.store.read.factVersions.list(ownerId, alice)).toEqual([]);
    expect((await engine.call('listTrash', { ownerId })).items.map((x) => x.id)).toEqual([bob]);

    clock.advanceDays(31);
    expect(await pass(ownerId)).toEqual([['semantic', bob, 'trash', 'purged']]);
    await expect(engine.call('getKnowledge', { ownerId, key: 'person:bob' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await engine.context.store.read.factForgetting.tierCounts(ownerId)).toEqual({ active: 0, archived: 0, trash: 0 });
  });

  it('a fact marked important never fades; marking a trashed one important brings it back with its vector', async () => {
    const ownerId = newOwner('fact-mark');
    const alice = await fact(ownerId, 'person:alice', 'Alice lives in Lisbon');
    const bob = await fact(ownerId, 'person:bob', 'Bob drinks green tea every morning');
    expect(await engine.call('markMemory', { ownerId, id: alice, important: true })).toMatchObject({
      kind: 'semantic',
      marked: true,
      importance: 1,
      tier: 'active',
    });

    clock.advanceDays(12 * YEAR);
    expect(await pass(ownerId)).toEqual([['semantic', bob, 'active', 'trash']]);
    expect(await engine.call('explainDecay', { ownerId, id: alice })).toMatchObject({
      kind: 'semantic',
      tier: 'active',
      exempt: true,
      marked: true,
    });
    expect(await found(ownerId, 'Alice lives in Lisbon', 'vector')).toContain(alice);

    expect(await engine.call('markMemory', { ownerId, id: bob, important: true })).toMatchObject({
      kind: 'semantic',
      tier: 'active',
      restored: true,
    });
    expect(await found(ownerId, 'Bob drinks green tea', 'vector')).toContain(bob);
    clock.advanceDays(12 * YEAR);
    expect(await pass(ownerId)).toEqual([]);
  });

  it('forgetting about a name deletes the facts that say it, now or in an old version, and those learnt from what was said about it', async () => {
    const ownerId = newOwner('fact-about');
    const alice = await fact(ownerId, 'person:alice', 'Alice lives in Lisbon');
    const partner = await fact(ownerId, 'relation:partner', 'My partner is Alice');
    await engine.call('upsertKnowledge', { ownerId, key: 'relation:partner', value: 'My partner is Carol' });
    const town = await fact(ownerId, 'location:alicevale', 'Alicevale is a small town in Oregon');
    const bob = await fact(ownerId, 'person:bob', 'Bob drinks green tea every morning');
    // A fact learnt from an episode built from a message about Alice, which does not name her itself.
    await engine.call('ingestConversation', {
      ownerId,
      conversation: diary('d', [{ key: 'lunch', text: 'Had lunch with Alice at Café Luna', day: 0 }]),
    });
    const lunch = await episodeOf(engine, ownerId, 'lunch');
    const cafe = (
      await learnFact(
        engine.context,
        ownerId,
        { key: 'place:cafe_luna', value: 'Café Luna serves pastel de nata' },
        { method: 'diff_analysis', episodeId: lunch, change: 'update' },
      )
    ).node.id;

    const dry = await engine.call('forgetAbout', { ownerId, about: 'Alice', dryRun: true });
    const facts = dry.memories.filter((m) => m.kind === 'semantic');
    expect(facts.map((m) => m.id).sort()).toEqual([alice, partner, cafe].sort());
    expect(facts.find((m) => m.id === alice)).toMatchObject({ title: 'alice', tier: 'active' });
    expect(dry.memories).toContainEqual(expect.objectContaining({ kind: 'episode', id: lunch }));

    await engine.call('forgetAbout', { ownerId, about: 'Alice' });
    for (const key of ['person:alice', 'relation:partner', 'place:cafe_luna']) {
      await expect(engine.call('getKnowledge', { ownerId, key })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await engine.call('listKnowledge', { ownerId })).facts.map((f) => f.id).sort()).toEqual([town, bob].sort());
    expect(await found(ownerId, 'Alice', 'bm25')).toEqual([]);
  });
});

describe('without an embedding model', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  let engine: Engine;
  const warnings: string[] = [];
  beforeAll(async () => {
    engine = await openMemoryEngine({ clock, warn: (m) => warnings.push(m) });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('a restored fact comes back found by keyword, and the person is told it has no vector', async () => {
    const ownerId = newOwner('fact-novec');
    const { id } = await engine.call('upsertKnowledge', {
      ownerId,
      key: 'person:alice',
      value: 'Alice lives in Lisbon',
      metadata: { importance: 0.2 },
    });
    clock.advanceDays(4 * YEAR);
    expect((await engine.call('runForgetting', { ownerId })).moves.map((m) => [m.id, m.to])).toEqual([[id, 'archived']]);

    const restored = await engine.call('restoreFromArchive', { ownerId, id });
    expect(restored).toMatchObject({ tier: 'active', reembedded: false, warnings: [expect.stringMatching(/without vectors/)] });
    expect(warnings).toContainEqual(expect.stringMatching(/^1 fact restored without vectors/));
    const out = await engine.call('search', { ownerId, query: 'Lisbon', mode: 'bm25', kind: 'semantic' });
    expect(out.results.map((r) => r.id)).toEqual([id]);
  });
});
