import { z } from 'zod';
import { LlmConfig, type LlmConfigInput } from './config.js';
import { parseReply } from './json.js';
import {
  LlmError,
  type ChatMessage,
  type CompleteRequest,
  type CompleteResult,
  type ConnectionStatus,
  type Llm,
  type LlmDescription,
  type LlmErrorCode,
} from './llm.js';
import { renderPrompt } from './prompts.js';
import { displayUrl, keyHint, redact } from './secrets.js';
import type { UsageEntry, UsageSink } from './usage.js';

/**
 * The OpenAI chat-completions client (POST {baseUrl}/chat/completions, non-streaming), written on
 * global fetch so it needs no dependency. Reply shape used: `choices[0].message.content` and the
 * optional `usage.prompt_tokens` / `usage.completion_tokens` (Ollama, llama.cpp, vLLM, LM Studio and
 * OpenAI all send these).
 */

export interface ClientDeps {
  onUsage?: UsageSink;
  fetch?: typeof fetch;
  /** Injected so tests can see the backoff a 429 asked for without waiting for it. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => Date;
}

// Only the fields we read; everything else a server adds (ids, logprobs, reasoning) is ignored.
const Envelope = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullable().optional(),
});

const ModelList = z.object({ data: z.array(z.object({ id: z.string() })) });

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('LLM_ABORTED', 'cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LlmError('LLM_ABORTED', 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A counting semaphore: at most `n` requests in flight; waiters are served first come, first served. */
function limiter(n: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (active < n) {
        active++;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (!header) return null;
  const s = header.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** Why fetch failed, in a word a person can search for: ECONNREFUSED, ENOTFOUND, "bad port", … */
function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (e as Error).message;
}

interface Reply {
  content: string;
  tokensIn: number | null;
  tokensOut: number | null;
  latencyMs: number;
  status: number;
  attempt: number;
}

export function createOpenAiLlm(input: LlmConfigInput, deps: ClientDeps = {}): Llm {
  const cfg = LlmConfig.parse(input);
  const doFetch = deps.fetch ?? fetch;
  const sleep = deps.sleep ?? defaultSleep;
  const now = deps.now ?? (() => new Date());
  const slots = limiter(cfg.concurrency);
  const base = cfg.baseUrl.replace(/\/+$/, '');
  const shownBase = displayUrl(base);
  const clean = (text: string) => redact(text, [cfg.apiKey]);
  // Learned from the server: once it refuses `response_format`, stop sending it.
  let jsonModeAccepted = cfg.jsonMode === 'json_object';

  const headers = (): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json',
    ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
  });

  async function log(e: Omit<UsageEntry, 'model' | 'at'>): Promise<void> {
    try {
      await deps.onUsage?.({ ...e, model: cfg.model, at: now(), error: e.error === null ? null : clean(e.error) });
    } catch {
      // The usage log must never turn a good answer into a failure.
    }
  }

  function serverMessage(status: number, body: string): string {
    let detail = body.trim();
    try {
      const j = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
      detail = (typeof j.error === 'string' ? j.error : j.error?.message) ?? j.message ?? detail;
    } catch {
      // not JSON: keep the text
    }
    detail = detail.replace(/\s+/g, ' ').slice(0, 300);
    return clean(`${status}${detail ? `: ${detail}` : ''}`);
  }

  /**
   * One logical request with its retries: 429 waits for Retry-After (or backs off), 5xx and refused
   * connections back off exponentially, timeouts and other 4xx fail at once. Every HTTP request is
   * logged; the successful one is returned unlogged so the caller can record whether its JSON held up.
   */
  async function send(
    req: CompleteRequest<unknown>,
    messages: readonly ChatMessage[],
    json: boolean,
    repair: boolean,
    firstAttempt: number,
  ): Promise<Reply> {
    const ownerId = req.ownerId ?? '';
    let attempt = firstAttempt;
    let retries = 0;
    for (;;) {
      if (req.signal?.aborted) throw new LlmError('LLM_ABORTED', `${req.operation}: cancelled`, { operation: req.operation });
      const body = {
        model: cfg.model,
        messages,
        temperature: req.temperature ?? cfg.temperature,
        stream: false,
        ...(cfg.maxTokens ? { max_tokens: cfg.maxTokens } : {}),
        ...(json && jsonModeAccepted ? { response_format: { type: 'json_object' } } : {}),
      };
      await slots.acquire();
      const started = performance.now();
      const ac = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ac.abort();
      }, cfg.timeoutMs);
      const onAbort = () => ac.abort();
      req.signal?.addEventListener('abort', onAbort, { once: true });
      let status: number | null = null;
      let text = '';
      let retryAfter: string | null = null;
      let failure: { code: LlmErrorCode; message: string; retry: boolean } | null = null;
      try {
        const res = await doFetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify(body),
          signal: ac.signal,
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        // The timeout covers the body too: a server can send headers and then stall.
        text = await res.text();
      } catch (e) {
        if (timedOut)
          failure = {
            code: 'LLM_TIMEOUT',
            message: `no reply within ${cfg.timeoutMs} ms (raise timeoutMs / NEMORI_LLM_TIMEOUT_MS for a slow local model)`,
            retry: false,
          };
        else if (req.signal?.aborted) failure = { code: 'LLM_ABORTED', message: 'cancelled', retry: false };
        else
          failure = {
            code: 'LLM_UNAVAILABLE',
            message: `cannot reach ${shownBase} (${networkReason(e)}); is the server running?`,
            retry: true,
          };
      } finally {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        slots.release();
      }
      const latencyMs = Math.round(performance.now() - started);
      const logFailure = (errorCode: LlmErrorCode, error: string) =>
        log({
          ownerId,
          operation: req.operation,
          attempt,
          repair,
          tokensIn: null,
          tokensOut: null,
          latencyMs,
          ok: false,
          status,
          errorCode,
          error,
        });

      if (!failure && status !== null && (status < 200 || status >= 300)) {
        if (status === 400 && json && jsonModeAccepted && /response_format|json_object|json_schema/i.test(text)) {
          // LM Studio and some proxies refuse OpenAI's json_object mode: the prompt already demands JSON,
          // so ask again without it (not counted as a retry) and remember for this client's lifetime.
          jsonModeAccepted = false;
          await logFailure('LLM_REQUEST', `JSON mode refused, retrying without it: ${serverMessage(status, text)}`);
          attempt++;
          continue;
        }
        const msg = serverMessage(status, text);
        if (status === 429) failure = { code: 'LLM_RATE_LIMITED', message: `rate limited (${msg})`, retry: true };
        else if (status >= 500 || status === 408) failure = { code: 'LLM_SERVER', message: `server error ${msg}`, retry: true };
        else if (status === 401 || status === 403)
          failure = { code: 'LLM_AUTH', message: `the endpoint refused the credentials (${msg}); check NEMORI_LLM_API_KEY`, retry: false };
        else if (status === 404)
          failure = {
            code: 'LLM_REQUEST',
            message: `not found (${msg}); check the base URL (it usually ends in /v1) and that model "${cfg.model}" exists`,
            retry: false,
          };
        else failure = { code: 'LLM_REQUEST', message: `the endpoint rejected the request (${msg})`, retry: false };
      }

      if (!failure) {
        let envelope: z.infer<typeof Envelope> | null = null;
        try {
          const parsed = Envelope.safeParse(JSON.parse(text));
          if (parsed.success) envelope = parsed.data;
        } catch {
          // handled below
        }
        const content = envelope?.choices[0]?.message.content;
        if (!envelope || typeof content !== 'string') {
          failure = {
            code: 'LLM_PROTOCOL',
            message: `the reply is not an OpenAI chat completion (${clean(text.slice(0, 120))}); is the base URL an OpenAI-compatible /v1 endpoint?`,
            retry: false,
          };
        } else {
          return {
            content,
            tokensIn: envelope.usage?.prompt_tokens ?? null,
            tokensOut: envelope.usage?.completion_tokens ?? null,
            latencyMs,
            status: status ?? 200,
            attempt,
          };
        }
      }

      await logFailure(failure.code, failure.message);
      if (!failure.retry || retries >= cfg.maxRetries) {
        throw new LlmError(failure.code, `${req.operation}: ${clean(failure.message)}`, {
          operation: req.operation,
          ...(status !== null ? { status } : {}),
          requests: attempt,
        });
      }
      let delay = Math.min(cfg.maxBackoffMs, cfg.backoffMs * 2 ** retries);
      // 429s carry Retry-After, and so do 503s from servers that are loading a model or overloaded.
      if (status === 429 || status === 503) {
        const asked = retryAfterMs(retryAfter, now());
        if (asked !== null && asked > cfg.maxRetryAfterMs)
          throw new LlmError(
            'LLM_RATE_LIMITED',
            `${req.operation}: rate limited; the endpoint asks to wait ${Math.round(asked / 1000)} s, longer than ${Math.round(cfg.maxRetryAfterMs / 1000)} s`,
            { operation: req.operation, status },
          );
        if (asked !== null) delay = asked;
      }
      retries++;
      attempt++;
      await sleep(delay, req.signal);
    }
  }

  async function complete<T>(req: CompleteRequest<T>): Promise<CompleteResult<T>> {
    const ownerId = req.ownerId ?? '';
    const first = await send(req as CompleteRequest<unknown>, req.messages, Boolean(req.json), false, 1);
    const tokens = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));
    const entry = (r: Reply, repair: boolean, ok: boolean, error: string | null): Omit<UsageEntry, 'model' | 'at'> => ({
      ownerId,
      operation: req.operation,
      attempt: r.attempt,
      repair,
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      latencyMs: r.latencyMs,
      ok,
      status: r.status,
      errorCode: ok ? null : 'LLM_BAD_REPLY',
      error,
    });
    if (!req.json) {
      await log(entry(first, false, true, null));
      return {
        value: first.content as T,
        text: first.content,
        usage: { tokensIn: first.tokensIn, tokensOut: first.tokensOut },
        requests: first.attempt,
        model: cfg.model,
      };
    }
    const parsed = parseReply(first.content, req.json);
    if (parsed.ok) {
      await log(entry(first, false, true, null));
      return {
        value: parsed.value,
        text: first.content,
        usage: { tokensIn: first.tokensIn, tokensOut: first.tokensOut },
        requests: first.attempt,
        model: cfg.model,
      };
    }
    await log(entry(first, false, false, parsed.error));
    // One repair: show the model its own answer and what was wrong with it. A second failure is final:
    // more rounds rarely help a model that missed twice and would multiply the cost of every episode.
    const repairMessages: ChatMessage[] = [
      ...req.messages,
      { role: 'assistant', content: first.content.slice(0, 20_000) },
      { role: 'user', content: renderPrompt('repair', { error: parsed.error }) },
    ];
    const second = await send(req as CompleteRequest<unknown>, repairMessages, true, true, first.attempt + 1);
    const usage = { tokensIn: tokens(first.tokensIn, second.tokensIn), tokensOut: tokens(first.tokensOut, second.tokensOut) };
    const repaired = parseReply(second.content, req.json);
    if (repaired.ok) {
      await log(entry(second, true, true, null));
      return { value: repaired.value, text: second.content, usage, requests: second.attempt, model: cfg.model };
    }
    await log(entry(second, true, false, repaired.error));
    throw new LlmError(
      'LLM_BAD_REPLY',
      `${req.operation}: the model's reply did not have the expected shape, even after one repair: ${clean(repaired.error)}`,
      { operation: req.operation, requests: second.attempt },
    );
  }

  async function testConnection(o: { timeoutMs?: number } = {}): Promise<ConnectionStatus> {
    const started = performance.now();
    const ac = new AbortController();
    const timeoutMs = o.timeoutMs ?? Math.min(cfg.timeoutMs, 5_000);
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    const result = (reachable: boolean, modelListed: boolean | null, error: ConnectionStatus['error']): ConnectionStatus => ({
      reachable,
      model: cfg.model,
      modelListed,
      latencyMs: reachable ? Math.round(performance.now() - started) : null,
      error,
    });
    try {
      const res = await doFetch(`${base}/models`, { headers: headers(), signal: ac.signal });
      const text = await res.text();
      if (res.status === 401 || res.status === 403)
        return result(true, null, {
          code: 'LLM_AUTH',
          message: `the endpoint refused the credentials (${serverMessage(res.status, text)})`,
        });
      // Some compatible servers have no model list: they answered, which is what reachability means.
      if (!res.ok) return result(true, null, null);
      let list: z.infer<typeof ModelList> | null = null;
      try {
        const p = ModelList.safeParse(JSON.parse(text));
        if (p.success) list = p.data;
      } catch {
        // not a list
      }
      if (!list) return result(true, null, null);
      // Ollama lists "qwen2.5:7b"; a configured "qwen2.5" means ":latest".
      const ids = new Set(list.data.map((m) => m.id));
      const listed = ids.has(cfg.model) || ids.has(`${cfg.model}:latest`);
      return result(true, listed, listed ? null : { code: 'LLM_REQUEST', message: `the endpoint does not list model "${cfg.model}"` });
    } catch (e) {
      return ac.signal.aborted
        ? result(false, null, { code: 'LLM_TIMEOUT', message: `no answer from ${shownBase} within ${timeoutMs} ms` })
        : result(false, null, { code: 'LLM_UNAVAILABLE', message: clean(`cannot reach ${shownBase} (${networkReason(e)})`) });
    } finally {
      clearTimeout(timer);
    }
  }

  function describe(): LlmDescription {
    return {
      baseUrl: shownBase,
      model: cfg.model,
      temperature: cfg.temperature,
      timeoutMs: cfg.timeoutMs,
      concurrency: cfg.concurrency,
      maxRetries: cfg.maxRetries,
      apiKeySet: Boolean(cfg.apiKey),
      apiKeyHint: keyHint(cfg.apiKey),
    };
  }

  return { model: cfg.model, complete: complete as Llm['complete'], testConnection, describe };
}
