/**
 * The engine's side of a model's worker thread (embed-worker.ts): starts it, waits for the model to
 * load (passing on its progress), sends texts and matches the vectors that come back to their request.
 * While a batch runs there, this thread goes on serving the store and requests.
 *
 * If the thread dies (an uncaught error, out of memory, terminated from outside), the requests waiting
 * on it and every later one fail with EMBEDDER_CRASHED instead of waiting for ever.
 *
 * A thread that may be running the model is not ended from here: `terminate()` asks it to end, and
 * it does so between two model runs (see worker-protocol.ts for what happens otherwise). A thread whose
 * load failed runs nothing and is ended at once, as is one that speaks another protocol (it might
 * not understand the request to end).
 */
import { Worker } from 'node:worker_threads';
import { EmbedError } from './errors.js';
import type { ModelSource } from './model-source.js';
import {
  WorkerReplySchema,
  type Failure,
  type ModelProgress,
  type WorkerReply,
  type WorkerRequest,
  type WorkerStart,
} from './worker-protocol.js';

export interface ModelWorker {
  readonly dimensions: number;
  /** Vectors of already prefixed texts, in input order. */
  embed(texts: readonly string[], batchSize: number): Promise<Float32Array[]>;
  /**
   * Ends the thread, resolving once it has ended: waiting requests fail with EMBEDDER_DISPOSED at once,
   * the thread ends after the model run it is in (if any).
   */
  terminate(): Promise<void>;
}

export interface StartModelWorkerOptions {
  readonly onProgress?: ((progress: ModelProgress) => void) | undefined;
  /** Told once when the thread is gone for any reason other than `terminate()`. */
  readonly onCrash?: (() => void) | undefined;
  /** The worker's module; tests start others (default: embed-worker beside this module). */
  readonly entry?: URL;
}

/**
 * The worker's module. From the sources (tsx, vitest) it is embed-worker.ts, and a new thread has no
 * TypeScript loader: a small module registers tsx's there first. In the app, electron-vite emits it as
 * embed-worker.js beside the engine's bundle (electron.vite.config.ts); the `nemori` command's bundle
 * has it beside itself too (bin/cli-bundle.mjs).
 */
function defaultEntry(): URL {
  const fromSources = import.meta.url.endsWith('.ts');
  // Named through a variable, so that the bundler does not copy the file as an asset.
  const name = fromSources ? './embed-worker.ts' : './embed-worker.js';
  const worker = new URL(name, import.meta.url);
  if (!fromSources) return worker;
  const boot = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
register();
await import(${JSON.stringify(worker.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`);
}

function errorFrom(failure: Failure): Error {
  return failure.code === null ? new Error(failure.message) : new EmbedError(failure.code, failure.message);
}

/** Starts the worker and resolves when its model is loaded; rejects with the load's EmbedError. */
export function startModelWorker(source: ModelSource, o: StartModelWorkerOptions = {}): Promise<ModelWorker> {
  const start: WorkerStart = { source, progress: o.onProgress !== undefined };
  const worker = new Worker(o.entry ?? defaultEntry(), { workerData: start });
  const waiting = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let dimensions: number | undefined;
  let loaded: { resolve: (w: ModelWorker) => void; reject: (e: Error) => void } | undefined;
  /** Set once the thread cannot answer any more: what every later request fails with. */
  let ended: Error | undefined;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  /** Set once the thread was asked to end. */
  let ending = false;

  const send = (request: WorkerRequest) => worker.postMessage(request);
  // A thread with nothing to do must not keep the process alive; one with work, or ending, does: the
  // process must not end while its model runs.
  const holdProcess = () => (loaded !== undefined || waiting.size > 0 || ending ? worker.ref() : worker.unref());

  const end = (error: Error) => {
    if (ended !== undefined) return;
    ended = error;
    loaded?.reject(error);
    loaded = undefined;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  const crashed = (why: string) => {
    if (ended !== undefined) return;
    end(
      new EmbedError('EMBEDDER_CRASHED', `the worker thread of embedding model ${source.modelId} stopped (${why}); open the model again`),
    );
    o.onCrash?.();
  };

  const handle: ModelWorker = {
    get dimensions() {
      return dimensions ?? 0;
    },
    embed(texts, batchSize) {
      if (ended !== undefined) return Promise.reject(ended);
      const id = nextId++;
      const result = new Promise<Float32Array[]>((resolve, reject) => waiting.set(id, { resolve, reject }));
      send({ type: 'embed', id, texts, batchSize });
      holdProcess();
      return result;
    },
    async terminate() {
      end(new EmbedError('EMBEDDER_DISPOSED', `the ${source.modelId} embedder was disposed while it was embedding; open a new one`));
      // Asked once (a thread already gone drops the message).
      if (!ending) {
        send({ type: 'end' });
        ending = true;
        holdProcess();
      }
      await exit;
    },
  };

  const settle = (reply: WorkerReply) => {
    switch (reply.type) {
      case 'progress':
        o.onProgress?.(reply.progress);
        return;
      case 'loaded':
        dimensions = reply.dimensions;
        loaded?.resolve(handle);
        loaded = undefined;
        return;
      case 'failed': {
        if (reply.id === null) {
          // The load failed: the thread has nothing more to do.
          end(errorFrom(reply.error));
          void worker.terminate();
          return;
        }
        waiting.get(reply.id)?.reject(errorFrom(reply.error));
        waiting.delete(reply.id);
        return;
      }
      case 'vectors':
        waiting.get(reply.id)?.resolve(reply.vectors);
        waiting.delete(reply.id);
        return;
    }
  };

  worker.on('message', (message: unknown) => {
    const reply = WorkerReplySchema.safeParse(message);
    if (!reply.success) {
      crashed('it sent a message this version does not read');
      void worker.terminate();
      return;
    }
    settle(reply.data);
    holdProcess();
  });
  worker.on('error', (error) => crashed(error.message));
  worker.on('exit', (code) => crashed(`exit code ${code}`));

  return new Promise<ModelWorker>((resolve, reject) => {
    loaded = { resolve, reject };
    holdProcess();
  });
}
