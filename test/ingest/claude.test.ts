import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatgptImport } from '../../core/ingest/chatgpt.js';
import { claudeImport } from '../../core/ingest/claude.js';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { lines, readAll } from './read-all.js';
import { writeZip } from './zip-writer.js';

const file = fixture('ingest', 'claude', 'conversations.json');
const dir = tempDir('nemori-claude-');
const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

describe('Claude.ai export', () => {
  it('reads text blocks, appends attachments’ extracted text, skips empty messages', async () => {
    const { conversations, warnings } = await readAll(claudeImport, file);
    expect(warnings).toEqual([]);
    // The third conversation was opened and never used: nothing to remember.
    expect(conversations.map((c) => c.externalId)).toEqual([
      'c1a2b3c4-0000-4000-8000-000000000001',
      'c1a2b3c4-0000-4000-8000-000000000002',
    ]);
    const run = conversations[0]!;
    expect(run.source).toBe('claude');
    expect(run.title).toBe('Marathon training plan');
    expect(run.participants).toEqual(['User', 'Claude']);
    expect(lines(run)).toEqual([
      '2024-06-03T08:15:00.123Z +0 User [user]: I run 30 km a week. Can I do a marathon in October?\n\n[attached file: strava-may.csv]\ndate,km\n2024-05-01,8\n2024-05-03,10',
      '2024-06-03T08:15:09.500Z +0 Claude [assistant]: Yes — with 18 weeks you can build up safely.\n\nIncrease your weekly distance by about 10%.',
      '2024-06-03T08:16:00.000Z +0 User [user]: ',
    ]);
    expect(run.messages.map((m) => m.externalId)).toEqual(['m-0001', 'm-0002', 'm-0003']);
    expect(run.messages[0]!.attachments).toEqual([{ kind: 'file', name: 'strava-may.csv', mimeType: 'text/csv' }]);
    expect(run.messages[2]!.attachments).toEqual([{ kind: 'image', name: 'route.png' }]);
    expect(run.metadata.skipped).toBe(1);
  });

  it('falls back to the plain text of older exports, in Chinese', async () => {
    const { conversations } = await readAll(claudeImport, file);
    const trip = conversations[1]!;
    expect(trip.title).toBe('周末去苏州');
    expect(lines(trip)).toEqual([
      '2024-07-06T01:00:01.250Z +0 User [user]: 周末想去苏州玩两天，有什么推荐？',
      '2024-07-06T01:00:15.000Z +0 Claude [assistant]: 第一天逛拙政园和平江路，第二天去虎丘。',
    ]);
    expect(trip.metadata).toMatchObject({ skipped: 0, summary: '**对话概要** 用户计划周末去苏州。' });
  });

  it('reads the export zip, which holds users.json and projects.json too', async () => {
    const zip = writeZip(path.join(dir, 'data-2024-07-08-batch-0000.zip'), [
      { name: 'users.json', data: '[{"uuid":"acct-1","full_name":"Lin"}]' },
      { name: 'projects.json', data: '[]' },
      { name: 'conversations.json', data: fs.readFileSync(file) },
    ]);
    expect((await detectFormat(zip)).id).toBe('claude');
    expect(chatgptImport.detect({ path: zip, head: head(zip) })).toBe(false);
    expect((await readAll(claudeImport, zip)).conversations).toEqual((await readAll(claudeImport, file)).conversations);
  });

  it('names the file and the line of malformed or truncated input', async () => {
    const text = fs.readFileSync(file, 'utf8');
    const cut = path.join(dir, 'cut.json');
    fs.writeFileSync(cut, text.slice(0, text.indexOf('周末去苏州') + 3));
    await expect(readAll(claudeImport, cut)).rejects.toThrow(/cut\.json: line \d+, column \d+: the file ends in the middle of the data/);

    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, text.replace('"created_at": "2024-07-06T01:00:15.000000Z"', '"created_at": "2024-07-06 25:00:15Z"'));
    const line = text.split('\n').findIndex((l) => l.includes('"created_at": "2024-07-06T01:00:15.000000Z"')) + 1;
    await expect(readAll(claudeImport, bad)).rejects.toThrow(
      new RegExp(
        `bad\\.json: line ${line}, column \\d+ \\(byte \\d+\\): conversation 2: chat_messages\\[1\\]\\.created_at: "2024-07-06 25:00:15Z" is not a real date and time`,
      ),
    );
  });

  it('detects Claude exports and nothing else', () => {
    expect(claudeImport.detect({ path: file, head: head(file) })).toBe(true);
    const chatgpt = fixture('ingest', 'chatgpt', 'conversations.json');
    expect(claudeImport.detect({ path: chatgpt, head: head(chatgpt) })).toBe(false);
  });
});
