/**
 * Small conversations are built together, a window of messages to a transaction: the episodes, their
 * message links, keyword index and vectors are those building them one by one gives; a conversation
 * that continues its last episode still rebuilds it; one of a window or more is still built in windows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import { openEmbedder } from '../../core/embed/index.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { ingestConversation, ingestConversations } from '../../core/ingest/import.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { manyConversationsFile, newOwner, openMemoryEngine } from '../helpers/engine.js';

const WINDOW = 40;
const topics = ['sailing to the islands', 'the pottery class', 'chess openings', 'violin practice', 'the vegetable garden'];

/** `n` messages of one chat from `day`: a topic a run, a minute apart, an hour between runs. */
function chat(id: string, n: number, day: number, from = 0): IncomingConversation {
  const t0 = Date.parse('2024-03-01T08:00:00Z') + day * 86_400_000;
  const messages = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      externalId: `${id}-${i}`,
      speaker: i % 2 ? 'Ana' : 'Ben',
      role: 'other' as const,
      text: `${topics[(day + Math.floor(i / 12)) % topics.length]}: note ${i} in ${id}`,
      sentAt: new Date(t0 + i * 60_000 + Math.floor(i / 12) * 3_600_000),
      utcOffsetMin: 0,
      attachments: [],
      metadata: {},
    };
  });
  return { source: 'test', externalId: id, title: id, participants: ['Ana', 'Ben'], metadata: {}, messages };
}

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()), config: { segment: { buildWindow: WINDOW } } });
});
afterAll(async () => {
  await engine.close();
});

/** Each conversation's episodes as what they hold (title, span, their messages' export ids), and the index's checks. */
async function memoryOf(ownerId: string) {
  const read = engine.context.store.read;
  const episodes = (await read.episodes.list(ownerId, { limit: 1000 })).reverse();
  const held = await Promise.all(
    episodes.map(async (e) => ({
      title: e.title,
      start: e.temporal.start.toISOString(),
      end: e.temporal.end.toISOString(),
      messages: (await read.conversations.messagesByIds(ownerId, e.messageIds)).map((m) => m.externalId),
    })),
  );
  return {
    episodes: held.sort((a, b) => a.messages[0]!.localeCompare(b.messages[0]!)),
    index: await read.bm25.verify(ownerId),
    vectors: await read.vectors.count(ownerId, engine.context.embedder!.modelId),
    pending: (await read.conversations.withPendingMessages(ownerId)).length,
  };
}

describe('building small conversations together', { timeout: 120_000 }, () => {
  it('stores the episodes, links, index and vectors that building them one by one gives', async () => {
    // Five chats of 14–18 messages (two transactions of up to a window), and one of 60 (built in windows).
    const chats = [chat('a', 14, 0), chat('b', 18, 1), chat('c', 15, 2), chat('big', 60, 3), chat('d', 16, 4), chat('e', 17, 5)];
    const together = newOwner('together');
    const results = await ingestConversations(engine.context, together, chats);
    const apart = newOwner('apart');
    const counts = [];
    for (const c of chats) counts.push((await ingestConversation(engine.context, apart, c)).episodesCreated);

    expect(results.map((r) => r.episodesCreated)).toEqual(counts);
    expect(results.map((r) => r.messagesAdded)).toEqual(chats.map((c) => c.messages.length));
    const built = await memoryOf(together);
    expect(built).toEqual(await memoryOf(apart));
    expect(built.episodes.flatMap((e) => e.messages).sort()).toEqual(chats.flatMap((c) => c.messages.map((m) => m.externalId)).sort());
    expect(built.index).toMatchObject({ dfMismatches: 0, postingMismatches: 0, docsWithoutEpisode: 0, episodesWithoutDoc: 0 });
    expect(built.vectors).toBe(built.episodes.length);
    expect(built.pending).toBe(0);

    // Two chats grown by a few messages continue their last episodes (rebuilt with them); one sent again adds nothing.
    const grown = [chat('a', 4, 0, 14), chat('c', 3, 2, 15), chats[1]!];
    const again = await ingestConversations(engine.context, together, grown);
    const againApart = [];
    for (const c of grown) againApart.push(await ingestConversation(engine.context, apart, c));
    const added = (rs: { messagesAdded: number; episodesCreated: number }[]) => rs.map((r) => [r.messagesAdded, r.episodesCreated]);
    expect(added(again)).toEqual(added(againApart));
    expect(added(again)).toEqual([
      [4, 0],
      [3, 0],
      [0, 0],
    ]);
    expect(await memoryOf(together)).toEqual(await memoryOf(apart));

    // A chat arriving in two parts in one call (as a long export's parts do) is built once.
    const parts = newOwner('parts');
    const [first, second] = await ingestConversations(engine.context, parts, [chat('f', 12, 6), chat('f', 9, 6, 12)]);
    const whole = newOwner('whole');
    const once = await ingestConversation(engine.context, whole, chat('f', 21, 6));
    expect(first!.episodesCreated + second!.episodesCreated).toBe(once.episodesCreated);
    expect(await memoryOf(parts)).toEqual(await memoryOf(whole));
  });

  it('shows an import of many small chats stored, then built, a window of messages at a time', async () => {
    // Twelve conversations of five messages: 60 messages, stored one by one, built in two transactions.
    const events: { phase: string; done: number }[] = [];
    const out = await engine.call(
      'importFiles',
      { ownerId: newOwner('progress'), paths: [manyConversationsFile(12)] },
      { onProgress: (p) => events.push({ phase: p.phase, done: p.done }) },
    );
    expect(out.files[0]).toMatchObject({ messagesAdded: 60, episodesCreated: 12 });
    const order = events.filter((e) => e.done > 0 && (e.phase === 'import' || e.phase === 'episodes')).map((e) => `${e.phase} ${e.done}`);
    // The first eight chats (40 messages) are stored before any is built, then the other four.
    expect(order.slice(0, 9)).toEqual([...Array.from({ length: 8 }, (_, i) => `import ${5 * (i + 1)}`), 'episodes 5']);
    expect(order.at(-1)).toBe('episodes 60');
  });
});
