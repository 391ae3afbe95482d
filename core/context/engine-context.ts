import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { SegmentConfig } from './segment-config.js';
import { LlmEpisodeConfig } from './llm-episodes-config.js';
import { ForgettingConfig } from './forgetting-config.js';
import type { Llm } from '../llm/llm.js';
import { RetrievalConfig } from './retrieval-config.js';
import { FactsConfig } from './facts-config.js';
import { PrivacyConfig } from './privacy-config.js';
import type { Store } from '../store/store.js';
import { WatchConfig } from './watch-config.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export const EngineConfig = z.object({
  segment: SegmentConfig.default(SegmentConfig.parse({})),
  retrieval: RetrievalConfig.default(RetrievalConfig.parse({})),
  forgetting: ForgettingConfig.default(ForgettingConfig.parse({})),
  llmEpisodes: LlmEpisodeConfig.default(LlmEpisodeConfig.parse({})),
  semantic: FactsConfig.default(FactsConfig.parse({})),
  privacy: PrivacyConfig.default(PrivacyConfig.parse({})),
  watch: WatchConfig.default(WatchConfig.parse({})),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

export type Warn = (message: string) => void;

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Layers configuration: `over` wins field by field, nested objects merged (saved settings under explicit options). */
export function layerConfig(under: Plain, over: Plain): Plain {
  const out: Plain = { ...under };
  for (const [k, v] of Object.entries(over)) out[k] = isPlain(v) && isPlain(out[k]) ? layerConfig(out[k] as Plain, v) : v;
  return out;
}

/** The store key of the settings a person changes in the app (forgetting, knowledge capacity). */
export const ENGINE_SETTINGS_KEY = 'engine';

/** The small interfaces every engine module works through; built once by `openEngine`. */
export interface EngineContext {
  store: Store;
  /** Null when no embedding model could be loaded: everything still works, keyword-only. */
  embedder: Embedder | null;
  /**
   * Null unless an LLM is configured (settings, environment or flags): episodes are then built by the
   * heuristic builder and nothing leaves the machine. Replaced in place when the settings change.
   */
  llm: Llm | null;
  clock: Clock;
  config: EngineConfig;
  warn: Warn;
}
