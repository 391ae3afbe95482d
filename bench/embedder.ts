import path from 'node:path';
import type { EmbeddingStatus } from '../core/api/engine.js';
import type { Embedder } from '../core/embed/embedder.js';
import { isEmbedError, openEmbedder, TINY_MODEL_ID } from '../core/embed/index.js';

/**
 * The model benchmarks run with: NEMORI_MODEL_DIR (e.g. a real multilingual-e5-small) when set, else
 * the project's tiny test model, so the numbers can always be produced offline. The JSON says which.
 */
export async function benchEmbedder(): Promise<{ embedder: Embedder | null; status: EmbeddingStatus }> {
  const dir = process.env.NEMORI_MODEL_DIR;
  const options = dir
    ? { modelDir: dir, ...(process.env.NEMORI_EMBEDDING_MODEL ? { modelId: process.env.NEMORI_EMBEDDING_MODEL } : {}) }
    : { modelDir: path.join(import.meta.dirname, '..', 'test', 'fixtures', 'tiny-model'), modelId: TINY_MODEL_ID };
  try {
    const embedder = await openEmbedder({ ...options, allowDownload: false });
    return { embedder, status: { available: true, modelId: embedder.modelId, source: options.modelDir, reason: null } };
  } catch (e) {
    if (!isEmbedError(e)) throw e;
    return { embedder: null, status: { available: false, modelId: options.modelId ?? 'default', source: null, reason: e.message } };
  }
}
