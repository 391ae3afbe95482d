import { z } from 'zod';
import { IsoTimestamp } from '../domain/conversation.js';
import { EpisodeDraft, EpisodePatch, EpisodeType } from '../domain/episode.js';
import { SearchMode } from '../retrieval/search.js';
import { EpisodeView, MessageView } from './views.js';

/**
 * The one contract of the engine: every operation with its input and output schema. The CLI, the
 * Electron IPC bridge, the HTTP bridge and MCP all call through it, and all validate against it.
 */

export const DEFAULT_OWNER = 'default';
const Owner = z.string().min(1).max(200).default(DEFAULT_OWNER);
const DateInput = z.union([z.date(), z.string().min(1)]).transform((v, ctx) => {
  const d = v instanceof Date ? v : new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${String(v)} (use YYYY-MM-DD or ISO 8601)` });
    return z.NEVER;
  }
  return d;
});

export const EpisodeFilterInput = z.object({
  since: DateInput.optional(),
  until: DateInput.optional(),
  episodeTypes: z.array(EpisodeType).optional(),
  minImportance: z.number().min(0).max(1).optional(),
});

export const SearchInput = EpisodeFilterInput.extend({
  ownerId: Owner,
  query: z.string().min(1, 'the search text is empty'),
  mode: SearchMode.default('hybrid'),
  limit: z.number().int().min(1).max(500).default(10),
  /** A companion recalling memories for a conversation counts as access (seed 001); browsing does not. */
  markAccessed: z.boolean().default(false),
});

export const SearchResultItem = z.object({
  kind: z.literal('episode'),
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  /** What would be handed to an LLM: the episode's full text. */
  text: z.string(),
  start: z.string(),
  end: z.string(),
  score: z.number(),
  scores: z.object({ bm25: z.number().nullable(), vector: z.number().nullable() }),
  reason: z.object({
    matchedBy: z.array(z.enum(['bm25', 'vector'])),
    terms: z.array(z.string()),
    explanation: z.string(),
  }),
  sources: z.array(MessageView.pick({ id: true, externalId: true, speaker: true, sentAt: true })),
});
export type SearchResultItem = z.infer<typeof SearchResultItem>;

export const SearchOutput = z.object({
  query: z.string(),
  mode: SearchMode,
  results: z.array(SearchResultItem),
  warnings: z.array(z.string()),
  tookMs: z.number(),
});

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
});

export const ImportFileReport = z.object({
  file: z.string(),
  format: z.string().nullable(),
  conversations: z.number().int(),
  messages: z.number().int(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
  participants: z.array(z.string()),
  warnings: z.array(z.string()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export const ImportFilesOutput = z.object({ files: z.array(ImportFileReport) });
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
export const RebuildOutput = z.object({ episodes: z.number().int(), embedded: z.number().int() });

export const OwnerStats = z.object({
  ownerId: z.string(),
  conversations: z.number().int(),
  messages: z.number().int(),
  episodes: z.number().int(),
  embedded: z.number().int(),
  lastWrite: z.string().nullable(),
});
export const StatsOutput = z.object({ owners: z.array(OwnerStats) });

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
  reason: z.string(),
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
  reason: z.string().nullable(),
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
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OpOutput<K extends OperationName> = z.infer<Operations[K]['output']>;
