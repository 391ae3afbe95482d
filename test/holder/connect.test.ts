/**
 * connectOrOpenEngine in one process: the first engine on a folder holds it and serves it on loopback;
 * the second is its client — same answers, progress, cancellation. And the client's rules when the
 * holder goes away, with a scripted transport: what it sends again, and what it never sends twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationName } from '../../core/api/contract.js';
import { connectOrOpenEngine, HolderGone, type ConnectedEngine, type HolderTransport } from '../../core/engine/connect.js';
import { engineVersion, holderFileOf, writeHolderFile } from '../../core/engine/holder.js';
import { openEngine, type ProgressEvent } from '../../core/engine/open-engine.js';
import { loopback } from '../../core/http/holder-transport.js';
import { startWeb } from '../../core/http/web.js';
import { resolveStartup } from '../../core/engine/startup.js';
import { CLEAN_CLOSE_FILE } from '../../core/store/store.js';
import { TINY_MODEL_ID } from '../../core/embed/model-specs.js';
import { TINY_MODEL_DIR } from '../fixtures/tiny-model/index.js';
import { request } from '../http/client.js';
import { fixture, manyConversationsFile, tempDir } from '../helpers/engine.js';

const OWNER = 'me';
const opened: ConnectedEngine[] = [];
afterEach(async () => {
  for (const e of opened.splice(0).reverse()) await e.close();
});

async function connect(
  home: string,
  transport: HolderTransport = loopback,
  onClient?: (h: { pid: number }) => void,
): Promise<ConnectedEngine> {
  const engine = await connectOrOpenEngine({
    home,
    transport,
    open: ({ lock }) => openEngine({ home, embedder: null, lock }),
    ...(onClient ? { onClient } : {}),
  });
  opened.push(engine);
  await engine.ready;
  return engine;
}

describe('one engine per data folder, in one process', () => {
  it(
    'makes the first engine the holder and the second its client: the same answers, with progress and cancellation',
    { timeout: 240_000 },
    async () => {
      const home = tempDir('nemori-connect-');
      const holder = await connect(home);
      expect(holder.role).toBe('holder');
      const file = JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8')) as Record<string, unknown>;
      expect(file).toMatchObject({ pid: process.pid, home, state: 'open', version: engineVersion() });
      expect(file.token).toMatch(/^[\w-]{43}$/);
      if (process.platform !== 'win32') expect(fs.statSync(holderFileOf(home)).mode & 0o777).toBe(0o600);

      const told: number[] = [];
      const client = await connect(home, loopback, (h) => told.push(h.pid));
      expect(client.role).toBe('client');
      expect(told).toEqual([process.pid]);

      // Progress comes back over the wire, and the output is validated on this side too.
      const progress: ProgressEvent[] = [];
      const imported = await client.call(
        'importFiles',
        { ownerId: OWNER, paths: [fixture('import', 'two-days.json')] },
        { onProgress: (e) => progress.push(e) },
      );
      expect(imported).toMatchObject({ messages: 8, cancelled: false, files: [{ messagesAdded: 8 }] });
      expect(progress.some((e) => e.operation === 'importFiles' && e.total > 0)).toBe(true);

      // Same operations, same answers, whichever side asks.
      const episodes = await holder.call('listEpisodes', { ownerId: OWNER });
      const asked: [OperationName, unknown][] = [
        ['stats', {}],
        ['listEpisodes', { ownerId: OWNER }],
        ['search', { ownerId: OWNER, query: 'Gornergrat boots', mode: 'bm25' }],
        ['listKnowledge', { ownerId: OWNER }],
        ['knowledgeCapacity', { ownerId: OWNER }],
        ['episodeKnowledge', { ownerId: OWNER, id: episodes.episodes[0]!.id }],
        ['listArchive', { ownerId: OWNER }],
        ['listTrash', { ownerId: OWNER }],
        ['getEngineSettings', {}],
        ['getStartup', {}],
        ['llmUsage', { ownerId: OWNER }],
      ];
      for (const [name, input] of asked) {
        const mine = await holder.call(name, input as never);
        const theirs = await client.call(name, input as never);
        const strip = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'tookMs' ? 0 : x))) as unknown;
        expect(strip(theirs), name).toEqual(strip(mine));
      }
      // Invalid input is refused here, with the engine's own words, before anything travels.
      await expect(client.call('search', { ownerId: OWNER, query: 'x', limit: -1 } as never)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/^search: limit/),
      });
      // The holder's errors come back as they were thrown.
      await expect(client.call('getEpisode', { ownerId: OWNER, id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });

      // A client's call is cancelled by its id, from the client.
      const big = manyConversationsFile(60);
      let cancelling: Promise<{ cancelled: boolean }> | null = null;
      const out = await client.call(
        'importFiles',
        { ownerId: 'big', paths: [big] },
        {
          callId: 'import-from-a-client',
          onProgress: (e) => {
            if (e.phase === 'import' && e.done >= 25 && !cancelling)
              cancelling = client.call('cancelCall', { callId: 'import-from-a-client' });
          },
        },
      );
      expect(await cancelling).toEqual({ cancelled: true });
      expect(out.cancelled).toBe(true);
      expect(out.files[0]!.messagesAdded).toBeLessThan(300);

      // Changes that close the store are for a host that can make them; this holder is a plain engine.
      await expect(client.call('setDataFolder', { folder: tempDir(), mode: 'open' })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/needs the store closed.*pid \d+/),
      });
    },
  );

  it('answers only with its token, for the folder it holds, on 127.0.0.1', { timeout: 120_000 }, async () => {
    const home = tempDir('nemori-connect-auth-');
    await connect(home);
    const { port, token } = JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8')) as { port: number; token: string };
    expect((await request(port, { path: '/api/ping' })).status).toBe(401);
    expect((await request(port, { path: '/api/ping', headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(
      (await request(port, { path: '/api/ping', headers: { Authorization: `Bearer ${token}`, Host: 'evil.example:80' } })).status,
    ).toBe(403);
    expect(
      (await request(port, { path: '/api/ping', headers: { Authorization: `Bearer ${token}`, Origin: 'https://evil.example' } })).status,
    ).toBe(401);
    const ping = await request(port, { path: '/api/ping', headers: { Authorization: `Bearer ${token}` } });
    expect(ping.json()).toMatchObject({ pid: process.pid, home, version: engineVersion() });
    // A call meant for another folder is not run.
    const other = await request(port, {
      method: 'POST',
      path: '/api/call/stats',
      headers: { Authorization: `Bearer ${token}`, 'X-Nemori-Home': encodeURIComponent(tempDir()) },
      body: '{}',
    });
    expect(other.status).toBe(409);
    expect(other.headers['x-nemori-not-run']).toBe('1');
    // No journal here: the holder's service is the API only.
    expect((await request(port, { path: '/' })).status).toBe(404);
  });

  it('removes its holder file and lock when it closes', { timeout: 120_000 }, async () => {
    const home = tempDir('nemori-connect-close-');
    const holder = await connect(home);
    expect(fs.readdirSync(path.join(home, 'db')).sort()).toEqual(['engine.json', 'nemori.lock', 'pg']);
    await holder.close();
    expect(fs.readdirSync(path.join(home, 'db')).sort()).toEqual([CLEAN_CLOSE_FILE, 'pg']);
  });
});

describe('nemori web as the holder', () => {
  it('answers other processes on its own server, and carries out the host changes they ask for', { timeout: 300_000 }, async () => {
    const root = tempDir('nemori-connect-web-');
    const env = { XDG_DATA_HOME: path.join(root, 'share'), NEMORI_MODEL_DIR: path.dirname(TINY_MODEL_DIR), NEMORI_ALLOW_DOWNLOAD: '0' };
    const staticDir = path.join(root, 'renderer');
    fs.mkdirSync(staticDir);
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<div id="root"></div>');
    const startup = resolveStartup(undefined, env);
    const { server, engine } = await startWeb({ startup, staticDir, env, warn: () => {} });
    try {
      await engine;
      const file = JSON.parse(fs.readFileSync(holderFileOf(startup.home), 'utf8')) as { port: number; token: string };
      expect(file).toMatchObject({ port: server.port, token: server.token });

      const client = await connect(startup.home);
      expect(client.role).toBe('client');
      expect(await client.call('getStartup', {})).toMatchObject({ dataDir: startup.home, canChange: true });
      // A change that closes the store, made by the host that can: the tab's engine switches model, the holder file stays.
      const switched = await client.call('setEmbeddingModel', { modelId: TINY_MODEL_ID });
      expect(switched.startup).toMatchObject({ embeddingModel: TINY_MODEL_ID });
      expect(await client.call('stats', {})).toEqual({ owners: [] });
      expect(JSON.parse(fs.readFileSync(holderFileOf(startup.home), 'utf8'))).toMatchObject({ port: server.port, state: 'open' });
    } finally {
      await server.close();
      await (await engine).close();
    }
    expect(fs.existsSync(holderFileOf(startup.home))).toBe(false);
  });
});

/** A transport whose holder is "this process" on paper, and whose calls follow a script. */
function scripted(script: ((name: OperationName) => unknown)[]) {
  const calls: OperationName[] = [];
  const transport: HolderTransport = {
    serve: () => Promise.reject(new Error('not in this test')),
    ping: async (at) => ({ pid: process.pid, version: engineVersion(), home: at.home, startedAt: '' }),
    call: async (_at, name) => {
      calls.push(name);
      const step = script.shift();
      if (!step) throw new Error('unexpected call');
      return step(name);
    },
  };
  return { transport, calls };
}

/** A folder whose holder file names a live process (this one), so discovery makes a client. */
function heldFolder(): string {
  const home = tempDir('nemori-connect-script-');
  writeHolderFile(home, {
    pid: process.pid,
    port: 9,
    token: 'x'.repeat(43),
    version: engineVersion(),
    home,
    startedAt: new Date().toISOString(),
    state: 'open',
  });
  return home;
}

const gone = (reached: boolean) => () => {
  throw new HolderGone(reached, reached ? 'went away during the call' : 'connection refused');
};

describe('when the holder goes away', () => {
  it('sends a call it never received again, to the next holder, whatever the call', async () => {
    const { transport, calls } = scripted([gone(false), () => ({ deleted: true })]);
    const client = await connect(heldFolder(), transport);
    expect(await client.call('deleteEpisode', { ownerId: OWNER, id: '00000000-0000-4000-8000-000000000001' })).toEqual({ deleted: true });
    expect(calls).toEqual(['deleteEpisode', 'deleteEpisode']);
  });

  it('never sends twice a call that may have run, and says so', async () => {
    const { transport, calls } = scripted([gone(true), () => ({ deleted: true })]);
    const client = await connect(heldFolder(), transport);
    await expect(client.call('deleteEpisode', { ownerId: OWNER, id: '00000000-0000-4000-8000-000000000001' })).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringMatching(/stopped during deleteEpisode: it may or may not have been done, so it was not sent again/),
    });
    expect(calls).toEqual(['deleteEpisode']);
  });

  it('sends an idempotent call again after the holder went away during it', async () => {
    const stats = { owners: [] };
    const { transport, calls } = scripted([gone(true), () => stats]);
    const client = await connect(heldFolder(), transport);
    expect(await client.call('stats', {})).toEqual(stats);
    expect(calls).toEqual(['stats', 'stats']);
  });

  it('refuses a holder of another version, naming both', async () => {
    const home = heldFolder();
    const transport: HolderTransport = {
      ...scripted([]).transport,
      ping: async () => ({ pid: process.pid, version: { ...engineVersion(), app: '9.9.9' }, home, startedAt: '' }),
    };
    await expect(connect(home, transport)).rejects.toMatchObject({
      code: 'STORE_LOCKED',
      message: expect.stringContaining(`Nemori 9.9.9 holds this data folder; this is ${engineVersion().app}`),
    });
  });
});
