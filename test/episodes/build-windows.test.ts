/**
 * Without an LLM, a long conversation's episodes are built a window of messages at a time, each window
 * committed before the next: building stopped after the first window (a cancel here; a crash rolls
 * back only the window under way) keeps what was built, and the next import goes on from there to the
 * very episodes an uninterrupted build makes — none lost, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import { openEmbedder, type Embedder } from '../../core/embed/index.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { ingestConversation } from '../../core/ingest/import.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const WINDOW = 40;
const topics = ['sailing to the islands', 'the pottery class', 'chess openings', 'violin practice', 'the vegetable garden'];

/** 230 messages: runs of one topic a minute apart, an hour between runs, and runs longer than a window. */
function longChat(): IncomingConversation {
  const t0 = Date.parse('2024-03-01T08:00:00Z');
  let at = t0;
  const messages = Array.from({ length: 230 }, (_, i) => {
    at += i % 50 === 0 ? 3_600_000 : 60_000;
    const topic = topics[Math.floor(i / 50) % topics.length]!;
    return {
      externalId: `m${i}`,
      speaker: i % 2 ? 'Ana' : 'Ben',
      role: 'other' as const,
      text: `${topic}: note ${i}, ${i % 3 ? 'and more about it' : 'what do you think?'}`,
      sentAt: new Date(at),
      utcOffsetMin: 0,
      attachments: [],
      metadata: {},
    };
  });
  return { source: 'test', externalId: 'long', title: 'Long chat', participants: ['Ana', 'Ben'], metadata: {}, messages };
}

/** What the engine asked of the model, and when a window was written (`gathered`), in order. */
const events: ({ embed: string[] } | 'gathered')[] = [];
/** Every vector the model gave, by text. */
const vectorOf = new Map<string, number[]>();

/** The tiny model, with every call written down. */
function recording(model: Embedder): Embedder {
  return {
    modelId: model.modelId,
    dimensions: model.dimensions,
    async embed(texts, kind) {
      events.push({ embed: [...texts] });
      const vectors = await model.embed(texts, kind);
      texts.forEach((t, i) => {
        const v = Array.from(vectors[i]!);
        expect(vectorOf.get(t) ?? v, t).toEqual(v);
        vectorOf.set(t, v);
      });
      return vectors;
    },
    dispose: () => model.dispose(),
  };
}

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine({
    embedder: recording(await openEmbedder(tinyModelOptions())),
    config: { segment: { buildWindow: WINDOW } },
  });
});
afterAll(async () => {
  await engine.close();
});

/** The owner's episodes as what they hold: title, span and their messages' export ids, oldest first. */
async function episodesOf(ownerId: string) {
  const read = engine.context.store.read;
  const episodes = (await read.episodes.list(ownerId, { limit: 1000 })).reverse();
  return Promise.all(
    episodes.map(async (e) => ({
      title: e.title,
      start: e.temporal.start.toISOString(),
      end: e.temporal.end.toISOString(),
      messages: (await read.conversations.messagesByIds(ownerId, e.messageIds)).map((m) => m.externalId),
    })),
  );
}

async function pendingOf(ownerId: string): Promise<number> {
  const read = engine.context.store.read;
  const [c] = await read.conversations.byExternalId(ownerId, 'long', 'test');
  return (await read.conversations.pendingMessages(ownerId, c!.id)).length;
}

describe('building a long conversation in windows', { timeout: 120_000 }, () => {
  it('keeps the windows built before a stop and goes on to the episodes an uninterrupted build makes', async () => {
    const chat = longChat();
    const whole = newOwner('whole');
    const once = await ingestConversation(engine.context, whole, chat);
    const expected = await episodesOf(whole);
    expect(once.episodesCreated).toBe(expected.length);
    expect(expected.flatMap((e) => e.messages)).toEqual(chat.messages.map((m) => m.externalId));

    const stopped = newOwner('stopped');
    const stop = new AbortController();
    const first = await ingestConversation(engine.context, stopped, chat, {
      signal: stop.signal,
      onProgress: (s) => {
        if (s.step === 'gathered') stop.abort();
      },
    });
    // The first window is in the store, the rest waits.
    const kept = await episodesOf(stopped);
    expect(first).toMatchObject({ messagesAdded: chat.messages.length, episodesCreated: kept.length });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.flatMap((e) => e.messages)).toEqual(chat.messages.slice(0, WINDOW).map((m) => m.externalId));
    expect(await pendingOf(stopped)).toBe(chat.messages.length - WINDOW);

    // Importing it again adds no message and builds the rest.
    const again = await ingestConversation(engine.context, stopped, chat);
    expect(again.messagesAdded).toBe(0);
    expect(await pendingOf(stopped)).toBe(0);
    expect(await episodesOf(stopped)).toEqual(expected);
    expect(first.episodesCreated + again.episodesCreated).toBe(expected.length);
  });
  it('embeds the next window while the window before is written, to the very episodes one window at a time gives', async () => {
    const chat = longChat();
    const whole = newOwner('ahead');
    events.length = 0;
    await ingestConversation(engine.context, whole, chat, {
      onProgress: (s) => {
        if (s.step === 'gathered') events.push('gathered');
      },
    });
    // Before the first window was written, the model was already asked for the second window's messages.
    const beforeFirstWrite = events.slice(0, events.indexOf('gathered')).flatMap((e) => (e === 'gathered' ? [] : e.embed));
    expect(beforeFirstWrite.some((t) => t.includes(`note ${WINDOW},`))).toBe(true);

    // One window per build, each stopped once its window is written: nothing is embedded ahead of time
    // for a window that is then built (the next build reads and embeds it again).
    const stepwise = newOwner('stepwise');
    for (let pending = Infinity; pending > 0; pending = await pendingOf(stepwise)) {
      const stop = new AbortController();
      await ingestConversation(engine.context, stepwise, chat, {
        signal: stop.signal,
        onProgress: (s) => {
          if (s.step === 'gathered') stop.abort();
        },
      });
    }
    // Same episodes; the same vectors for the same texts are checked by `recording` on every call.
    expect(await episodesOf(whole)).toEqual(await episodesOf(stepwise));
    const embedded = (ownerId: string) => engine.context.store.read.vectors.count(ownerId, engine.context.embedder!.modelId);
    expect(await embedded(whole)).toBe(await embedded(stepwise));
  });
});
