import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { startForgettingScheduler } from '../../core/jobs/forgetting-scheduler.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { DAY_MS, diary, episodeOf, TestClock } from './helpers.js';

const entries = [
  { key: 'a', text: 'Picked up the dry cleaning on the way home', day: 0 },
  { key: 'b', text: 'Booked the flights to Reykjavik for the aurora trip', day: 1 },
];

describe('the forgetting job', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine({ clock });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('runs a pass for each owner once a day by the engine clock, not more', async () => {
    const alice = newOwner('alice');
    const bob = newOwner('bob');
    await engine.call('ingestConversation', { ownerId: alice, conversation: diary('a', entries) });
    await engine.call('ingestConversation', { ownerId: bob, conversation: diary('b', entries) });
    // The timer itself is far off; the test drives the checks it would make.
    const scheduler = startForgettingScheduler({
      ...engine.context,
      config: {
        ...engine.context.config,
        forgetting: { ...engine.context.config.forgetting, schedule: { everyHours: 24, firstCheckMinutes: 1e6 } },
      },
    });
    try {
      const owners = (r: { ownerId: string }[]) =>
        r
          .map((x) => x.ownerId)
          .filter((o) => o === alice || o === bob)
          .sort();
      expect(owners(await scheduler.runDue())).toEqual([alice, bob].sort());
      expect(owners(await scheduler.runDue())).toEqual([]);
      clock.advanceDays(0.5);
      expect(owners(await scheduler.runDue())).toEqual([]);
      clock.advanceDays(0.6);
      expect(owners(await scheduler.runDue())).toEqual([alice, bob].sort());
    } finally {
      await scheduler.stop();
    }
  });

  it('is owned by the engine when asked for, and stops when the engine closes', async () => {
    const home = tempDir();
    const ownerId = newOwner('scheduled');
    const first = await openEngine({ home, embedder: null, clock });
    await first.call('ingestConversation', { ownerId, conversation: diary('s', entries) });
    await first.close();
    // Reopened the way the desktop app opens it: the first check comes right away.
    const app = await openEngine({
      home,
      embedder: null,
      clock,
      scheduleForgetting: true,
      config: { forgetting: { schedule: { everyHours: 24, firstCheckMinutes: 0 } } },
    });
    try {
      await vi.waitFor(async () => expect(await app.context.store.read.forgetting.lastRun(ownerId)).not.toBeNull(), {
        timeout: 30_000,
        interval: 50,
      });
    } finally {
      await app.close();
    }
    expect(app.context.store.isOpen).toBe(false);
  });

  it('explains a memory’s decay and projects when it would fade', async () => {
    const ownerId = newOwner('explain');
    await engine.call('ingestConversation', { ownerId, conversation: diary('e', entries) });
    const id = await episodeOf(engine, ownerId, 'a');
    const x = await engine.call('explainDecay', { ownerId, id });
    expect(x).toMatchObject({
      kind: 'episode',
      tier: 'active',
      recallCount: 0,
      marked: null,
      exempt: false,
      thresholds: { archive: 100, trash: 500 },
    });
    const archiveIn = (Date.parse(x.projected.archive!) - clock.now().getTime()) / DAY_MS;
    const trashIn = (Date.parse(x.projected.trash!) - clock.now().getTime()) / DAY_MS;
    expect(archiveIn).toBeGreaterThan(180);
    expect(trashIn).toBeGreaterThan(archiveIn);
    // A pass run on the projected day archives it (and not the day before).
    const dayBefore = await engine.call('runForgetting', {
      ownerId,
      dryRun: true,
      now: new Date(Date.parse(x.projected.archive!) - DAY_MS),
    });
    expect(dayBefore.moves.find((m) => m.id === id)).toBeUndefined();
    const onTheDay = await engine.call('runForgetting', {
      ownerId,
      dryRun: true,
      now: new Date(Date.parse(x.projected.archive!) + 3_600_000),
    });
    expect(onTheDay.moves.find((m) => m.id === id)?.to).toBe('archived');
    const marked = await engine.call('markMemory', { ownerId, id, important: true });
    expect(marked.importance).toBe(1);
    expect((await engine.call('explainDecay', { ownerId, id })).projected).toEqual({ archive: null, trash: null });
  });

  it('writes importance that learned from use, and an explicit importance becomes the new base', async () => {
    const ownerId = newOwner('importance');
    await engine.call('ingestConversation', { ownerId, conversation: diary('i', entries) });
    const a = await episodeOf(engine, ownerId, 'a');
    const b = await episodeOf(engine, ownerId, 'b');
    for (let i = 0; i < 10; i++) await engine.call('getEpisode', { ownerId, id: b });
    clock.advanceDays(60);
    const pass = await engine.call('runForgetting', { ownerId });
    expect(pass.importanceUpdated).toBe(2);
    const list = await engine.call('listEpisodes', { ownerId });
    const imp = (id: string) => list.episodes.find((e) => e.id === id)!.importance;
    expect(imp(a)).toBeLessThan(0.5); // time lowered it
    expect(imp(b)).toBeGreaterThan(imp(a)); // recall kept it up
    await engine.call('updateEpisode', { ownerId, id: a, patch: { importance: 0.9 } });
    expect((await engine.call('explainDecay', { ownerId, id: a })).baseImportance).toBeCloseTo(0.9);
  });

  it('empties the trash on demand, and keeps owners apart', async () => {
    const ownerId = newOwner('purge');
    const other = newOwner('other');
    for (const o of [ownerId, other]) await engine.call('ingestConversation', { ownerId: o, conversation: diary('p', entries) });
    for (const o of [ownerId, other]) {
      for (const key of ['a', 'b']) await engine.call('markMemory', { ownerId: o, id: await episodeOf(engine, o, key), important: false });
      await engine.call('runForgetting', { ownerId: o, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
    }
    const trashed = (await engine.call('listTrash', { ownerId })).items.map((x) => x.id);
    expect(trashed).toHaveLength(2);
    // Another owner can neither see nor restore nor purge them.
    await expect(engine.call('restoreFromTrash', { ownerId: other, id: trashed[0]! })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await engine.call('purgeTrash', { ownerId: other, ids: trashed })).purged).toBe(0);
    expect(await engine.call('purgeTrash', { ownerId, ids: [trashed[0]!] })).toEqual({ purged: 1, ids: [trashed[0]] });
    expect((await engine.call('purgeTrash', { ownerId })).purged).toBe(1);
    expect((await engine.call('listTrash', { ownerId })).items).toEqual([]);
    expect((await engine.call('listTrash', { ownerId: other })).items).toHaveLength(2);
  });

  it('messages appended to a conversation never bring a trashed or marked episode back as a new one', async () => {
    for (const how of ['trash', 'mark'] as const) {
      const ownerId = newOwner(`append-${how}`);
      const base = diary('c', entries);
      await engine.call('ingestConversation', { ownerId, conversation: base });
      const last = await episodeOf(engine, ownerId, 'b');
      clock.advanceDays(1);
      if (how === 'mark') {
        await engine.call('markMemory', { ownerId, id: last, important: true });
      } else {
        await engine.call('markMemory', { ownerId, id: last, important: false });
        await engine.call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
      }
      // Five minutes after the last message: without the mark or the move, it would continue that episode.
      const b = base.messages.at(-1)!;
      const more = {
        ...base,
        messages: [
          ...base.messages,
          {
            id: 'c1',
            speaker: 'Lin',
            text: 'Also need warm gloves for the aurora trip',
            timestamp: new Date(Date.parse(b.timestamp) + 5 * 60_000).toISOString(),
          },
        ],
      };
      const out = await engine.call('ingestConversation', { ownerId, conversation: more });
      expect(out).toMatchObject({ messagesAdded: 1, episodesCreated: 1 });
      const x = await engine.call('explainDecay', { ownerId, id: last });
      expect(x.tier).toBe(how === 'trash' ? 'trash' : 'active');
      expect(x.marked).toBe(how === 'mark' ? true : false);
    }
  });

  it('pages through the archive', async () => {
    const ownerId = newOwner('pages');
    const many = Array.from({ length: 5 }, (_, i) => ({
      key: `m${i}`,
      text: `Noted the parking spot number ${i * 7 + 3} at the mall`,
      day: i,
    }));
    await engine.call('ingestConversation', { ownerId, conversation: diary('m', many) });
    await engine.call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 300 * DAY_MS) });
    const first = await engine.call('listArchive', { ownerId, limit: 2 });
    const second = await engine.call('listArchive', { ownerId, limit: 2, cursor: first.nextCursor! });
    const third = await engine.call('listArchive', { ownerId, limit: 2, cursor: second.nextCursor! });
    const ids = [...first.items, ...second.items, ...third.items].map((x) => x.id);
    expect(new Set(ids).size).toBe(5);
    expect(third.nextCursor).toBeNull();
  });
});
