export type { EmbedKind, Embedder } from './embedder.js';
export { EmbedError, isEmbedError, type EmbedErrorCode } from './errors.js';
export { DEFAULT_MODEL_ID, TINY_MODEL_ID, getModelSpec, type ModelDtype, type ModelSpec } from './model-specs.js';
export {
  ALLOW_DOWNLOAD_ENV,
  MIRROR_ENV,
  MODEL_DIR_ENV,
  probeEmbedder,
  resolveModelSource,
  type EmbedderProbe,
  type ModelSource,
  type ModelSourceKind,
  type ModelSourceOptions,
} from './model-source.js';
export {
  DEFAULT_BATCH_SIZE,
  loadedPipelines,
  openEmbedder,
  type LoadedPipelineInfo,
  type ModelProgress,
  type OpenEmbedderOptions,
} from './transformers-embedder.js';
