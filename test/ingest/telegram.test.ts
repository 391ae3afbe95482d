import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { telegramImport } from '../../core/ingest/telegram.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { lines, readAll } from './read-all.js';

const single = fixture('ingest', 'telegram', 'single', 'result.json');
const account = fixture('ingest', 'telegram', 'account', 'result.json');
const old = fixture('ingest', 'telegram', 'old', 'result.json');
const dir = tempDir('nemori-telegram-');
const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

describe('Telegram Desktop export', () => {
  it('reads a single chat: entity arrays, media, replies; skips service messages', async () => {
    const { conversations, warnings } = await readAll(telegramImport, single);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expect(c).toMatchObject({
      source: 'telegram',
      externalId: '4455667788',
      title: '王小明',
      metadata: { type: 'personal_chat', skipped: 2 },
    });
    expect(c.participants).toEqual(['王小明', 'Lin Wei', 'Deleted Account (user999)']);
    // date_unixtime is the instant; `date` is the exporting computer's clock (Shanghai, +08:00).
    expect(lines(c)).toEqual([
      '2024-02-09T15:58:30.000Z +480 王小明 [other]: 新年快乐！🧧',
      '2024-02-09T16:00:05.000Z +480 Lin Wei [other]: Happy New Year! 龙年大吉 — see https://example.com/cny',
      '2024-02-10T01:12:00.000Z +480 王小明 [other]: ',
      '2024-02-10T01:13:41.000Z +480 王小明 [other]: ',
      '2024-02-10T01:14:00.000Z +480 Lin Wei [other]: ',
      '2024-02-10T01:20:00.000Z +480 Lin Wei [other]: The contract, as promised',
      '2024-02-10T01:25:00.000Z +480 王小明 [other]: 收到，谢谢\n周一见',
      '2024-02-10T01:31:00.000Z +480 Deleted Account (user999) [other]: Who is this?',
    ]);
    expect(c.messages.map((m) => m.externalId)).toEqual(['101', '102', '104', '105', '106', '107', '108', '110']);
    const dirOf = path.dirname(single);
    expect(c.messages[2]!.attachments).toEqual([
      {
        kind: 'image',
        name: 'photo_1@10-02-2024_09-12-00.jpg',
        uri: path.join(dirOf, 'photos', 'photo_1@10-02-2024_09-12-00.jpg'),
        mimeType: 'image/jpeg',
      },
    ]);
    expect(c.messages[3]!.attachments).toEqual([
      {
        kind: 'audio',
        name: 'audio_1@10-02-2024_09-13-41.ogg',
        uri: path.join(dirOf, 'voice_messages', 'audio_1@10-02-2024_09-13-41.ogg'),
        mimeType: 'audio/ogg',
      },
    ]);
    expect(c.messages[4]!.attachments).toEqual([
      { kind: 'sticker', name: 'sticker.webp', uri: path.join(dirOf, 'stickers', 'sticker.webp'), caption: '😂' },
    ]);
    expect(c.messages[5]!.attachments).toEqual([
      { kind: 'file', name: 'contract.pdf', mimeType: 'application/pdf', caption: 'not included in the export' },
    ]);
    expect(c.messages[5]!.metadata).toEqual({ replyTo: '104', editedAt: '2024-02-10T01:21:00.000Z', fromId: 'user111' });
  });

  it('reads the whole-account export: every chat, left chats, the owner as "user", offsets across DST', async () => {
    const { conversations } = await readAll(telegramImport, account);
    expect(conversations.map((c) => [c.externalId, c.title, c.messages.length, c.metadata.skipped])).toEqual([
      ['222', 'Anna Schmidt', 2, 0],
      ['1234567890', '读书会 Book Club', 3, 2],
      ['111', 'Saved Messages', 1, 0],
      ['5550001', 'Berlin Flat Hunt', 1, 1],
    ]);
    // Berlin switched to summer time in the night between the two messages.
    expect(lines(conversations[0]!)).toEqual([
      "2024-03-30T21:30:00.000Z +60 Anna Schmidt [other]: Clocks change tonight, don't be late tomorrow!",
      '2024-03-31T08:15:00.000Z +120 Lin Wei [user]: I was on time 😅',
    ]);
    expect(lines(conversations[1]!)).toEqual([
      '2024-03-01T18:01:00.000Z +60 Chen Jie [other]: 这个月读《三体》？',
      '2024-03-01T18:02:00.000Z +60 Anna Schmidt [other]: [poll] Next book? — 三体 / Dune',
      '2024-03-01T18:03:00.000Z +60 Lin Wei [user]: [location] Café Einstein 52.52, 13.405',
    ]);
    expect(conversations[0]!.metadata).toMatchObject({ me: 'Lin Wei', type: 'personal_chat' });
    expect(conversations[3]!.metadata).toMatchObject({ left: true, type: 'public_supergroup' });
  });

  it("reads the local times of old exports (no date_unixtime) in the import's time zone", async () => {
    const { conversations } = await readAll(telegramImport, old, 'Europe/Berlin');
    const c = conversations[0]!;
    expect(lines(c)).toEqual([
      '2019-07-16T16:15:05.000Z +120 Old Friend [other]: Still using Telegram 1.x?',
      '2019-07-16T16:16:00.000Z +120 Lin Wei [other]: Yes still',
    ]);
    expect(c.metadata.timeZone).toBe('local times without a zone, read in Europe/Berlin');
  });

  /** A chat whose messages carry `dates` (and, when given, `unix`) in the shapes converters write. */
  function shapedChat(name: string, dates: Array<{ date?: unknown; date_unixtime?: unknown }>): string {
    const file = path.join(dir, name, 'result.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const messages = dates.map((d, i) => ({
      id: i + 1,
      type: 'message',
      ...d,
      from: i % 2 ? 'Lin Wei' : '王小明',
      text: `第${i + 1}条 message ${i + 1}`,
    }));
    fs.writeFileSync(file, JSON.stringify({ name: '王小明', type: 'personal_chat', id: 42, messages }, null, 1));
    return file;
  }

  it('takes every exact time shape as written: ISO with Z, milliseconds or an offset, unix seconds and milliseconds', async () => {
    const file = shapedChat('shapes', [
      { date: '2017-01-01T06:20:09.248Z' },
      { date: '2017-01-01T14:21:00+08:00' },
      { date: '2017-01-01T06:22:00.5-0130' },
      { date: 1483251780 },
      { date: '1483251840123' },
      { date_unixtime: 1483251900 },
      { date: '2017-01-01T14:26:00', date_unixtime: '1483251960' },
      { date: '2017-01-01 06:27:00' },
    ]);
    // The zone reads the one time without a zone (message 8), and puts the UTC ones on its calendar.
    const { conversations, warnings } = await readAll(telegramImport, file, 'Asia/Shanghai');
    expect(warnings).toEqual([]);
    expect(lines(conversations[0]!)).toEqual([
      '2017-01-01T06:20:09.248Z +480 王小明 [other]: 第1条 message 1',
      '2017-01-01T06:21:00.000Z +480 Lin Wei [other]: 第2条 message 2',
      '2017-01-01T07:52:00.500Z -90 王小明 [other]: 第3条 message 3',
      '2017-01-01T06:23:00.000Z +480 Lin Wei [other]: 第4条 message 4',
      '2017-01-01T06:24:00.123Z +480 王小明 [other]: 第5条 message 5',
      '2017-01-01T06:25:00.000Z +480 Lin Wei [other]: 第6条 message 6',
      '2017-01-01T06:26:00.000Z +480 王小明 [other]: 第7条 message 7',
      '2016-12-31T22:27:00.000Z +480 Lin Wei [other]: 第8条 message 8',
    ]);
  });

  it('imports a whole export whose times are ISO with milliseconds and Z, without date_unixtime, at the exact instants', async () => {
    const start = Date.UTC(2017, 0, 1, 6, 20, 9, 248);
    const file = shapedChat(
      'iso-z',
      Array.from({ length: 300 }, (_, i) => ({ date: new Date(start + i * 61_001).toISOString() })),
    );
    // Whatever zone the import is told, exact times stay exact, on its calendar (New York in winter).
    const { conversations } = await readAll(telegramImport, file, 'America/New_York');
    const c = conversations[0]!;
    expect(c.messages).toHaveLength(300);
    expect(c.messages.map((m) => m.sentAt.getTime())).toEqual(Array.from({ length: 300 }, (_, i) => start + i * 61_001));
    expect(c.messages.every((m) => m.utcOffsetMin === -300)).toBe(true);
    expect(c.metadata.timeZone).not.toMatch(/local times/);
  });

  it("refuses impossible dates and times out of range, naming the message's place in the file", async () => {
    for (const [name, date] of [
      ['month13', { date: '2019-13-45T99:99:99' }],
      ['feb30', { date: '2023-02-30T10:00:00Z' }],
      ['year0', { date: '0000-01-01T00:00:00Z' }],
      ['huge-unix', { date_unixtime: '99999999999999999' }],
      ['offset', { date: '2023-02-01T10:00:00+25:00' }],
      ['words', { date: 'yesterday' }],
    ] as const) {
      const file = shapedChat(`bad-${name}`, [{ date: '2023-01-01T00:00:00Z' }, date]);
      await expect(readAll(telegramImport, file), name).rejects.toThrow(
        new RegExp(`bad-${name}[\\\\/]result\\.json: line 1\\d, column \\d+ \\(byte \\d+\\): message 2: date(_unixtime)?: `),
      );
    }
  });

  it('names the file and the line of malformed or truncated input', async () => {
    const text = fs.readFileSync(single, 'utf8');
    const cut = writeTemp(path.join('cut', 'result.json'), text.slice(0, text.indexOf('收到')));
    await expect(readAll(telegramImport, cut)).rejects.toThrow(
      /cut[\\/]result\.json: line \d+, column \d+: the file ends in the middle of the data/,
    );

    const bad = writeTemp(path.join('bad', 'result.json'), text.replace('"date_unixtime": "1707494405"', '"date_unixtime": "1707494405s"'));
    const line = text.split('\n').findIndex((l) => l.includes('"date_unixtime": "1707494405"')) + 1;
    await expect(readAll(telegramImport, bad)).rejects.toThrow(
      new RegExp(`bad[\\\\/]result\\.json: line ${line}, column 21 \\(byte \\d+\\): message 102: date_unixtime: `),
    );

    const broken = writeTemp(path.join('broken', 'result.json'), text.replace('"新年快乐！🧧"', '"新年快乐！🧧" oops'));
    // The stray word starts at column 22 of line 13 (columns count UTF-16 units, as editors do).
    await expect(readAll(telegramImport, broken)).rejects.toThrow(
      /broken[\\/]result\.json: line 13, column 22: invalid JSON: expected ','/,
    );
  });

  it('detects Telegram exports and nothing else', () => {
    for (const p of [single, account, old]) expect(telegramImport.detect({ path: p, head: head(p) }), p).toBe(true);
    for (const other of ['chatgpt/conversations.json', 'claude/conversations.json']) {
      const p = fixture('ingest', ...other.split('/'));
      expect(telegramImport.detect({ path: p, head: head(p) }), other).toBe(false);
    }
  });
});
