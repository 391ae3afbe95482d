import type { z } from 'zod';
import type { EngineContext } from '../context/engine-context.js';
import type { DiscoveryJobs } from '../jobs/discovery-runner.js';
import type { operations, OperationName, OpOutput } from './contract.js';

export interface ProgressEvent {
  operation: OperationName;
  phase: string;
  done: number;
  total: number;
  facts?: ProgressFacts;
}

/** Facts about a step as data, for each window (or the CLI) to put in its own words and language. */
export interface ProgressFacts {
  /** The file being read: its name, its place in the batch (from 1), and how many there are. */
  file?: { name: string; index: number; count: number };
  /** Episodes built so far. */
  episodes?: number;
  /** No embedding model: episodes are found by their words only, and there is nothing to embed. */
  keywordOnly?: true;
}

/**
 * importFiles' phases, in the order the work flows: messages stored, messages gathered into episodes,
 * episodes embedded, then knowledge discovery (only with an LLM). The first three advance together,
 * conversation by conversation.
 */
export type ImportStage = 'import' | 'episodes' | 'embeddings' | 'discovery';

export interface CallOptions {
  onProgress?: (e: ProgressEvent) => void;
  /** Names the call so `cancelCall` can stop it (the bridges use their own call ids). */
  callId?: string;
  /** Set by the engine for every call: aborted by `cancelCall` or when the engine closes. */
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
  /** Knowledge discovery, one run per owner at a time (core/semantic/jobs.ts). */
  discovery: DiscoveryJobs;
  /** A long-running host (the app, `nemori web`): background work starts by itself, not only on request. */
  background: boolean;
  /** The configuration the host opened the engine with; saved settings lie under it. */
  explicitConfig: Record<string, unknown>;
  embeddingStatus: EmbeddingStatus;
}

export type Handler<K extends OperationName> = (input: z.infer<(typeof operations)[K]['input']>, o: CallOptions) => Promise<OpOutput<K>>;
export type Handlers<K extends OperationName = OperationName> = { [P in K]: Handler<P> };
