import type { z } from 'zod';
import type { EngineContext } from '../context/engine-context.js';
import type { DiscoveryJobs } from '../jobs/discovery-runner.js';
import type { FolderWatcher } from '../ingest/watched-folder.js';
import type { LiveBuilding } from '../jobs/live-building.js';
import type { Retelling } from '../jobs/retelling.js';
import type { Progress } from '../jobs/progress.js';
import type { operations, OperationName, OpOutput } from './contract.js';

/** Progress of a call, named by its operation. */
export interface ProgressEvent extends Progress {
  operation: OperationName;
}

export type { ProgressFacts } from '../jobs/progress.js';
export type { ImportStage } from '../ingest/import-progress.js';

export interface CallOptions {
  onProgress?: (e: ProgressEvent) => void;
  /** Names the call so `cancelCall` can stop it (the bridges use their own call ids). */
  callId?: string;
  /**
   * Handlers get the engine's own signal for every call: aborted by `cancelCall`, when the engine closes,
   * or when the signal the caller passed here aborts.
   */
  signal?: AbortSignal;
}

export interface EmbeddingStatus {
  available: boolean;
  modelId: string;
  source: string | null;
  reason: string | null;
}

/** What handlers get besides their input: the engine context and what the engine was opened with. */
export interface HandlerEnv {
  ctx: EngineContext;
  /** Knowledge discovery, one run per owner at a time (core/jobs/discovery-runner.ts). */
  discovery: DiscoveryJobs;
  /** Live memory's tail building (core/jobs/live-building.ts), behind `addMemory`. */
  live: LiveBuilding;
  /** A long-running host (the app, `nemori web`): background work starts by itself, not only on request. */
  background: boolean;
  /** Bringing stored memory up to today's rules, in a long-running host (null elsewhere: `nemori rebuild` does it). */
  retelling: Retelling | null;
  /** The configuration the host opened the engine with; saved settings lie under it. */
  explicitConfig: Record<string, unknown>;
  embeddingStatus: EmbeddingStatus;
  /** The data folder a companion's `nemori mcp` entry names with `--home` (null: none, the folder `nemori` finds by itself). */
  companionHome: string | null;
  /** The watched folder's importer: only in a long-running host (null: the setting is saved, nothing watches). */
  watcher: FolderWatcher | null;
  /** Where this folder's holder serves `/mcp` on loopback (null: no such service, e.g. a test engine). */
  mcpAddress: () => { port: number; token: string } | null;
}

export type Handler<K extends OperationName> = (input: z.infer<(typeof operations)[K]['input']>, o: CallOptions) => Promise<OpOutput<K>>;
export type Handlers<K extends OperationName = OperationName> = { [P in K]: Handler<P> };
