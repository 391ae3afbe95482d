/**
 * The engine's utility-process protocol, both ends, over an in-memory channel that clones like a
 * process boundary: request ids, results, errors with their codes, progress, crash and shutdown.
 * (The Electron utility process itself cannot run here; this is all of its logic.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../core/api/engine';
import { WireCallError } from '../../core/http/dispatch';
import type { HostMessage, HostRequest } from '../../electron/engine/protocol';
import { serveEngine } from '../../electron/engine/serve';
import { createEngineClient, type EngineClient } from '../../electron/main/engine-client';
import { fixture, manyConversationsFile, openMemoryEngine } from '../helpers/engine';
import { channelPair } from './channel';

let client: EngineClient | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

function connect(open: Parameters<typeof serveEngine>[0]['open']) {
  const { main, engine } = channelPair<HostRequest, HostMessage>();
  let closed = false;
  const served = serveEngine({ channel: engine, open, onClosed: () => (closed = true) });
  client = createEngineClient(main);
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
    const out = (await client.call('importFiles', { paths: [fixture('import', 'two-days.json')] }, { onProgress: (e) => progress.push(e) })) as {
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
    await expect(client.call('stats', {})).rejects.toMatchObject({ code: 'STORE_LOCKED', message: 'the data folder is in use by another Nemori (pid 4242)' });
  });

  it('fails pending calls, and later ones, when the engine process dies', async () => {
    const { client: c } = connect(() => new Promise(() => {})); // never opens: calls stay pending
    const pending = c.call('stats', {});
    c.exited(134);
    await expect(pending).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE', message: expect.stringMatching(/stopped unexpectedly \(exit code 134\)/) });
    await expect(c.call('health', {})).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
    await c.close(); // resolves at once: there is nothing left to close
    client = null;
  });

  it('closes the database on shutdown, then refuses new calls', async () => {
    let closedDb = false;
    const { client: c, isClosed, served } = connect(async () => {
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
    const out = (await client.call('importFiles', { paths: [manyConversationsFile(30)] }, {
      callId: 'import-1',
      onProgress: (e) => {
        if (e.done >= 20 && !cancel) cancel = client.call('cancelCall', { callId: 'import-1' });
      },
    })) as { cancelled: boolean; messages: number; files: { messagesAdded: number }[] };
    expect(await cancel).toEqual({ cancelled: true });
    expect(out.cancelled).toBe(true);
    expect(out.files[0]!.messagesAdded).toBeLessThan(out.messages);
  });
});
