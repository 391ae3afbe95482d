import fs from 'node:fs';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { wechatFormat } from '../../core/ingest/wechat.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { headOf, ingestFixture, readAll, readOne, rows, writeTemp } from './chat-helpers.js';

// Time-zone rule: CreateTime/createTime (Unix seconds) is the exact instant; the offset is what the
// exporting PC's clock showed (StrTime/formattedTime minus the instant). Only rows without a Unix time
// are read as wall-clock time in the importer's `timeZone`. The fixtures were exported in Beijing time,
// so even with timeZone 'UTC' the offsets are +480.

const zhangsanCsv = ingestFixture('wechat', '张三_utf8.csv');
const groupCsv = ingestFixture('wechat', '周末登山群_utf8.csv');
const allCsv = ingestFixture('wechat', 'messages.csv');
const bookClubJson = ingestFixture('wechat', '读书会.json');

describe('WeChat CSV (WeChatMsg / MemoTrace)', () => {
  it('reads PyWxDump CSV: type_name labels, is_sender, room_name as the chat, local CreateTime in the zone', async () => {
    const file = ingestFixture('wechat', 'wxid_zhangsan_0_5000.csv');
    const wc = wechatFormat({ timeZone: 'Asia/Shanghai' });
    expect(wc.detect({ path: file, head: headOf(file) })).toBe(true);
    const { conversations, warnings } = await readAll(wc, file);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expect(c).toMatchObject({ source: 'wechat', externalId: 'wxid_zhangsan', metadata: { skipped: 2, exporter: 'pywxdump-csv' } });
    expect(rows(c)).toEqual([
      ['2024-02-09T12:00:00.000Z', 480, 'wxid_zhangsan', '除夕快乐！年夜饭吃了吗？'],
      ['2024-02-09T12:01:30.000Z', 480, 'me', '刚吃完，包了三种饺子。\nHappy New Year!'],
      ['2024-02-09T12:02:00.000Z', 480, 'wxid_zhangsan', ''],
    ]);
    expect(c.messages.map((m) => m.role)).toEqual(['other', 'user', 'other']);
    expect(c.messages[2]!.attachments.map((a) => a.kind)).toEqual(['image']);
  });

  it('one-to-one chat: own messages are role user, media become attachments, system rows and calls are skipped', async () => {
    const { conversation: c, warnings } = await readOne(wechatFormat({ timeZone: 'UTC' }), zhangsanCsv);
    expect(warnings).toEqual([]);
    expect(c).toMatchObject({ source: 'wechat', externalId: '张三', title: '张三', participants: ['张三', '小王'] });
    expect(c.metadata).toMatchObject({ skipped: 2, talkerId: '7' });
    expect(rows(c)).toEqual([
      ['2024-02-09T12:00:00.000Z', 480, '张三', '除夕快乐！年夜饭吃了吗？'],
      ['2024-02-09T12:01:30.000Z', 480, '小王', '刚吃完，今年包了三种饺子：韭菜、三鲜，还有酸菜的。\n明天去你家拜年，带什么好？'],
      ['2024-02-09T12:03:10.000Z', 480, '张三', ''],
      ['2024-02-09T12:04:00.000Z', 480, '小王', ''],
      ['2024-02-09T12:15:00.000Z', 480, '张三', ''],
      // A quoted reply (49/57): its own words, with the CSV's doubled quotes and comma undone.
      ['2024-02-09T12:16:00.000Z', 480, '小王', '哈哈，"小品"最好看, 对吧'],
      ['2024-02-09T12:17:00.000Z', 480, '张三', ''],
      ['2024-02-09T16:00:05.000Z', 480, '张三', '新年快乐🧧'],
    ]);
    expect(c.messages.map((m) => m.role)).toEqual(['other', 'user', 'other', 'user', 'other', 'user', 'other', 'other']);
    expect(c.messages.map((m) => m.attachments)).toEqual([
      [],
      [],
      [{ kind: 'image' }],
      [{ kind: 'audio' }],
      [{ kind: 'link', name: '2024 春晚节目单', uri: 'https://example.com/chunwan?a=1&b=2' }],
      [],
      [{ kind: 'sticker' }],
      [],
    ]);
  });

  it('group chat: each member by the remark the person gave them, else their nickname', async () => {
    const { conversation: c } = await readOne(wechatFormat({ timeZone: 'UTC' }), groupCsv);
    expect(c).toMatchObject({ externalId: '周末登山群', participants: ['老李', '周五', '小王'] });
    expect(c.metadata).toMatchObject({ skipped: 1 });
    expect(rows(c)).toEqual([
      ['2024-03-15T23:31:00.000Z', 480, '老李', '明天香山，七点半东门集合，别迟到'],
      ['2024-03-15T23:35:12.000Z', 480, '周五', '收到！我带登山杖和热水'],
      ['2024-03-15T23:40:00.000Z', 480, '小王', '我开车，能坐四个人'],
      ['2024-03-15T23:41:00.000Z', 480, '周五', ''],
    ]);
  });

  it('the same export saved as GBK (Excel on Chinese Windows) reads the same', async () => {
    const utf8 = fs.readFileSync(groupCsv, 'utf8').replace(/^\ufeff/, '');
    const file = writeTemp('周末登山群.csv', iconv.encode(utf8, 'gbk'));
    const format = wechatFormat({ timeZone: 'UTC' });
    expect(format.detect({ path: file, head: headOf(file) })).toBe(true);
    const gbk = await readOne(format, file);
    const original = await readOne(format, groupCsv);
    expect(rows(gbk.conversation)).toEqual(rows(original.conversation));
    expect(gbk.conversation.participants).toEqual(['老李', '周五', '小王']);
  });

  it('rows with StrTime only are read in the given zone, DST-aware', async () => {
    const csv =
      'localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime\n1,4,1,0,0,,2,Wir sehen uns am Brandenburger Tor,2024-03-30 20:00:00\n2,4,1,0,1,,2,Bis morgen um zehn!,2024-03-31 10:00:00\n';
    const file = writeTemp('Anna_utf8.csv', csv);
    const { conversation: c } = await readOne(wechatFormat({ timeZone: 'Europe/Berlin' }), file);
    expect(rows(c)).toEqual([
      ['2024-03-30T19:00:00.000Z', 60, 'Anna', 'Wir sehen uns am Brandenburger Tor'],
      ['2024-03-31T08:00:00.000Z', 120, 'me', 'Bis morgen um zehn!'],
    ]);
  });

  it('an export of all chats: one conversation per TalkerId, in order of appearance, however many passes it takes', async () => {
    for (const rowsPerPass of [undefined, 1]) {
      const { conversations } = await readAll(wechatFormat({ timeZone: 'UTC', rowsPerPass }), allCsv);
      expect(conversations.map((c) => c.externalId)).toEqual(['messages#3', 'messages#5']);
      const [ride, mum] = conversations;
      expect(ride!.metadata).toMatchObject({ skipped: 1, talkerId: '3' });
      expect(rows(ride!)).toEqual([
        ['2023-05-01T01:00:00.000Z', 480, 'contact #3', 'Morning! Are we still on for the bike ride?'],
        ['2023-05-01T01:06:00.000Z', 480, 'me', 'Yes, meet at the river gate at 10.'],
        ['2023-05-01T03:45:00.000Z', 480, 'contact #3', 'That hill nearly killed me, but the view of the lake was worth it.'],
      ]);
      expect(rows(mum!)).toEqual([
        ['2023-05-01T01:05:00.000Z', 480, 'me', '妈，我五点到家'],
        ['2023-05-01T01:30:00.000Z', 480, 'contact #5', '好的，给你做红烧肉'],
      ]);
    }
  });
});

describe('WeChat JSON (EchoTrace / WeFlow)', () => {
  it('group chat: session names the chat, isSend marks own messages, system rows and calls are skipped', async () => {
    const { conversation: c } = await readOne(wechatFormat({ timeZone: 'UTC' }), bookClubJson);
    expect(c).toMatchObject({ externalId: '12345678@chatroom', title: '周三读书会', participants: ['陈晨', '小王', '刘老师'] });
    expect(c.metadata).toMatchObject({ skipped: 2, chatType: 'group' });
    expect(rows(c)).toEqual([
      ['2024-04-03T11:01:00.000Z', 480, '陈晨', '这周读《活着》第三章，福贵卖地那段大家怎么看？'],
      ['2024-04-03T11:03:20.000Z', 480, '小王', '我觉得那是他人生的转折点。\n读到这里停了好久。'],
      ['2024-04-03T11:04:00.000Z', 480, '陈晨', ''],
      ['2024-04-03T11:05:00.000Z', 480, '刘老师', '同意，而且余华写得很克制'],
      ['2024-04-03T11:10:00.000Z', 480, '小王', ''],
    ]);
    expect(c.messages.map((m) => m.role)).toEqual(['other', 'user', 'other', 'other', 'user']);
    expect(c.messages[2]!.attachments).toEqual([{ kind: 'image' }]);
    expect(c.messages[4]!.attachments).toEqual([{ kind: 'audio' }]);
  });

  it('numeric message types and a session after the messages (field order is not fixed)', async () => {
    const doc = {
      weflow: { version: '1.2.0' },
      messages: [
        {
          localId: 1,
          createTime: 1717236000,
          type: 1,
          content: 'See you at the Bund at eight',
          isSend: 0,
          senderUsername: 'wxid_amy',
          senderDisplayName: '',
        },
        { localId: 2, createTime: 1717236060, type: 3, content: '', isSend: 1, senderUsername: 'wxid_me', senderDisplayName: 'Me' },
        { localId: 3, createTime: 1717236120, type: 10000, content: 'Amy recalled a message', isSend: null, senderUsername: '' },
      ],
      session: { username: 'wxid_amy', displayName: 'Amy Chen', type: '私聊' },
    };
    const file = writeTemp('Amy.json', JSON.stringify(doc));
    const { conversation: c } = await readOne(wechatFormat({ timeZone: 'Asia/Shanghai' }), file);
    expect(c).toMatchObject({ externalId: 'wxid_amy', title: 'Amy Chen', participants: ['Amy Chen', 'Me'] });
    expect(c.metadata).toMatchObject({ skipped: 1, chatType: 'private' });
    // No formattedTime: the offset comes from the zone.
    expect(rows(c)).toEqual([
      ['2024-06-01T10:00:00.000Z', 480, 'Amy Chen', 'See you at the Bund at eight'],
      ['2024-06-01T10:01:00.000Z', 480, 'Me', ''],
    ]);
  });
});

describe('malformed WeChat exports', () => {
  const wc = wechatFormat({ timeZone: 'UTC' });
  const header = 'localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime\n';

  it('CSV cut off inside a quoted message', async () => {
    const file = writeTemp(
      'chat.csv',
      `${header}1,3,1,0,0,1682902800,2,Hello,2023-05-01 09:00:00\n2,3,1,0,1,1682903100,2,"This message goes on\nand on`,
    );
    await expect(readAll(wc, file)).rejects.toThrow(/chat\.csv: line 3: a quoted field that starts on this line is never closed/);
  });

  it('CSV with a CreateTime that is not a time', async () => {
    const file = writeTemp(
      'chat.csv',
      `${header}1,3,1,0,0,1682902800,2,Hello,2023-05-01 09:00:00\n2,3,1,0,0,yesterday,2,Hi,2023-05-01 09:01:00\n`,
    );
    await expect(readAll(wc, file)).rejects.toThrow(/chat\.csv: line 3: CreateTime "yesterday"/);
  });

  it('CSV without the WeChat columns', async () => {
    const file = writeTemp('chat.csv', 'date,from,text\n2023-05-01,Ann,hi\n');
    await expect(readAll(wc, file)).rejects.toThrow(
      /chat\.csv: line 1: not a WeChat CSV export: missing column IsSender or is_sender, StrContent or msg or content/,
    );
  });

  it('JSON cut off in the middle', async () => {
    const text = fs.readFileSync(bookClubJson, 'utf8');
    const file = writeTemp('chat.json', text.slice(0, Math.floor(text.length / 2)));
    await expect(readAll(wc, file)).rejects.toThrow(/chat\.json: line \d+, column \d+/);
  });

  it('JSON message without a time', async () => {
    const file = writeTemp(
      'chat.json',
      JSON.stringify({ session: { wxid: 'x' }, messages: [{ content: 'hi', isSend: 0, senderUsername: 'a' }] }, null, 2),
    );
    await expect(readAll(wc, file)).rejects.toThrow(/chat\.json: line 6, column \d+ \(byte \d+\): message: createTime/);
  });
});

describe('WeChat through the engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('detects CSV and JSON exports and imports them once', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [zhangsanCsv, bookClubJson, allCsv] });
    expect(out.files.map((f) => [f.format, f.conversations, f.messages, f.messagesAdded, f.error])).toEqual([
      ['wechat', 1, 8, 8, null],
      ['wechat', 1, 5, 5, null],
      ['wechat', 2, 5, 5, null],
    ]);
    const again = await engine.call('importFiles', { ownerId, paths: [zhangsanCsv, bookClubJson, allCsv] });
    expect(again.files.map((f) => f.messagesAdded)).toEqual([0, 0, 0]);
  });

  it('a truncated export stores nothing and the next file still imports', async () => {
    const ownerId = newOwner();
    const text = fs.readFileSync(zhangsanCsv, 'utf8');
    const bad = writeTemp('chat.csv', text.slice(0, text.lastIndexOf('"') - 3));
    const out = await engine.call('importFiles', { ownerId, paths: [bad, groupCsv], format: 'wechat' });
    expect(out.files[0]!.error?.message).toMatch(/chat\.csv: line \d+: /);
    expect(out.files[1]).toMatchObject({ error: null, messagesAdded: 4 });
    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ messages: 4 });
  });
});
