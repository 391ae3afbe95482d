/**
 * Live memory without an LLM: turns added one by one with `addMemory` are stored at once, searchable as
 * soon as the background step has run (awaited with `engine.idle()`, never a sleep), and close into
 * episodes at time gaps, the size cap, the idle timeout (by the engine clock) and on `end`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/index.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const MIN = 60_000;
let now = Date.parse('2024-05-01T09:00:00+08:00');
const clock = { now: () => new Date(now) };
let engine: Engine;
const warnings: string[] = [];

beforeAll(async () => {
  engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()), clock, warn: (m) => warnings.push(m) });
});
afterAll(async () => {
  await engine.close();
});

async function episodes(ownerId: string) {
  return (await engine.call('listEpisodes', { ownerId, limit: 100 })).episodes.sort((a, b) => a.start.localeCompare(b.start));
}

/** One turn, said now by the engine clock. */
async function say(
  ownerId: string,
  conversationId: string | undefined,
  speaker: string,
  text: string,
  o: { id?: string; end?: boolean } = {},
) {
  return engine.call('addMemory', {
    ownerId,
    ...(conversationId ? { conversationId } : {}),
    messages: [{ speaker, text, time: new Date(now).toISOString(), ...(o.id ? { id: o.id } : {}) }],
    ...(o.end ? { end: true } : {}),
  });
}

describe('addMemory: live turns', () => {
  it('turns added one by one over three days become one episode per day, cut at the time gaps; the last day stays open until idle', async () => {
    const ownerId = newOwner('days');
    const days = [
      [
        'Did you water the tomatoes in the garden?',
        'Yes, the tomatoes and the basil got water this morning.',
        'The garden looks great this year.',
      ],
      [
        'I booked the train to Kyoto for the conference.',
        'Which train? The early Shinkansen?',
        'The 7:10 Shinkansen, arriving before the keynote.',
      ],
      ['My sister adopted a puppy called Mochi.', 'A puppy! What breed is Mochi?', 'A shiba inu, very stubborn already.'],
    ];
    let conversationId: string | undefined;
    const dayStart = now;
    for (const [d, turns] of days.entries()) {
      now = dayStart + d * 24 * 60 * MIN;
      for (const [t, text] of turns.entries()) {
        const r = await say(ownerId, conversationId, t % 2 ? 'Ben' : 'Ana', text);
        expect(r).toMatchObject({ stored: 1, duplicates: 0 });
        expect(r.messageIds).toHaveLength(1);
        conversationId ??= r.conversationId;
        expect(r.conversationId).toBe(conversationId);
        now += 2 * MIN;
        await engine.idle();
      }
      // Each day's turns are one open episode; the days before it were closed by the gap.
      const eps = await episodes(ownerId);
      expect(eps.map((e) => [e.processingStatus, e.messageIds.length])).toEqual([
        ...Array.from({ length: d }, () => ['ready', 3]),
        ['open', 3],
      ]);
    }
    // Closed episodes are queued for knowledge discovery like an import's; the open one is not.
    expect((await engine.call('knowledgeCapacity', { ownerId })).discoveryQueue.waiting).toBe(2);

    // 29 minutes of silence: still open. 30: closed.
    now += 27 * MIN;
    await engine.idle();
    expect((await episodes(ownerId)).at(-1)!.processingStatus).toBe('open');
    now += 1 * MIN;
    await engine.idle();
    const eps = await episodes(ownerId);
    expect(eps.map((e) => e.processingStatus)).toEqual(['ready', 'ready', 'ready']);
    expect(eps.map((e) => e.builder)).toEqual(['heuristic', 'heuristic', 'heuristic']);
    expect(eps[0]!.content).toContain('tomatoes');
    expect(eps[1]!.content).toContain('Kyoto');
    expect(eps[2]!.content).toContain('Mochi');
    expect(eps.every((e) => e.conversationId === conversationId)).toBe(true);
    expect((await engine.call('knowledgeCapacity', { ownerId })).discoveryQueue.waiting).toBe(3);
    expect(warnings).toEqual([]);
  });

  it('a turn is found by search right after addMemory, cited by the message id it returned, in every mode', async () => {
    const ownerId = newOwner('search');
    const first = await say(ownerId, undefined, 'Lin', 'My cat Biscuit hates the vacuum cleaner.');
    await engine.idle();
    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const r = await engine.call('search', { ownerId, query: 'Biscuit vacuum cleaner', mode, kind: 'episodic' });
      expect(r.results[0]?.sources.map((s) => s.id)).toEqual(first.messageIds);
    }
    // The next turn joins the same open episode: it is rebuilt, not duplicated.
    const second = await say(ownerId, first.conversationId, 'Kai', 'Then hide the vacuum from Biscuit and buy a robot mop.');
    await engine.idle();
    const r = await engine.call('search', { ownerId, query: 'robot mop', mode: 'bm25' });
    expect(r.results[0]?.sources.map((s) => s.id)).toEqual([...first.messageIds, ...second.messageIds]);
    const eps = await episodes(ownerId);
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ processingStatus: 'open', builder: 'heuristic', conversationId: first.conversationId });
    const shown = await engine.call('getEpisode', { ownerId, id: eps[0]!.id });
    expect(shown.messages.map((m) => m.text)).toEqual([
      'My cat Biscuit hates the vacuum cleaner.',
      'Then hide the vacuum from Biscuit and buy a robot mop.',
    ]);
  });

  it('end: true and endConversation close the tail; an unknown conversation is not found', async () => {
    const ownerId = newOwner('end');
    const a = await say(ownerId, undefined, 'Ana', 'Lunch at the noodle place?');
    await say(ownerId, a.conversationId, 'Ben', 'Sure, at noon.', { end: true });
    await engine.idle();
    expect((await episodes(ownerId)).map((e) => [e.processingStatus, e.messageIds.length])).toEqual([['ready', 2]]);

    const b = await engine.call('addMemory', {
      ownerId,
      conversationId: 'chat-42',
      messages: [{ speaker: 'Ana', text: 'The plumber comes on Thursday.' }],
    });
    expect(b.key).toBe('chat-42');
    await engine.idle();
    expect((await episodes(ownerId)).filter((e) => e.processingStatus === 'open')).toHaveLength(1);
    expect(await engine.call('endConversation', { ownerId, conversationId: 'chat-42' })).toEqual({
      conversationId: 'chat-42',
      closing: true,
    });
    await engine.idle();
    expect((await episodes(ownerId)).map((e) => e.processingStatus)).toEqual(['ready', 'ready']);
    // Nothing left to close.
    expect(await engine.call('endConversation', { ownerId, conversationId: 'chat-42' })).toEqual({
      conversationId: 'chat-42',
      closing: false,
    });
    await expect(engine.call('endConversation', { ownerId, conversationId: 'no-such-chat' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a turn sent again with the same id is a duplicate, not a second message', async () => {
    const ownerId = newOwner('dup');
    const turn = { id: 'turn-1', speaker: 'Ana', text: 'Remember to renew the passport.', time: '2024-05-01T10:00:00+08:00' };
    const a = await engine.call('addMemory', { ownerId, messages: [turn] });
    const again = await engine.call('addMemory', { ownerId, conversationId: a.conversationId, messages: [turn] });
    expect(again).toEqual({
      conversationId: a.conversationId,
      key: a.key,
      stored: 0,
      duplicates: 1,
      redacted: 0,
      messageIds: a.messageIds,
    });
    const mixed = await engine.call('addMemory', {
      ownerId,
      conversationId: a.conversationId,
      messages: [
        { ...turn, text: 'a retry may carry different text: the id decides' },
        { id: 'turn-2', speaker: 'Ben', text: 'It expires in June.', time: '2024-05-01T10:01:00+08:00' },
      ],
    });
    expect(mixed).toMatchObject({ stored: 1, duplicates: 1 });
    expect(mixed.messageIds[0]).toBe(a.messageIds[0]);
    await engine.idle();
    const [e] = await episodes(ownerId);
    expect(e!.messageIds).toEqual([a.messageIds[0], mixed.messageIds[1]]);
  });

  it('turns said at the same instant keep the order they were added in; the size cap closes a full segment at once', async () => {
    const small = await openMemoryEngine({ clock, config: { segment: { maxMessages: 5 } } });
    try {
      const ownerId = newOwner('cap');
      let conversationId: string | undefined;
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const r = await small.call('addMemory', {
          ownerId,
          ...(conversationId ? { conversationId } : {}),
          messages: [{ speaker: i % 2 ? 'Ben' : 'Ana', text: `step ${i} of the bread recipe` }],
        });
        conversationId = r.conversationId;
        ids.push(...r.messageIds);
        await small.idle();
      }
      const eps = (await small.call('listEpisodes', { ownerId })).episodes.sort(
        (a, b) => Number(a.processingStatus === 'open') - Number(b.processingStatus === 'open'),
      );
      expect(eps.map((e) => [e.processingStatus, e.messageIds])).toEqual([
        ['ready', ids.slice(0, 5)],
        ['open', ids.slice(5)],
      ]);
    } finally {
      await small.close();
    }
  });

  it('reads a turn sent in UTC (what toISOString writes) on this machine\'s calendar: "tomorrow" said at 01:30 in Shanghai is the day after', async () => {
    const ownerId = newOwner('utc-turn');
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Shanghai';
    try {
      // 17:30 UTC on 30 April is 01:30 on 1 May in Shanghai.
      const said = await engine.call('addMemory', {
        ownerId,
        messages: [{ speaker: 'Lin', text: 'Dinner with Mia tomorrow at 7!', time: '2024-04-30T17:30:00Z' }],
      });
      // A time written with its offset keeps it.
      await engine.call('addMemory', {
        ownerId,
        conversationId: said.conversationId,
        messages: [{ speaker: 'Lin', text: 'And yoga tomorrow morning.', time: '2024-04-30T17:31:00+00:00' }],
      });
      const out = await engine.call('loadContext', { ownerId, now: '2024-05-01T09:00:00+08:00' });
      expect(out.sections.upcoming.map((u) => [u.day, u.text, u.utcOffsetMin])).toEqual([
        ['2024-05-01', 'And yoga tomorrow morning.', 0],
        ['2024-05-02', 'Dinner with Mia tomorrow at 7!', 480],
      ]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('rejects turns without text fields or with a time that has no offset', async () => {
    const ownerId = newOwner('bad');
    await expect(engine.call('addMemory', { ownerId, messages: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      engine.call('addMemory', { ownerId, messages: [{ speaker: 'Ana', text: 'hi', time: '2024-05-01T10:00:00' }] }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('messages.0.time'),
    });
  });
});
