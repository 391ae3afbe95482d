/**
 * The watched folder through the bridge, as the app uses it: `nemori web`'s holder (startWeb) watches the
 * folder Settings chose, imports a file dropped there once it is whole — with the same events a window's
 * import sends — and, opened again on the same data folder, does not import it again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WatchedFolderView } from '../../core/api/contract.js';
import type { EngineEvent } from '../../core/api/wire.js';
import { resolveStartup } from '../../core/engine/startup.js';
import { startWeb } from '../../core/http/web.js';
import { tempDir } from '../helpers/engine.js';
import { offlineEnv } from '../helpers/mcp.js';
import { callOp, listen, until } from './client.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chat(id: string, lines: [string, string][]): string {
  const t0 = Date.parse('2024-03-02T09:00:00+08:00');
  return JSON.stringify({
    conversations: [
      {
        id,
        messages: lines.map(([speaker, text], n) => ({
          id: `${id}-${n}`,
          speaker,
          text,
          timestamp: new Date(t0 + n * 60_000).toISOString(),
        })),
      },
    ],
  });
}

const KAYAK = chat('kayak', [
  ['Ana', 'I finally bought the red kayak we saw at the harbour'],
  ['Ben', '太好了！周六去湖上划皮划艇吧'],
  ['Ana', 'Saturday works, I will bring the kayak paddles'],
]);
const PIANO = chat('piano', [
  ['Ana', 'The piano tuner comes on Tuesday at ten'],
  ['Ben', '好的，我会在家等调音师'],
]);

async function holder(root: string) {
  const env = offlineEnv(root);
  const staticDir = path.join(root, 'renderer');
  fs.mkdirSync(staticDir, { recursive: true });
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<div id="root"></div>');
  const { server, engine } = await startWeb({ startup: resolveStartup(undefined, env), staticDir, env, warn: () => {} });
  await engine;
  const feed = await listen(server.port, server.token);
  const call = async <T>(op: string, input: unknown): Promise<T> => {
    const reply = await callOp(server.port, server.token, op, input);
    expect(reply.status, reply.text).toBe(200);
    return reply.json<T>();
  };
  const imports = () =>
    (feed.events as EngineEvent[]).filter((e) => e.type === 'call' && e.operation === 'importFiles' && e.state === 'started');
  return {
    server,
    feed,
    call,
    imports,
    watched: () => call<WatchedFolderView>('getWatchedFolder', {}),
    async close() {
      feed.close();
      await server.close();
      await (await engine).close();
    },
  };
}

describe('watched folder', () => {
  it(
    'imports a file dropped while the holder runs once it is whole, reports failures once, and not again after a restart',
    { timeout: 240_000 },
    async () => {
      const root = tempDir('nemori-watch-');
      const folder = path.join(root, 'exports');
      fs.mkdirSync(folder);
      const first = await holder(root);
      let kayakImportedAt: string;
      let brokenImportedAt: string;
      try {
        // It names a path on this machine: a companion's token may neither set nor read it.
        for (const op of ['setWatchedFolder', 'getWatchedFolder'])
          expect((await callOp(first.server.port, first.server.companionToken, op, { folder })).status, op).toBe(403);

        const set = await first.call<WatchedFolderView>('setWatchedFolder', { folder });
        expect(set).toMatchObject({ folder, ownerId: 'default', watching: true, problem: null, recent: [] });

        // Names of files still being written (a browser's download, an editor's lock, a dotfile): never imported.
        fs.writeFileSync(path.join(folder, 'piano.json.crdownload'), PIANO);
        fs.writeFileSync(path.join(folder, '.piano.json'), PIANO);
        fs.writeFileSync(path.join(folder, 'piano.json.part'), PIANO);
        // Written in pieces, a moment apart: each piece alone is a damaged file.
        const kayak = path.join(folder, 'kayak.json');
        const pieces = [KAYAK.slice(0, 60), KAYAK.slice(60, 160), KAYAK.slice(160, 260), KAYAK.slice(260)];
        for (const piece of pieces) {
          fs.appendFileSync(kayak, piece);
          await pause(300);
        }
        // Nothing was imported while it was being written.
        expect(first.imports()).toHaveLength(0);
        fs.writeFileSync(path.join(folder, 'broken.json'), '{"conversations": [{"id": "x", "messages": [');

        await until(() => first.imports().length > 0);
        let view = await first.watched();
        while (view.recent.length < 2) {
          await pause(100);
          view = await first.watched();
        }
        expect(view.recent.map((f) => path.basename(f.file)).sort()).toEqual(['broken.json', 'kayak.json']);
        const kayakReport = view.recent.find((f) => f.file === kayak)!;
        expect(kayakReport.report).toMatchObject({ format: 'json', conversations: 1, messages: 3, messagesAdded: 3, error: null });
        const broken = view.recent.find((f) => f.file.endsWith('broken.json'))!;
        expect(broken.report.error).toMatchObject({ code: 'IMPORT_PARSE' });
        expect(broken.report.error!.message).toContain('broken.json');
        kayakImportedAt = kayakReport.importedAt;
        brokenImportedAt = broken.importedAt;
        // The import was announced like a window's: its call and its stages.
        await until(() =>
          (first.feed.events as EngineEvent[]).some((e) => e.type === 'call' && e.operation === 'importFiles' && e.state === 'finished'),
        );
        expect(
          (first.feed.events as EngineEvent[]).some((e) => e.type === 'progress' && e.operation === 'importFiles' && e.phase === 'import'),
        ).toBe(true);

        const found = await first.call<{ results: { text: string }[] }>('search', { query: 'kayak paddles' });
        expect(found.results.map((r) => r.text).join(' ')).toContain('kayak paddles');
        const zh = await first.call<{ results: { text: string }[] }>('search', { query: '皮划艇' });
        expect(zh.results.map((r) => r.text).join(' ')).toContain('皮划艇');
      } finally {
        await first.close();
      }

      // The same data folder, opened again: the folder is still watched, what it imported is not imported again.
      const second = await holder(root);
      try {
        expect((await second.watched()).folder).toBe(folder);
        fs.writeFileSync(path.join(folder, 'piano.json'), PIANO);
        let view = await second.watched();
        while (!view.recent.some((f) => f.file.endsWith(`${path.sep}piano.json`))) {
          await pause(100);
          view = await second.watched();
        }
        // Had kayak.json or broken.json been taken again, they would have gone in with piano.json or before it.
        expect(view.recent.map((f) => path.basename(f.file)).sort()).toEqual(['broken.json', 'kayak.json', 'piano.json']);
        expect(view.recent.find((f) => f.file.endsWith('kayak.json'))!.importedAt).toBe(kayakImportedAt);
        expect(view.recent.find((f) => f.file.endsWith('broken.json'))!.importedAt).toBe(brokenImportedAt);
        expect(view.recent.find((f) => f.file.endsWith(`${path.sep}piano.json`))!.report).toMatchObject({ messagesAdded: 2, error: null });
        expect(second.imports()).toHaveLength(1);
        const stats = await second.call<{ owners: { messages: number }[] }>('stats', {});
        expect(stats.owners[0]!.messages).toBe(5);

        // A file that failed is tried again once it changes: the export saved again, whole.
        fs.writeFileSync(path.join(folder, 'broken.json'), chat('mended', [['Ana', 'The mended file has the ferry times']]));
        while ((await second.watched()).recent.find((f) => f.file.endsWith('broken.json'))!.importedAt === brokenImportedAt)
          await pause(100);
        expect((await second.watched()).recent.find((f) => f.file.endsWith('broken.json'))!.report).toMatchObject({
          messagesAdded: 1,
          error: null,
        });

        // Watching stops when the setting is cleared.
        expect(await second.call<WatchedFolderView>('setWatchedFolder', { folder: null })).toMatchObject({ folder: null, watching: false });
      } finally {
        await second.close();
      }
    },
  );
});
