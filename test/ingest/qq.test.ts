import fs from 'node:fs';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { qqFormat } from '../../core/ingest/qq.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { headOf, ingestFixture, readAll, readOne, rows, writeTemp } from './chat-helpers.js';

// Time-zone rule: QQ writes the PC's wall clock with no zone; each message is read in the importer's
// `timeZone` (IANA; default: this machine's). The fixtures are read in Asia/Shanghai (UTC+8, no DST).

const zhangsan = ingestFixture('qq', '张三.txt');
const all = ingestFixture('qq', '全部消息记录.txt');
const qq = qqFormat({ timeZone: 'Asia/Shanghai' });

const zhangsanRows: Array<[string, number, string, string]> = [
  ['2019-07-16T10:15:05.000Z', 480, '张三', '周末去不去爬长城？'],
  ['2019-07-16T10:16:40.000Z', 480, '小明', '去！慕田峪还是八达岭？'],
  // A blank line inside a message stays: only the next header ends it.
  ['2019-07-16T10:20:00.000Z', 480, '张三', '慕田峪人少一点。\n我六点来接你，记得带身份证。\n\n门票我已经买好了。'],
  ['2019-07-19T22:05:12.000Z', 480, '张三', ''],
  ['2019-07-20T04:30:45.000Z', 480, '小明', '山顶风好大'],
];

describe('QQ text export', () => {
  it('one chat (UTF-8 with BOM, CRLF): speakers by QQ number or e-mail, placeholders as attachments', async () => {
    const { conversation: c } = await readOne(qq, zhangsan);
    expect(c).toMatchObject({ source: 'qq', externalId: '张三', title: '张三', participants: ['张三', '小明'] });
    expect(c.metadata).toMatchObject({ skipped: 0, group: '我的好友' });
    expect(rows(c)).toEqual(zhangsanRows);
    expect(c.messages.map((m) => m.attachments)).toEqual([
      [{ kind: 'sticker' }],
      [],
      [],
      [{ kind: 'image' }],
      [{ kind: 'image' }, { kind: 'image' }],
    ]);
  });

  it('an export of all chats: one conversation per 消息对象, system messages skipped, a renamed member stays one speaker', async () => {
    const { conversations } = await readAll(qq, all);
    expect(conversations.map((c) => [c.externalId, c.metadata.group, c.metadata.skipped, c.participants])).toEqual([
      ['Tom', '我的好友', 0, ['Tom', '小明']],
      ['大学同学群', '我的群聊', 1, ['梅梅', '李雷']],
    ]);
    expect(rows(conversations[0]!)).toEqual([
      ['2020-01-24T13:00:00.000Z', 480, 'Tom', 'Happy Chinese New Year! Did you watch the Spring Festival Gala?'],
      ['2020-01-24T13:02:30.000Z', 480, '小明', '哈哈 watching it now with my parents'],
    ]);
    // 【管理员】韩梅梅 and later 梅梅 are the same QQ number: shown under the last name used.
    expect(rows(conversations[1]!)).toEqual([
      ['2020-01-25T02:01:00.000Z', 480, '梅梅', '欢迎李雷！'],
      ['2020-01-25T02:02:00.000Z', 480, '李雷', '大家新年好'],
      ['2020-01-25T02:05:00.000Z', 480, '梅梅', '下周聚餐定在老地方？'],
    ]);
  });

  it('GBK and UTF-16 exports read the same as UTF-8', async () => {
    const text = fs.readFileSync(zhangsan, 'utf8').replace(/^\ufeff/, '');
    const gbk = writeTemp('张三-gbk.txt', iconv.encode(text, 'gbk'));
    const utf16 = writeTemp('张三-utf16.txt', iconv.encode(text, 'utf16le', { addBOM: true }));
    for (const file of [gbk, utf16]) {
      expect(qq.detect({ path: file, head: headOf(file) })).toBe(true);
      const { conversation: c } = await readOne(qq, file);
      expect(rows(c)).toEqual(zhangsanRows);
      expect(c.externalId).toBe('张三');
    }
  });

  it('reads the wall clock in the zone it is given', async () => {
    const { conversation: c } = await readOne(qqFormat({ timeZone: 'Europe/Berlin' }), zhangsan);
    expect(c.messages[0]!.sentAt.toISOString()).toBe('2019-07-16T16:15:05.000Z');
    expect(c.messages[0]!.utcOffsetMin).toBe(120);
  });
});

describe('malformed QQ exports', () => {
  it('a file cut off right after a message header', async () => {
    const text = fs.readFileSync(zhangsan, 'utf8');
    const file = writeTemp(
      'chat.txt',
      text.slice(0, text.indexOf('2019-07-20 12:30:45') + '2019-07-20 12:30:45 小明<xiaoming@example.com>'.length),
    );
    await expect(readAll(qq, file)).rejects.toThrow(/chat\.txt: line 24: the file ends at a message header/);
  });

  it('a file cut off inside a header', async () => {
    const file = writeTemp('chat.txt', '消息对象:张三\n\n2019-07-16 18:15:05 张三(12345678)\n在吗\n\n2019-07-16 18:1');
    await expect(readAll(qq, file)).rejects.toThrow(/chat\.txt: line 6: /);
  });

  it('an impossible date', async () => {
    const file = writeTemp('chat.txt', '消息对象:张三\n\n2019-02-30 18:15:05 张三(12345678)\n在吗\n');
    await expect(readAll(qq, file)).rejects.toThrow(/chat\.txt: line 3: invalid date or time "2019-02-30 18:15:05"/);
  });

  it('text that is not a QQ export', async () => {
    const file = writeTemp('chat.txt', 'Dear diary,\ntoday was long.\n');
    await expect(readAll(qq, file)).rejects.toThrow(/chat\.txt: line 1: not a QQ text export/);
  });
});

describe('QQ through the engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('detects and imports every section; a second import adds nothing', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [zhangsan, all] });
    expect(out.files.map((f) => [f.format, f.conversations, f.messages, f.messagesAdded, f.error])).toEqual([
      ['qq', 1, 5, 5, null],
      ['qq', 2, 5, 5, null],
    ]);
    const again = await engine.call('importFiles', { ownerId, paths: [zhangsan, all] });
    expect(again.files.map((f) => f.messagesAdded)).toEqual([0, 0]);
  });

  it('a truncated export stores nothing, not even its complete first sections', async () => {
    const ownerId = newOwner();
    const text = fs.readFileSync(all, 'utf8');
    const bad = writeTemp('chat.txt', text.slice(0, text.indexOf('2020-01-25 10:05:00') + 14));
    const out = await engine.call('importFiles', { ownerId, paths: [bad, zhangsan] });
    expect(out.files[0]!.error?.message).toMatch(/chat\.txt: line \d+: /);
    expect(out.files[1]).toMatchObject({ error: null, messagesAdded: 5 });
    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ messages: 5 });
  });
});
