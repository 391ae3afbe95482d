import type { EmbeddingStatus } from '../core/engine/open-engine.js';
import { modelOptions } from '../core/engine/open-default.js';
import type { Embedder } from '../core/embed/embedder.js';
import { DEFAULT_MODEL_ID, isEmbedError, openEmbedder, type OpenEmbedderOptions } from '../core/embed/index.js';
import { resolveStartup } from '../core/engine/startup.js';
import { tinyModelOptions } from '../test/fixtures/tiny-model/index.js';
import { openUseLite } from './use-lite.js';

export type BenchModel = 'product' | 'tiny' | 'use-lite';

/**
 * The model a benchmark runs with, named in its JSON:
 * - `product`: what the app would use — NEMORI_MODEL_DIR, else the default model already downloaded
 *   into the data folder. Never downloads (benchmarks stay offline); when the model is absent, search
 *   degrades to keywords exactly as the app does.
 * - `tiny`: the project's 1 MB synthetic test model (a 3k-word vocabulary): exercises the vector path,
 *   says nothing about retrieval quality.
 * - `use-lite`: the Universal Sentence Encoder lite (bench/use-lite.ts), a real English sentence encoder
 *   whose weights come with an npm dev dependency: what retrieval with vectors is measured and tuned with
 *   here, where the product model cannot be downloaded.
 */
export async function benchEmbedder(which: BenchModel): Promise<{ embedder: Embedder | null; status: EmbeddingStatus }> {
  if (which === 'use-lite') {
    const embedder = await openUseLite();
    return { embedder, status: { available: true, modelId: embedder.modelId, source: 'use-lite', reason: null } };
  }
  const startup = resolveStartup();
  const options: OpenEmbedderOptions =
    which === 'tiny' ? tinyModelOptions() : { ...modelOptions(startup.home, process.env, startup.embeddingModel), allowDownload: false };
  try {
    const embedder = await openEmbedder(options);
    return { embedder, status: { available: true, modelId: embedder.modelId, source: which, reason: null } };
  } catch (e) {
    if (!isEmbedError(e)) throw e;
    return { embedder: null, status: { available: false, modelId: options.modelId ?? DEFAULT_MODEL_ID, source: null, reason: e.message } };
  }
}
