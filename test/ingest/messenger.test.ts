import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messengerImport, repairMojibake } from '../../core/ingest/messenger.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { lines, readAll } from './read-all.js';

const thread = fixture('ingest', 'messenger', 'your_facebook_activity', 'messages', 'inbox', 'zhangwei_10158123');
const part1 = path.join(thread, 'message_1.json');
const part2 = path.join(thread, 'message_2.json');
const exportRoot = fixture('ingest', 'messenger');
const dir = tempDir('nemori-messenger-');
const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

describe('Messenger / Instagram export', () => {
  it('repairs mojibake only where it is mojibake', () => {
    expect(repairMojibake('Gr\u00c3\u00bc\u00c3\u009fe')).toBe('Grüße');
    expect(repairMojibake('\u00e5\u00bc\u00a0\u00e4\u00bc\u009f')).toBe('张伟');
    expect(repairMojibake('\u00f0\u009f\u008d\u00ba')).toBe('🍺');
    expect(repairMojibake('Café')).toBe('Café'); // Real Latin-1 "é" is not valid UTF-8 on its own.
    expect(repairMojibake('张伟')).toBe('张伟'); // Already Unicode.
    expect(repairMojibake('plain')).toBe('plain');
  });

  it('reads the end-to-end encrypted layout: camelCase, plain participant names, a flat media list', async () => {
    const file = fixture('ingest', 'messenger', 'e2ee', 'linwei_7281.json');
    expect(messengerImport.detect({ path: file, head: head(file) })).toBe(true);
    const { conversations, warnings } = await readAll(messengerImport, file);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expect(c).toMatchObject({ source: 'messenger', externalId: 'e2ee/linwei_7281', title: '张伟', participants: ['Lin Wei', '张伟'] });
    expect(c.metadata).toMatchObject({ skipped: 1 });
    expect(lines(c)).toEqual([
      '2024-06-01T07:00:00.000Z +0 张伟 [other]: 周六去西湖骑车吗？',
      '2024-06-01T07:01:02.500Z +0 Lin Wei [other]: Sure — meet at Duanqiao at 9?',
      '2024-06-01T07:01:40.000Z +0 张伟 [other]: 路线图',
    ]);
    expect(c.messages[0]!.metadata).toEqual({ reactions: [{ reaction: '❤', actor: 'Lin Wei' }] });
    expect(c.messages[2]!.attachments).toEqual([
      { kind: 'image', name: 'route_map.jpg', uri: path.join(path.dirname(file), 'media', 'route_map.jpg') },
    ]);
  });

  it('reads Instagram DMs from the Accounts Center download (the same shape, under your_instagram_activity)', async () => {
    const file = fixture('ingest', 'instagram', 'your_instagram_activity', 'messages', 'inbox', 'chenchen_1784', 'message_1.json');
    expect(messengerImport.detect({ path: file, head: head(file) })).toBe(true);
    const { conversations } = await readAll(messengerImport, file);
    const c = conversations[0]!;
    expect(c).toMatchObject({ source: 'instagram', externalId: 'inbox/chenchen_1784', title: '陈晨', participants: ['陈晨', 'Alex Kim'] });
    expect(lines(c)).toEqual([
      '2024-06-10T06:18:20.000Z +0 陈晨 [other]: 外滩今天好美',
      '2024-06-10T06:20:00.000Z +0 Alex Kim [other]: Did you see the sunset at the Bund?',
      '2024-06-10T06:21:00.000Z +0 陈晨 [other]: 照片发你了 📷',
    ]);
    expect(c.messages[2]!.attachments).toEqual([
      {
        kind: 'image',
        name: 'sunset_1.jpg',
        uri: fixture('ingest', 'instagram', 'your_instagram_activity', 'messages', 'inbox', 'chenchen_1784', 'photos', 'sunset_1.jpg'),
      },
    ]);
  });

  it('reads a thread file (BOM, newest first) oldest first, repaired, with media and reactions', async () => {
    const { conversations, warnings } = await readAll(messengerImport, part1);
    expect(warnings).toEqual([]);
    const c = conversations[0]!;
    expect(c).toMatchObject({
      source: 'messenger',
      externalId: 'inbox/zhangwei_10158123',
      title: '张伟',
      metadata: { skipped: 2, part: 1 },
    });
    expect(c.participants).toEqual(['张伟', 'Anna Müller']);
    expect(lines(c)).toEqual([
      '2024-05-20T18:00:00.000Z +0 张伟 [other]: 下周我去慕尼黑出差，见个面吧？',
      '2024-05-20T18:05:00.000Z +0 张伟 [other]: ',
      '2024-05-20T18:20:00.000Z +0 Anna Müller [other]: Anna Müller shared a link.',
      '2024-05-20T18:29:00.000Z +0 张伟 [other]: ',
      '2024-05-20T18:30:00.250Z +0 Anna Müller [other]: Bis bald! Grüße aus München 🍺',
    ]);
    const media = (name: string) => path.join(exportRoot, 'your_facebook_activity', 'messages', 'inbox', 'zhangwei_10158123', name);
    expect(c.messages[1]!.attachments).toEqual([
      { kind: 'sticker', name: '369239263222822.png', uri: media('stickers_used/369239263222822.png') },
    ]);
    expect(c.messages[2]!.attachments).toEqual([
      { kind: 'link', uri: 'https://www.example.com/biergarten', caption: 'Der schönste Biergarten' },
    ]);
    expect(c.messages[3]!.attachments).toEqual([{ kind: 'image', name: '448812345_1.jpg', uri: media('photos/448812345_1.jpg') }]);
    expect(c.messages[4]!.metadata).toEqual({ reactions: [{ reaction: '❤', actor: '张伟' }] });
  });

  it('gives every file of a thread the same conversation id', async () => {
    const { conversations } = await readAll(messengerImport, part2);
    expect(conversations[0]).toMatchObject({ externalId: 'inbox/zhangwei_10158123', metadata: { skipped: 1, part: 2 } });
    expect(lines(conversations[0]!)).toEqual(['2023-12-24T20:00:00.000Z +0 Anna Müller [other]: Frohe Weihnachten! 圣诞快乐！']);
  });

  it('names the file and the line of malformed or truncated input', async () => {
    const text = fs.readFileSync(part1, 'utf8');
    const cut = path.join(dir, 'message_1.json');
    fs.writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)));
    await expect(readAll(messengerImport, cut)).rejects.toThrow(
      /message_1\.json: line \d+, column \d+: the file ends in the middle of the data/,
    );

    const bad = path.join(dir, 'message_9.json');
    const original = '"timestamp_ms": 1716228000000';
    fs.writeFileSync(bad, text.replace(original, '"timestamp_ms": "2024-05-20"'));
    const line = text.split('\n').findIndex((l) => l.includes(original)) + 1;
    await expect(readAll(messengerImport, bad)).rejects.toThrow(
      new RegExp(`message_9\\.json: line ${line}, column \\d+ \\(byte \\d+\\): message 7: timestamp_ms: `),
    );
  });

  it('detects Messenger files and nothing else', () => {
    expect(messengerImport.detect({ path: part1, head: head(part1) })).toBe(true);
    expect(messengerImport.detect({ path: part2, head: head(part2) })).toBe(true);
    for (const other of [
      'chatgpt/conversations.json',
      'claude/conversations.json',
      'telegram/single/result.json',
      'discord/channel.json',
    ]) {
      const p = fixture('ingest', ...other.split('/'));
      expect(messengerImport.detect({ path: p, head: head(p) }), other).toBe(false);
    }
  });
});
