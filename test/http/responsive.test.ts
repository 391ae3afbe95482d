/**
 * The window stays usable while a big import runs: with the engine busy importing 15,000 messages,
 * other calls (what the journal and search make) are still answered, mid-import. In the desktop app
 * the engine runs in its own utility process, so the window's thread is never involved at all; this
 * shows the engine itself interleaves work instead of holding everything until the import ends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { startWebServer, type WebServer } from '../../core/http/server.js';
import type { EngineEvent } from '../../core/api/wire.js';
import { openMemoryEngine, tempDir } from '../helpers/engine.js';
import { callOp, listen, until } from './client.js';

const CONVERSATIONS = 150;
const PER_CONVERSATION = 100; // 15,000 messages: about ten seconds of import, far longer than the calls take

function writeBigExport(): string {
  const file = path.join(tempDir('nemori-big-'), 'big.json');
  const conversations = Array.from({ length: CONVERSATIONS }, (_, c) => ({
    id: `c${c}`,
    messages: Array.from({ length: PER_CONVERSATION }, (_, m) => ({
      id: `c${c}m${m}`,
      speaker: m % 2 ? 'Ann' : '小明',
      text: m % 3 ? `message ${m} about the garden, topic ${c % 17}` : `第 ${m} 条消息，关于花园和话题 ${c % 17}`,
      timestamp: new Date(Date.UTC(2020, 0, 1) + c * 86_400_000 + m * 60_000).toISOString(),
    })),
  }));
  fs.writeFileSync(file, JSON.stringify({ conversations }));
  return file;
}

describe('while a 15k-message import runs', { timeout: 300_000 }, () => {
  let engine: Engine;
  let server: WebServer;

  beforeAll(async () => {
    engine = await openMemoryEngine();
    server = await startWebServer({ engine, staticDir: tempDir(), log: () => {} });
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
  });

  it('other calls are answered mid-import, with the import’s progress so far', async () => {
    const feed = await listen(server.port, server.token);
    let importFinished = false;
    const importing = callOp(server.port, server.token, 'importFiles', { paths: [writeBigExport()] }).then((reply) => {
      importFinished = true;
      return reply;
    });

    // Wait until the import is truly under way (some conversations stored), then ask for other things.
    await until(() => (feed.events as EngineEvent[]).some((e) => e.type === 'progress' && e.phase === 'import' && e.done > 0));
    const stats = await callOp(server.port, server.token, 'stats', {});
    const list = await callOp(server.port, server.token, 'listEpisodes', { limit: 5 });
    const answeredMidImport = !importFinished;

    expect(stats.status).toBe(200);
    expect(list.status).toBe(200);
    expect(
      answeredMidImport,
      'calls waited for the whole import: the import loop (core/api/handlers/imports.ts) never yields to the event loop between conversations',
    ).toBe(true);
    const messages = stats.json<{ owners: { messages: number }[] }>().owners[0]?.messages ?? 0;
    expect(messages).toBeGreaterThan(0);
    expect(messages).toBeLessThan(CONVERSATIONS * PER_CONVERSATION);

    const done = await importing;
    feed.close();
    expect(done.status).toBe(200);
    expect(done.json()).toMatchObject({
      files: [{ messages: CONVERSATIONS * PER_CONVERSATION, messagesAdded: CONVERSATIONS * PER_CONVERSATION, error: null }],
    });
  });
});
