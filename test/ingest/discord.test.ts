import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discordImport } from '../../core/ingest/discord.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { lines, readAll } from './read-all.js';

const file = fixture('ingest', 'discord', 'channel.json');
const dir = tempDir('nemori-discord-');
const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

describe('Discord (DiscordChatExporter JSON)', () => {
  it('keeps what people wrote (nickname over name), not calls, pins, joins or renames', async () => {
    const { conversations, warnings } = await readAll(discordImport, file);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expect(c).toMatchObject({
      source: 'discord',
      externalId: '910000000000000001',
      title: 'Hiking Club 徒步俱乐部 / #weekend-plans',
      metadata: { skipped: 5, guild: 'Hiking Club 徒步俱乐部', category: 'Trips', topic: 'Where are we going this weekend?' },
    });
    expect(c.participants).toEqual(['美玲', 'Dave', 'RSS Bot']);
    // The exporter wrote local times with their offset: winter time, then summer time from March 31.
    expect(lines(c)).toEqual([
      '2024-03-29T08:05:12.345Z +60 美玲 [other]: 周六去香山怎么样？',
      "2024-03-30T09:00:00.000Z +60 Dave [other]: Count me in — I'll bring snacks",
      '2024-03-31T18:31:00.000Z +120 美玲 [other]: ',
      '2024-04-01T05:00:00.000Z +120 RSS Bot [other]: ',
      '2024-04-01T06:05:00.000Z +120 Dave [other]: ',
    ]);
    expect(c.messages[1]!.metadata).toEqual({
      authorName: 'dave.k',
      authorId: '100000000000000002',
      replyTo: '930000000000000002',
      editedAt: '2024-03-30T09:01:00.000Z',
    });
    expect(c.messages[2]!.attachments).toEqual([
      { kind: 'image', name: 'route-map.png', uri: 'https://cdn.discordapp.com/attachments/910/940/route-map.png' },
      // Downloaded with --media: a path relative to the JSON file.
      { kind: 'image', name: '路线.jpg', uri: path.join(path.dirname(file), 'channel.json_Files', '路线-940000000000000002.jpg') },
    ]);
    expect(c.messages[3]!.attachments).toEqual([
      { kind: 'link', uri: 'https://example.org/news/trail', caption: 'Trail closed for maintenance' },
    ]);
    expect(c.messages[3]!.metadata).toMatchObject({ bot: true });
    expect(c.messages[4]!.attachments).toEqual([
      { kind: 'sticker', name: 'thumbs up', uri: 'https://media.discordapp.net/stickers/1.png' },
    ]);
  });

  it('names the file and the line of malformed or truncated input', async () => {
    const text = fs.readFileSync(file, 'utf8');
    const cut = path.join(dir, 'cut.json');
    fs.writeFileSync(cut, text.slice(0, text.indexOf('香山')));
    await expect(readAll(discordImport, cut)).rejects.toThrow(/cut\.json: line \d+, column \d+: the file ends in the middle of the data/);

    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, text.replace('"2024-03-30T10:00:00+01:00"', '"30/03/2024 10:00"'));
    const line = text.split('\n').findIndex((l) => l.includes('"2024-03-30T10:00:00+01:00"')) + 1;
    await expect(readAll(discordImport, bad)).rejects.toThrow(
      new RegExp(`bad\\.json: line ${line}, column 20 \\(byte \\d+\\): message 3: timestamp: "30/03/2024 10:00" is not a time`),
    );
  });

  it('detects DiscordChatExporter files and nothing else', () => {
    expect(discordImport.detect({ path: file, head: head(file) })).toBe(true);
    for (const other of ['chatgpt/conversations.json', 'claude/conversations.json', 'telegram/single/result.json']) {
      const p = fixture('ingest', ...other.split('/'));
      expect(discordImport.detect({ path: p, head: head(p) }), other).toBe(false);
    }
  });
});
