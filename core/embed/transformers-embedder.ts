/**
 * The Embedder backed by transformers.js feature extraction (mean pooling + L2 norm), run in a worker
 * thread (model-worker.ts): ONNX Runtime's model run is synchronous, and on the engine's thread it would
 * hold up the store and every request while a batch runs.
 *
 * One model per process: models are shared through a module-level map keyed by model id + folder + dtype
 * and reference-counted, because every loaded model holds another ONNX session (hundreds of MB for real
 * models) in its own thread. The last `dispose()` of an embedder ends that thread.
 */
import { z } from 'zod';
import type { EmbedKind, Embedder } from './embedder.js';
import { EmbedError } from './errors.js';
import { resolveModelSource, type ModelSource, type ModelSourceOptions } from './model-source.js';
import type { ModelDtype } from './model-specs.js';
import { startModelWorker, type ModelWorker } from './model-worker.js';
import { startRenewingWorker, type RenewPolicy } from './renewing-worker.js';
import type { ModelProgress } from './worker-protocol.js';

export type { ModelProgress } from './worker-protocol.js';

export const DEFAULT_BATCH_SIZE = 32;

const EmbedderOptionsSchema = z.object({
  batchSize: z.number().int().min(1).max(4096).optional(),
});

export type OpenEmbedderOptions = ModelSourceOptions &
  z.input<typeof EmbedderOptionsSchema> & {
    /** Called during download and load. Only the open that starts the load receives events. */
    readonly onProgress?: (progress: ModelProgress) => void;
    /** When the model's thread is replaced by a fresh one (renewing-worker.ts); set by the open that starts it. */
    readonly renewPolicy?: RenewPolicy;
  };

interface SharedPipeline {
  readonly key: string;
  readonly source: ModelSource;
  readonly loaded: Promise<ModelWorker>;
  refs: number;
}

const shared = new Map<string, SharedPipeline>();

/** What is loaded right now, for a health command and for tests. */
export interface LoadedPipelineInfo {
  readonly modelId: string;
  readonly dir: string;
  readonly dtype: ModelDtype;
  readonly source: ModelSource['kind'];
  /** Open embedders sharing this pipeline. */
  readonly refs: number;
}

export function loadedPipelines(): LoadedPipelineInfo[] {
  return [...shared.values()].map((s) => ({
    modelId: s.source.modelId,
    dir: s.source.dir,
    dtype: s.source.spec.dtype,
    source: s.source.kind,
    refs: s.refs,
  }));
}

interface Handle {
  readonly entry: SharedPipeline;
  readonly worker: ModelWorker;
}

async function acquire(
  source: ModelSource,
  onProgress: ((p: ModelProgress) => void) | undefined,
  renewPolicy: RenewPolicy | undefined,
): Promise<Handle> {
  const key = JSON.stringify([source.modelId, source.dir, source.spec.dtype]);
  let entry = shared.get(key);
  if (entry === undefined) {
    const forget = () => {
      if (shared.get(key) === created) shared.delete(key);
    };
    // A failed load must not stay cached: the next open (say, after a download) retries; nor may a
    // crashed thread: the next open starts a new one.
    // Only the first load reports progress: a renewed thread loads what is already on disk, unseen.
    let progress = onProgress;
    const loaded = startRenewingWorker(
      (onCrash) => {
        const started = startModelWorker(source, { onProgress: progress, onCrash });
        progress = undefined;
        return started;
      },
      { onCrash: forget, policy: renewPolicy },
    );
    const created: SharedPipeline = { key, source, loaded, refs: 0 };
    created.loaded.catch(forget);
    shared.set(key, created);
    entry = created;
  }
  entry.refs += 1;
  try {
    return { entry, worker: await entry.loaded };
  } catch (error) {
    entry.refs -= 1;
    throw error;
  }
}

async function release(handle: Handle): Promise<void> {
  const { entry } = handle;
  entry.refs -= 1;
  if (entry.refs > 0) return;
  if (shared.get(entry.key) === entry) shared.delete(entry.key);
  await handle.worker.terminate();
}

class TransformersEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimensions: number;
  #handle: Handle | undefined;
  readonly #queryPrefix: string;
  readonly #passagePrefix: string;
  readonly #batchSize: number;

  constructor(handle: Handle, batchSize: number) {
    const { source } = handle.entry;
    this.#handle = handle;
    this.modelId = source.modelId;
    this.dimensions = handle.worker.dimensions;
    this.#queryPrefix = source.spec.queryPrefix;
    this.#passagePrefix = source.spec.passagePrefix;
    this.#batchSize = batchSize;
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    const handle = this.#handle;
    if (handle === undefined) {
      throw new EmbedError('EMBEDDER_DISPOSED', `the ${this.modelId} embedder was disposed; open a new one`);
    }
    if (texts.length === 0) return [];
    const prefix = kind === 'query' ? this.#queryPrefix : this.#passagePrefix;
    return handle.worker.embed(
      texts.map((t) => prefix + t),
      this.#batchSize,
    );
  }

  async dispose(): Promise<void> {
    const handle = this.#handle;
    if (handle === undefined) return;
    this.#handle = undefined;
    await release(handle);
  }
}

/**
 * Finds the model (see model-source.ts), verifies it, loads or reuses its pipeline and
 * returns an Embedder. Throws EmbedError: MODEL_UNAVAILABLE, MODEL_CHECKSUM_MISMATCH,
 * MODEL_LOAD_FAILED or INVALID_OPTIONS.
 */
export async function openEmbedder(options: OpenEmbedderOptions = {}): Promise<Embedder> {
  const { batchSize, onProgress, renewPolicy, ...sourceOptions } = options;
  const parsed = EmbedderOptionsSchema.safeParse({ batchSize });
  if (!parsed.success) {
    throw new EmbedError('INVALID_OPTIONS', `embedder options: ${z.prettifyError(parsed.error)}`);
  }
  const source = await resolveModelSource(sourceOptions);
  const handle = await acquire(source, onProgress, renewPolicy);
  return new TransformersEmbedder(handle, parsed.data.batchSize ?? DEFAULT_BATCH_SIZE);
}
