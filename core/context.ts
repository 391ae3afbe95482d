import { z } from 'zod';
import type { Embedder } from './embed/embedder.js';
import { SegmentConfig } from './episodes/config.js';
import { RetrievalConfig } from './retrieval/config.js';
import type { Store } from './store/store.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export const EngineConfig = z.object({
  segment: SegmentConfig.default(SegmentConfig.parse({})),
  retrieval: RetrievalConfig.default(RetrievalConfig.parse({})),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

export type Warn = (message: string) => void;

/** The small interfaces every engine module works through; built once by `openEngine`. */
export interface EngineContext {
  store: Store;
  /** Null when no embedding model could be loaded: everything still works, keyword-only. */
  embedder: Embedder | null;
  clock: Clock;
  config: EngineConfig;
  warn: Warn;
}
