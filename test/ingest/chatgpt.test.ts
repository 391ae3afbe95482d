import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatgptImport } from '../../core/ingest/chatgpt.js';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { lines, readAll } from './read-all.js';
import { writeZip } from './zip-writer.js';

const file = fixture('ingest', 'chatgpt', 'conversations.json');
const dir = tempDir('nemori-chatgpt-');

describe('ChatGPT export', () => {
  it('follows the branch ending at current_node and keeps only what was visibly said', async () => {
    const { conversations, warnings } = await readAll(chatgptImport, file);
    expect(warnings).toEqual([]);
    expect(conversations.map((c) => c.externalId)).toEqual([
      '6630f3a0-0000-4000-8000-000000000001',
      '66a0-cn-0002',
      'old-export-3',
      'voice-0004',
    ]);
    const kyoto = conversations[0]!;
    expect(kyoto.source).toBe('chatgpt');
    expect(kyoto.title).toBe('Packing for Kyoto');
    expect(kyoto.participants).toEqual(['User', 'ChatGPT']);
    // The regenerated answer (a-1b) is on the branch, the first one (a-1a) is not; the system prompt, custom
    // instructions, reasoning, web search call and its result, and an empty interrupted reply are skipped.
    expect(lines(kyoto)).toEqual([
      '2024-05-01T10:00:00.123Z +0 User [user]: What should I pack for a week in Kyoto in April?',
      '2024-05-01T10:00:10.250Z +0 ChatGPT [assistant]: April in Kyoto is mild (10–20 °C). Bring layers,\na light rain jacket and comfortable walking shoes.',
      '2024-05-01T10:01:40.000Z +0 User [user]: Thanks! And for the temples?',
      '2024-05-01T10:01:42.999Z +0 ChatGPT [assistant]: Modest clothing and socks — you take your shoes off inside.',
    ]);
    expect(kyoto.messages.map((m) => m.externalId)).toEqual(['u-1', 'a-1b', 'u-2', 'a-2']);
    expect(kyoto.messages[1]!.metadata).toEqual({ model: 'o3' });
    expect(kyoto.metadata).toMatchObject({ skipped: 6, messagesOnOtherBranches: 1, model: 'o3' });
  });

  it('records uploaded and generated images as linked media, in Chinese', async () => {
    const { conversations } = await readAll(chatgptImport, file);
    const lake = conversations[1]!;
    expect(lake.title).toBe('西湖照片');
    expect(lines(lake)).toEqual([
      '2024-06-01T10:00:00.500Z +0 User [user]: 这张照片是在哪里拍的？',
      '2024-06-01T10:00:12.750Z +0 ChatGPT [assistant]: 看起来是杭州西湖的断桥，背景是保俶塔。',
      // No create_time in the export: the previous message's time, flagged.
      '2024-06-01T10:00:12.750Z +0 User [user]: 帮我画一幅西湖的水彩画',
      '2024-06-01T10:02:10.000Z +0 ChatGPT [assistant]: ',
      '2024-06-01T10:02:11.000Z +0 ChatGPT [assistant]: 这是一幅西湖水彩画。',
    ]);
    expect(lake.messages[0]!.attachments).toEqual([
      { kind: 'image', name: '西湖.jpg', mimeType: 'image/jpeg', uri: 'file-service://file-AbC123' },
    ]);
    expect(lake.messages[2]!.metadata).toEqual({ timeEstimated: true });
    expect(lake.messages[3]!.attachments).toEqual([{ kind: 'image', uri: 'sediment://file_0001', caption: 'A watercolor of West Lake' }]);
    expect(lake.messages[3]!.metadata).toEqual({ tool: 'dalle.text2im' });
    expect(lake.metadata.skipped).toBe(1);
  });

  it('reads old exports without current_node or conversation_id', async () => {
    const { conversations } = await readAll(chatgptImport, file);
    const old = conversations[2]!;
    expect(old.title).toBeUndefined();
    expect(lines(old)).toEqual([
      '2023-01-01T00:00:00.000Z +0 User [user]: Happy new year! Write me a haiku.',
      '2023-01-01T00:00:03.000Z +0 ChatGPT [assistant]: Fresh snow on the step —\nthe calendar turns its page,\nkettle starts to sing.',
    ]);
  });

  it('keeps what was said in voice mode: the transcript as text, the recording as linked audio', async () => {
    const { conversations } = await readAll(chatgptImport, file);
    const voice = conversations[3]!;
    expect(lines(voice)).toEqual([
      '2024-07-01T02:13:21.000Z +0 User [user]: 明天北京会下雨吗？',
      '2024-07-01T02:13:24.500Z +0 ChatGPT [assistant]: Tomorrow Beijing expects light rain in the afternoon.',
    ]);
    expect(voice.messages[0]!.attachments).toEqual([{ kind: 'audio', uri: 'file-service://file-Voice1' }]);
  });

  it('reads the export zip the same way, linking images to the archive members they point at', async () => {
    const zip = writeZip(path.join(dir, 'chatgpt-export.zip'), [
      { name: 'file-AbC123-西湖.jpg', data: Buffer.alloc(64), store: true },
      { name: 'chat.html', data: '<html></html>' },
      { name: 'conversations.json', data: fs.readFileSync(file) },
      { name: 'user.json', data: '{"id":"user-1","email":"a@example.com"}' },
    ]);
    expect((await detectFormat(zip)).id).toBe('chatgpt');
    const fromZip = await readAll(chatgptImport, zip);
    const fromJson = await readAll(chatgptImport, file);
    expect(fromZip.conversations[1]!.messages[0]!.attachments).toEqual([
      { kind: 'image', name: '西湖.jpg', mimeType: 'image/jpeg', uri: `${zip}#file-AbC123-西湖.jpg` },
    ]);
    // The rest is as read from conversations.json; the generated image is not in this archive.
    fromZip.conversations[1]!.messages[0]!.attachments = fromJson.conversations[1]!.messages[0]!.attachments;
    expect(fromZip.conversations).toEqual(fromJson.conversations);
  });

  it('links images to the files of an unzipped export, one folder down too', async () => {
    const folder = path.join(dir, 'unzipped');
    fs.mkdirSync(path.join(folder, 'dalle-generations'), { recursive: true });
    fs.copyFileSync(file, path.join(folder, 'conversations.json'));
    fs.writeFileSync(path.join(folder, 'file-AbC123-西湖.jpg'), Buffer.alloc(8));
    fs.writeFileSync(path.join(folder, 'dalle-generations', 'file_0001-watercolor.webp'), Buffer.alloc(8));
    const { conversations } = await readAll(chatgptImport, path.join(folder, 'conversations.json'));
    const lake = conversations[1]!;
    expect(lake.messages[0]!.attachments[0]!.uri).toBe(path.join(folder, 'file-AbC123-西湖.jpg'));
    expect(lake.messages[3]!.attachments).toEqual([
      { kind: 'image', uri: path.join(folder, 'dalle-generations', 'file_0001-watercolor.webp'), caption: 'A watercolor of West Lake' },
    ]);
  });

  it('names the file and the line of malformed or truncated input', async () => {
    const text = fs.readFileSync(file, 'utf8');
    const cut = writeTemp(path.join('truncated', 'conversations.json'), text.slice(0, 5000));
    await expect(readAll(chatgptImport, cut)).rejects.toThrow(
      /truncated[\\/]conversations\.json: line \d+, column \d+: the file ends in the middle of the data/,
    );

    const bad = writeTemp(
      path.join('bad', 'conversations.json'),
      text.replace('"create_time": 1717236012.75', '"create_time": "yesterday"'),
    );
    const line = text.split('\n').findIndex((l) => l.includes('"create_time": 1717236012.75')) + 1;
    await expect(readAll(chatgptImport, bad)).rejects.toThrow(
      new RegExp(
        `bad[\\\\/]conversations\\.json: line ${line}, column 26 \\(byte \\d+\\): conversation 2: mapping\\.a-1\\.message\\.create_time: `,
      ),
    );
  });

  it('points into a minified export (one line, as ChatGPT writes it) by column and byte', async () => {
    const minified = JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8'))).replace(
      '"create_time":1717236012.75',
      '"create_time":"昨天"',
    );
    const bad = writeTemp(path.join('minified', 'conversations.json'), minified);
    const at = minified.indexOf('"昨天"');
    const byte = Buffer.byteLength(minified.slice(0, at));
    expect(byte).toBeGreaterThan(at); // Chinese titles before it: bytes and columns differ.
    await expect(readAll(chatgptImport, bad)).rejects.toThrow(
      `conversations.json: line 1, column ${at + 1} (byte ${byte}): conversation 2: mapping.a-1.message.create_time:`,
    );
  });

  it('detects ChatGPT exports and nothing else', () => {
    const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');
    expect(chatgptImport.detect({ path: file, head: head(file) })).toBe(true);
    for (const other of ['claude/conversations.json', 'telegram/result.json', 'discord/channel.json', 'messenger/inbox/message_1.json']) {
      const p = fixture('ingest', ...other.split('/'));
      if (fs.existsSync(p)) expect(chatgptImport.detect({ path: p, head: head(p) }), other).toBe(false);
    }
  });
});
