import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAiLlm, retryAfterMs, type ClientDeps } from '../../core/llm/client.js';
import { llmConfigFromEnv, type LlmConfigInput } from '../../core/llm/config.js';
import { extractJson } from '../../core/llm/json.js';
import { isLlmError, type LlmError } from '../../core/llm/llm.js';
import type { UsageEntry } from '../../core/llm/usage.js';
import { closedPortUrl, startLlmServer, type LlmServer } from '../helpers/llm-server.js';

let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer({ model: 'test-model' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const Answer = z.object({ answer: z.number() });
const ask = {
  operation: 'test.ask',
  ownerId: 'o1',
  messages: [{ role: 'user' as const, content: 'Task: answer. What is 6 × 7?' }],
  json: Answer,
};

/** A client against the scripted server with short timeouts; sleeps are recorded, not waited. */
function client(extra: Partial<LlmConfigInput> = {}, deps: ClientDeps = {}) {
  const usage: UsageEntry[] = [];
  const sleeps: number[] = [];
  const llm = createOpenAiLlm(
    { baseUrl: server.url, model: 'test-model', timeoutMs: 10_000, backoffMs: 5, maxRetries: 2, ...extra },
    { onUsage: (u) => void usage.push(u), sleep: async (ms) => void sleeps.push(ms), ...deps },
  );
  return { llm, usage, sleeps };
}

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    if (isLlmError(e)) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

describe('the OpenAI-compatible client', () => {
  it('sends a chat completion in JSON mode and returns the validated value with its token usage', async () => {
    server.on('Task: answer', { json: { answer: 42 }, usage: { prompt_tokens: 31, completion_tokens: 7 } });
    const { llm, usage } = client({ apiKey: 'sk-test-secret-key-123456' });
    const r = await llm.complete(ask);
    expect(r.value).toEqual({ answer: 42 });
    expect(r.usage).toEqual({ tokensIn: 31, tokensOut: 7 });
    const [req] = server.chats();
    expect(req!.body).toMatchObject({ model: 'test-model', temperature: 0.2, response_format: { type: 'json_object' } });
    expect(req!.headers.authorization).toBe('Bearer sk-test-secret-key-123456');
    expect(usage).toEqual([
      expect.objectContaining({
        ownerId: 'o1',
        operation: 'test.ask',
        model: 'test-model',
        attempt: 1,
        ok: true,
        tokensIn: 31,
        tokensOut: 7,
        status: 200,
      }),
    ]);
  });

  it('accepts JSON wrapped in code fences or after a thinking block', () => {
    expect(extractJson('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(extractJson('<think>hmm {"no":0}</think>\nSure! {"a":1}')).toBe('{"a":1}');
  });

  it('repairs a malformed reply once, sending the validation error back', async () => {
    server.on('Task: answer', { content: 'The answer is forty-two.' }, 1).on('Task: answer', { json: { answer: 42 } });
    const { llm, usage } = client();
    const r = await llm.complete(ask);
    expect(r.value.answer).toBe(42);
    expect(r.requests).toBe(2);
    const repair = server.chats()[1]!.body!.messages!;
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: 'The answer is forty-two.' });
    expect(repair.at(-1)!.content).toMatch(/Task: repair-json[\s\S]*not valid JSON/);
    expect(usage.map((u) => [u.ok, u.repair, u.errorCode])).toEqual([
      [false, false, 'LLM_BAD_REPLY'],
      [true, true, null],
    ]);
  });

  it('gives up with a typed failure when the repair is still wrong', async () => {
    server.on('Task: answer', { json: { answer: 'forty-two' } });
    const { llm, usage } = client();
    const e = await failure(llm.complete(ask));
    expect(e.code).toBe('LLM_BAD_REPLY');
    expect(e.message).toMatch(/answer: .*expected number/);
    expect(e.endpointFailed).toBe(false);
    expect(server.chats()).toHaveLength(2);
    expect(usage.every((u) => !u.ok)).toBe(true);
  });

  it('waits as long as Retry-After asks after a 429, then succeeds', async () => {
    server.on('Task: answer', { status: 429, headers: { 'retry-after': '2' } }, 1).on('Task: answer', { json: { answer: 42 } });
    const { llm, sleeps, usage } = client();
    expect((await llm.complete(ask)).value.answer).toBe(42);
    expect(sleeps).toEqual([2000]);
    expect(usage.map((u) => [u.attempt, u.status, u.errorCode])).toEqual([
      [1, 429, 'LLM_RATE_LIMITED'],
      [2, 200, null],
    ]);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', new Date('2015-10-21T07:28:00Z'))).toBe(30_000);
  });

  it('backs off exponentially on 5xx and fails as LLM_SERVER when it persists', async () => {
    server.on('Task: answer', { status: 500 });
    const { llm, sleeps } = client({ backoffMs: 100, maxRetries: 3 });
    const e = await failure(llm.complete(ask));
    expect(e.code).toBe('LLM_SERVER');
    expect(e.endpointFailed).toBe(true);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(server.chats()).toHaveLength(4);
  });

  it('fails fast when Retry-After is longer than it is willing to wait', async () => {
    server.on('Task: answer', { status: 429, headers: { 'retry-after': '3600' } });
    const e = await failure(client().llm.complete(ask));
    expect(e.code).toBe('LLM_RATE_LIMITED');
    expect(server.chats()).toHaveLength(1);
  });

  it('times out a reply that never comes, without retrying it', async () => {
    server.on('Task: answer', { hang: true });
    const { llm, usage } = client({ timeoutMs: 300 });
    const e = await failure(llm.complete(ask));
    expect(e.code).toBe('LLM_TIMEOUT');
    expect(server.chats()).toHaveLength(1);
    expect(usage[0]).toMatchObject({ ok: false, errorCode: 'LLM_TIMEOUT', status: null });
  });

  it('reports an unreachable endpoint as LLM_UNAVAILABLE after its retries', async () => {
    const llm = createOpenAiLlm({ baseUrl: await closedPortUrl(), model: 'm', backoffMs: 1, maxRetries: 1 });
    const e = await failure(llm.complete(ask));
    expect(e.code).toBe('LLM_UNAVAILABLE');
    expect(e.message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('never puts the API key in an error or the usage log, even when the server echoes it', async () => {
    const key = 'sk-live-abcdefghijklmnop0123';
    server.on('Task: answer', (req) => ({
      status: 401,
      raw: JSON.stringify({ error: { message: `invalid key ${String(req.headers.authorization)}` } }),
    }));
    const { llm, usage } = client({ apiKey: key });
    const e = await failure(llm.complete(ask));
    expect(e.code).toBe('LLM_AUTH');
    expect(e.message).not.toContain(key);
    expect(JSON.stringify(usage)).not.toContain(key);
    expect(JSON.stringify(llm.describe())).not.toContain(key);
    expect(llm.describe()).toMatchObject({ apiKeySet: true, apiKeyHint: '…0123' });
  });

  it('drops JSON mode for a server that refuses response_format (LM Studio) and asks again', async () => {
    server
      .on((r) => r.body?.response_format !== undefined, {
        status: 400,
        raw: `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`,
      })
      .on('Task: answer', { json: { answer: 42 } });
    const { llm } = client();
    expect((await llm.complete(ask)).value.answer).toBe(42);
    expect((await llm.complete(ask)).value.answer).toBe(42);
    expect(server.chats().map((r) => r.body?.response_format !== undefined)).toEqual([true, false, false]);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const { llm } = client(
      { concurrency: 2 },
      {
        fetch: async (url, init) => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
          return fetch(url, init);
        },
      },
    );
    server.on('Task: answer', { json: { answer: 1 } });
    await Promise.all(Array.from({ length: 6 }, () => llm.complete(ask)));
    expect(most).toBe(2);
    expect(server.chats()).toHaveLength(6);
  });

  it('checks the connection through the model list, spending no tokens', async () => {
    const { llm } = client();
    expect(await llm.testConnection()).toMatchObject({ reachable: true, model: 'test-model', modelListed: true, error: null });
    const other = createOpenAiLlm({ baseUrl: server.url, model: 'missing-model' });
    expect(await other.testConnection()).toMatchObject({ reachable: true, modelListed: false, error: { code: 'LLM_REQUEST' } });
    const down = createOpenAiLlm({ baseUrl: await closedPortUrl(), model: 'm' });
    expect(await down.testConnection()).toMatchObject({ reachable: false, error: { code: 'LLM_UNAVAILABLE' } });
    expect(server.chats()).toHaveLength(0);
  });
});

describe('LLM configuration from the environment and flags', () => {
  it('is off unless a model is named, and defaults to a local Ollama', () => {
    expect(llmConfigFromEnv({}).config).toBeUndefined();
    expect(llmConfigFromEnv({ NEMORI_LLM_BASE_URL: 'http://x/v1' })).toMatchObject({
      config: undefined,
      warning: expect.stringMatching(/NEMORI_LLM_MODEL/),
    });
    expect(llmConfigFromEnv({ NEMORI_LLM_MODEL: 'qwen2.5:7b' }).config).toEqual({ model: 'qwen2.5:7b' });
    expect(
      llmConfigFromEnv(
        { NEMORI_LLM_MODEL: 'a', NEMORI_LLM_API_KEY: 'k', NEMORI_LLM_TIMEOUT_MS: '5000' },
        { model: 'b', baseUrl: 'https://api.example.com/v1' },
      ).config,
    ).toEqual({ model: 'b', baseUrl: 'https://api.example.com/v1', apiKey: 'k', timeoutMs: 5000 });
    expect(llmConfigFromEnv({ NEMORI_LLM_MODEL: 'a', NEMORI_LLM: 'off' }).config).toBeNull();
    expect(llmConfigFromEnv({ NEMORI_LLM_MODEL: 'a' }, { off: true }).config).toBeNull();
  });
});
