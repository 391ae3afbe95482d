import { z } from 'zod';
import { IsoTimestamp } from '../domain/conversation.js';
import { EpisodeDraft, EpisodePatch } from '../domain/episode.js';
import { ForgettingReason } from '../domain/forgetting-reason.js';
import { EpisodeView, MessageView } from './views.js';

export * from './search-contract.js';
import { DateInput, EpisodeFilterInput, Owner, SearchInput, SearchOutput } from './search-contract.js';
import { knowledgeOperations, RunDiscoveryOutput } from './knowledge-contract.js';
import { startupOperations } from './startup-contract.js';
import { companionOperations } from './companion-contract.js';

/**
 * The one contract of the engine: every operation with its input and output schema. The CLI, the
 * Electron IPC bridge, the HTTP bridge and MCP all call through it, and all validate against it.
 */

export const ConversationInput = z.object({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  title: z.string().optional(),
  participants: z.array(z.string()).optional(),
  messages: z
    .array(
      z.object({
        id: z.union([z.string().min(1), z.number()]).transform(String).optional(),
        speaker: z.string().min(1),
        role: z.enum(['user', 'assistant', 'other', 'system']).optional(),
        text: z.string(),
        timestamp: IsoTimestamp,
      }),
    )
    .min(1),
});

export const IngestOutput = z.object({
  conversationId: z.string(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
});

export const ImportFilesInput = z.object({
  ownerId: Owner,
  paths: z.array(z.string().min(1)).min(1),
  format: z.string().optional(),
  /** Which participant is the person (their messages get role `user`); remembered per format. */
  me: z.string().min(1).optional(),
  /** Read and report without storing anything. */
  dryRun: z.boolean().default(false),
  /** IANA zone the exporting device used, for exports that write local times without a zone. */
  timeZone: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'not a time zone Nemori knows; use an IANA name such as Asia/Shanghai or Europe/Berlin')
    .optional(),
});

const ImportError = z.object({ code: z.string(), message: z.string() });
export const ImportFileReport = z.object({
  file: z.string(),
  format: z.string().nullable(),
  conversations: z.number().int(),
  /** Spoken or written messages only: system events, calls and membership changes are `skipped`. */
  messages: z.number().int(),
  skipped: z.number().int(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
  participants: z.array(z.string()),
  me: z.string().nullable(),
  dateRange: z.object({ from: z.string(), to: z.string() }).nullable(),
  warnings: z.array(z.string()),
  error: ImportError.nullable(),
});
export type ImportFileReport = z.infer<typeof ImportFileReport>;
export const ImportFilesOutput = z.object({
  /** The format of every file, or "mixed". */
  format: z.string().nullable(),
  conversations: z.number().int(),
  messages: z.number().int(),
  participants: z.array(z.string()),
  skipped: z.number().int(),
  warnings: z.array(z.string()),
  errors: z.array(ImportError.extend({ file: z.string() })),
  dryRun: z.boolean(),
  files: z.array(ImportFileReport),
  /** The knowledge-discovery phase (null without an LLM, on a dry run, or when nothing new was built). */
  discovery: RunDiscoveryOutput.nullable(),
  /** Stopped by `cancelCall`: what was stored stays (whole conversations); importing again adds the rest. */
  cancelled: z.boolean(),
});
export type ImportFilesOutput = z.infer<typeof ImportFilesOutput>;

export const OwnerInput = z.object({ ownerId: Owner });
export const EpisodeIdInput = z.object({ ownerId: Owner, id: z.string().uuid('not an episode id') });

export const EpisodeDetail = z.object({ episode: EpisodeView, messages: z.array(MessageView) });

export const ListEpisodesInput = EpisodeFilterInput.extend({
  ownerId: Owner,
  limit: z.number().int().min(1).max(1000).default(50),
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor: z.string().optional(),
});
export const ListEpisodesOutput = z.object({ episodes: z.array(EpisodeView), nextCursor: z.string().nullable() });

export const CreateEpisodeInput = z.object({
  ownerId: Owner,
  episode: EpisodeDraft.omit({ temporal: true, builder: true, processingVersion: true, processingStatus: true }).extend({
    start: DateInput,
    end: DateInput.optional(),
    utcOffsetMin: z.number().int().default(0),
  }),
});

export const UpdateEpisodeInput = z.object({ ownerId: Owner, id: z.string().uuid(), patch: EpisodePatch });

export const RebuildInput = z.object({ ownerId: Owner, reembed: z.boolean().default(false) });
export const RebuildOutput = z.object({ episodes: z.number().int(), embedded: z.number().int(), facts: z.number().int(), factsEmbedded: z.number().int() });

export const OwnerStats = z.object({
  ownerId: z.string(),
  conversations: z.number().int(),
  messages: z.number().int(),
  episodes: z.number().int(),
  embedded: z.number().int(),
  lastWrite: z.string().nullable(),
  /** Conversations per source (importer format or `api`), most first: what search can be narrowed to. */
  sources: z.array(z.object({ source: z.string(), conversations: z.number().int() })),
});
export const StatsOutput = z.object({ owners: z.array(OwnerStats) });

/** Whether the configured LLM answers (its model list; no tokens spent). */
export const LlmHealth = z.object({
  configured: z.boolean(),
  /** null when no LLM is configured. */
  reachable: z.boolean().nullable(),
  model: z.string().nullable(),
  baseUrl: z.string().nullable(),
  /** Whether the endpoint lists the model (null when it has no model list or was not reached). */
  modelListed: z.boolean().nullable(),
  latencyMs: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const HealthOutput = z.object({
  ok: z.boolean(),
  home: z.string().nullable(),
  database: z.object({
    status: z.enum(['ok', 'error']),
    schemaVersion: z.number().int(),
    openMs: z.number(),
    sizeBytes: z.number().nullable(),
  }),
  embedding: z.object({
    available: z.boolean(),
    modelId: z.string(),
    source: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  llm: LlmHealth,
  owners: z.array(OwnerStats),
  warnings: z.array(z.string()),
});

// ── Forgetting: seed 002 decay and tiers, seed 001 importance dynamics, seed 000 retention ──

const MemoryKindName = z.enum(['episode', 'semantic']);
const TierName = z.enum(['active', 'archived', 'trash']);
export const MemoryIdInput = z.object({ ownerId: Owner, id: z.string().uuid('not a memory id') });

export const RunForgettingInput = z.object({
  ownerId: Owner,
  /** List what would move where and why; change nothing. */
  dryRun: z.boolean().default(false),
  /** Run as of this date instead of the engine clock (preview the future, or replay). */
  now: DateInput.optional(),
});
export const ForgettingMoveView = z.object({
  kind: MemoryKindName,
  id: z.string(),
  title: z.string(),
  from: TierName,
  to: z.enum(['active', 'archived', 'trash', 'purged']),
  score: z.number(),
  importance: z.number(),
  reason: ForgettingReason,
});
export const RunForgettingOutput = z.object({
  ownerId: z.string(),
  now: z.string(),
  dryRun: z.boolean(),
  evaluated: z.number().int(),
  moved: z.object({ archived: z.number().int(), trashed: z.number().int(), purged: z.number().int(), restored: z.number().int() }),
  importanceUpdated: z.number().int(),
  tiers: z.object({ active: z.number().int(), archived: z.number().int(), trash: z.number().int() }),
  moves: z.array(ForgettingMoveView),
  reembedded: z.number().int(),
  warnings: z.array(z.string()),
});

export const TierListInput = z.object({
  ownerId: Owner,
  limit: z.number().int().min(1).max(1000).default(50),
  cursor: z.string().optional(),
});
export const TierItemView = z.object({
  kind: MemoryKindName,
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  start: z.string().nullable(),
  tier: TierName,
  /** When it moved to this tier. */
  since: z.string().nullable(),
  reason: ForgettingReason.nullable(),
  /** Trash only: when a pass will delete it for good. */
  purgeAfter: z.string().nullable(),
  importance: z.number(),
  recallCount: z.number().int(),
  lastAccessed: z.string().nullable(),
  marked: z.boolean().nullable(),
});
export const TierListOutput = z.object({ items: z.array(TierItemView), nextCursor: z.string().nullable() });

export const RestoreOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  from: TierName,
  tier: z.literal('active'),
  reembedded: z.boolean(),
  warnings: z.array(z.string()),
});
export const PurgeTrashInput = z.object({ ownerId: Owner, ids: z.array(z.string().uuid('not a memory id')).optional() });
export const PurgeTrashOutput = z.object({ purged: z.number().int(), ids: z.array(z.string()) });

export const MarkMemoryInput = z.object({
  ownerId: Owner,
  id: z.string().uuid('not a memory id'),
  /** true = important (exempt from forgetting), false = not important (fades fast), null = no opinion. */
  important: z.boolean().nullable(),
});
export const MarkMemoryOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  marked: z.boolean().nullable(),
  importance: z.number(),
  tier: TierName,
  restored: z.boolean(),
});

export const ForgetAboutInput = z.object({
  ownerId: Owner,
  about: z.string().trim().min(1, 'say what to forget: a name or a keyword').max(200),
  dryRun: z.boolean().default(false),
});
export const ForgetAboutOutput = z.object({
  about: z.string(),
  dryRun: z.boolean(),
  memories: z.array(z.object({ kind: MemoryKindName, id: z.string(), title: z.string(), tier: TierName })),
  messages: z.number().int(),
  conversations: z.number().int(),
});

export const DecayExplanationOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  tier: TierName,
  score: z.number(),
  importance: z.number(),
  baseImportance: z.number(),
  elapsedDays: z.number(),
  recallCount: z.number().int(),
  lastAccessed: z.string().nullable(),
  marked: z.boolean().nullable(),
  exempt: z.boolean(),
  thresholds: z.object({ archive: z.number(), trash: z.number() }),
  /** When the memory would reach each threshold if nobody recalls it (null: never, or already past). */
  projected: z.object({ archive: z.string().nullable(), trash: z.string().nullable() }),
});

// ── LLM (issue 3): settings, connection test, usage log, LLM-built episodes and their knowledge graph ──

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

// ── The app's own settings (issue 7): saved in the store, layered under the host's explicit options ──

export const EngineSettingsView = z.object({
  forgetting: z.object({ enabled: z.boolean(), archiveThreshold: z.number(), trashThreshold: z.number(), trashRetentionDays: z.number() }),
  knowledge: z.object({ maxFacts: z.number().int(), maxTokens: z.number().int() }),
  /** Where everything is kept (null: an in-memory engine). Changed with setDataFolder (startup-contract.ts). */
  dataDir: z.string().nullable(),
});
export const SetEngineSettingsInput = z.object({
  forgetting: EngineSettingsView.shape.forgetting.partial().extend({
    archiveThreshold: z.number().positive().optional(),
    trashThreshold: z.number().positive().optional(),
    trashRetentionDays: z.number().min(0).max(3650).optional(),
  }).optional(),
  knowledge: z.object({ maxFacts: z.number().int().min(1).optional(), maxTokens: z.number().int().min(100).optional() }).optional(),
});
export const BackupInput = z.object({
  /** A folder to write the backup into; default `<data folder>/backups`. */
  folder: z.string().min(1).optional(),
});
export const BackupOutput = z.object({ file: z.string(), bytes: z.number().int(), at: z.string() });

export const operations = {
  search: { input: SearchInput, output: SearchOutput },
  ingestConversation: { input: z.object({ ownerId: Owner, source: z.string().default('api'), conversation: ConversationInput }), output: IngestOutput },
  importFiles: { input: ImportFilesInput, output: ImportFilesOutput },
  getEpisode: { input: EpisodeIdInput, output: EpisodeDetail },
  listEpisodes: { input: ListEpisodesInput, output: ListEpisodesOutput },
  createEpisode: { input: CreateEpisodeInput, output: EpisodeView },
  updateEpisode: { input: UpdateEpisodeInput, output: EpisodeView },
  deleteEpisode: { input: EpisodeIdInput, output: z.object({ deleted: z.literal(true) }) },
  rebuildIndexes: { input: RebuildInput, output: RebuildOutput },
  stats: { input: z.object({ ownerId: z.string().optional() }), output: StatsOutput },
  health: { input: z.object({}), output: HealthOutput },
  runForgetting: { input: RunForgettingInput, output: RunForgettingOutput },
  listArchive: { input: TierListInput, output: TierListOutput },
  restoreFromArchive: { input: MemoryIdInput, output: RestoreOutput },
  listTrash: { input: TierListInput, output: TierListOutput },
  restoreFromTrash: { input: MemoryIdInput, output: RestoreOutput },
  purgeTrash: { input: PurgeTrashInput, output: PurgeTrashOutput },
  markMemory: { input: MarkMemoryInput, output: MarkMemoryOutput },
  explainDecay: { input: MemoryIdInput, output: DecayExplanationOutput },
  forgetAbout: { input: ForgetAboutInput, output: ForgetAboutOutput },
  rebuildEpisodes: { input: RebuildEpisodesInput, output: RebuildEpisodesOutput },
  getLlmSettings: { input: z.object({}), output: LlmSettingsView },
  setLlmSettings: { input: SetLlmSettingsInput, output: LlmSettingsView },
  llmTest: { input: z.object({}), output: LlmTestOutput },
  llmUsage: { input: LlmUsageInput, output: LlmUsageOutput },
  episodeGraph: { input: EpisodeIdInput, output: EpisodeGraphOutput },
  listEntities: { input: ListEntitiesInput, output: ListEntitiesOutput },
  ...knowledgeOperations,
  ...startupOperations,
  ...companionOperations,
  getEngineSettings: { input: z.object({}), output: EngineSettingsView },
  setEngineSettings: { input: SetEngineSettingsInput, output: EngineSettingsView },
  backup: { input: BackupInput, output: BackupOutput },
  /** Stops a running call by the id its caller gave it (an import stops after the conversation it is on). */
  cancelCall: { input: z.object({ callId: z.string().min(1) }), output: z.object({ cancelled: z.boolean() }) },
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OpOutput<K extends OperationName> = z.infer<Operations[K]['output']>;
