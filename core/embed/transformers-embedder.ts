/**
 * The Embedder backed by transformers.js feature extraction (mean pooling + L2 norm).
 *
 * One pipeline per model per process: pipelines are shared through a module-level map
 * keyed by model id + folder + dtype and reference-counted, because every new pipeline
 * holds another ONNX session (hundreds of MB for real models) that is only freed by
 * an explicit dispose. The last `dispose()` of an embedder releases it.
 */
import type { FeatureExtractionPipeline, ProgressInfo, Tensor } from '@huggingface/transformers';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { EmbedKind, Embedder } from './embedder.js';
import { meanPool } from './mean-pool.js';
import { describeCause, EmbedError } from './errors.js';
import {
  MIRROR_ENV,
  MODEL_DIR_ENV,
  resolveModelSource,
  verifyModelFiles,
  type ModelSource,
  type ModelSourceKind,
  type ModelSourceOptions,
  type Verification,
} from './model-source.js';
import type { ModelDtype } from './model-specs.js';

export const DEFAULT_BATCH_SIZE = 32;

/**
 * Download/load progress, decoupled from transformers.js' own event types. `start` comes first and
 * says where the model comes from: only a `remote` source downloads (transformers.js reports reading
 * local files with the same `download`/`progress` events).
 */
export type ModelProgress =
  | { readonly status: 'start'; readonly source: ModelSourceKind; readonly modelId: string }
  | { readonly status: 'initiate' | 'download' | 'done'; readonly file: string }
  | {
      readonly status: 'progress';
      readonly file: string;
      readonly loaded: number;
      readonly total: number;
      /** 0–100 */
      readonly progress: number;
    }
  | { readonly status: 'total'; readonly loaded: number; readonly total: number; readonly progress: number }
  | { readonly status: 'ready' };

const EmbedderOptionsSchema = z.object({
  batchSize: z.number().int().min(1).max(4096).optional(),
});

export type OpenEmbedderOptions = ModelSourceOptions &
  z.input<typeof EmbedderOptionsSchema> & {
    /** Called during download and load. Only the open that starts the load receives events. */
    readonly onProgress?: (progress: ModelProgress) => void;
  };

interface LoadedModel {
  readonly pipe: FeatureExtractionPipeline;
  readonly dimensions: number;
  readonly verification: Verification;
}

interface SharedPipeline {
  readonly key: string;
  readonly source: ModelSource;
  readonly loaded: Promise<LoadedModel>;
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

// transformers.js reads its settings from one global `env` while a pipeline loads, so loads
// run one at a time, each with the settings of its own source.
let envQueue: Promise<unknown> = Promise.resolve();

/**
 * transformers.js with ONNX Runtime, loaded when the first model is: importing it costs about 160 MB of
 * memory, which an engine without an embedding model (`--no-model`, a failed load) never needs.
 */
const transformers = () => import('@huggingface/transformers');

function withEnvFor<T>(source: ModelSource, task: () => Promise<T>): Promise<T> {
  const run = envQueue.then(async () => {
    const { env } = await transformers();
    const local = source.kind !== 'remote';
    env.allowLocalModels = true;
    env.localModelPath = source.root;
    env.allowRemoteModels = !local;
    // The file cache is where downloads land; for a folder we only read, nothing may be written.
    env.useFSCache = source.ownsDir;
    env.cacheDir = source.ownsDir ? source.root : null;
    env.useBrowserCache = false;
    if (source.remoteHost !== undefined) env.remoteHost = source.remoteHost;
    return task();
  });
  envQueue = run.catch(() => undefined);
  return run;
}

function toModelProgress(info: ProgressInfo): ModelProgress {
  switch (info.status) {
    case 'initiate':
    case 'download':
    case 'done':
      return { status: info.status, file: info.file };
    case 'progress':
      return { status: 'progress', file: info.file, loaded: info.loaded, total: info.total, progress: info.progress };
    case 'progress_total':
      return { status: 'total', loaded: info.loaded, total: info.total, progress: info.progress };
    case 'ready':
      return { status: 'ready' };
  }
}

const HiddenSizeSchema = z.object({ hidden_size: z.number().int().positive() });

async function dimensionsOf(source: ModelSource): Promise<number> {
  if (source.spec.dimensions !== undefined) return source.spec.dimensions;
  const parsed = HiddenSizeSchema.safeParse(JSON.parse(await readFile(join(source.dir, 'config.json'), 'utf8')));
  if (!parsed.success) {
    throw new EmbedError(
      'MODEL_LOAD_FAILED',
      `cannot tell the vector size of embedding model ${source.modelId}: ${join(source.dir, 'config.json')} has no hidden_size`,
    );
  }
  return parsed.data.hidden_size;
}

async function loadModel(source: ModelSource, onProgress: ((p: ModelProgress) => void) | undefined): Promise<LoadedModel> {
  onProgress?.({ status: 'start', source: source.kind, modelId: source.modelId });
  // Local files are checked before ONNX Runtime parses them; a download can only be checked after.
  let verification: Verification = 'unverified';
  if (source.kind !== 'remote' && source.verify) verification = await verifyModelFiles(source);

  let pipe: FeatureExtractionPipeline;
  try {
    const { pipeline } = await transformers();
    pipe = await withEnvFor(source, () =>
      pipeline('feature-extraction', source.name, {
        dtype: source.spec.dtype,
        device: 'cpu',
        local_files_only: source.kind !== 'remote',
        ...(onProgress !== undefined ? { progress_callback: (info: ProgressInfo) => onProgress(toModelProgress(info)) } : {}),
      }),
    );
  } catch (cause) {
    throw source.kind === 'remote'
      ? new EmbedError(
          'MODEL_UNAVAILABLE',
          `could not download embedding model ${source.modelId} from ${source.remoteHost ?? 'the Hub'}: ${describeCause(cause)}; ` +
            `check the connection, set ${MIRROR_ENV} to a reachable mirror, or set ${MODEL_DIR_ENV} to a local copy`,
          { cause },
        )
      : new EmbedError(
          'MODEL_LOAD_FAILED',
          `embedding model ${source.modelId} in ${source.dir} could not be loaded: ${describeCause(cause)}; ` +
            `the files may be incomplete or from another model — copy the model folder again`,
          { cause },
        );
  }

  try {
    if (source.kind === 'remote' && source.verify) verification = await verifyModelFiles(source);
    return { pipe, dimensions: await dimensionsOf(source), verification };
  } catch (error) {
    await pipe.dispose();
    throw error;
  }
}

interface Handle {
  readonly entry: SharedPipeline;
  readonly model: LoadedModel;
}

async function acquire(source: ModelSource, onProgress: ((p: ModelProgress) => void) | undefined): Promise<Handle> {
  const key = JSON.stringify([source.modelId, source.dir, source.spec.dtype]);
  let entry = shared.get(key);
  if (entry === undefined) {
    const created: SharedPipeline = { key, source, loaded: loadModel(source, onProgress), refs: 0 };
    created.loaded.catch(() => {
      // A failed load must not stay cached: the next open (say, after a download) retries.
      if (shared.get(key) === created) shared.delete(key);
    });
    shared.set(key, created);
    entry = created;
  }
  entry.refs += 1;
  try {
    return { entry, model: await entry.loaded };
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
  await handle.model.pipe.dispose();
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
    this.dimensions = handle.model.dimensions;
    this.#queryPrefix = source.spec.queryPrefix;
    this.#passagePrefix = source.spec.passagePrefix;
    this.#batchSize = batchSize;
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    const handle = this.#handle;
    if (handle === undefined) {
      throw new EmbedError('EMBEDDER_DISPOSED', `the ${this.modelId} embedder was disposed; open a new one`);
    }
    const prefix = kind === 'query' ? this.#queryPrefix : this.#passagePrefix;
    const out = new Array<Float32Array>(texts.length);
    // Texts of similar length batched together need less padding; results go back in input order.
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a] ?? '').length - (texts[b] ?? '').length);

    for (let start = 0; start < order.length; start += this.#batchSize) {
      const batch = order.slice(start, start + this.#batchSize);
      const vectors = await this.#pooled(
        handle.model.pipe,
        batch.map((i) => prefix + (texts[i] ?? '')),
      );
      batch.forEach((original, row) => {
        out[original] = vectors[row]!;
      });
    }
    return out;
  }

  /** The pipeline's tokenizer and model, pooled here (see mean-pool.ts for why not by the pipeline). */
  async #pooled(pipe: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
    const inputs = pipe.tokenizer(texts, { padding: true, truncation: true });
    const outputs = (await pipe.model(inputs)) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
    try {
      const [rows, tokens, width] = hidden?.dims ?? [];
      if (!hidden || rows !== texts.length || tokens === undefined || width !== this.dimensions) {
        throw new EmbedError(
          'MODEL_LOAD_FAILED',
          `embedding model ${this.modelId} returned ${hidden?.dims.join('×') ?? 'no token vectors'} for ${texts.length} texts, ` +
            `expected ${this.dimensions} dimensions`,
        );
      }
      return meanPool(hidden.data as ArrayLike<number>, inputs.attention_mask.data as ArrayLike<number | bigint>, [rows, tokens, width]);
    } finally {
      for (const t of Object.values(outputs)) t?.dispose();
    }
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
  const { batchSize, onProgress, ...sourceOptions } = options;
  const parsed = EmbedderOptionsSchema.safeParse({ batchSize });
  if (!parsed.success) {
    throw new EmbedError('INVALID_OPTIONS', `embedder options: ${z.prettifyError(parsed.error)}`);
  }
  const source = await resolveModelSource(sourceOptions);
  const handle = await acquire(source, onProgress);
  return new TransformersEmbedder(handle, parsed.data.batchSize ?? DEFAULT_BATCH_SIZE);
}
