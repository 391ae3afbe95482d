/**
 * Live memory's tail building runs behind `addMemory`; work that builds the same pending turns (a
 * rebuild, `ingestConversation`) waits for it and holds it off meanwhile. Side by side, the later of
 * the two relinked the turns the other had stored, leaving an open episode without messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/index.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()) });
});
afterAll(async () => {
  await engine.close();
});

describe('live building beside other work', () => {
  it('a rebuild started while live turns are built leaves every message in exactly one episode, none empty', async () => {
    const ownerId = newOwner('race');
    const t0 = Date.parse('2024-05-01T09:00:00Z');
    for (let round = 0; round < 3; round++) {
      await engine.call('addMemory', {
        ownerId,
        conversationId: 'chat',
        messages: Array.from({ length: 6 }, (_, i) => ({
          speaker: i % 2 ? 'Ana' : 'Ben',
          text: `round ${round}, line ${i}: the garden, the tomatoes and the night train`,
          time: new Date(t0 + (round * 6 + i) * 60_000).toISOString(),
        })),
      });
      // The tail's rebuild (run at once by idle) and a rebuild of the indexes, together.
      await Promise.all([engine.call('rebuildIndexes', { ownerId }), engine.idle()]);
    }
    await engine.idle();
    expect(await engine.context.store.read.integrity.counts(ownerId, null)).toMatchObject({
      messagesWithoutEpisode: 0,
      episodesWithoutMessages: 0,
    });
    const episodes = (await engine.call('listEpisodes', { ownerId, limit: 100 })).episodes;
    const messages = episodes.flatMap((e) => e.messageIds);
    expect(new Set(messages).size).toBe(18);
    expect(messages).toHaveLength(18);
  });
});
