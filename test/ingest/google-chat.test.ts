import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { googleChatImport } from '../../core/ingest/google-chat.js';
import { fixture } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { lines, readAll } from './read-all.js';

const space = fixture('ingest', 'google-chat', 'Takeout', 'Google Chat', 'Groups', 'Space AAAAx9k2');
const file = path.join(space, 'messages.json');

describe('Google Chat (Takeout)', () => {
  it('reads a space: its name and members, written-out UTC times, attachments; skips deleted messages', async () => {
    expect((await detectFormat(file)).id).toBe('google-chat');
    const { conversations, warnings } = await readAll(googleChatImport, file);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0]!;
    expect(c).toMatchObject({
      source: 'google-chat',
      externalId: 'Space AAAAx9k2',
      title: '周末徒步 Weekend hikes',
      participants: ['Lin Wei', '王芳'],
      metadata: { skipped: 1 },
    });
    expect(lines(c)).toEqual([
      '2024-03-02T01:05:09.000Z +0 王芳 [other]: 明天去香山吗？',
      '2024-03-02T13:06:30.000Z +0 Lin Wei [other]: Yes! Here is the trail map.',
      '2024-03-03T00:00:00.000Z +0 王芳 [other]: 好的，八点见',
    ]);
    expect(c.messages.map((m) => m.externalId)).toEqual(['AAAAx9k2/t1/t1', 'AAAAx9k2/t1/m2', 'AAAAx9k2/t1/m4']);
    expect(c.messages[1]!.attachments).toEqual([
      { kind: 'file', name: 'xiangshan-trail.pdf', uri: path.join(space, 'File-xiangshan-trail.pdf') },
    ]);
  });

  it('refuses an impossible time with the file and the line', async () => {
    const bad = writeTemp(
      'DM x/messages.json',
      fs.readFileSync(file, 'utf8').replace('Sunday, March 3, 2024 at 12:00:00 AM UTC', 'Friday, February 30, 2024 at 13:00:00 PM UTC'),
    );
    await expect(readAll(googleChatImport, bad)).rejects.toThrow(
      /messages\.json: line 27, column 23 \(byte \d+\): message 4: created_date: .*not a real date/,
    );
  });
});
