import type { LlmErrorCode } from './llm.js';

/**
 * One HTTP request to the LLM, as the usage log records it (kept in the DB, not in a file).
 * A call that retried or was repaired leaves one entry per request, so tokens and time add up honestly.
 */
export interface UsageEntry {
  /** '' for machine-level calls (connection tests) that do not work on anyone's memory. */
  ownerId: string;
  operation: string;
  model: string;
  /** 1 for the first request of a call, 2… for retries; the repair request continues the count. */
  attempt: number;
  /** True for the repair request that sent a validation error back. */
  repair: boolean;
  tokensIn: number | null;
  tokensOut: number | null;
  latencyMs: number;
  ok: boolean;
  /** HTTP status, null when no response arrived. */
  status: number | null;
  errorCode: LlmErrorCode | null;
  /** Already redacted: never contains the API key. */
  error: string | null;
  at: Date;
}

/** Where the client reports each request; the engine writes them to the store. Must not throw. */
export type UsageSink = (entry: UsageEntry) => void | Promise<void>;
