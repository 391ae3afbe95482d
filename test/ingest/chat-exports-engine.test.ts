import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { fixture, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { writeZip } from './zip-writer.js';

/** End to end through the engine: detection, the validate-then-store passes, idempotent re-import. */

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

const dir = tempDir('nemori-exports-');
const messengerThread = fixture('ingest', 'messenger', 'your_facebook_activity', 'messages', 'inbox', 'zhangwei_10158123');

function slackZip(): string {
  const root = fixture('ingest', 'slack', 'export');
  const entries = fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const full = path.join(e.parentPath, e.name);
      return { name: path.relative(root, full).split(path.sep).join('/'), data: fs.readFileSync(full) };
    });
  return writeZip(path.join(dir, 'slack-export.zip'), entries);
}

const cases = [
  { format: 'chatgpt', file: () => fixture('ingest', 'chatgpt', 'conversations.json'), conversations: 4, messages: 13 },
  { format: 'claude', file: () => fixture('ingest', 'claude', 'conversations.json'), conversations: 2, messages: 5 },
  { format: 'telegram', file: () => fixture('ingest', 'telegram', 'single', 'result.json'), conversations: 1, messages: 8 },
  { format: 'telegram', file: () => fixture('ingest', 'telegram', 'account', 'result.json'), conversations: 4, messages: 7 },
  { format: 'discord', file: () => fixture('ingest', 'discord', 'channel.json'), conversations: 1, messages: 5 },
  { format: 'messenger', file: () => path.join(messengerThread, 'message_1.json'), conversations: 1, messages: 5 },
  { format: 'slack', file: slackZip, conversations: 3, messages: 11 },
];

describe('chat exports through the engine', () => {
  for (const c of cases) {
    it(`detects and imports ${c.format} (${path.basename(c.file())}), and re-importing adds nothing`, async () => {
      const ownerId = newOwner(c.format);
      const file = c.file();
      expect((await detectFormat(file)).id).toBe(c.format);
      const out = await engine.call('importFiles', { ownerId, paths: [file] });
      expect(out.files[0]).toMatchObject({
        error: null,
        format: c.format,
        conversations: c.conversations,
        messages: c.messages,
        messagesAdded: c.messages,
      });
      const stats = (await engine.call('stats', { ownerId })).owners[0]!;
      expect(stats).toMatchObject({ conversations: c.conversations, messages: c.messages });
      const again = await engine.call('importFiles', { ownerId, paths: [file] });
      expect(again.files[0]).toMatchObject({ error: null, messagesAdded: 0 });
      expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: c.conversations, messages: c.messages });
    });
  }

  it("titles the episodes of a ChatGPT or Claude conversation by its subject, not a chat app's by its contact", async () => {
    const titles = async (file: string) => {
      const ownerId = newOwner('titles');
      await engine.call('importFiles', { ownerId, paths: [file] });
      return (await engine.call('listEpisodes', { ownerId, limit: 50 })).episodes.map((e) => e.title);
    };
    // ChatGPT titled it "Packing for Kyoto"; Claude named its two conversations.
    expect(await titles(fixture('ingest', 'chatgpt', 'conversations.json'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^User and ChatGPT on Packing for Kyoto( and |$)/)]),
    );
    const claude = JSON.parse(fs.readFileSync(fixture('ingest', 'claude', 'conversations.json'), 'utf8')) as { name: string }[];
    const claudeTitles = await titles(fixture('ingest', 'claude', 'conversations.json'));
    for (const { name } of claude.filter((c) => c.name.trim())) expect(claudeTitles.join('\n')).toContain(name);
    // A Telegram chat is named after the person talked with: that is no subject.
    expect((await titles(fixture('ingest', 'telegram', 'single', 'result.json'))).join('\n')).not.toMatch(/on 王小明\b/);
  });

  it('merges the message_N.json files of one Messenger thread into one conversation', async () => {
    const ownerId = newOwner('messenger');
    const paths = [path.join(messengerThread, 'message_2.json'), path.join(messengerThread, 'message_1.json')];
    const out = await engine.call('importFiles', { ownerId, paths });
    expect(out.files.map((f) => f.messagesAdded)).toEqual([1, 5]);
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 1, messages: 6 });
    const again = await engine.call('importFiles', { ownerId, paths: [paths[1]!] });
    expect(again.files[0]!.messagesAdded).toBe(0);
  });

  it('stores nothing from a malformed file, names it and the line, and still imports the other files', async () => {
    const ownerId = newOwner('broken');
    // The damage is in the last conversation/message: a streaming importer has already read the good ones.
    const chatgpt = fs.readFileSync(fixture('ingest', 'chatgpt', 'conversations.json'), 'utf8');
    const brokenChatgpt = writeTemp(path.join('chatgpt-broken', 'conversations.json'), chatgpt.slice(0, chatgpt.lastIndexOf('"m2"')));
    const telegram = fs.readFileSync(fixture('ingest', 'telegram', 'account', 'result.json'), 'utf8');
    const brokenTelegram = writeTemp(path.join('telegram-broken', 'result.json'), telegram.replace('"id": 10,', '"id": "ten",'));
    const discord = fs.readFileSync(fixture('ingest', 'discord', 'channel.json'), 'utf8');
    const brokenDiscord = path.join(dir, 'discord-broken.json');
    fs.writeFileSync(brokenDiscord, discord.slice(0, discord.lastIndexOf('Gear list')));
    const claude = fs.readFileSync(fixture('ingest', 'claude', 'conversations.json'), 'utf8');
    const brokenClaude = path.join(dir, 'claude-broken.json');
    fs.writeFileSync(
      brokenClaude,
      claude.replace(
        '"sender": "assistant",\n        "created_at": "2024-07-06T01:00:15.000000Z"',
        '"sender": "assistant",\n        "created_at": 5',
      ),
    );
    const messenger = fs.readFileSync(path.join(messengerThread, 'message_1.json'), 'utf8');
    const brokenMessenger = path.join(dir, 'message_1.json');
    fs.writeFileSync(brokenMessenger, messenger.slice(0, messenger.lastIndexOf('"title"')));
    const slackEntries = [
      { name: 'users.json', data: '[]' },
      { name: 'channels.json', data: '[{"id":"C1","name":"general"}]' },
      {
        name: 'general/2024-01-01.json',
        data: '[{"type":"message","text":"hi","user":"U1","ts":"1704067200.000100"},{"type":"message","text":"bye","user":"U1","ts":',
      },
    ];
    const brokenSlack = writeZip(path.join(dir, 'slack-broken.zip'), slackEntries);
    const good = fixture('ingest', 'discord', 'channel.json');

    const out = await engine.call('importFiles', {
      ownerId,
      paths: [brokenChatgpt, brokenTelegram, brokenDiscord, brokenClaude, brokenMessenger, brokenSlack, good],
    });
    const errors = out.files.map((f) => f.error?.message ?? null);
    expect(errors[0]).toMatch(/chatgpt-broken[\\/]conversations\.json: line \d+, column \d+: the file ends in the middle/);
    expect(errors[1]).toMatch(/telegram-broken[\\/]result\.json: line \d+, column \d+ \(byte \d+\): message ten: id: /);
    expect(errors[2]).toMatch(/discord-broken\.json: line \d+, column \d+: the file ends in the middle/);
    expect(errors[3]).toMatch(/claude-broken\.json: line \d+, column \d+ \(byte \d+\): conversation 2: chat_messages\[1\]\.created_at: /);
    expect(errors[4]).toMatch(/message_1\.json: line \d+, column \d+: the file ends in the middle/);
    expect(errors[5]).toMatch(/slack-broken\.zip \(general\/2024-01-01\.json\): line 1, column \d+: the file ends in the middle/);
    expect(errors[6]).toBeNull();
    for (const f of out.files.slice(0, 6)) expect(f.error?.code).toBe('IMPORT_PARSE');
    // Only the good file's conversation is stored.
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 1, messages: 5 });
  });

  it('imports every export in a folder, each in its own format, beside the Markdown journal', async () => {
    const ownerId = newOwner('folder');
    const folder = path.join(dir, 'mixed-folder');
    fs.mkdirSync(path.join(folder, 'journal'), { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'journal', '2024-03-05.md'),
      '# 2024-03-05\n\n去苏州玩了一天：上午逛拙政园，下午在平江路喝茶，晚上坐高铁回上海。A long day, worth it.\n',
    );
    fs.mkdirSync(path.join(folder, 'Telegram', 'photos'), { recursive: true });
    fs.copyFileSync(fixture('ingest', 'telegram', 'single', 'result.json'), path.join(folder, 'Telegram', 'result.json'));
    fs.writeFileSync(path.join(folder, 'Telegram', 'photos', 'photo_1.jpg'), Buffer.from([0xff, 0xd8, 0xff]));
    fs.writeFileSync(path.join(folder, 'todo.txt'), 'not an export\n');
    const out = await engine.call('importFiles', { ownerId, paths: [folder] });
    expect(out.files.map((f) => [path.relative(folder, f.file), f.format, f.error])).toEqual([
      ['', 'markdown', null],
      [path.join('Telegram', 'result.json'), 'telegram', null],
    ]);
    expect(out.files.map((f) => f.messages)).toEqual([1, 8]);
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 2, messages: 9 });
  });
});
