import type { z } from 'zod';
import type { EngineConfig } from '../context/engine-context.js';
import type { Embedder } from '../embed/embedder.js';
import type { DirLock } from '../store/lock.js';
import { DEFAULT_MODEL_ID, isEmbedError, openEmbedder, probeEmbedder, type ModelSourceOptions } from '../embed/index.js';
import { llmConfigFromEnv, type LlmOverrides } from '../llm/config.js';
import { openEngine, type EmbeddingStatus, type Engine, type OpenEngineOptions } from './open-engine.js';
import { createModelStatusReporter, type ModelStatus } from '../api/model-status.js';

/**
 * Which embedding work a front end needs: `auto` loads the model (search, import), `probe` only looks
 * for it (health), `off` skips it (listing, reading).
 */
export type EmbeddingNeed = 'auto' | 'probe' | 'off';

export interface DefaultEngineOptions {
  home: string;
  embeddings: EmbeddingNeed;
  warn: (message: string) => void;
  /**
   * The embedding model's state while it is downloaded and loaded (`embeddings: 'auto'` only), for a
   * window to show: downloading with bytes (throttled), loading, then ready or unavailable.
   */
  onModelProgress?: (s: ModelStatus) => void;
  config?: z.input<typeof EngineConfig>;
  env?: NodeJS.ProcessEnv;
  /** LLM settings from CLI flags; they win over NEMORI_LLM_* in the environment, which win over saved settings. */
  llm?: LlmOverrides;
  /** Long-running hosts (the desktop app, `nemori web`) run the daily forgetting pass; one-shot commands do not. */
  scheduleForgetting?: boolean;
  /** The desktop app keeps the LLM API key in the OS keychain and hands it over here (see OpenEngineOptions). */
  llmKeyFromHost?: string | null;
  /** The embedding model chosen in Settings (core/startup.ts); NEMORI_EMBEDDING_MODEL wins over it. */
  embeddingModel?: string | undefined;
  /** See OpenEngineOptions (default: `home`). */
  companionHome?: string | null;
  /** The data folder's lock, taken by the caller (see OpenEngineOptions); released when the engine closes or fails to open. */
  lock?: DirLock | undefined;
  /** See OpenEngineOptions: the events of the calls the engine makes by itself. */
  onEvent?: OpenEngineOptions['onEvent'];
}

/** Model settings from the environment and Settings; the model itself lives under the data folder. */
export function modelOptions(home: string, env: NodeJS.ProcessEnv = process.env, chosen?: string): ModelSourceOptions {
  const modelId = env.NEMORI_EMBEDDING_MODEL || chosen;
  return {
    dataDir: home,
    ...(modelId ? { modelId } : {}),
    // Downloading on first use is what a person expects; NEMORI_ALLOW_DOWNLOAD=0 keeps a machine offline.
    allowDownload: env.NEMORI_ALLOW_DOWNLOAD !== '0',
    environment: env,
  };
}

/**
 * Opens the engine the way the CLI and the desktop app do: the store under `home`, and the embedding
 * model when the command needs one. A missing model is a warning, never a failure: search falls back
 * to keywords.
 */
export async function openDefaultEngine(o: DefaultEngineOptions): Promise<Engine> {
  try {
    return await openWithModel(o);
  } catch (e) {
    // Before the store took it over (a model that failed to load): the lock is still ours to give back.
    o.lock?.release();
    throw e;
  }
}

/** The embedding model as the command needs it: loaded, looked for, or neither; never a failure for a missing model. */
async function embeddingModel(o: DefaultEngineOptions): Promise<{ embedder: Embedder | null; status: EmbeddingStatus }> {
  const options = modelOptions(o.home, o.env, o.embeddingModel);
  if (o.embeddings === 'auto') {
    const report = o.onModelProgress ? createModelStatusReporter(o.onModelProgress) : null;
    try {
      const embedder = await openEmbedder({ ...options, ...(report ? { onProgress: report.progress } : {}) });
      report?.ready(embedder.modelId);
      return { embedder, status: { available: true, modelId: embedder.modelId, source: 'loaded', reason: null } };
    } catch (e) {
      report?.unavailable(options.modelId ?? DEFAULT_MODEL_ID, e instanceof Error ? e.message : String(e));
      if (!isEmbedError(e)) throw e;
      o.warn(`${e.message}; searching by keywords only`);
      return {
        embedder: null,
        status: { available: false, modelId: options.modelId ?? DEFAULT_MODEL_ID, source: null, reason: e.message },
      };
    }
  }
  const probe = await probeEmbedder(options);
  return {
    embedder: null,
    status: {
      available: probe.available,
      modelId: probe.modelId,
      source: probe.source === 'none' ? null : `${probe.source}: ${probe.location ?? ''}`,
      reason: probe.reason ?? null,
    },
  };
}

async function openWithModel(o: DefaultEngineOptions): Promise<Engine> {
  // The model loads (in its own thread) while the store opens: each took 0.25–0.45 s on its own.
  const model = embeddingModel(o);
  const llm = llmConfigFromEnv(o.env ?? process.env, o.llm);
  if (llm.warning) o.warn(llm.warning);
  const opened = openEngine({
    home: o.home,
    embedder: model.then((m) => m.embedder),
    embeddingStatus: model.then((m) => m.status),
    warn: o.warn,
    llm: llm.config,
    scheduleForgetting: o.scheduleForgetting ?? false,
    ...(o.llmKeyFromHost !== undefined ? { llmKeyFromHost: o.llmKeyFromHost } : {}),
    ...(o.config ? { config: o.config } : {}),
    ...(o.lock ? { lock: o.lock } : {}),
    ...(o.companionHome !== undefined ? { companionHome: o.companionHome } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
  // An engine that did not open lets go of the model it loaded.
  opened.catch(() => model.then((m) => m.embedder?.dispose()).catch(() => {}));
  return opened;
}
