import fs from 'node:fs';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { lineFormat } from '../../core/ingest/line.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { ingestFixture, readAll, readOne, rows, writeTemp } from './chat-helpers.js';

// Time-zone rule: LINE writes the phone's wall clock (a date line, then HH:MM per message) with no
// zone; each message is read in the importer's `timeZone` (IANA; default: this machine's), DST-aware.

const emma = ingestFixture('line', '[LINE] Chat with Emma.txt');
const xiaolin = ingestFixture('line', '[LINE] 与小林的聊天记录.txt');

describe('LINE chat history', () => {
  it('English export: tab-separated lines, quoted multi-line message, placeholders, calls and notices skipped', async () => {
    const { conversation: c } = await readOne(lineFormat({ timeZone: 'Asia/Tokyo' }), emma);
    expect(c).toMatchObject({ source: 'line', externalId: 'Emma', title: 'Emma', participants: ['Emma', 'Alex'] });
    // ☎ call, "Emma unsent a message.", "Ben joined the group."
    expect(c.metadata).toMatchObject({ skipped: 3, savedOn: '2024/04/01 09:15' });
    expect(rows(c)).toEqual([
      ['2024-03-30T12:41:00.000Z', 540, 'Emma', 'Did you book the ryokan in Hakone?'],
      ['2024-03-30T12:42:00.000Z', 540, 'Alex', 'Yes! Two nights.\nCheck-in after 3pm,\nand they said "bring cash" for the onsen.'],
      ['2024-03-30T12:43:00.000Z', 540, 'Emma', ''],
      ['2024-03-30T12:44:00.000Z', 540, 'Emma', ''],
      // Mentioning "joined the group" in one's own words is still a message.
      ['2024-03-30T23:05:00.000Z', 540, 'Alex', 'Train leaves Shinjuku at 8:30, I joined the group chat for the hotel too'],
      // Quotes the person typed on a single line are kept.
      ['2024-03-30T23:07:00.000Z', 540, 'Emma', '"See you there"'],
    ]);
    expect(c.messages[2]!.attachments).toEqual([{ kind: 'image' }]);
    expect(c.messages[3]!.attachments).toEqual([{ kind: 'sticker' }]);
  });

  it('the same chat read in Berlin crosses the spring DST change between the two date lines', async () => {
    const { conversation: c } = await readOne(lineFormat({ timeZone: 'Europe/Berlin' }), emma);
    expect(rows(c).map(([at, off]) => [at, off])).toEqual([
      ['2024-03-30T20:41:00.000Z', 60],
      ['2024-03-30T20:42:00.000Z', 60],
      ['2024-03-30T20:43:00.000Z', 60],
      ['2024-03-30T20:44:00.000Z', 60],
      ['2024-03-31T06:05:00.000Z', 120],
      ['2024-03-31T06:07:00.000Z', 120],
    ]);
  });

  it('Chinese export: 2024.02.09 星期五 date lines, 上午/下午 times, [照片]/[貼圖], a recalled message', async () => {
    const { conversation: c } = await readOne(lineFormat({ timeZone: 'Asia/Taipei' }), xiaolin);
    expect(c).toMatchObject({ externalId: '小林', participants: ['小林', '小美'] });
    expect(c.metadata).toMatchObject({ skipped: 1, savedOn: '2024/02/10 23:00' });
    expect(rows(c)).toEqual([
      ['2024-02-09T15:58:00.000Z', 480, '小林', '新年快乐！'],
      ['2024-02-09T15:59:00.000Z', 480, '小美', '新年快乐～明年见'],
      // 上午12:01 is just after midnight.
      ['2024-02-09T16:01:00.000Z', 480, '小林', ''],
      ['2024-02-09T16:02:00.000Z', 480, '小美', ''],
      ['2024-02-10T02:00:00.000Z', 480, '小美', '今天去台北101\n看烟火的照片\n传给你了'],
    ]);
    expect(c.messages.slice(2, 4).map((m) => m.attachments)).toEqual([[{ kind: 'image' }], [{ kind: 'sticker' }]]);
  });

  it('GBK-encoded and Japanese/US-dated variants', async () => {
    const gbk = writeTemp('小林.txt', iconv.encode(fs.readFileSync(xiaolin, 'utf8').replace(/^\ufeff/, ''), 'gbk'));
    const fromGbk = await readOne(lineFormat({ timeZone: 'Asia/Taipei' }), gbk);
    expect(fromGbk.conversation.messages).toHaveLength(5);
    expect(fromGbk.conversation.externalId).toBe('小林');

    const ja = writeTemp(
      'ja.txt',
      '[LINE] 健太とのトーク履歴\n保存日時：2024/05/05 10:00\n\n2024/05/04(土)\n午後7:30\t健太\t明日の花火大会、何時に集合？\n午後7:31\t美咲\t6時に駅前で！\n',
    );
    const j = await readOne(lineFormat({ timeZone: 'Asia/Tokyo' }), ja);
    expect(j.conversation.externalId).toBe('健太');
    expect(rows(j.conversation)).toEqual([
      ['2024-05-04T10:30:00.000Z', 540, '健太', '明日の花火大会、何時に集合？'],
      ['2024-05-04T10:31:00.000Z', 540, '美咲', '6時に駅前で！'],
    ]);

    const us = writeTemp(
      'us.txt',
      '[LINE] Chat history with Dana\nSaved on: 7/5/2024 9:00\n\nThu, 7/4/2024\n9:15 PM\tDana\tFireworks from the roof?\n',
    );
    const u = await readOne(lineFormat({ timeZone: 'America/New_York' }), us);
    expect(rows(u.conversation)).toEqual([['2024-07-05T01:15:00.000Z', -240, 'Dana', 'Fireworks from the roof?']]);
  });

  it('lines that continue a skipped notice are skipped with it', async () => {
    const file = writeTemp(
      'notes.txt',
      '[LINE] Chat history in Hiking club\n\n2024/06/01(Sat)\n09:00\tKen\tKen changed the group name to "Hiking club"\n(the old name was "Weekend walkers")\n09:05\tAya\tSummit photos coming tonight!\n',
    );
    const { conversation: c } = await readOne(lineFormat({ timeZone: 'Asia/Tokyo' }), file);
    expect(c.externalId).toBe('Hiking club');
    expect(c.metadata).toMatchObject({ skipped: 1 });
    expect(rows(c)).toEqual([['2024-06-01T00:05:00.000Z', 540, 'Aya', 'Summit photos coming tonight!']]);
  });
});

describe('malformed LINE exports', () => {
  const line = lineFormat({ timeZone: 'UTC' });

  it('a quoted message never closed (truncated file)', async () => {
    const file = writeTemp(
      'chat.txt',
      '[LINE] Chat history with Emma\n\n2024/03/30(Sat)\n21:41\tEmma\tHi\n21:42\tAlex\t"Yes! Two nights.\nCheck-in after',
    );
    await expect(readAll(line, file)).rejects.toThrow(/chat\.txt: line 5: a quoted message that starts on this line is never closed/);
  });

  it('a message before any date line', async () => {
    const file = writeTemp('chat.txt', '[LINE] Chat history with Emma\n21:41\tEmma\tHi\n');
    await expect(readAll(line, file)).rejects.toThrow(/chat\.txt: line 2: a message before any date line/);
  });

  it('an impossible time', async () => {
    const file = writeTemp('chat.txt', '[LINE] Chat history with Emma\n2024/03/30(Sat)\n25:41\tEmma\tHi\n');
    await expect(readAll(line, file)).rejects.toThrow(/chat\.txt: line 3: invalid time "25:41"/);
  });

  it('not a LINE export', async () => {
    const file = writeTemp('chat.txt', 'Groceries: milk, eggs\n');
    await expect(readAll(line, file)).rejects.toThrow(/chat\.txt: line 1: not a LINE chat export/);
  });
});

describe('LINE through the engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('detects and imports; a second import adds nothing; a truncated file stores nothing', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [emma, xiaolin] });
    expect(out.files.map((f) => [f.format, f.messages, f.messagesAdded, f.error])).toEqual([
      ['line', 6, 6, null],
      ['line', 5, 5, null],
    ]);
    const again = await engine.call('importFiles', { ownerId, paths: [emma, xiaolin] });
    expect(again.files.map((f) => f.messagesAdded)).toEqual([0, 0]);

    const other = newOwner();
    const text = fs.readFileSync(xiaolin, 'utf8');
    const bad = writeTemp('chat.txt', text.slice(0, text.length - 8));
    const failed = await engine.call('importFiles', { ownerId: other, paths: [bad] });
    expect(failed.files[0]!.format).toBe('line');
    expect(failed.files[0]!.error?.message).toMatch(/chat\.txt: line 11: /);
    const stats = await engine.call('stats', { ownerId: other });
    expect(stats.owners[0]?.messages ?? 0).toBe(0);
  });
});
