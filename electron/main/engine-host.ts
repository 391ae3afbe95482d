/**
 * Runs the engine (core/api: PGlite, transformers.js, imports) in an Electron utility process,
 * so no import, embedding or search ever blocks the window. This module is the only place main
 * knows how the engine is hosted; the rest of main talks to the returned `EngineClient`.
 */
import { utilityProcess } from 'electron';
import { engineEnv } from '../../bin/engine-env.mjs';
import { createEngineClient, type EngineClient, type EngineClientOptions } from './engine-client';
import { HOST_KEY_ENV } from './key-vault';
import type { HostMessage, HostRequest, MessageEnd } from '../engine/protocol';

export interface EngineHostOptions extends EngineClientOptions {
  /** out/main/engine.js (built from electron/engine/entry.ts). */
  entryPath: string;
  /** The LLM API key from the OS keychain (electron/main/key-vault.ts); omitted when there is no keychain. */
  llmKey?: string | null;
}

export function startEngineHost(o: EngineHostOptions): EngineClient {
  const child = utilityProcess.fork(o.entryPath, [], {
    serviceName: 'Nemori engine',
    stdio: 'inherit',
    env: { ...process.env, ...engineEnv(), ...(o.llmKey !== undefined ? { [HOST_KEY_ENV]: o.llmKey ?? '' } : {}) },
  });
  const channel: MessageEnd<HostMessage, HostRequest> = {
    post: (message) => child.postMessage(message),
    listen(handler) {
      const onMessage = (message: unknown) => handler(message as HostMessage);
      child.on('message', onMessage);
      return () => void child.off('message', onMessage);
    },
  };
  const client = createEngineClient(channel, {
    ...(o.onModel ? { onModel: o.onModel } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
  child.once('exit', (code) => client.exited(code));
  return {
    ...client,
    ready: client.ready,
    async close() {
      await client.close();
      // The engine exits by itself once its database is closed; make sure it is gone.
      child.kill();
    },
  };
}
