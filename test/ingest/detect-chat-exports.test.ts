import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatgptImport } from '../../core/ingest/chatgpt.js';
import { claudeImport } from '../../core/ingest/claude.js';
import { googleChatImport } from '../../core/ingest/google-chat.js';
import { discordImport } from '../../core/ingest/discord.js';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { messengerImport } from '../../core/ingest/messenger.js';
import { skypeImport } from '../../core/ingest/skype.js';
import { slackImport } from '../../core/ingest/slack.js';
import { telegramImport } from '../../core/ingest/telegram.js';
import { fixture } from '../helpers/engine.js';

/** Every chat-export fixture against every JSON-export importer: each file is claimed by its own only. */

const mine = [chatgptImport, claudeImport, telegramImport, discordImport, messengerImport, slackImport, googleChatImport, skypeImport];
const thread = ['messenger', 'your_facebook_activity', 'messages', 'inbox', 'zhangwei_10158123'];
const own: Record<string, string[][]> = {
  chatgpt: [['chatgpt', 'conversations.json']],
  claude: [['claude', 'conversations.json']],
  telegram: [
    ['telegram', 'single', 'result.json'],
    ['telegram', 'account', 'result.json'],
    ['telegram', 'old', 'result.json'],
  ],
  discord: [['discord', 'channel.json']],
  messenger: [
    [...thread, 'message_1.json'],
    [...thread, 'message_2.json'],
    ['messenger', 'e2ee', 'linwei_7281.json'],
    ['instagram', 'your_instagram_activity', 'messages', 'inbox', 'chenchen_1784', 'message_1.json'],
  ],
  slack: [['slack', 'export', 'channels.json']],
  skype: [['skype', 'messages.json']],
  'google-chat': [['google-chat', 'Takeout', 'Google Chat', 'Groups', 'Space AAAAx9k2', 'messages.json']],
};

/** Every other file under the fixtures: other importers' exports, Slack's own side files, generic JSON. */
function allFixtureFiles(): string[] {
  const roots = [fixture('ingest'), fixture('import')];
  return roots.flatMap((r) =>
    (fs.readdirSync(r, { recursive: true, withFileTypes: true }) as fs.Dirent[])
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name)),
  );
}

const head = (p: string) => fs.readFileSync(p).subarray(0, 65536).toString('utf8');

describe('detection of chat exports', () => {
  it('picks the right importer for each export', async () => {
    for (const [id, files] of Object.entries(own)) {
      for (const f of files) expect((await detectFormat(fixture('ingest', ...f))).id, f.join('/')).toBe(id);
    }
  });

  it('claims no file of another format', () => {
    const owned = new Map(Object.entries(own).flatMap(([id, files]) => files.map((f) => [fixture('ingest', ...f), id] as const)));
    for (const file of allFixtureFiles()) {
      for (const format of mine) {
        if (owned.get(file) === format.id) continue;
        expect(format.detect({ path: file, head: head(file) }), `${format.id} on ${path.relative(fixture(), file)}`).toBe(false);
      }
    }
  });
});
