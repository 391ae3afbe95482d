import type { z } from 'zod';

/**
 * The seam every module uses to ask a language model something (an LLM provider, made small):
 * one `complete` that can demand a typed JSON reply, and a connection check for `health`.
 * Implementations: the OpenAI chat-completions client (core/llm/client.ts), which covers Ollama,
 * LM Studio, llama.cpp server, vLLM, OpenAI, DeepSeek and other compatible endpoints.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface CompleteRequest<T> {
  /** What the call is for, as recorded in the usage log: `episode.boundaries`, `episode.narrative`, … */
  operation: string;
  /** Whose memory the call works on (usage log scoping); omitted for machine-level calls such as a connection test. */
  ownerId?: string | undefined;
  messages: readonly ChatMessage[];
  /** When given, the reply must be JSON that this schema accepts; it is parsed, validated and repaired once. */
  json?: z.ZodType<T> | undefined;
  /** Overrides the configured temperature for this call. */
  temperature?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface TokenUsage {
  /** From the reply's `usage` block; null when the server does not report it. */
  tokensIn: number | null;
  tokensOut: number | null;
}

export interface CompleteResult<T> {
  value: T;
  /** The raw reply text of the accepted answer. */
  text: string;
  /** Summed over every HTTP request this call made (retries, repair). */
  usage: TokenUsage;
  /** HTTP requests made, including retries and the repair request. */
  requests: number;
  model: string;
}

export interface ConnectionStatus {
  reachable: boolean;
  model: string;
  /** Whether the server lists the configured model (null when it has no model list). */
  modelListed: boolean | null;
  latencyMs: number | null;
  error: { code: LlmErrorCode; message: string } | null;
}

/** What may be shown about the configuration: never the API key itself. */
export interface LlmDescription {
  baseUrl: string;
  model: string;
  temperature: number;
  timeoutMs: number;
  concurrency: number;
  maxRetries: number;
  apiKeySet: boolean;
  /** The key's last four characters, so a person can tell which key is in use. */
  apiKeyHint: string | null;
}

export interface Llm {
  readonly model: string;
  complete<T>(req: CompleteRequest<T> & { json: z.ZodType<T> }): Promise<CompleteResult<T>>;
  complete(req: CompleteRequest<string> & { json?: undefined }): Promise<CompleteResult<string>>;
  /** Asks the server for its model list: cheap, spends no tokens, answers "is it there and does it know the model". */
  testConnection(o?: { timeoutMs?: number }): Promise<ConnectionStatus>;
  describe(): LlmDescription;
}

/**
 * - LLM_UNAVAILABLE: the endpoint could not be reached (refused, DNS, reset), after retries.
 * - LLM_TIMEOUT: no complete reply within the timeout.
 * - LLM_RATE_LIMITED: 429 after every retry, or a Retry-After longer than we are willing to wait.
 * - LLM_SERVER: 5xx after every retry.
 * - LLM_AUTH: 401/403 — the API key is missing or wrong.
 * - LLM_REQUEST: another 4xx (unknown model, bad request).
 * - LLM_PROTOCOL: a 2xx whose body is not a chat-completions reply.
 * - LLM_BAD_REPLY: the reply was not JSON of the expected shape, even after one repair.
 * - LLM_ABORTED: the caller cancelled.
 */
export type LlmErrorCode =
  | 'LLM_UNAVAILABLE'
  | 'LLM_TIMEOUT'
  | 'LLM_RATE_LIMITED'
  | 'LLM_SERVER'
  | 'LLM_AUTH'
  | 'LLM_REQUEST'
  | 'LLM_PROTOCOL'
  | 'LLM_BAD_REPLY'
  | 'LLM_ABORTED';

/** Codes that mean "the endpoint is not answering": callers stop asking for the rest of a run. */
const TRANSPORT: ReadonlySet<LlmErrorCode> = new Set([
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_RATE_LIMITED',
  'LLM_SERVER',
  'LLM_AUTH',
  'LLM_REQUEST',
  'LLM_PROTOCOL',
  'LLM_ABORTED',
]);

/** A failed LLM call. Messages are written for a person and never contain the API key. */
export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly details: { operation?: string; status?: number; requests?: number } = {},
  ) {
    super(message);
    this.name = 'LlmError';
  }

  /** True when retrying later (not rephrasing) is what would help: the endpoint, not the answer, failed. */
  get endpointFailed(): boolean {
    return TRANSPORT.has(this.code);
  }
}

export function isLlmError(e: unknown): e is LlmError {
  return e instanceof LlmError;
}
