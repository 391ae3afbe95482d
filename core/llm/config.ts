import { z } from 'zod';

/** Ollama's OpenAI-compatible endpoint on this machine: the default when only a model is named. */
export const OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

/**
 * How to reach an OpenAI-compatible chat-completions endpoint. The LLM is off unless a model is
 * configured (API/settings, environment or CLI flags): Nemori never makes a network call nobody asked for.
 */
export const LlmConfig = z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'the LLM base URL must be an http(s) URL, e.g. http://127.0.0.1:11434/v1' })
    .default(OLLAMA_BASE_URL),
  model: z.string().trim().min(1, 'name the LLM model, e.g. qwen2.5:7b'),
  /** Sent as `Authorization: Bearer …`; local servers need none. Never logged, never echoed back. */
  apiKey: z.string().min(1).optional(),
  /** Low by default: memory building wants faithful, repeatable output, not creativity. */
  temperature: z.number().min(0).max(2).default(0.2),
  /** Per HTTP request. Local models on a laptop can need a minute or two for a long episode. */
  timeoutMs: z.number().int().positive().default(120_000),
  /** Requests in flight at once; local servers usually run one or two generations in parallel. */
  concurrency: z.number().int().min(1).max(32).default(2),
  /** Retries after a 429, a 5xx or a refused connection (not after a timeout: a reply that slow will be slow again). */
  maxRetries: z.number().int().min(0).max(10).default(3),
  /** First backoff delay; doubled on every retry, capped at `maxBackoffMs`. */
  backoffMs: z.number().int().min(0).default(1_000),
  maxBackoffMs: z.number().int().min(0).default(30_000),
  /** A Retry-After longer than this fails the call at once instead of stalling an import. */
  maxRetryAfterMs: z.number().int().min(0).default(120_000),
  /**
   * `json_object` asks the server for JSON mode (`response_format`); servers that refuse it (LM Studio
   * accepts only `json_schema`) are detected on the first 400 and asked in the prompt only from then on.
   * `prompt` never sends `response_format`.
   */
  jsonMode: z.enum(['json_object', 'prompt']).default('json_object'),
  maxTokens: z.number().int().positive().optional(),
});
export type LlmConfig = z.infer<typeof LlmConfig>;
export type LlmConfigInput = z.input<typeof LlmConfig>;

/** What the environment and CLI flags may say about the LLM. */
export interface LlmOverrides {
  baseUrl?: string | undefined;
  model?: string | undefined;
  apiKey?: string | undefined;
  /** `--no-llm` / NEMORI_LLM=off: ignore every other setting, stored ones included. */
  off?: boolean | undefined;
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The LLM configuration from CLI flags over the environment (`NEMORI_LLM_BASE_URL`, `NEMORI_LLM_MODEL`,
 * `NEMORI_LLM_API_KEY`, and the tuning knobs `NEMORI_LLM_TEMPERATURE`, `NEMORI_LLM_TIMEOUT_MS`,
 * `NEMORI_LLM_CONCURRENCY`). Returns `null` when the LLM is switched off, `undefined` when neither says
 * anything (the stored settings then decide), and a warning when a setting cannot work on its own.
 */
export function llmConfigFromEnv(
  env: NodeJS.ProcessEnv,
  flags: LlmOverrides = {},
): { config: LlmConfigInput | null | undefined; warning: string | null } {
  if (flags.off || /^(off|0|false|none)$/i.test(env.NEMORI_LLM ?? '')) return { config: null, warning: null };
  const baseUrl = flags.baseUrl ?? (env.NEMORI_LLM_BASE_URL || undefined);
  const model = flags.model ?? (env.NEMORI_LLM_MODEL || undefined);
  const apiKey = flags.apiKey ?? (env.NEMORI_LLM_API_KEY || undefined);
  if (!model) {
    const warning =
      baseUrl || apiKey ? 'an LLM endpoint is set but no model: set NEMORI_LLM_MODEL (or --llm-model); the LLM stays off' : null;
    return { config: undefined, warning };
  }
  const config: LlmConfigInput = { model };
  if (baseUrl) config.baseUrl = baseUrl;
  if (apiKey) config.apiKey = apiKey;
  const temperature = num(env.NEMORI_LLM_TEMPERATURE);
  const timeoutMs = num(env.NEMORI_LLM_TIMEOUT_MS);
  const concurrency = num(env.NEMORI_LLM_CONCURRENCY);
  if (temperature !== undefined) config.temperature = temperature;
  if (timeoutMs !== undefined) config.timeoutMs = timeoutMs;
  if (concurrency !== undefined) config.concurrency = concurrency;
  return { config, warning: null };
}
