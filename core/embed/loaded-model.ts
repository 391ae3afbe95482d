/**
 * A model loaded by transformers.js (feature extraction, mean pooling + L2 norm) and the texts it embeds.
 * This runs inside the model's worker thread (embed-worker.ts): ONNX Runtime's `session.run` is
 * synchronous, and on the engine's own thread it would stop the store and every request while it runs.
 */
import type { FeatureExtractionPipeline, ProgressInfo, Tensor } from '@huggingface/transformers';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describeCause, EmbedError } from './errors.js';
import { meanPool } from './mean-pool.js';
import { MIRROR_ENV, MODEL_DIR_ENV, verifyModelFiles, type ModelSource } from './model-source.js';
import type { ModelProgress } from './worker-protocol.js';

export interface LoadedModel {
  readonly pipe: FeatureExtractionPipeline;
  readonly modelId: string;
  readonly dimensions: number;
}

/**
 * transformers.js with ONNX Runtime, loaded when the first model is: importing it costs about 160 MB of
 * memory, which an engine without an embedding model (`--no-model`, a failed load) never needs.
 */
const transformers = () => import('@huggingface/transformers');

/** transformers.js reads its settings from one global `env` while a pipeline loads: this thread loads one model. */
async function configureFor(source: ModelSource): Promise<void> {
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

/**
 * ONNX Runtime's threads for one model run: every core but one, which the engine's thread keeps (it
 * writes the store while the model embeds). By default ONNX Runtime takes them all, and its idle threads
 * spin: on 2 cores that cost the import more time than the second thread saved.
 */
function modelThreads(): number {
  return Math.max(1, availableParallelism() - 1);
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

/** Verifies and loads the model. Throws EmbedError: MODEL_UNAVAILABLE, MODEL_CHECKSUM_MISMATCH or MODEL_LOAD_FAILED. */
export async function loadModel(source: ModelSource, onProgress: ((p: ModelProgress) => void) | undefined): Promise<LoadedModel> {
  onProgress?.({ status: 'start', source: source.kind, modelId: source.modelId });
  // Local files are checked before ONNX Runtime parses them; a download can only be checked after.
  if (source.kind !== 'remote' && source.verify) await verifyModelFiles(source);

  let pipe: FeatureExtractionPipeline;
  try {
    const { pipeline } = await transformers();
    await configureFor(source);
    pipe = await pipeline('feature-extraction', source.name, {
      dtype: source.spec.dtype,
      device: 'cpu',
      local_files_only: source.kind !== 'remote',
      session_options: { intraOpNumThreads: modelThreads() },
      ...(onProgress !== undefined ? { progress_callback: (info: ProgressInfo) => onProgress(toModelProgress(info)) } : {}),
    });
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
    if (source.kind === 'remote' && source.verify) await verifyModelFiles(source);
    return { pipe, modelId: source.modelId, dimensions: await dimensionsOf(source) };
  } catch (error) {
    await pipe.dispose();
    throw error;
  }
}

/**
 * Unit-length vectors of `texts` (already prefixed), in input order, `batchSize` texts per model run.
 * Once `stop` is aborted, no further run starts: it throws the abort's reason. `between` runs before
 * every run but the first (other work that must not wait for all of them).
 */
export async function embedTexts(
  model: LoadedModel,
  texts: readonly string[],
  batchSize: number,
  stop: AbortSignal,
  between?: () => Promise<void>,
): Promise<Float32Array[]> {
  const out = new Array<Float32Array>(texts.length);
  // Texts of similar length batched together need less padding; results go back in input order.
  const order = texts.map((_, i) => i).sort((a, b) => (texts[a] ?? '').length - (texts[b] ?? '').length);
  for (let start = 0; start < order.length; start += batchSize) {
    if (start > 0 && between) await between();
    stop.throwIfAborted();
    const batch = order.slice(start, start + batchSize);
    const vectors = await pooled(
      model,
      batch.map((i) => texts[i] ?? ''),
    );
    batch.forEach((original, row) => {
      out[original] = vectors[row]!;
    });
  }
  return out;
}

/** The pipeline's tokenizer and model, pooled here (see mean-pool.ts for why not by the pipeline). */
async function pooled({ pipe, modelId, dimensions }: LoadedModel, texts: string[]): Promise<Float32Array[]> {
  const inputs = pipe.tokenizer(texts, { padding: true, truncation: true });
  const outputs = (await pipe.model(inputs)) as Record<string, Tensor | undefined>;
  const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
  try {
    const [rows, tokens, width] = hidden?.dims ?? [];
    if (!hidden || rows !== texts.length || tokens === undefined || width !== dimensions) {
      throw new EmbedError(
        'MODEL_LOAD_FAILED',
        `embedding model ${modelId} returned ${hidden?.dims.join('×') ?? 'no token vectors'} for ${texts.length} texts, ` +
          `expected ${dimensions} dimensions`,
      );
    }
    return meanPool(hidden.data as ArrayLike<number>, inputs.attention_mask.data as ArrayLike<number | bigint>, [rows, tokens, width]);
  } finally {
    for (const t of Object.values(outputs)) t?.dispose();
  }
}
