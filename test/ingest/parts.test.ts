import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { discordImport } from '../../core/ingest/discord.js';
import { lineImport } from '../../core/ingest/line.js';
import { markdownImport } from '../../core/ingest/markdown.js';
import { PART_MESSAGES } from '../../core/ingest/parts.js';
import { qqImport } from '../../core/ingest/qq.js';
import { slackImport } from '../../core/ingest/slack.js';
import { telegramImport } from '../../core/ingest/telegram.js';
import { wechatFormat } from '../../core/ingest/wechat.js';
import { whatsappImport } from '../../core/ingest/whatsapp.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { readAll } from './read-all.js';
import { writeTemp } from './chat-helpers.js';
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
  const file = writeTemp(
    path.join('telegram', 'result.json'),
    JSON.stringify({ name: 'Long chat', type: 'private_group', id: 42, messages }),
  );
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

/** Wall clock of message i, one minute apart from 2024-01-01 00:00 (UTC fields, read in the import's zone). */
const wall = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

/**
 * A WhatsApp chat of `total` messages whose messages PART_MESSAGES-1 … PART_MESSAGES+1 are the same
 * "ok" in the same minute: the store must keep all three, and a part must not cut between them.
 */
function whatsappChat(): string {
  const out: string[] = [];
  for (let i = 0; i < total; i++) {
    const repeat = i >= PART_MESSAGES - 1 && i <= PART_MESSAGES + 1;
    const w = wall(repeat ? PART_MESSAGES - 1 : i);
    const line = `[${w.slice(8, 10)}/${w.slice(5, 7)}/${w.slice(0, 4)}, ${w.slice(11, 19)}] ${i % 2 ? 'Ana' : '李雷'}: ${repeat ? 'ok' : `message ${i + 1}`}`;
    // Every 1000th message has a second line, and every 1000th line is a group event (skipped).
    out.push(i % 1000 === 500 ? `${line}\nsecond line` : line);
    if (i % 1000 === 999) out.push(`[${w.slice(8, 10)}/${w.slice(5, 7)}/${w.slice(0, 4)}, ${w.slice(11, 19)}] \u200eAna added Ben`);
  }
  const file = writeTemp(path.join('whatsapp', 'WhatsApp Chat with Family.txt'), `${out.join('\n')}\n`);
  return file;
}

describe('line-based text exports in parts', () => {
  it('WhatsApp: parts share the chat name, keep a repeated message of one minute together and count their skipped lines', async () => {
    const { conversations } = await readAll(whatsappImport, whatsappChat(), 'UTC');
    expect(conversations.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      // The part waits for the minute of the three "ok" to end.
      ['Family', PART_MESSAGES + 2, undefined],
      ['Family', PART_MESSAGES - 1, true],
    ]);
    expect(conversations.map((c) => c.metadata.skipped as number).reduce((a, b) => a + b)).toBe(Math.floor(total / 1000));
    expect(conversations[0]!.messages.slice(-3).map((m) => m.text)).toEqual(['ok', 'ok', 'ok']);
    expect(conversations[0]!.messages[500]!.text).toBe('message 501\nsecond line');
    expect(conversations.map((c) => c.participants.sort())).toEqual([
      ['Ana', '李雷'],
      ['Ana', '李雷'],
    ]);
  });

  it('WhatsApp through the engine: one conversation holding every message, the three "ok" included; again, nothing added', async () => {
    const ownerId = newOwner('parts');
    const file = whatsappChat();
    const out = await engine.call('importFiles', { ownerId, paths: [file], timeZone: 'UTC' });
    expect(out.files[0]).toMatchObject({ error: null, conversations: 1, messages: total, messagesAdded: total, skipped: 10 });
    expect((await engine.call('importFiles', { ownerId, paths: [file], timeZone: 'UTC' })).files[0]).toMatchObject({
      error: null,
      messagesAdded: 0,
    });
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 1, messages: total });
  });

  it('LINE: a long chat comes in parts, a message continued on the next line stays whole', async () => {
    const out = ['[LINE] Chat history with Ana', ''];
    let day = '';
    for (let i = 0; i < total; i++) {
      const w = wall(i);
      if (w.slice(0, 10) !== day) {
        day = w.slice(0, 10);
        out.push('', day.replaceAll('-', '/'));
      }
      out.push(`${w.slice(11, 16)}\t${i % 2 ? 'Ana' : 'Ben'}\tmessage ${i + 1}`);
      if (i === PART_MESSAGES) out.push('continued');
    }
    const file = path.join(dir, '[LINE] Chat history with Ana.txt');
    fs.writeFileSync(file, out.join('\n'));
    const { conversations } = await readAll(lineImport, file, 'UTC');
    expect(conversations.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['Ana', PART_MESSAGES, undefined],
      ['Ana', PART_MESSAGES, true],
      ['Ana', 1, true],
    ]);
    expect(conversations[1]!.messages[0]!.text).toBe(`message ${PART_MESSAGES + 1}\ncontinued`);
  });

  it('QQ: a renamed member is shown under their last nickname in every part', async () => {
    const out = ['消息记录（此消息记录为文本格式，不支持重新导入）', '', '='.repeat(64), '消息对象:家人', '='.repeat(64), ''];
    for (let i = 0; i < total; i++) {
      const w = wall(i);
      const who = i % 2 ? `${i === total - 2 ? '张三丰' : '张三'}(12345)` : '小明<xiaoming@example.com>';
      out.push(`${w.slice(0, 10)} ${w.slice(11, 19)} ${who}`, `消息 ${i + 1}`, '');
    }
    const file = path.join(dir, 'qq.txt');
    fs.writeFileSync(file, out.join('\n'));
    const { conversations } = await readAll(qqImport, file, 'UTC');
    expect(conversations.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['家人', PART_MESSAGES, undefined],
      ['家人', PART_MESSAGES, true],
      ['家人', 1, true],
    ]);
    expect(conversations[0]!.messages[1]!.speaker).toBe('张三丰');
    expect(conversations.map((c) => c.participants.sort())).toEqual([['小明', '张三丰'].sort(), ['小明', '张三丰'].sort(), ['小明']]);
  });

  it('Markdown: a long journal comes in parts; every part carries the title, however late it comes', async () => {
    const out: string[] = [];
    for (let i = 0; i < total; i++) {
      const w = wall(i);
      out.push(`## ${w.slice(0, 10)} ${w.slice(11, 16)}`, '', `Journal paragraph number ${i + 1}, long enough to keep.`, '');
      if (i === PART_MESSAGES + 10) out.push('# My journal', '');
    }
    const file = path.join(dir, 'journal.md');
    fs.writeFileSync(file, out.join('\n'));
    const { conversations } = await readAll(markdownImport, file, 'UTC');
    expect(conversations.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['journal.md', PART_MESSAGES, undefined],
      ['journal.md', PART_MESSAGES, true],
      ['journal.md', 1, true],
    ]);
    // The store keeps the last part's title, read after the whole file.
    expect(conversations.map((c) => c.title)).toEqual(['journal', 'My journal', 'My journal']);
  });

  it('WeChat CSV: a chat longer than a part comes in parts beside the short one it is interleaved with', async () => {
    const rows = ['localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime'];
    for (let i = 0; i < total; i++) rows.push(`${i + 1},3,1,0,${i % 2},,2,message ${i + 1},${wall(i).slice(0, 19).replace('T', ' ')}`);
    rows.splice(100, 0, `${total + 1},5,1,0,0,,2,妈妈的消息,${wall(99).slice(0, 19).replace('T', ' ')}`);
    const file = path.join(dir, 'messages.csv');
    fs.writeFileSync(file, `${rows.join('\n')}\n`);
    const { conversations } = await readAll(wechatFormat({ timeZone: 'UTC' }), file);
    expect(conversations.map((c) => [c.externalId, c.messages.length, c.metadata.continued])).toEqual([
      ['messages#3', PART_MESSAGES, undefined],
      ['messages#3', PART_MESSAGES, true],
      ['messages#3', 1, true],
      ['messages#5', 1, undefined],
    ]);
  });
});
