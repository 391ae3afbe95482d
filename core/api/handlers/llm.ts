import { z } from 'zod';
import type { EngineContext } from '../../context/engine-context.js';
import { NemoriError } from '../../domain/errors.js';
import { entityKey } from '../../episodes/entity-names.js';
import { rebuildEpisodesWithLlm } from '../../episodes/rebuild-llm.js';
import { createOpenAiLlm } from '../../llm/client.js';
import { LlmConfig, type LlmConfigInput } from '../../llm/config.js';
import { isLlmError, type Llm } from '../../llm/llm.js';
import { renderPrompt } from '../../llm/prompts.js';
import type { LlmHealth as LlmHealthSchema, LlmSettingsView as LlmSettingsViewSchema } from '../contract.js';
import type { Handlers, HandlerEnv } from '../handler.js';

type LlmSource = 'startup' | 'settings' | 'none';
type LlmHealth = z.infer<typeof LlmHealthSchema>;
type LlmSettingsView = z.infer<typeof LlmSettingsViewSchema>;

/** Where the engine's current LLM came from, per engine context (the contract's settings view says it). */
const sources = new WeakMap<EngineContext, LlmSource>();

/**
 * Engines whose host keeps the API key outside the database (the desktop app encrypts it with the
 * operating system's keychain, Electron safeStorage): the key of this session, never written to the store.
 */
const hostKeys = new WeakMap<EngineContext, { value: string | null }>();

/**
 * - an object: use it (environment, CLI flags or the caller's options), ignoring stored settings;
 * - null: the LLM is off, whatever is stored (`--no-llm`, NEMORI_LLM=off);
 * - undefined: the settings saved through the API decide; none saved means off.
 */
export type LlmOption = LlmConfigInput | null | undefined;

/** The client, with every request written to the usage log of the engine's store. */
function makeLlm(ctx: EngineContext, config: LlmConfigInput): Llm {
  return createOpenAiLlm(config, { onUsage: (u) => ctx.store.transaction((r) => r.llm.logUsage(u)) });
}

function configError(e: z.ZodError): NemoriError {
  const i = e.issues[0]!;
  return new NemoriError('INVALID_INPUT', `LLM settings: ${i.path.join('.') || 'input'}: ${i.message}`);
}

/**
 * Sets `ctx.llm` when the engine opens. A stored configuration that no longer validates is a warning,
 * never a failed start. `hostKey` (a string, or null for none): the host keeps the API key itself.
 */
export async function attachLlm(ctx: EngineContext, option: LlmOption, hostKey?: string | null): Promise<void> {
  ctx.llm = null;
  sources.set(ctx, 'none');
  if (hostKey !== undefined) hostKeys.set(ctx, { value: hostKey });
  if (option === null) return;
  if (option !== undefined) {
    const parsed = LlmConfig.safeParse(option);
    if (!parsed.success) throw configError(parsed.error);
    ctx.llm = makeLlm(ctx, option);
    sources.set(ctx, 'startup');
    return;
  }
  const stored = await ctx.store.read.llm.getSettings();
  if (!stored) return;
  const hosted = hostKeys.get(ctx);
  const parsed = LlmConfig.safeParse(hosted ? { ...stored, apiKey: hosted.value ?? undefined } : stored);
  if (!parsed.success) {
    ctx.warn(
      `the saved LLM settings are not usable (${parsed.error.issues[0]?.message ?? 'invalid'}); the LLM is off until they are saved again`,
    );
    return;
  }
  ctx.llm = makeLlm(ctx, parsed.data);
  sources.set(ctx, 'settings');
}

/** What `health` reports about the LLM: asks for the model list, spends no tokens. */
export async function llmHealth(ctx: EngineContext): Promise<LlmHealth> {
  if (!ctx.llm) return { configured: false, reachable: null, model: null, baseUrl: null, modelListed: null, latencyMs: null, error: null };
  const d = ctx.llm.describe();
  const s = await ctx.llm.testConnection();
  return {
    configured: true,
    reachable: s.reachable,
    model: d.model,
    baseUrl: d.baseUrl,
    modelListed: s.modelListed,
    latencyMs: s.latencyMs,
    error: s.error,
  };
}

function settingsView(ctx: EngineContext): LlmSettingsView {
  const source = sources.get(ctx) ?? 'none';
  if (!ctx.llm)
    return {
      enabled: false,
      source: 'none',
      baseUrl: null,
      model: null,
      temperature: null,
      timeoutMs: null,
      concurrency: null,
      maxRetries: null,
      apiKeySet: false,
      apiKeyHint: null,
    };
  const d = ctx.llm.describe();
  return {
    enabled: true,
    source,
    baseUrl: d.baseUrl,
    model: d.model,
    temperature: d.temperature,
    timeoutMs: d.timeoutMs,
    concurrency: d.concurrency,
    maxRetries: d.maxRetries,
    apiKeySet: d.apiKeySet,
    apiKeyHint: d.apiKeyHint,
  };
}

/** LIKE treats % and _ as wildcards; an entity key may contain either. */
function likePrefix(key: string): string {
  return key.replace(/[\\%_]/g, '\\$&');
}

export function llmHandlers(
  env: HandlerEnv,
): Handlers<'rebuildEpisodes' | 'getLlmSettings' | 'setLlmSettings' | 'llmTest' | 'llmUsage' | 'episodeGraph' | 'listEntities'> {
  const { ctx } = env;
  const { store } = ctx;
  return {
    async rebuildEpisodes(i, opts) {
      // It builds pending messages first, live turns among them: not beside their tail's rebuild.
      return env.live.exclusive(() =>
        rebuildEpisodesWithLlm(ctx, i.ownerId, {
          scope: i.scope,
          onProgress: (done, total) => opts.onProgress?.({ operation: 'rebuildEpisodes', phase: 'rebuild', done, total }),
        }),
      );
    },

    async getLlmSettings() {
      return settingsView(ctx);
    },

    async setLlmSettings(i) {
      if (!i.enabled) {
        await store.transaction((r) => r.llm.putSettings(null));
        ctx.llm = null;
        sources.set(ctx, 'none');
        return settingsView(ctx);
      }
      // Fields left out keep their saved value; the API key is kept unless replaced or removed (null).
      const hosted = hostKeys.get(ctx);
      const saved = { ...(await store.read.llm.getSettings()), ...(hosted?.value ? { apiKey: hosted.value } : {}) };
      const { enabled: _, apiKey, ...rest } = i;
      const next: Record<string, unknown> = { ...saved, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
      if (apiKey === null) delete next.apiKey;
      else if (apiKey !== undefined) next.apiKey = apiKey;
      const parsed = LlmConfig.safeParse(next);
      if (!parsed.success) throw configError(parsed.error);
      if (hosted) {
        // The host encrypted and kept the key; the database gets the rest.
        hosted.value = typeof next.apiKey === 'string' ? next.apiKey : null;
        delete next.apiKey;
      }
      // Stored in the local database (like everything else Nemori keeps); never returned, logged or shown.
      await store.transaction((r) => r.llm.putSettings(next));
      ctx.llm = makeLlm(ctx, parsed.data);
      sources.set(ctx, 'settings');
      if (env.background) for (const ownerId of await store.read.discoveryQueue.ownersWaiting()) env.discovery.kick(ownerId);
      return settingsView(ctx);
    },

    async llmTest() {
      if (!ctx.llm)
        return {
          configured: false,
          ok: false,
          model: null,
          baseUrl: null,
          modelListed: null,
          latencyMs: null,
          tokensIn: null,
          tokensOut: null,
          error: null,
        };
      const d = ctx.llm.describe();
      const base = { configured: true, model: d.model, baseUrl: d.baseUrl };
      const conn = await ctx.llm.testConnection();
      if (!conn.reachable)
        return { ...base, ok: false, modelListed: null, latencyMs: null, tokensIn: null, tokensOut: null, error: conn.error };
      // A real (tiny) completion: proves the model loads and answers JSON, which a model list cannot.
      const started = performance.now();
      try {
        const r = await ctx.llm.complete({
          operation: 'connection-test',
          messages: [{ role: 'user', content: renderPrompt('connection-test', {}) }],
          json: z.object({ ok: z.literal(true) }),
          temperature: 0,
        });
        return {
          ...base,
          ok: true,
          modelListed: conn.modelListed,
          latencyMs: Math.round(performance.now() - started),
          tokensIn: r.usage.tokensIn,
          tokensOut: r.usage.tokensOut,
          error: null,
        };
      } catch (e) {
        if (!isLlmError(e)) throw e;
        return {
          ...base,
          ok: false,
          modelListed: conn.modelListed,
          latencyMs: null,
          tokensIn: null,
          tokensOut: null,
          error: { code: e.code, message: e.message },
        };
      }
    },

    async llmUsage(i) {
      const u = await store.read.llm.usage(i.ownerId, { since: i.since, limit: i.limit, withMachine: i.includeMachineCalls });
      return {
        ownerId: i.ownerId,
        totals: u.totals,
        byOperation: u.byOperation,
        recent: u.recent.map((r) => ({
          at: r.at.toISOString(),
          operation: r.operation,
          model: r.model,
          attempt: r.attempt,
          repair: r.repair,
          tokensIn: r.tokensIn,
          tokensOut: r.tokensOut,
          latencyMs: r.latencyMs,
          ok: r.ok,
          status: r.status,
          errorCode: r.errorCode,
          error: r.error,
        })),
      };
    },

    async episodeGraph(i) {
      const e = await store.read.episodes.get(i.ownerId, i.id);
      if (!e) throw new NemoriError('NOT_FOUND', `no episode ${i.id}`);
      return { episodeId: i.id, ...(await store.read.graph.episodeGraph(i.ownerId, i.id)) };
    },

    async listEntities(i) {
      const key = i.query ? entityKey(i.query) : undefined;
      return { entities: await store.read.graph.entities(i.ownerId, { keyPrefix: key ? likePrefix(key) : undefined, limit: i.limit }) };
    },
  };
}
