import { z } from 'zod';
import { EpisodeIdInput } from './episodes-contract.js';
import { DateInput, Owner } from './search-contract.js';

/** The LLM: its settings, connection test, usage log, LLM-built episodes and their knowledge graph. */

export const RebuildEpisodesInput = z.object({
  ownerId: Owner,
  /** The only rebuild there is: with the configured LLM. */
  llm: z.literal(true).default(true),
  /** `needs_rebuild`: the stand-ins built while the LLM failed; `heuristic`: every episode built without an LLM. */
  scope: z.enum(['needs_rebuild', 'heuristic']).default('needs_rebuild'),
});
export const RebuildEpisodesOutput = z.object({
  pendingBuilt: z.number().int(),
  groups: z.number().int(),
  upgraded: z.number().int(),
  failed: z.number().int(),
  episodesReplaced: z.number().int(),
  episodesCreated: z.number().int(),
  remaining: z.number().int(),
  llmCalls: z.number().int(),
  stoppedEarly: z.boolean(),
  errors: z.array(z.string()),
});

/** The LLM configuration as it may be shown: the API key only as "set" and its last characters. */
export const LlmSettingsView = z.object({
  enabled: z.boolean(),
  /** `startup`: environment / CLI flags / engine options (they win over stored settings); `settings`: saved through the API. */
  source: z.enum(['startup', 'settings', 'none']),
  baseUrl: z.string().nullable(),
  model: z.string().nullable(),
  temperature: z.number().nullable(),
  timeoutMs: z.number().nullable(),
  concurrency: z.number().nullable(),
  maxRetries: z.number().nullable(),
  apiKeySet: z.boolean(),
  apiKeyHint: z.string().nullable(),
});
export const SetLlmSettingsInput = z.object({
  /** false switches the LLM off (and forgets the stored settings). */
  enabled: z.boolean().default(true),
  baseUrl: z.string().optional(),
  model: z.string().optional(),
  /** Omitted keeps the stored key, null removes it. */
  apiKey: z.string().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).optional(),
  timeoutMs: z.number().int().positive().optional(),
  concurrency: z.number().int().min(1).max(32).optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  backoffMs: z.number().int().min(0).optional(),
  /** `prompt` for servers that refuse OpenAI's JSON mode (detected automatically on the first refusal). */
  jsonMode: z.enum(['json_object', 'prompt']).optional(),
  maxTokens: z.number().int().positive().optional(),
});
export const LlmTestOutput = z.object({
  configured: z.boolean(),
  ok: z.boolean(),
  model: z.string().nullable(),
  baseUrl: z.string().nullable(),
  modelListed: z.boolean().nullable(),
  latencyMs: z.number().nullable(),
  tokensIn: z.number().nullable(),
  tokensOut: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

const UsageTotalsView = z.object({
  requests: z.number().int(),
  ok: z.number().int(),
  failed: z.number().int(),
  tokensIn: z.number().int(),
  tokensOut: z.number().int(),
  latencyMs: z.number(),
});
export const LlmUsageInput = z.object({
  ownerId: Owner,
  /** Also count the machine-level calls (connection tests) that work on nobody's memory. */
  includeMachineCalls: z.boolean().default(false),
  since: DateInput.optional(),
  limit: z.number().int().min(0).max(1000).default(20),
});
export const LlmUsageOutput = z.object({
  ownerId: z.string(),
  totals: UsageTotalsView,
  byOperation: z.array(UsageTotalsView.extend({ operation: z.string(), model: z.string() })),
  recent: z.array(
    z.object({
      at: z.string(),
      operation: z.string(),
      model: z.string(),
      attempt: z.number().int(),
      repair: z.boolean(),
      tokensIn: z.number().nullable(),
      tokensOut: z.number().nullable(),
      latencyMs: z.number(),
      ok: z.boolean(),
      status: z.number().nullable(),
      errorCode: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});

const EntityRefView = z.object({ id: z.string(), name: z.string(), type: z.string() });
export const EpisodeGraphOutput = z.object({
  episodeId: z.string(),
  entities: z.array(EntityRefView.extend({ role: z.string().nullable(), aliases: z.array(z.string()) })),
  relationships: z.array(z.object({ subject: EntityRefView, predicate: z.string(), object: EntityRefView })),
});
export const ListEntitiesInput = z.object({
  ownerId: Owner,
  /** Matches the start of any name or alias, case- and width-insensitively. */
  query: z.string().optional(),
  limit: z.number().int().min(1).max(1000).default(50),
});
export const ListEntitiesOutput = z.object({
  entities: z.array(EntityRefView.extend({ aliases: z.array(z.string()), episodes: z.number().int() })),
});

export const llmOperations = {
  rebuildEpisodes: { input: RebuildEpisodesInput, output: RebuildEpisodesOutput },
  getLlmSettings: { input: z.object({}), output: LlmSettingsView },
  setLlmSettings: { input: SetLlmSettingsInput, output: LlmSettingsView },
  llmTest: { input: z.object({}), output: LlmTestOutput },
  llmUsage: { input: LlmUsageInput, output: LlmUsageOutput },
  episodeGraph: { input: EpisodeIdInput, output: EpisodeGraphOutput },
  listEntities: { input: ListEntitiesInput, output: ListEntitiesOutput },
} as const;
