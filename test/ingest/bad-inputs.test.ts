import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import {
  chatgptExport,
  claudeExport,
  discordExport,
  messengerExport,
  nemoriJsonExport,
  nemoriJsonlExport,
  telegramExport,
  wechatJsonExport,
  type Said,
} from './export-builders.js';
import { zipBuffer } from './zip-writer.js';

/**
 * The bad-input corpus: 64 damaged, impossible or hostile files across every format, imported in one
 * batch with good files between them. Every bad file must be refused (never stored, never accepted with
 * a made-up value), each refusal must name the file and a place in it, nothing may crash the import or
 * hang it, and the good files after a bad one are still imported.
 */

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

const dir = tempDir('nemori-bad-inputs-');
let n = 0;
function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, String(++n).padStart(2, '0'), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

const GOOD: Said[] = [
  { time: '2024-02-09T15:58:30.248Z', text: '除夕快乐！' },
  { time: '2024-02-09T16:00:05Z', text: 'Happy New Year!' },
  { time: '2024-02-09T16:01:00+08:00', text: '明天见' },
];
const withOne = (change: Partial<Said>, at = 1): Said[] => GOOD.map((m, i) => (i === at ? { ...m, ...change } : m));
const ms = (s: Said[]) => s.map((m) => ({ ...m, time: typeof m.time === 'string' ? Date.parse(m.time) : m.time }));
const cut = (s: string, at: string) => s.slice(0, s.indexOf(at));

const whatsapp = (lines: string[]) => `${lines.join('\n')}\n`;
const WA = ['09/03/2024, 23:58 - Emma: Are you still up?', '09/03/2024, 23:59 - Alex: 还没睡', '10/03/2024, 00:01 - Emma: Terminal 4.'];
const QQ_HEAD =
  '消息记录（此消息记录为文本格式，不支持重新导入）\n\n================================================================\n消息分组:我的好友\n================================================================\n消息对象:张三\n================================================================\n\n';
const qq = (body: string) => `${QQ_HEAD}${body}`;
const QQ_GOOD = '2019-07-16 18:15:05 张三(12345678)\n周末去不去爬长城？\n\n2019-07-16 18:16:40 小明(87654321)\n去！\n\n';
const line = (body: string) => `[LINE] Chat history with Emma\nSaved on: 2024/04/01 09:15\n\n${body}`;
const LINE_GOOD = '2024/03/30(Sat)\n21:41\tEmma\tDid you book the ryokan?\n21:42\tAlex\tYes! 两晚\n';
const CSV_HEAD = 'localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender\n';
const csvRow = (id: number, create: string, text: string, str = '2024-02-09 20:00:00') =>
  `${id},7,1,0,0,${create},2,${text},${str},张三,Zhang San,wxid_zhangsan\n`;
const CSV_GOOD = csvRow(101, '1707480000', 除夕快乐()) + csvRow(102, '1707480090', 'Happy New Year', '2024-02-09 20:01:30');
function 除夕快乐() {
  return '除夕快乐！年夜饭吃了吗？';
}
const slackZip = (day: string) =>
  zipBuffer([
    { name: 'users.json', data: '[{"id":"U1","name":"lin"}]' },
    { name: 'channels.json', data: '[{"id":"C1","name":"general"}]' },
    { name: 'general/2024-01-01.json', data: day },
  ]);
const SLACK_DAY = (ts: string, text = 'hi') =>
  `[\n{"type":"message","text":"ok","user":"U1","ts":"1704067200.000100"},\n{"type":"message","text":${JSON.stringify(text)},"user":"U1","ts":"${ts}"}\n]`;

/** [name, file]: each must be refused. */
function corpus(): Array<[string, string]> {
  const tg = telegramExport(GOOD);
  const out: Array<[string, string]> = [
    // Telegram (13)
    ['telegram: truncated', write('result.json', cut(tg, 'Happy'))],
    ['telegram: month 13', write('result.json', telegramExport(withOne({ time: '2019-13-45T99:99:99' })))],
    ['telegram: 30 February', write('result.json', telegramExport(withOne({ time: '2023-02-30T10:00:00' })))],
    ['telegram: year 0', write('result.json', telegramExport(withOne({ time: '0000-01-01T00:00:00Z' })))],
    [
      'telegram: huge unix time',
      write('result.json', tg.replace('"date": "2024-02-09T16:00:05Z"', '"date_unixtime": "99999999999999999"')),
    ],
    ['telegram: negative unix time', write('result.json', tg.replace('"date": "2024-02-09T16:00:05Z"', '"date_unixtime": "-5"'))],
    ['telegram: NUL in text', write('result.json', telegramExport(withOne({ text: 'a\u0000b' })))],
    ['telegram: NUL in sender', write('result.json', telegramExport(withOne({ speaker: 'Lin\u0000Wei' })))],
    ['telegram: NUL in chat name', write('result.json', tg.replace('"name": "王小明"', '"name": "王\\u0000"'))],
    ['telegram: id is a word', write('result.json', tg.replace('"id": 2,', '"id": "two",'))],
    ['telegram: offset +25:00', write('result.json', telegramExport(withOne({ time: '2023-02-01T10:00:00+25:00' })))],
    ['telegram: time in words', write('result.json', telegramExport(withOne({ time: 'yesterday' })))],
    ['telegram: stray text', write('result.json', tg.replace('"Happy New Year!"', '"Happy New Year!" oops'))],
    // ChatGPT (5)
    ['chatgpt: truncated', write('conversations.json', cut(chatgptExport(GOOD), '"m2"'))],
    ['chatgpt: create_time 1e20', write('conversations.json', chatgptExport(withOne({ time: 1e20 })))],
    ['chatgpt: NUL in a part', write('conversations.json', chatgptExport(withOne({ text: '\u0000' })))],
    ['chatgpt: missing parent', write('conversations.json', chatgptExport(GOOD).replace('"parent": "m0"', '"parent": "gone"'))],
    ['chatgpt: 30 February', write('conversations.json', chatgptExport(withOne({ time: '2023-02-30T00:00:00Z' })))],
    // Claude (4)
    ["claude: 25 o'clock", write('conversations.json', claudeExport(withOne({ time: '2024-07-06T25:00:15Z' })))],
    ['claude: NUL in text', write('conversations.json', claudeExport(withOne({ text: 'x\u0000' })))],
    ['claude: truncated', write('conversations.json', cut(claudeExport(GOOD), 'Happy'))],
    [
      'claude: chat_messages not a list',
      write('conversations.json', claudeExport(GOOD).replace('"chat_messages": [', '"chat_messages": 5, "x": [')),
    ],
    // Discord (4)
    ['discord: day/month time', write('channel.json', discordExport(withOne({ time: '30/03/2024 10:00' })))],
    ['discord: NUL in content', write('channel.json', discordExport(withOne({ text: 'bad\u0000' })))],
    ['discord: truncated', write('channel.json', cut(discordExport(GOOD), 'Happy'))],
    ['discord: no author', write('channel.json', discordExport(GOOD).replace(/"author": \{[^}]*\}/, '"author": null'))],
    // Messenger (4)
    ['messenger: seconds in timestamp_ms', write('inbox/a_1/message_1.json', messengerExport(withOne({ time: 1707494400 })))],
    ['messenger: NUL in content', write('inbox/a_2/message_1.json', messengerExport(ms(withOne({ text: '\u0000' }))))],
    ['messenger: truncated', write('inbox/a_3/message_1.json', cut(messengerExport(ms(GOOD)), 'Happy'))],
    ['messenger: negative timestamp_ms', write('inbox/a_4/message_1.json', messengerExport(withOne({ time: -1 })))],
    // Slack (3)
    ['slack: truncated day', write('slack.zip', slackZip(cut(SLACK_DAY('1704067260.000200'), '"text":"hi"')))],
    ['slack: timestamp in year 5000', write('slack.zip', slackZip(SLACK_DAY('99999999999.000200')))],
    ['slack: NUL in text', write('slack.zip', slackZip(SLACK_DAY('1704067260.000200', 'a\u0000')))],
    // Nemori JSON / JSONL (7)
    ['json: month 13', write('chat.json', nemoriJsonExport(withOne({ time: '2019-13-01T00:00:00Z' })))],
    ['json: NUL in text', write('chat.json', nemoriJsonExport(withOne({ text: '\u0000' })))],
    ['json: invalid JSON', write('chat.json', nemoriJsonExport(GOOD).replace('"speaker"', 'speaker'))],
    ['json: empty speaker', write('chat.json', nemoriJsonExport(withOne({ speaker: '' })))],
    ['jsonl: 31 April', write('chat.jsonl', nemoriJsonlExport(withOne({ time: '2024-04-31T10:00:00Z' })))],
    ['jsonl: NUL in text', write('chat.jsonl', nemoriJsonlExport(withOne({ text: 'a\u0000' })))],
    ['jsonl: broken line', write('chat.jsonl', `${nemoriJsonlExport(GOOD)}\n{"conversation": "c1", "id": 9,`)],
    // WhatsApp (6)
    ['whatsapp: 31 February', write('WhatsApp Chat with Emma.txt', whatsapp([...WA, '31/02/2024, 10:00 - Emma: impossible']))],
    ["whatsapp: 25 o'clock", write('WhatsApp Chat with Emma.txt', whatsapp([...WA, '10/03/2024, 25:00 - Emma: impossible']))],
    ['whatsapp: NUL in a message', write('WhatsApp Chat with Emma.txt', whatsapp([...WA, '10/03/2024, 00:02 - Emma: a\u0000b']))],
    ['whatsapp: NUL in a continuation line', write('WhatsApp Chat with Emma.txt', whatsapp([...WA, 'second line \u0000']))],
    ['whatsapp: cut in a header', write('WhatsApp Chat with Emma.txt', `${whatsapp(WA)}10/03/2024, 00:0`)],
    [
      'whatsapp zip: NUL',
      write('WhatsApp Chat - Emma.zip', zipBuffer([{ name: '_chat.txt', data: whatsapp([...WA, '10/03/2024, 00:02 - Emma: \u0000']) }])),
    ],
    // WeChat (6)
    ['wechat csv: CreateTime in year 5138', write('张三.csv', CSV_HEAD + CSV_GOOD + csvRow(103, '99999999999999', 'x'))],
    ['wechat csv: month 13', write('张三.csv', CSV_HEAD + CSV_GOOD + csvRow(103, '', 'x', '2023-13-01 10:00:00'))],
    ['wechat csv: NUL in content', write('张三.csv', CSV_HEAD + CSV_GOOD + csvRow(103, '1707480100', 'a\u0000b'))],
    ['wechat csv: unclosed quote', write('张三.csv', `${CSV_HEAD}${CSV_GOOD}103,7,1,0,0,1707480100,2,"never closed\n`)],
    ['wechat json: createTime in words', write('读书会.json', wechatJsonExport(withOne({ time: 'abc' })))],
    ['wechat json: NUL in content', write('读书会.json', wechatJsonExport(withOne({ text: '\u0000' })))],
    // QQ (3)
    ['qq: 30 February', write('张三.txt', qq(`${QQ_GOOD}2019-02-30 18:17:00 张三(12345678)\n好\n`))],
    ['qq: NUL', write('张三.txt', qq(`${QQ_GOOD}2019-07-16 18:17:00 张三(12345678)\n好\u0000\n`))],
    ['qq: year 0019', write('张三.txt', qq(`${QQ_GOOD}0019-07-16 18:17:00 张三(12345678)\n好\n`))],
    // LINE (3)
    ['line: 30 February', write('[LINE] Chat with Emma.txt', line(`${LINE_GOOD}2024/02/30(Fri)\n10:00\tEmma\tx\n`))],
    ['line: NUL', write('[LINE] Chat with Emma.txt', line(`${LINE_GOOD}21:43\tEmma\tx\u0000\n`))],
    ['line: 24:61', write('[LINE] Chat with Emma.txt', line(`${LINE_GOOD}24:61\tEmma\tx\n`))],
    // Markdown (3)
    ['markdown: NUL', write('journal.md', '# 2024-03-05\n\nA day in Suzhou.\n\nbad \u0000 byte\n')],
    ['markdown: unclosed code block', write('notes.md', '# Notes\n\n```js\nconst x = 1;\n')],
    ['markdown: front matter never closed', write('page.md', '---\ntitle: x\n\nbody\n')],
    // Not exports at all (2)
    [
      'binary under a JSON name',
      write('result.json', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48])),
    ],
    ['corrupt zip', write('conversations.zip', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 7)]))],
  ];
  // A pipe that no one writes to: reading it would block forever.
  const fifo = path.join(dir, 'pipe', 'WhatsApp Chat with Bob.txt');
  fs.mkdirSync(path.dirname(fifo), { recursive: true });
  execFileSync('mkfifo', [fifo]);
  out.push(['a pipe (FIFO)', fifo]);
  return out;
}

function goodFiles(): Array<{ file: string; messages: number; texts: string[] }> {
  return [
    { file: write('result.json', telegramExport(GOOD)), messages: 3, texts: ['除夕快乐！'] },
    {
      // Latin-1 (Windows-1252), not GBK: "Grüße" must not become "Gr鼴e".
      file: write(
        'WhatsApp Chat with Jürgen.txt',
        iconv.encode(
          whatsapp(['09/03/2024, 23:58 - Jürgen: Grüße aus Köln, à bientôt', '09/03/2024, 23:59 - Alex: Merci, café demain?']),
          'windows1252',
        ),
      ),
      messages: 2,
      texts: ['Grüße aus Köln, à bientôt', 'Merci, café demain?'],
    },
    { file: write('chat.jsonl', nemoriJsonlExport(GOOD)), messages: 3, texts: ['明天见'] },
  ];
}

describe('bad-input corpus', () => {
  it('refuses all 64 bad files with file and position, crashes and hangs on none, and imports the good files between them', async () => {
    const ownerId = newOwner('corpus');
    const bad = corpus();
    expect(bad).toHaveLength(64);
    const good = goodFiles();
    // Good files after the first bad one, in the middle, and at the end.
    const paths = [
      bad[0]![1],
      good[0]!.file,
      ...bad.slice(1, 30).map((b) => b[1]),
      good[1]!.file,
      ...bad.slice(30).map((b) => b[1]),
      good[2]!.file,
    ];
    const out = await engine.call('importFiles', { ownerId, paths });

    const byFile = new Map(out.files.map((f) => [f.file, f]));
    const problems: string[] = [];
    for (const [name, file] of bad) {
      const r = byFile.get(file);
      if (!r?.error) problems.push(`${name}: accepted (${r?.messages} messages)`);
      else if (r.error.code === 'INTERNAL') problems.push(`${name}: crashed: ${r.error.message}`);
      else if (!r.error.message.includes(file) && !r.error.message.includes(path.dirname(file)))
        problems.push(`${name}: no file in "${r.error.message}"`);
      else if (!/line \d+|conversation \d+|not a regular file|not a format|zip|archive/.test(r.error.message))
        problems.push(`${name}: no position in "${r.error.message}"`);
      else if (r.messagesAdded !== 0) problems.push(`${name}: stored ${r.messagesAdded} messages`);
    }
    expect(problems).toEqual([]);

    for (const g of good)
      expect(byFile.get(g.file), g.file).toMatchObject({ error: null, messages: g.messages, messagesAdded: g.messages });
    const stats = (await engine.call('stats', { ownerId })).owners[0]!;
    expect(stats).toMatchObject({ conversations: good.length, messages: good.reduce((s, g) => s + g.messages, 0) });
    const found = await engine.call('search', { ownerId, query: 'Grüße Köln' });
    expect(JSON.stringify(found)).toContain('Grüße aus Köln');
  }, 120_000);
});
