import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { slackImport } from '../../core/ingest/slack.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { lines, readAll } from './read-all.js';
import { writeZip, type ZipInput } from './zip-writer.js';

const exportDir = fixture('ingest', 'slack', 'export');
const dir = tempDir('nemori-slack-');
const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

/** The fixture folder as Slack ships it: a zip, members in any order. */
function exportEntries(root = exportDir, prefix = ''): ZipInput[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? exportEntries(path.join(root, e.name), `${prefix}${e.name}/`)
        : [{ name: prefix + e.name, data: fs.readFileSync(path.join(root, e.name)) }],
    );
}
const zip = writeZip(path.join(dir, 'Acme Slack export Mar 1 2024 - Mar 12 2024.zip'), exportEntries().reverse());

describe('Slack export', () => {
  it('makes one conversation per channel with names, mentions, threads and each sender’s offset', async () => {
    // Told the export was made in Shanghai: senders without a zone of their own (a bot, a deactivated
    // account) are on its calendar.
    const { conversations, warnings } = await readAll(slackImport, zip, 'Asia/Shanghai');
    expect(warnings).toEqual([]);
    // #random has no day files: nothing was said there.
    expect(conversations.map((c) => [c.externalId, c.title, c.messages.length, c.metadata.skipped])).toEqual([
      ['C01GENERAL', '#general', 8, 3],
      ['C02CHINA', '#china-team', 2, 0],
      ['D01DM', 'Alice Chen, 王芳', 1, 1],
    ]);
    const general = conversations[0]!;
    expect(general.source).toBe('slack');
    expect(general.participants).toEqual(['Alice Chen', '王芳', 'Bob Old']);
    expect(general.metadata).toMatchObject({ kind: 'channel', topic: 'Company-wide announcements', purpose: 'Everyone' });
    // Alice is in Los Angeles: -480 before the DST switch on 2024-03-10 10:00 UTC, -420 after.
    expect(lines(general)).toEqual([
      '2024-03-09T16:05:00.000Z -480 Alice Chen [other]: Welcome @王芳! Plan is in the doc (https://example.com/plan) & #china-team.',
      '2024-03-09T17:00:00.000Z -480 Alice Chen [other]: Who can review the launch checklist?',
      '2024-03-10T09:30:00.000Z +480 王芳 [other]: 我来看一下 :eyes:',
      '2024-03-10T10:30:00.000Z -420 Alice Chen [other]: Thanks! Merging after lunch.',
      '2024-03-10T11:00:00.000Z +480 王芳 [other]: Checklist reviewed, all good for Monday.',
      '2024-03-11T08:30:00.000Z +480 deploybot [other]: Deploy v2.3.0 succeeded',
      '2024-03-11T09:00:00.000Z -420 Alice Chen [other]: Slides for Monday',
      '2024-03-11T09:02:00.000Z +480 Bob Old [other]: old message from a deactivated account',
    ]);
    const parentTs = general.messages[1]!.metadata.threadTs;
    expect(general.messages[1]!.metadata).toEqual({ userId: 'U01ALICE', threadTs: parentTs, replyCount: 2 });
    expect(general.messages[2]!.metadata).toEqual({
      userId: 'U02FANG',
      threadTs: parentTs,
      threadReply: true,
      editedAt: '2024-03-10T09:31:00.000Z',
    });
    expect(general.messages[4]!.metadata).toMatchObject({ subtype: 'thread_broadcast', threadReply: true });
    expect(general.messages[0]!.metadata).toMatchObject({ reactions: [{ name: 'wave', count: 1 }] });
    expect(general.messages.map((m) => m.externalId)).toEqual([
      '6f1c0000-0000-4000-8000-000000000001',
      '6f1c0000-0000-4000-8000-000000000002',
      '6f1c0000-0000-4000-8000-000000000003',
      '6f1c0000-0000-4000-8000-000000000004',
      // No client_msg_id (bots, broadcasts, old messages): the channel-unique ts.
      '1710068400.000000',
      '1710145800.000000',
      '6f1c0000-0000-4000-8000-000000000005',
      '1710147720.000000',
    ]);
    expect(general.messages[6]!.attachments).toEqual([
      {
        kind: 'file',
        name: 'launch-slides.pdf',
        mimeType: 'application/pdf',
        uri: 'https://files.slack.com/files-pri/T01-F01/launch-slides.pdf',
      },
    ]);
    expect(lines(conversations[1]!)).toEqual([
      '2024-03-11T01:00:00.000Z +480 王芳 [other]: 下周一上线，<注意>时区：北京时间早上9点',
      '2024-03-11T01:05:00.000Z -420 Alice Chen [other]: 收到，会准时参加',
    ]);
  });

  it('reads an unzipped export through its channels.json the same way', async () => {
    const channels = path.join(exportDir, 'channels.json');
    expect(slackImport.detect({ path: channels, head: head(channels) })).toBe(true);
    expect((await readAll(slackImport, channels)).conversations).toEqual((await readAll(slackImport, zip)).conversations);
  });

  it('names the archive, the member and the line of malformed or truncated input', async () => {
    const entries = exportEntries();
    const day = entries.find((e) => e.name === 'general/2024-03-10.json')!;
    const text = day.data.toString();
    const cut = writeZip(
      path.join(dir, 'cut.zip'),
      entries.map((e) => (e === day ? { ...e, data: text.slice(0, 300) } : e)),
    );
    await expect(readAll(slackImport, cut)).rejects.toThrow(
      /cut\.zip \(general\/2024-03-10\.json\): line \d+, column \d+: the file ends in the middle of the data/,
    );

    const bad = writeZip(
      path.join(dir, 'bad.zip'),
      entries.map((e) => (e === day ? { ...e, data: text.replace('"ts": "1710063000.000000"', '"ts": 1710063000') } : e)),
    );
    const line = text.split('\n').findIndex((l) => l.includes('"ts": "1710063000.000000"')) + 1;
    await expect(readAll(slackImport, bad)).rejects.toThrow(
      new RegExp(`bad\\.zip \\(general/2024-03-10\\.json\\): line ${line}, column \\d+ \\(byte \\d+\\): message 2: ts: `),
    );

    const notZip = path.join(dir, 'not-a-zip.zip');
    fs.writeFileSync(notZip, 'PK\u0003\u0004 but then nothing');
    await expect(readAll(slackImport, notZip)).rejects.toThrow(/not-a-zip\.zip: byte 21: not a zip archive, or the archive is truncated/);
  });

  it('detects Slack exports and nothing else', () => {
    expect(slackImport.detect({ path: zip, head: head(zip) })).toBe(true);
    const chatgptZip = writeZip(path.join(dir, 'chatgpt.zip'), [
      { name: 'conversations.json', data: '[]' },
      { name: 'chat.html', data: '' },
    ]);
    expect(slackImport.detect({ path: chatgptZip, head: head(chatgptZip) })).toBe(false);
    const users = path.join(exportDir, 'users.json');
    expect(slackImport.detect({ path: users, head: head(users) })).toBe(false);
  });
});
