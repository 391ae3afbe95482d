import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { discordImport } from '../../core/ingest/discord.js';
import { PART_MESSAGES } from '../../core/ingest/parts.js';
import { slackImport } from '../../core/ingest/slack.js';
import { telegramImport } from '../../core/ingest/telegram.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { readAll } from './read-all.js';
import { writeZip } from './zip-writer.js';

/**
 * A chat longer than PART_MESSAGES comes out in parts with one externalId, so memory holds a part, not
 * the chat; the store puts the parts back together.
 */

const dir = tempDir('nemori-parts-');
const total = 2 * PART_MESSAGES + 1;
const start = Date.UTC(2024, 0, 1) / 1000;
/** Seconds of message i; messages PART_MESSAGES-1 and PART_MESSAGES share a second: no cut between them. */
const second = (i: number) => start + (i >= PART_MESSAGES ? i - 1 : i) * 60;

function telegramChat(): string {
  const messages = Array.from({ length: total }, (_, i) => ({
    id: i + 1,
    type: i >= 6000 && i % 1000 === 999 ? 'service' : 'message',
    date: new Date((second(i) + 3600) * 1000).toISOString().slice(0, 19),
    date_unixtime: String(second(i)),
    from: i % 2 ? 'Ana' : '李雷',
    from_id: i % 2 ? 'user1' : 'user2',
    text: `message ${i + 1}`,
  }));
  const file = path.join(dir, 'telegram', 'result.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ name: 'Long chat', type: 'private_group', id: 42, messages }));
  return file;
}

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

describe('long chats in parts', () => {
  it('Telegram: parts share the chat id, never split one instant, and count their own skipped messages', async () => {
    const file = telegramChat();
    const { conversations } = await readAll(telegramImport, file);
    expect(conversations.map((c) => c.externalId)).toEqual(['42', '42']);
    const sizes = conversations.map((c) => c.messages.length);
    expect(sizes.reduce((a, b) => a + b)).toBe(total - 4);
    // The 5000th kept message shares its second with the next one: the cut waits one message.
    expect(sizes[0]).toBe(PART_MESSAGES + 1);
    expect(conversations.map((c) => c.metadata.continued)).toEqual([undefined, true]);
    expect(conversations.map((c) => c.metadata.skipped as number).reduce((a, b) => a + b)).toBe(4);
    const all = conversations.flatMap((c) => c.messages.map((m) => m.externalId));
    expect(new Set(all).size).toBe(all.length);
  });

  it('Telegram through the engine: one conversation holding every message, numbered on across its parts', async () => {
    const ownerId = newOwner('parts');
    const file = telegramChat();
    const out = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(out.files[0]).toMatchObject({ error: null, messages: total - 4, messagesAdded: total - 4 });
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 1, messages: total - 4 });

    // Every message in the order readers use (time, then seq), with its number: seq ± 1 is the turn
    // before and after, across the cut between the parts too (each part used to start again at 0).
    const numbered = async () => {
      const read = engine.context.store.read;
      const episodes = await read.episodes.list(ownerId, { limit: 10_000 });
      const messages = await read.conversations.messagesByIds(
        ownerId,
        episodes.flatMap((e) => e.messageIds),
      );
      return messages.map((m) => [m.externalId, m.seq]);
    };
    const first = await numbered();
    expect(first).toHaveLength(total - 4);
    expect(first.map(([, seq]) => seq)).toEqual(first.map((_, i) => i));
    const cut = PART_MESSAGES + 1; // the first message of the second part
    expect(first.slice(cut - 1, cut + 1).map(([id]) => Number(id))).toEqual([cut, cut + 1]);

    // Re-importing adds nothing and renumbers nothing.
    const again = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(again.files[0]).toMatchObject({ error: null, messagesAdded: 0 });
    expect(await numbered()).toEqual(first);
  });

  it('Discord and Slack channels come in parts too', async () => {
    const discordFile = path.join(dir, 'discord.json');
    fs.writeFileSync(
      discordFile,
      JSON.stringify({
        guild: { id: '1', name: 'G' },
        channel: { id: '2', type: 'GuildTextChat', name: 'general' },
        messages: Array.from({ length: total }, (_, i) => ({
          id: String(1000 + i),
          type: 'Default',
          timestamp: new Date(second(i) * 1000).toISOString().replace('Z', '+00:00'),
          content: `hello ${i}`,
          author: { id: '9', name: 'ann' },
        })),
      }),
    );
    const discord = (await readAll(discordImport, discordFile)).conversations;
    expect(discord.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['2', PART_MESSAGES + 1, undefined],
      ['2', PART_MESSAGES, true],
    ]);

    const days = new Map<string, unknown[]>();
    for (let i = 0; i < total; i++) {
      const day = new Date(second(i) * 1000).toISOString().slice(0, 10);
      days.set(day, [...(days.get(day) ?? []), { type: 'message', user: 'U1', text: `hi ${i}`, ts: `${second(i)}.000100` }]);
    }
    const slackFile = writeZip(path.join(dir, 'slack.zip'), [
      { name: 'users.json', data: '[{"id":"U1","name":"ann","real_name":"Ann"}]' },
      { name: 'channels.json', data: '[{"id":"C1","name":"general","members":["U1"]}]' },
      ...[...days].map(([day, messages]) => ({ name: `general/${day}.json`, data: JSON.stringify(messages) })),
    ]);
    const slack = (await readAll(slackImport, slackFile)).conversations;
    expect(slack.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['C1', PART_MESSAGES + 1, undefined],
      ['C1', PART_MESSAGES, true],
    ]);
  });
});
