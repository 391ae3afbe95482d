/**
 * The engine's utility-process protocol, both ends, over an in-memory channel that clones like a
 * process boundary: request ids, results, errors with their codes, progress, crash and shutdown.
 * (The Electron utility process itself cannot run here; this is all of its logic.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../core/api/wire';
import { openEngine } from '../../core/engine/open-engine';
import { until } from '../http/client';
import type { ProgressEvent } from '../../core/engine/open-engine';
import type { ModelStatus } from '../../core/api/model-status';
import { openDefaultEngine } from '../../core/engine/open-default';
import { WireCallError } from '../../core/api/dispatch';
import type { HostMessage, HostRequest } from '../../electron/engine/protocol';
import { serveEngine } from '../../electron/engine/serve';
import { createEngineClient, type EngineClient, type EngineClientOptions } from '../../electron/main/engine-client';
import { fixture, manyConversationsFile, openMemoryEngine, tempDir } from '../helpers/engine';
import { mirrorEnv, startModelMirror, tinyModelBytes, tinyOnnxBytes, TINY_ONNX } from '../helpers/model-mirror';
import { channelPair } from './channel';

let client: EngineClient | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

function connect(open: Parameters<typeof serveEngine>[0]['open'], options: EngineClientOptions = {}) {
  const { main, engine } = channelPair<HostRequest, HostMessage>();
  let closed = false;
  const served = serveEngine({ channel: engine, open, onClosed: () => (closed = true) });
  client = createEngineClient(main, options);
  return { client, main, engine, served, isClosed: () => closed };
}

describe('the engine host protocol', () => {
  it('answers calls by request id, in any order they finish', async () => {
    const { client } = connect(() => openMemoryEngine());
    await client.ready;
    const [health, list, stats] = await Promise.all([
      client.call('health', {}),
      client.call('listEpisodes', { limit: 3 }),
      client.call('stats', {}),
    ]);
    expect(health).toMatchObject({ ok: true });
    expect(list).toEqual({ episodes: [], nextCursor: null });
    expect(stats).toEqual({ owners: [] });
  });

  it('forwards progress to the caller that asked, and the result after it', async () => {
    const { client } = connect(() => openMemoryEngine());
    const progress: ProgressEvent[] = [];
    const out = (await client.call(
      'importFiles',
      { paths: [fixture('import', 'two-days.json')] },
      { onProgress: (e) => progress.push(e) },
    )) as {
      files: { messagesAdded: number }[];
    };
    expect(out.files[0]!.messagesAdded).toBe(8);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ operation: 'importFiles', done: 8, total: 8 });
  });

  it('relays engine errors with their code and message', async () => {
    const { client } = connect(() => openMemoryEngine());
    const error = await client.call('getEpisode', { id: '00000000-0000-4000-8000-000000000000' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireCallError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'no episode 00000000-0000-4000-8000-000000000000' });
    const invalid = await client.call('search', { query: '' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('holds calls made while the engine is opening until it is ready', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const { client } = connect(async () => {
      await gate;
      return openMemoryEngine();
    });
    const early = client.call('stats', {});
    open();
    await expect(early).resolves.toEqual({ owners: [] });
  });

  it('says plainly when the engine cannot open (e.g. the database is locked)', async () => {
    const { client } = connect(async () => {
      const { NemoriError } = await import('../../core/domain/errors');
      throw new NemoriError('STORE_LOCKED', 'the data folder is in use by another Nemori (pid 4242)');
    });
    await expect(client.ready).rejects.toMatchObject({ code: 'STORE_LOCKED' });
    await expect(client.call('stats', {})).rejects.toMatchObject({
      code: 'STORE_LOCKED',
      message: 'the data folder is in use by another Nemori (pid 4242)',
    });
  });

  it('fails pending calls, and later ones, when the engine process dies', async () => {
    const { client: c } = connect(() => new Promise(() => {})); // never opens: calls stay pending
    const pending = c.call('stats', {});
    c.exited(134);
    await expect(pending).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringMatching(/stopped unexpectedly \(exit code 134\)/),
    });
    await expect(c.call('health', {})).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
    await c.close(); // resolves at once: there is nothing left to close
    client = null;
  });

  it('closes the database on shutdown, then refuses new calls', async () => {
    let closedDb = false;
    const {
      client: c,
      isClosed,
      served,
    } = connect(async () => {
      const engine = await openMemoryEngine();
      return {
        call: engine.call.bind(engine),
        close: async () => {
          closedDb = true;
          await engine.close();
        },
      };
    });
    await c.ready;
    await c.close();
    await served.closed;
    expect(closedDb).toBe(true);
    expect(isClosed()).toBe(true);
    await expect(c.call('stats', {})).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
    client = null;
  });

  it('carries the call id to the engine, so a cancel reaches a call running in the other process', async () => {
    const { client } = connect(() => openMemoryEngine());
    await client.ready;
    let cancel: Promise<unknown> | null = null;
    const out = (await client.call(
      'importFiles',
      { paths: [manyConversationsFile(30)] },
      {
        callId: 'import-1',
        onProgress: (e) => {
          if (e.done >= 20 && !cancel) cancel = client.call('cancelCall', { callId: 'import-1' });
        },
      },
    )) as { cancelled: boolean; messages: number; files: { messagesAdded: number }[] };
    expect(await cancel).toEqual({ cancelled: true });
    expect(out.cancelled).toBe(true);
    expect(out.files[0]!.messagesAdded).toBeLessThan(out.messages);
  });

  it("passes the engine's own calls (the watched folder's imports) to main, for every window", async () => {
    const events: EngineEvent[] = [];
    const folder = tempDir('nemori-host-watched-');
    fs.copyFileSync(fixture('import', 'two-days.json'), path.join(folder, 'two-days.json'));
    const { client } = connect(
      (_report, announce) =>
        openEngine({ home: tempDir(), embedder: null, scheduleForgetting: true, onEvent: announce, config: { watch: { settleMs: 0 } } }),
      { onEvent: (e) => events.push(e) },
    );
    await client.call('setWatchedFolder', { folder });
    await until(() => events.some((e) => e.type === 'call' && e.state === 'finished'));
    expect(events[0]).toMatchObject({ type: 'call', operation: 'importFiles', state: 'started' });
    expect(events.some((e) => e.type === 'progress' && e.operation === 'importFiles' && e.phase === 'import' && e.done === 8)).toBe(true);
    expect(((await client.call('stats', {})) as { owners: { messages: number }[] }).owners[0]!.messages).toBe(8);
  });

  it("passes the model's state to main while the engine opens, before it is ready", async () => {
    const statuses: ModelStatus[] = [];
    const reported: ModelStatus[] = [
      { state: 'downloading', modelId: 'm', loaded: 0, total: 0 },
      { state: 'downloading', modelId: 'm', loaded: 40, total: 118, file: 'onnx/model_quantized.onnx' },
      { state: 'loading', modelId: 'm' },
      { state: 'ready', modelId: 'm' },
    ];
    const { client } = connect(
      async (report) => {
        for (const s of reported) report(s);
        return openMemoryEngine();
      },
      { onModel: (s) => statuses.push(s) },
    );
    const atReady = await client.ready.then(() => [...statuses]);
    expect(atReady).toEqual(reported);
    expect(await client.call('stats', {})).toEqual({ owners: [] });
  });

  it('a first start downloads the model (from a local mirror) with growing progress, then is ready', async () => {
    const total = await tinyModelBytes();
    const mirror = await startModelMirror({ holdAt: 300_000 });
    // Every byte before the mirror's pause: the other files, and model.onnx up to the pause.
    const held = total - (await tinyOnnxBytes()) + 300_000;
    try {
      const statuses: ModelStatus[] = [];
      const home = tempDir('nemori-first-start-');
      const { client } = connect(
        (report) => openDefaultEngine({ home, embeddings: 'auto', env: mirrorEnv(mirror), onModelProgress: report, warn: () => {} }),
        {
          onModel: (s) => {
            statuses.push(s);
            // The download stands at the mirror's pause (the window would show it): let the rest come.
            if (s.state === 'downloading' && s.loaded === held) mirror.release();
          },
        },
      );
      await client.ready;
      expect(mirror.requests).toContain(`/nemori-tiny/resolve/main/${TINY_ONNX}`);

      const downloads = statuses.filter((s) => s.state === 'downloading');
      expect(downloads[0]).toEqual({ state: 'downloading', modelId: 'nemori-tiny', loaded: 0, total: 0 });
      const sizes = downloads.slice(1);
      expect(sizes.length).toBeGreaterThan(0);
      for (const s of sizes) expect(s).toMatchObject({ total, modelId: 'nemori-tiny' });
      const loaded = downloads.map((s) => s.loaded);
      expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
      expect(loaded).toContain(held);
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThan(total);
      expect(statuses.slice(-2)).toEqual([
        { state: 'loading', modelId: 'nemori-tiny' },
        { state: 'ready', modelId: 'nemori-tiny' },
      ]);
      expect(await client.call('health', {})).toMatchObject({ embedding: { available: true, modelId: 'nemori-tiny' } });
    } finally {
      await mirror.close();
    }
  });
});
