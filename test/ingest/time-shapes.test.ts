import { describe, expect, it } from 'vitest';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import { chatgptImport } from '../../core/ingest/chatgpt.js';
import { claudeImport } from '../../core/ingest/claude.js';
import { discordImport } from '../../core/ingest/discord.js';
import { genericJson, genericJsonl } from '../../core/ingest/generic.js';
import type { ImportFormat } from '../../core/ingest/import-format.js';
import { messengerImport } from '../../core/ingest/messenger.js';
import { readTime } from '../../core/ingest/time-shapes.js';
import { wechatImport } from '../../core/ingest/wechat.js';
import { writeTemp } from './chat-helpers.js';
import { chatgptExport, claudeExport, discordExport, nemoriJsonExport, nemoriJsonlExport, wechatJsonExport } from './export-builders.js';
import { readAll } from './read-all.js';

/**
 * Every JSON reader takes every exact time shape as written and reads local ones in the import's zone
 * (Asia/Shanghai here, +08:00). Telegram has its own tests (telegram.test.ts).
 */

const ZONE = 'Asia/Shanghai';

/**
 * [the value in the file, the instant, the offset]. A UTC time (`Z`, unix) is on the import zone's
 * calendar: at 15:58 UTC it is past midnight in Shanghai, and "tomorrow" said then is the 11th.
 */
const SHAPES: Array<[string | number, string, number]> = [
  ['2024-02-09T15:58:30.248Z', '2024-02-09T15:58:30.248Z', 480],
  ['2024-02-09T23:59:00+08:00', '2024-02-09T15:59:00.000Z', 480],
  ['2024-02-09T10:30:00.123456-0530', '2024-02-09T16:00:00.123Z', -330],
  ['2024-02-09T16:00:30+00:00', '2024-02-09T16:00:30.000Z', 0],
  [1707494460, '2024-02-09T16:01:00.000Z', 480],
  ['1707494520.5', '2024-02-09T16:02:00.500Z', 480],
  [1707494580123, '2024-02-09T16:03:00.123Z', 480],
  ['2024-02-10 00:04:00', '2024-02-09T16:04:00.000Z', 480],
];
const TEXTS = SHAPES.map((_, i) => (i % 2 ? `message ${i + 1}` : `第${i + 1}条消息`));

const said = (shapes: Array<string | number>) => shapes.map((time, i) => ({ time, text: TEXTS[i]! }));
const formats: Array<{ format: ImportFormat; name: string; file: (shapes: Array<string | number>) => string }> = [
  { format: claudeImport, name: 'claude', file: (s) => writeTemp('conversations.json', claudeExport(said(s))) },
  { format: chatgptImport, name: 'chatgpt', file: (s) => writeTemp('conversations.json', chatgptExport(said(s))) },
  { format: discordImport, name: 'discord', file: (s) => writeTemp('channel.json', discordExport(said(s))) },
  { format: genericJson, name: 'json', file: (s) => writeTemp('chat.json', nemoriJsonExport(said(s))) },
  { format: genericJsonl, name: 'jsonl', file: (s) => writeTemp('chat.jsonl', nemoriJsonlExport(said(s))) },
  { format: wechatImport, name: 'wechat (WeChatMsg / echo JSON)', file: (s) => writeTemp('chat.json', wechatJsonExport(said(s))) },
];

const instants = (c: IncomingConversation) => c.messages.map((m) => [m.sentAt.toISOString(), m.utcOffsetMin, m.text]);

describe('time shapes', () => {
  it('reads each shape to the exact instant and refuses what is not a real time', () => {
    for (const [value, iso, offset] of SHAPES) {
      const r = readTime(value, { timeZone: ZONE });
      expect(r.ok && [r.instant.at.toISOString(), r.instant.utcOffsetMin], String(value)).toEqual([iso, offset]);
    }
    for (const bad of [
      '2019-13-45T99:99:99',
      '2023-02-30T10:00:00',
      '0000-01-01T00:00:00Z',
      '99999999999999999',
      '2023-01-01T00:00:00+15:00',
      '30/03/2024 10:00',
      '',
      0,
      Number.NaN,
    ]) {
      expect(readTime(bad, { timeZone: ZONE }).ok, String(bad)).toBe(false);
    }
    // A field that holds milliseconds by definition refuses seconds (they would land in January 1970).
    expect(readTime(1707494460, { timeZone: ZONE, unit: 'ms' }).ok).toBe(false);
  });

  for (const f of formats) {
    it(`${f.name}: every exact shape as written, local times in the import's zone`, async () => {
      // WeChat keeps whole seconds and reads every time on the import zone's calendar.
      const wechat = f.format === wechatImport;
      const { conversations } = await readAll(f.format, f.file(SHAPES.map((s) => s[0])), ZONE);
      expect(conversations).toHaveLength(1);
      expect(instants(conversations[0]!)).toEqual(
        SHAPES.map(([, iso, off], i) => [wechat ? iso.replace(/\.\d{3}Z$/, '.000Z') : iso, wechat ? 480 : off, TEXTS[i]]),
      );
    });

    it(`${f.name}: an impossible date is refused with the file and its place in it`, async () => {
      const file = f.file(['2024-02-09T15:58:30Z', '2023-02-30T10:00:00Z']);
      await expect(readAll(f.format, file, ZONE)).rejects.toThrow(/line \d+(, column \d+)?.*2023-02-30/);
      await expect(readAll(f.format, file, ZONE)).rejects.toThrow(file);
    });
  }

  it("messenger: timestamp_ms is milliseconds; converters' ISO times are taken as written", async () => {
    const messages = [
      { sender_name: '王小明', timestamp_ms: '2024-02-09T23:59:00+08:00', content: 'second' },
      { sender_name: 'Lin Wei', timestamp_ms: 1707494310248, content: 'first' },
    ];
    const file = writeTemp('inbox/wang_1/message_1.json', JSON.stringify({ participants: [{ name: '王小明' }], messages }));
    const { conversations } = await readAll(messengerImport, file, ZONE);
    expect(instants(conversations[0]!)).toEqual([
      ['2024-02-09T15:58:30.248Z', 480, 'first'],
      ['2024-02-09T15:59:00.000Z', 480, 'second'],
    ]);
    const seconds = writeTemp(
      'inbox/wang_2/message_1.json',
      JSON.stringify({ participants: [], messages: [{ sender_name: 'x', timestamp_ms: 1707494310, content: 'a' }] }),
    );
    await expect(readAll(messengerImport, seconds, ZONE)).rejects.toThrow(
      /line 1, column \d+.*timestamp_ms: "1707494310" is not a unix time/,
    );
  });
});
